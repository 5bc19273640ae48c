// Writes inside one database transaction that do not read one another's effects (an operation's
// row, its timeline entry, its reconcile job, the Idempotency-Key's reply...), sent together. On
// PostgreSQL they become one statement of data-modifying CTEs, so a money-moving request pays one
// round trip for them instead of one each; on SQLite, where a statement is an in-process call,
// they run one after another.
//
// The rule that makes this safe: no two writes of a batch touch the same row (PostgreSQL runs the
// sub-statements of one statement on one snapshot, so none sees another's change), and none
// depends on a row another one writes. Callers build batches from writes to different tables or
// rows; `combineWrites` cannot check that, so each call site says why it holds.
import { CompiledQuery, type Compilable, type Transaction } from 'kysely';
import type { DatabaseKind } from './connect.js';
import { THEN_COMMIT } from './pg-prepared.js';

/** A write of a batch: a query builder, or a query compiled already (db/query-template.ts). */
export type Write = Compilable | CompiledQuery;

const PLACEHOLDER = /\$(\d+)/g;

/**
 * Renumbers a compiled PostgreSQL statement's `$1..$n` placeholders to `$offset+1..$offset+n`.
 * Every placeholder must be one of its own parameters, and the text must hold no other `$`: a
 * dollar-quoted literal or a `$` inside a string would be rewritten, so such a statement is refused.
 */
function renumber(text: string, offset: number, count: number): string {
  const dollars = text.split('$').length - 1;
  let seen = 0;
  const shifted = text.replace(PLACEHOLDER, (_match, digits: string) => {
    const n = Number(digits);
    if (n < 1 || n > count) {
      throw new Error(`write batch: placeholder $${digits} has no parameter (${String(count)})`);
    }
    seen += 1;
    return `$${String(n + offset)}`;
  });
  if (seen !== dollars)
    throw new Error('write batch: a statement holds a $ that is not a placeholder');
  return shifted;
}

/**
 * Renumbered texts by statement text and offset. The same few statements (query templates,
 * db/query-template.ts) come back with the same offsets on every request; the cache forgets all
 * when it is full, which only statements built afresh each time, with their values in the text,
 * could make it.
 */
const renumbered = new Map<string, Map<number, string>>();
const RENUMBERED_LIMIT = 1000;

function renumberedText(text: string, offset: number, count: number): string {
  let byOffset = renumbered.get(text);
  const cached = byOffset?.get(offset);
  if (cached !== undefined) return cached;
  const shifted = renumber(text, offset, count);
  if (byOffset === undefined) {
    if (renumbered.size >= RENUMBERED_LIMIT) renumbered.clear();
    byOffset = new Map();
    renumbered.set(text, byOffset);
  }
  byOffset.set(offset, shifted);
  return shifted;
}

/**
 * The PostgreSQL statement that runs `queries` in one round trip: every query but the last as a
 * data-modifying CTE (`with w0 as (…), w1 as (…) <last>`), so the statement returns what the
 * last query returns. PostgreSQL runs each sub-statement exactly once, to completion.
 */
export function combineWrites(queries: readonly CompiledQuery[]): CompiledQuery {
  const last = queries.length - 1;
  if (last < 0) throw new Error('write batch: nothing to write');
  if (last === 0 && queries[0] !== undefined) return queries[0];
  const parameters: unknown[] = [];
  const parts = queries.map((q, i) => {
    const text = renumberedText(q.sql, parameters.length, q.parameters.length);
    parameters.push(...q.parameters);
    return i < last ? `w${String(i)} as (${text})` : text;
  });
  return CompiledQuery.raw(
    `with ${parts.slice(0, last).join(', ')} ${parts[last] ?? ''}`,
    parameters,
  );
}

/**
 * Runs `writes` in `trx` and returns the rows the last one returns (its `returning` clause):
 * one statement on PostgreSQL, one after another on SQLite.
 *
 * `thenCommit`: these are the transaction's last writes, and on PostgreSQL its COMMIT goes out
 * right behind them (pg-prepared.ts), one round trip for both. The caller's transaction callback
 * must return as soon as they are written: nothing may run or fail after them, as the transaction
 * is committed by then. SQLite commits when the callback returns, as always.
 */
export async function runWrites<R, DB>(
  kind: DatabaseKind,
  trx: Transaction<DB>,
  writes: readonly Write[],
  options: { thenCommit?: boolean } = {},
): Promise<R[]> {
  const compiled = writes.map((w) => ('compile' in w ? w.compile() : w));
  if (compiled.length === 0) return [];
  if (kind === 'postgres') {
    const batch = combineWrites(compiled);
    const result = await trx.executeQuery<R>(
      options.thenCommit === true
        ? CompiledQuery.raw(THEN_COMMIT + batch.sql, [...batch.parameters])
        : batch,
    );
    return [...result.rows];
  }
  let rows: R[] = [];
  for (const q of compiled) rows = [...(await trx.executeQuery<R>(q)).rows];
  return rows;
}
