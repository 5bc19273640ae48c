// The transactions list (keyset pagination, filters, exact `q`), the CSV export (keyset batches,
// written with back-pressure: constant memory) and the home screen's statistics.
import type { Writable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import { isPartlyCaptured, voidedMinor } from '@paydesk/shared/domain';
import {
  EXCHANGE_ENTRY_KINDS,
  FAILED_STATUSES,
  orderFailureOf,
  TRANSACTION_ID_PATTERN,
  transactionSearchCard,
  type OrderFailure,
  type StatsQuery,
  type StatsResponse,
  type TransactionExportQuery,
  type OperationKind,
  type TransactionFilter,
  type TransactionListQuery,
  type TransactionPage,
  type TransactionSort,
  type TransactionStatus,
  type TransactionType,
} from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../db/keyset-cursor.js';
import { big, toColumn, type PayDatabase, type PayDb } from './db.js';
import type { TransactionsTable } from './migration.js';
import { PayoutOrders } from './payout-orders.js';
import {
  listedType,
  maskedCard,
  netOf,
  PAID_PAYOUT_STAGES,
  paidOutOf,
  toSummary,
} from './records.js';
import {
  attentionCounts,
  notAppliedOperations,
  notAppliedOrderIds,
  unknownOutcomeIds,
  windowStats,
} from './stats.js';

/** Resolves on `drain`, rejects when the stream closes first; leaves no listener behind. */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the client went away'));
    };
    const cleanup = () => {
      out.off('drain', onDrain);
      out.off('close', onClose);
    };
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}

/**
 * The list's total is exact up to this many matching orders and "1,000+" beyond: counting costs a
 * read per matching row, and with a filter that no single index covers (status and currency, say)
 * 10,000 of them cost ~4–5 ms of database CPU on every page view (test/bench/RESULTS-load.md).
 * Exact volumes are in the statistics and the CSV export.
 */
export const TOTAL_CAP = 1_000;
const DAY = 86_400_000;

type Q = SelectQueryBuilder<PayDatabase, 'transactions', object>;

interface Cursor {
  sort: TransactionSort;
  value: number;
  id: string;
}

function decodeCursor(text: string, sort: TransactionSort): Cursor {
  return { sort, ...decodeKeysetCursor(text, sort, 'sort') };
}

const column = (sort: TransactionSort): 'created_at' | 'amount_minor' =>
  sort.startsWith('amount') ? 'amount_minor' : 'created_at';
const descending = (sort: TransactionSort): boolean => sort.endsWith('desc');

/**
 * The type filter, by the type the list shows (`listedType`): Payout is the single-step payouts and
 * the two-step ones that were paid; Payout check only the two-step ones never paid. Both start
 * with an equality or an `in` on `type`, so `transactions_type_created` still finds the rows (the
 * stage is checked among those).
 */
function byType(q: Q, type: TransactionType): Q {
  switch (type) {
    case 'payout':
      return q
        .where('type', 'in', ['payout', 'payout-check'])
        .where((eb) => eb.or([eb('type', '=', 'payout'), eb('stage', 'in', PAID_PAYOUT_STAGES)]));
    case 'payout-check':
      return q
        .where('type', '=', 'payout-check')
        .where((eb) => eb.or([eb('stage', 'is', null), eb('stage', 'not in', PAID_PAYOUT_STAGES)]));
    default:
      return q.where('type', '=', type);
  }
}

/**
 * The follow-ups not made and not made again (`notAppliedOperations`) of the orders `ids` (a
 * page's, at most its size), oldest first: their order's id and kind. The `id in (…)` on
 * `transaction_id` lets the planner read them through `transaction_operations_tx` as well as
 * through the partial index of the operations not applied; either reads a few rows.
 */
export function notMadeOperationsOf(k: PayDb, ids: readonly string[], now: number) {
  return notAppliedOperations(k, now)
    .where('o.transaction_id', 'in', ids)
    .select(['o.transaction_id as transaction_id', 'o.kind as kind'])
    .orderBy('o.created_at')
    .orderBy('o.id');
}

export class TransactionQueries {
  constructor(
    private readonly k: PayDb,
    private readonly clock: Clock,
    private readonly payoutOrders: PayoutOrders = new PayoutOrders(),
  ) {}

