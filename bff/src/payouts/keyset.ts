// Keyset pagination of the payouts' and payment links' lists. The approval queue is worked in the
// order its items lapse, soonest first (ties by creation, then id); the other views show the newest
// first, on (created_at, id). A held payout-form lapses a fixed time after it was prepared, so the
// links' queue in lapse order is simply oldest first (`keysetPage`); the payouts' queue mixes held
// single payouts (a fixed time after preparing) with checked two-step ones (when their registration
// at the gateway does, ~24 h after the check), so it is the merge of two indexed orders
// (`lapsePage`). The cursor is opaque to the client and names its view (and order), so a cursor of
// another view is refused (the codec is the transactions list's: db/keyset-cursor.ts).
import { sql, type SelectQueryBuilder } from 'kysely';
import { decodeKeysetCursor, encodeKeysetCursor } from '../db/keyset-cursor.js';
import { AppError } from '../errors.js';

export interface Keyset {
  at: number;
  id: string;
}

/**
 * The links' approval queue is worked oldest first (every pending payout-form lapses the same time
 * after it was prepared: the oldest lapses soonest); the other views show the newest first.
 */
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

/** Where a page of a list in lapse order ended: the last row's lapse time, creation time and id. */
export interface LapseKeyset {
  lapsesAt: number;
  at: number;
  id: string;
}

/**
 * The scope of a lapse-ordered cursor: it names the order too, so that a cursor of the queue's
 * former order (creation time) is refused rather than paging from the wrong place.
 */
const lapseScope = (view: string) => `${view}/lapse`;

function badCursor(): AppError {
  return new AppError(
    'VALIDATION_FAILED',
    'query.cursor: not a cursor of this list (view changed?)',
    {
      fields: [{ path: 'query.cursor', rule: 'cursor', message: 'not a cursor of this list' }],
    },
  );
}

/** A 400 naming `query.cursor` when `text` is not a lapse-ordered cursor of this view's list. */
export function decodeLapseKeyset(text: string | undefined, view: string): LapseKeyset | null {
  if (text === undefined) return null;
  // The codec holds one number and one text: the creation time travels with the id.
  const { value, id } = decodeKeysetCursor(text, lapseScope(view), 'view');
  const match = /^(\d{1,16}):(.+)$/.exec(id);
  const at = Number(match?.[1]);
  if (match?.[2] === undefined || !Number.isSafeInteger(at)) throw badCursor();
  return { lapsesAt: value, at, id: match[2] };
}

function encodeLapseKeyset(view: string, at: LapseKeyset): string {
  return encodeKeysetCursor(lapseScope(view), { value: at.lapsesAt, id: `${at.at}:${at.id}` });
}

/** Whether `a` comes before `b` in lapse order (soonest first, then creation, then id). */
function lapseCompare(a: LapseKeyset, b: LapseKeyset): number {
  if (a.lapsesAt !== b.lapsesAt) return a.lapsesAt - b.lapsesAt;
  if (a.at !== b.at) return a.at - b.at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The condition on a stream of rows that lapse `holdMs` after they were created (so in creation
 * order) that keeps those after `after` in lapse order, as a range of (created_at, id) that the
 * (state, created_at) index serves: a row created at `created` lapses at `created + holdMs`.
 */
export function heldAfter(after: LapseKeyset, holdMs: number) {
  const created = after.lapsesAt - holdMs;
  if (after.at < created) return sql<boolean>`${sql.ref('created_at')} >= ${created}`;
  if (after.at > created) return sql<boolean>`${sql.ref('created_at')} > ${created}`;
  return sql<boolean>`(${sql.ref('created_at')}, ${sql.ref('id')}) > (${created}, ${after.id})`;
}

/** The condition on rows whose lapse time is the column `expires_at`: after `after` in lapse order. */
export function expiringAfter(after: LapseKeyset) {
  return sql<boolean>`(${sql.ref('expires_at')}, ${sql.ref('created_at')}, ${sql.ref('id')}) > (${after.lapsesAt}, ${after.at}, ${after.id})`;
}

/**
 * One page of a list in lapse order from `streams`, each already in lapse order, filtered to after
 * the cursor and read as `limit + 1` rows (`lapsesAt` of each row): the page is the first `limit`
 * of their merge, and the next cursor (null on the last page) names its last row.
 */
export function lapsePage<R extends { created_at: number; id: string }>(
  streams: readonly (readonly R[])[],
  lapsesAt: (row: R) => number,
  q: { view: string; limit: number },
): { page: R[]; nextCursor: string | null } {
  const keyOf = (row: R): LapseKeyset => ({
    lapsesAt: lapsesAt(row),
    at: row.created_at,
    id: row.id,
  });
  const merged = streams.flat().sort((a, b) => lapseCompare(keyOf(a), keyOf(b)));
  const page = merged.slice(0, q.limit);
  const last = page.at(-1);
  return {
    page,
    nextCursor:
      merged.length > q.limit && last !== undefined ? encodeLapseKeyset(q.view, keyOf(last)) : null,
  };
}
