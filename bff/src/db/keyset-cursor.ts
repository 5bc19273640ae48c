// The opaque cursor of every keyset-paged list (transactions, payouts, payment links): base64url
// of the JSON array [scope, value, id]. `scope` is what the order depends on (the transactions'
// sort, the payouts' view), so a cursor of another order is refused rather than paging from the
// wrong place. Clients hold cursors between requests: the format must not change.
import { AppError } from '../errors.js';

/** Where a page ended: the sort column's value and the id of its last row. */
export interface KeysetPosition {
  value: number;
  id: string;
}

export function encodeKeysetCursor(scope: string, at: KeysetPosition): string {
  return Buffer.from(JSON.stringify([scope, at.value, at.id])).toString('base64url');
}

/**
 * The position `text` names; a 400 naming `query.cursor` when it is not a cursor of this `scope`.
 * `scopeName` says in the message what may have changed since the cursor was given (sort, view).
 */
export function decodeKeysetCursor(text: string, scope: string, scopeName: string): KeysetPosition {
  const bad = () =>
    new AppError(
      'VALIDATION_FAILED',
      `query.cursor: not a cursor of this list (${scopeName} changed?)`,
      { fields: [{ path: 'query.cursor', rule: 'cursor', message: 'not a cursor of this list' }] },
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw bad();
  const [s, value, id] = parsed as unknown[];
  if (
    s !== scope ||
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    typeof id !== 'string'
  )
    throw bad();
  return { value, id };
}