  /** `now`: the clock, for the window of `notMade` (an export's batches all read the same one). */
  private filtered(filter: TransactionFilter, now: number = this.clock.now()): Q {
    let q: Q = this.k.selectFrom('transactions');
    // Unknown outcome: the order's own, or an operation's whatever the order's status.
    if (filter.status === 'unknown') q = q.where('id', 'in', unknownOutcomeIds(this.k));
    else if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    if (filter.type !== undefined) q = byType(q, filter.type);
    if (filter.endpoint !== undefined) q = q.where('endpoint_id', '=', filter.endpoint);
    if (filter.currency !== undefined) q = q.where('currency', '=', filter.currency);
    if (filter.createdFrom !== undefined)
      q = q.where('created_at', '>=', Date.parse(filter.createdFrom));
    if (filter.createdTo !== undefined)
      q = q.where('created_at', '<', Date.parse(filter.createdTo));
    if (filter.amountMin !== undefined)
      q = q.where('amount_minor', '>=', toColumn(toMinorUnits(filter.amountMin)));
    if (filter.amountMax !== undefined)
      q = q.where('amount_minor', '<=', toColumn(toMinorUnits(filter.amountMax)));
    if (filter.drift !== undefined) q = q.where('drift', '=', filter.drift === 'true' ? 1 : 0);
    // A follow-up not made, as the home screen's card counts them (by the clock, the last days):
    // the few operations found through their partial index, their orders then read by id.
    if (filter.notMade === 'true') q = q.where('id', 'in', notAppliedOrderIds(this.k, now));
    if (filter.q !== undefined) {
      const term = filter.q;
      const card = transactionSearchCard(term);
      // Every branch is an equality on an indexed column or expression (the id is the primary key;
      // a masked card goes by its indexed last four, its BIN checked among those rows only).
      q = q.where((eb: ExpressionBuilder<PayDatabase, 'transactions'>) => {
        const ors = [
          eb('orderid', '=', term),
          // A client order id whatever its case (ids copied from customers' e-mails): each side
          // lowered by the database, through `transactions_client_orderid_lower` (migration 0028).
          eb(eb.fn('lower', ['client_orderid']), '=', eb.fn('lower', [eb.val(term)])),
          eb('customer_email', '=', term.toLowerCase()),
        ];
        if (TRANSACTION_ID_PATTERN.test(term)) ors.push(eb('id', '=', term.toLowerCase()));
        if (/^\d{4}$/.test(term)) ors.push(eb('card_last4', '=', term));
        if (card !== null) {
          const last4 = eb('card_last4', '=', card.last4);
          // An 8-digit BIN also finds the card stored with its first 6; an unknown BIN does not
          // rule a card out.
          const bins = card.bin === null ? [] : [...new Set([card.bin, card.bin.slice(0, 6)])];
          ors.push(
            bins.length === 0
              ? last4
              : eb.and([last4, eb.or([eb('card_bin', 'is', null), eb('card_bin', 'in', bins)])]),
          );
        }
        return eb.or(ors);
      });
    }
    return q;
  }

  private ordered(q: Q, sort: TransactionSort, after: Cursor | null): Q {
    const col = column(sort);
    const desc = descending(sort);
    let out = q;
    if (after !== null) {
      out = out.where((eb: ExpressionBuilder<PayDatabase, 'transactions'>) =>
        eb(eb.refTuple(col, 'id'), desc ? '<' : '>', eb.tuple(after.value, after.id)),
      );
    }
    return out.orderBy(col, desc ? 'desc' : 'asc').orderBy('id', desc ? 'desc' : 'asc');
  }

