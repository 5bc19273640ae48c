// The payments tables on the platform's Kysely instance, and the one row lock every cap check takes.
import { sql, type Expression, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Db } from '../db/connect.js';
import { queryTemplate } from '../db/query-template.js';
import type { Database } from '../db/schema.js';
import type { PaymentsTables, TransactionsTable } from './migration.js';

export type PayDatabase = Database & PaymentsTables;
export type PayDb = Kysely<PayDatabase>;
export type PayTrx = Transaction<PayDatabase>;

export function payDb(db: Db): PayDb {
  return db.k;
}

/** The platform's view of the same transaction (for the audit log's appendIn). */
export function platformTrx(trx: PayTrx): Transaction<Database> {
  return trx;
}

// SQLite's reads of an order's row on the hot paths, compiled once (db/query-template.ts).
const orderById = queryTemplate((k: PayDb, v: { id: string }) =>
  k.selectFrom('transactions').selectAll().where('id', '=', v.id),
);
const orderByOrderid = queryTemplate((k: PayDb, v: { orderid: string }) =>
  k.selectFrom('transactions').selectAll().where('orderid', '=', v.orderid),
);

/**
 * Reads a transaction row and holds it until the database transaction ends: `FOR UPDATE` on
 * PostgreSQL; on SQLite the surrounding `BEGIN IMMEDIATE` already holds the only write lock.
 */
export async function lockTransaction(
  db: Db,
  trx: PayTrx,
  id: string,
): Promise<TransactionsTable | undefined> {
  if (db.kind === 'postgres') {
    const result =
      await sql<TransactionsTable>`select * from transactions where id = ${id} for update`.execute(
        trx,
      );
    return result.rows[0];
  }
  return (await trx.executeQuery(orderById(trx, { id }))).rows[0];
}

/** `lockTransaction` by the gateway's orderid (unique): undefined when Paydesk has no such order yet. */
export async function lockTransactionByOrderid(
  db: Db,
  trx: PayTrx,
  orderid: string,
): Promise<TransactionsTable | undefined> {
  if (db.kind === 'postgres') {
    const result =
      await sql<TransactionsTable>`select * from transactions where orderid = ${orderid} for update`.execute(
        trx,
      );
    return result.rows[0];
  }
  return (await trx.executeQuery(orderByOrderid(trx, { orderid }))).rows[0];
}

/** A row count or a sum as a bigint, whatever the driver returned (number, string, null). */
export function big(value: unknown): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new Error('not an integer');
}

/** Where `sumParts` splits an amount: 2^32. */
const SUM_PART = 4_294_967_296;

/**
 * A sum of money (non-negative minor units) exact on both databases, as two parts that `exactSum`
 * joins. A plain SUM fails on SQLite twice over: node:sqlite refuses to read an integer past 2^53
 * (ERR_OUT_OF_RANGE), and SQLite's SUM stops with "integer overflow" past 2^63. So each amount is
 * split at 2^32: neither part's sum comes near 2^63 (the high parts of amounts below 2^53 need 2^42
 * rows), and each travels as decimal text. PostgreSQL sums bigint as numeric: exact either way.
 */
export function sumParts(amount: Expression<number | null>): {
  high: RawBuilder<string | null>;
  low: RawBuilder<string | null>;
} {
  return {
    high: sql<string | null>`cast(sum(${amount} / ${sql.lit(SUM_PART)}) as text)`,
    low: sql<string | null>`cast(sum(${amount} % ${sql.lit(SUM_PART)}) as text)`,
  };
}

/** The exact sum `sumParts` selected (null parts: no rows, a sum of 0). */
export function exactSum(high: unknown, low: unknown): bigint {
  return big(high) * BigInt(SUM_PART) + big(low);
}

/** A minor-unit amount for an integer column; refuses what a double cannot hold exactly. */
export function toColumn(minor: bigint): number {
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || minor < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError('amount out of range');
  }
  return Number(minor);
}
