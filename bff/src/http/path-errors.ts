// Client errors raised outside the routes that are not about a body: a path the router or the
// static files cannot decode, a `..` the static files refuse, a static file's conditional headers.
// app.ts's last error handler once said every such 4xx was an unreadable body, on a GET that had
// none (QA: `/assets/%E0%A4%A` was "the body could not be read").
import type { Request } from 'express';
import { AppError, fieldRefusal } from '../errors.js';

/** 400 `VALIDATION_FAILED` naming `(path)` with `rule`, saying what is wrong with it. */
function malformedPath(rule: string, why: string): AppError {
  const message = `the path is malformed: ${why}`;
  return fieldRefusal('(path)', rule, message, message);
}

/**
 * The refusal of a request that a 4xx error (`status`) stopped outside the routes, its body
 * aside (body errors are `bodyError`'s): said by what the request got wrong, never the path's
 * text (it may be anything, a card number included).
 */
export function requestError(req: Request, status: number): AppError {
  // The router and the static files both decode the path; neither says which escape failed.
  let decoded: string;
  try {
    decoded = decodeURIComponent(req.path);
  } catch {
    return malformedPath('percent_encoding', 'a %-escape in it is not UTF-8 (or is cut short)');
  }
  // The static files refuse a path that climbs out of their folder (403): it names no file.
  if (decoded.split(/[/\\]/).includes('..')) {
    return malformedPath('dot_segments', 'it must not hold a ".." segment');
  }
  const headers = (rule: string, message: string) =>
    fieldRefusal('(headers)', rule, message, message);
  if (status === 412)
    return headers('precondition', 'the If-Match or If-Unmodified-Since header does not hold');
  if (status === 416) return headers('range', 'the Range header lies outside the file');
  return new AppError(
    'VALIDATION_FAILED',
    `the request cannot be served as sent (HTTP ${String(status)})`,
  );
}