  /**
   * `query` as TransactionListQuerySchema parsed it (its ranges checked there, for every caller).
   * `payouts`: whether the caller may read payouts (`mayReadPayouts`); then a search that finds no
   * transaction names the payout whose orderid or client_orderid it is (`payouts`), one more
   * indexed query on an empty first page only.
   */
  async list(
    query: TransactionListQuery,
    { payouts = false }: { payouts?: boolean } = {},
  ): Promise<TransactionPage> {
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor, query.sort);
    // One clock for the filter and the rows' `notMade`: each order `notMade=true` lists names one.
    const now = this.clock.now();
    const base = this.filtered(query, now);
    const [rows, count] = await Promise.all([
      this.ordered(base, query.sort, after)
        .selectAll()
        // Whether an operation's outcome is unknown: a probe of the small partial index per row.
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('transaction_operations as o')
                .select('o.id')
                .whereRef('o.transaction_id', '=', 'transactions.id')
                .where('o.state', '=', sql.lit('unknown')),
            )
            .as('unknown_ops'),
        )
        .limit(query.limit + 1)
        .execute(),
      this.k
        .selectFrom(
          base
            .select('id')
            .limit(TOTAL_CAP + 1)
            .as('capped'),
        )
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const more = rows.length > query.limit && last !== undefined;
    const total = Number(count.n);
    const [unknownKinds, failures, notMade] = await Promise.all([
      this.unknownOperationKinds(
        page.filter((row) => row.unknown_ops === true || Number(row.unknown_ops) === 1),
      ),
      this.failures(page.filter((row) => FAILED_STATUSES.has(row.status as TransactionStatus))),
      this.notMadeKinds(page, now),
    ]);
    const payoutOrders =
      payouts && query.q !== undefined && page.length === 0 && after === null
        ? await this.payoutOrders.named(query.q)
        : [];
    return {
      items: page.map(({ unknown_ops: _, ...row }) => ({
        ...toSummary(row),
        unknownOperations: unknownKinds.get(row.id) ?? [],
        notMade: notMade.get(row.id) ?? [],
        // Neither the stage nor the amount says that a capture took only part of the hold.
        partlyCaptured: isPartlyCaptured({
          type: row.type,
          authorizedMinor: big(row.authorized_minor),
          capturedMinor: big(row.captured_minor),
        }),
        ...(FAILED_STATUSES.has(row.status as TransactionStatus)
          ? { failure: failures.get(row.id) ?? null }
          : {}),
      })),
      nextCursor: more
        ? encodeKeysetCursor(query.sort, { value: last[column(query.sort)], id: last.id })
        : null,
      total: Math.min(total, TOTAL_CAP),
      totalCapped: total > TOTAL_CAP,
      ...(payoutOrders.length === 0 ? {} : { payouts: payoutOrders }),
    };
  }

  /**
   * The kinds of the operations whose outcome is unknown, per order of `rows` (the few of a page
   * that have one): read through `transaction_operations_unknown`.
   */
  private async unknownOperationKinds(
    rows: readonly { id: string }[],
  ): Promise<Map<string, OperationKind[]>> {
    const kinds = new Map<string, OperationKind[]>();
    if (rows.length === 0) return kinds;
    const ops = await this.k
      .selectFrom('transaction_operations')
      .select(['transaction_id', 'kind'])
      .where('state', '=', sql.lit('unknown'))
      .where(
        'transaction_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('created_at')
      .execute();
    for (const op of ops) {
      const known = kinds.get(op.transaction_id) ?? [];
      const kind = op.kind as OperationKind;
      if (!known.includes(kind)) kinds.set(op.transaction_id, [...known, kind]);
    }
    return kinds;
  }

  /**
   * The kinds of the follow-ups the gateway did not make and that were not made again, per order
   * of `rows` (the page's), each kind once, in the order first sent: the rule of the `notMade=true`
   * filter and Home's card (`notAppliedOperations`, tested against the order page's
   * `notMadeFollowUps`), by the same clock as the filter. One query per page: the few operations
   * judged not applied in the window, through their partial index or the page's ids, and the redo
   * looked for among each one's order's later operations, as the filter does.
   */
  private async notMadeKinds(
    rows: readonly { id: string }[],
    now: number,
  ): Promise<Map<string, OperationKind[]>> {
    const kinds = new Map<string, OperationKind[]>();
    if (rows.length === 0) return kinds;
    const ops = await notMadeOperationsOf(
      this.k,
      rows.map((row) => row.id),
      now,
    ).execute();
    for (const op of ops) {
      const known = kinds.get(op.transaction_id) ?? [];
      const kind = op.kind as OperationKind;
      if (!known.includes(kind)) kinds.set(op.transaction_id, [...known, kind]);
    }
    return kinds;
  }

  /**
   * Why the gateway failed each of `rows` (the page's declined, error and filtered orders): the
   * reason in the latest `status` reply recorded in its timeline (`orderFailureOf`). One query
   * reads that one entry per order through `transaction_timeline_tx`; the entries it skips (a
   * callback, a staff note, a refused follow-up's reply) hold no `status-response`.
   */
  private async failures(rows: readonly { id: string }[]): Promise<Map<string, OrderFailure>> {
    const failures = new Map<string, OrderFailure>();
    if (rows.length === 0) return failures;
    const ids = rows.map((row) => row.id);
    const kinds = [...EXCHANGE_ENTRY_KINDS];
    const entries = await this.k
      .selectFrom('transaction_timeline')
      .select(['id', 'transaction_id', 'kind', 'data'])
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('transaction_timeline')
          .select((inner) => inner.fn.max('id').as('id'))
          .where('transaction_id', 'in', ids)
          .where('kind', 'in', kinds)
          .where('data', 'like', '%"status-response"%')
          .groupBy('transaction_id'),
      )
      .execute();
    for (const entry of entries) {
      let data: unknown;
      try {
        data = JSON.parse(entry.data);
      } catch {
        continue;
      }
      if (typeof data !== 'object' || data === null) continue;
      const failure = orderFailureOf([
        { id: entry.id, kind: entry.kind, data: data as Record<string, unknown> },
      ]);
      if (failure !== null) failures.set(entry.transaction_id, failure);
    }
    return failures;
  }

  /**
   * Every filtered row with the CSV's columns only, in the list's order (`query.sort`), in keyset
   * batches: memory stays flat, and no batch holds the (SQLite: only) connection for long. The
   * batch's declined, error and filtered orders carry why the gateway failed them, as the list's
   * rows do (`failures`: one query per batch that has any, never one per row).
   */
  async *batches(
    query: TransactionExportQuery,
    batchSize = EXPORT_BATCH,
  ): AsyncGenerator<CsvLine[]> {
    const { sort } = query;
    const now = this.clock.now();
    let after: Cursor | null = null;
    for (;;) {
      const rows: CsvRow[] = await this.ordered(this.filtered(query, now), sort, after)
        .select(CSV_SOURCE_COLUMNS)
        .limit(batchSize)
        .execute();
      if (rows.length > 0) {
        const failed = rows.filter((row) => FAILED_STATUSES.has(row.status as TransactionStatus));
        const failures =
          failed.length === 0 ? new Map<string, OrderFailure>() : await this.failures(failed);
        yield rows.map((row) => ({ ...row, failure: failures.get(row.id) ?? null }));
      }
      const last = rows.at(-1);
      if (last === undefined || rows.length < batchSize) return;
      after = { sort, value: last[column(sort)], id: last.id };
    }
  }

  /**
   * Writes the CSV to `out`, one chunk per batch, waiting for `drain` whenever its buffer is full
   * and letting other work run between batches. Small batches of the CSV's columns only, each
   * turned into one string and dropped before the next query: little survives a scavenge, so V8
   * does not keep growing its young generation (which is what pushed the RSS up).
   */
  async writeCsv(query: TransactionExportQuery, out: Writable): Promise<number> {
    const write = async (chunk: string) => {
      if (out.destroyed) throw new Error('the client went away');
      if (!out.write(chunk)) {
        await drained(out);
      }
    };
    // The byte-order mark tells Excel the file is UTF-8 (without it, `müller` shows as `mÃ¼ller`).
    const semicolon = query.delimiter === 'semicolon';
    await write(`${UTF8_BOM}${CSV_COLUMNS.join(semicolon ? ';' : ',')}\r\n`);
    let n = 0;
    for await (const rows of this.batches(query)) {
      let chunk = '';
      for (const row of rows) chunk += `${csvRow(row, semicolon)}\r\n`;
      n += rows.length;
      await write(chunk);
      // SQLite answers synchronously and a local socket rarely fills: without this the whole
      // export would run as one task, and the BFF would answer nothing else until it ended.
      await setImmediate();
    }
    return n;
  }

  async stats(query: StatsQuery): Promise<StatsResponse> {
    const to = query.to === undefined ? this.clock.now() : Date.parse(query.to);
    const from = query.from === undefined ? to - 30 * DAY : Date.parse(query.from);
    // The window is [from, to): empty when `to` is not after `from`. Both sent, the schema refused
    // it naming `to` (StatsQuerySchema); here `to` is now, by default, and `from` was sent past it.
    if (to <= from) {
      const message = 'must be before now (to, when not given, is now)';
      throw new AppError('VALIDATION_FAILED', `query.from: ${message}`, {
        fields: [{ path: 'query.from', rule: 'range', message }],
      });
    }
    const [window, attention] = await Promise.all([
      windowStats(this.k, from, to),
      attentionCounts(this.k, this.clock.now()),
    ]);
    return {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      ...window,
      attention,
    };
  }
}

