// Answers for a known path asked with a method it does not take, and for paths nothing serves:
// the JSON error envelope every client of the BFF reads, never Express's HTML page.
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import { errorEnvelope, requestIdOf } from './run-route.js';

/**
 * 405 with `Allow` for a path served with `methods` only (GET implies HEAD); an OPTIONS request
 * gets 204 with `Allow`.
 */
export function methodNotAllowed(methods: readonly string[]): RequestHandler {
  const upper = methods.map((m) => m.toUpperCase());
  const allow = [...upper, ...(upper.includes('GET') && !upper.includes('HEAD') ? ['HEAD'] : [])]
    .sort()
    .join(', ');
  return (req: Request, res: Response) => {
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    const err = new AppError(
      'METHOD_NOT_ALLOWED',
      `${req.method} is not allowed on ${req.baseUrl}${req.path}; it takes ${allow}`,
    );
    res.status(err.status).json(errorEnvelope(err, requestIdOf(req)));
  };
}

/** 404 in the error envelope, for whatever no router answered. */
export function notFound(describe: (req: Request) => string): RequestHandler {
  return (req: Request, res: Response) => {
    const err = new AppError('NOT_FOUND', describe(req));
    res.status(err.status).json(errorEnvelope(err, requestIdOf(req)));
  };
}
