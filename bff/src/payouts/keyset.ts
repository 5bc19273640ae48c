// Keyset pagination of the payouts' and payment links' lists: (created_at, id), oldest first in the
// approval queue (the closest to expiry first), newest first in the other views. The cursor is
// opaque to the client and names its view, so a cursor of another view is refused.
import { sql, type SelectQueryBuilder } from 'kysely';
import { AppError } from '../errors.js';

export interface Keyset {
  at: number;
  id: string;
}

/** The approval queue is worked oldest first; the other views show the newest first. */
export const oldestFirst = (view: string): boolean => view === 'awaiting-my-approval';

export function encodeKeyset(view: string, k: Keyset): string {
  return Buffer.from(JSON.stringify([view, k.at, k.id])).toString('base64url');
}

/** A 400 naming `query.cursor` when `text` is not a cursor of this view's list. */
export function decodeKeyset(text: string | undefined, view: string): Keyset | null {
  if (text === undefined) return null;
  const bad = () =>
    new AppError('VALIDATION_FAILED', 'query.cursor: not a cursor of this list (view changed?)', {
      fields: [{ path: 'query.cursor', rule: 'cursor', message: 'not a cursor of this list' }],
    });
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 3) throw bad();
  const [v, at, id] = value as unknown[];
  if (v !== view || typeof at !== 'number' || !Number.isSafeInteger(at) || typeof id !== 'string')
    throw bad();
  return { at, id };
}

/**
 * One page of `query` after `after`, in the view's order, read as `limit + 1` rows so the last page
 * is known without a count; and the cursor of the next page (null on the last).
 */
export async function keysetPage<
  DB,
  TB extends keyof DB,
  R extends { created_at: number; id: string },
>(
  query: SelectQueryBuilder<DB, TB, R>,
  q: { view: string; limit: number },
  after: Keyset | null,
): Promise<{ page: R[]; nextCursor: string | null }> {
  const asc = oldestFirst(q.view);
  const dir = asc ? 'asc' : 'desc';
  const rows = await (
    after === null
      ? query
      : query.where(
          sql<boolean>`(created_at, id) ${sql.raw(asc ? '>' : '<')} (${after.at}, ${after.id})`,
        )
  )
    .orderBy(sql.ref('created_at'), dir)
    .orderBy(sql.ref('id'), dir)
    .limit(q.limit + 1)
    .execute();
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    page,
    nextCursor:
      rows.length > q.limit && last !== undefined
        ? encodeKeyset(q.view, { at: last.created_at, id: last.id })
        : null,
  };
}