export const CSV_COLUMNS = [
  'id',
  'createdAt',
  'endpointId',
  'orderid',
  'clientOrderId',
  'type',
  'status',
  'stage',
  'currency',
  'amount',
  'captured',
  'returned',
  'voided',
  'card',
  'customerEmail',
  'drift',
  // Appended (a consumer reading the columns above by position still finds them there):
  'authorized',
  'paidOut',
  'failureMessage',
  'failureCode',
  'updatedAt',
  // what the order kept (a payout's: empty)
  'net',
] as const;

const UTF8_BOM = '\uFEFF';

/**
 * RFC 4180 quoting, also of a `;` (the separator a spreadsheet in a German or French locale
 * splits on); a leading = + - @ (or tab, CR) is neutralised so spreadsheets do not run it as a
 * formula.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",;\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The export's file name: what it holds (the filter in short, `all` without one) and when it was
 * made, in characters safe in any file system and header:
 * `paydesk-transactions-approved-EUR-2026-11-25T0912Z.csv`. A search term is not repeated (it may
 * be an e-mail address), only said: `search`.
 */
export function exportFileName(filter: TransactionFilter, now: number): string {
  const day = (at: string) => new Date(at).toISOString().slice(0, 10);
  const parts = [
    filter.status,
    filter.type,
    filter.currency,
    filter.endpoint === undefined ? undefined : `endpoint${filter.endpoint}`,
    filter.drift === undefined ? undefined : filter.drift === 'true' ? 'drift' : 'no-drift',
    filter.notMade === undefined ? undefined : 'not-made',
    filter.createdFrom === undefined ? undefined : `from${day(filter.createdFrom)}`,
    filter.createdTo === undefined ? undefined : `before${day(filter.createdTo)}`,
    filter.amountMin === undefined ? undefined : `min${filter.amountMin}`,
    filter.amountMax === undefined ? undefined : `max${filter.amountMax}`,
    filter.q === undefined ? undefined : 'search',
  ].filter((part): part is string => part !== undefined);
  const iso = new Date(now).toISOString(); // 2026-11-25T09:12:34.567Z → 2026-11-25T0912Z
  const stamp = `${iso.slice(0, 13)}${iso.slice(14, 16)}Z`;
  const what = (parts.length === 0 ? ['all'] : parts).join('-').replace(/[^A-Za-z0-9.-]/g, '');
  return `paydesk-transactions-${what}-${stamp}.csv`;
}

