// Keyset pagination of the payouts' and payment links' lists: (created_at, id), oldest first in the
// approval queue (the closest to expiry first), newest first in the other views. The cursor is
// opaque to the client and names its view, so a cursor of another view is refused (the codec is
// the transactions list's: db/keyset-cursor.ts).
import { sql, type SelectQueryBuilder } from 'kysely';
import { decodeKeysetCursor, encodeKeysetCursor } from '../db/keyset-cursor.js';

export interface Keyset {
  at: number;
  id: string;
}

/** The approval queue is worked oldest first; the other views show the newest first. */
export const oldestFirst = (view: string): boolean => view === 'awaiting-my-approval';

/** A 400 naming `query.cursor` when `text` is not a cursor of this view's list. */
export function decodeKeyset(text: string | undefined, view: string): Keyset | null {
  if (text === undefined) return null;
  const { value, id } = decodeKeysetCursor(text, view, 'view');
  return { at: value, id };
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
        ? encodeKeysetCursor(q.view, { value: last.created_at, id: last.id })
        : null,
  };
}