/** The columns a CSV line is made of (never the whole row: drift details, names, raw data). */
const CSV_SOURCE_COLUMNS = [
  'id',
  'created_at',
  'endpoint_id',
  'orderid',
  'client_orderid',
  'type',
  'status',
  'stage',
  'currency',
  'amount_minor',
  'authorized_minor',
  'captured_minor',
  'returned_minor',
  'card_bin',
  'card_last4',
  'card_brand',
  'customer_email',
  'drift',
  'updated_at',
] as const;
type CsvRow = Pick<TransactionsTable, (typeof CSV_SOURCE_COLUMNS)[number]>;
/** A row of the CSV with why the gateway failed it (a declined, error or filtered order), or null. */
export type CsvLine = CsvRow & { failure: OrderFailure | null };
/**
 * Rows per keyset query of the export. 500: on a slow machine each PostgreSQL query costs the
 * export a round trip of about 1 ms whatever its size, so 100-row batches held it near 40,000
 * rows/s; 500 gave 74–90k (SQLite 116–124k) with the same peak memory, where 2,000 pushed the
 * PostgreSQL BFF's RSS from 150 to 272 MiB (test/bench/RESULTS-payments.md, session 32).
 */
const EXPORT_BATCH = 500;

/**
 * One CSV line: `,` between cells and `.` in amounts, or (`semicolon`) `;` between cells and `,`
 * in amounts, as a spreadsheet in a decimal-comma locale reads them.
 */
function csvRow(row: CsvLine, semicolon = false): string {
  const decimal = (text: string) => (semicolon ? text.replace('.', ',') : text);
  const money = (minor: unknown) => decimal(formatMinorUnits(big(minor)));
  const cells = [
    row.id,
    new Date(row.created_at).toISOString(),
    row.endpoint_id,
    row.orderid,
    row.client_orderid,
    listedType(row),
    row.status,
    row.stage ?? '',
    row.currency,
    money(row.amount_minor),
    money(row.captured_minor),
    money(row.returned_minor),
    money(
      voidedMinor({
        stage: row.stage,
        authorizedMinor: big(row.authorized_minor),
        capturedMinor: big(row.captured_minor),
      }) ?? 0n,
    ),
    maskedCard(row)?.masked ?? '',
    row.customer_email ?? '',
    row.drift === 1 ? 'yes' : 'no',
    money(row.authorized_minor),
    // a payout's order: what was paid out (its amount once approved, else 0); empty for charges
    decimal(paidOutOf(row).paidOut ?? ''),
    row.failure?.message ?? '',
    row.failure?.code ?? '',
    new Date(row.updated_at).toISOString(),
    // what a charge kept: captured less returned, 0 once voided or not approved; empty for payouts
    decimal(netOf(row) ?? ''),
  ];
  return cells.map(csvCell).join(semicolon ? ';' : ',');
}
