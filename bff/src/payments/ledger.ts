// The record of what Paydesk knows about each order: applying a gateway `status` reply (create or
// update, operations matched, drift detected), the redacted timeline, reconcile jobs and events.
import { randomUUID } from 'node:crypto';
import {
  formatMinorUnits,
  isFinalStatus,
  toMinorUnits,
  type GatewayReply,
} from '@paydesk/shared/protocol';
import {
  isPayoutOrder,
  type OperationResult,
  type StatusChecks,
  type TransactionDetail,
  type TransactionEvent,
  type TransactionStatus,
} from '@paydesk/shared/api';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../db/connect.js';
import { transactionSyncedLater } from '../db/deferred-sync.js';
import { queryTemplate } from '../db/query-template.js';
import { runWrites, type Write } from '../db/write-batch.js';
import type { AuditLog } from '../services/audit.js';
import { redact } from '../services/redact.js';
import {
  amountsOutOfRange,
  MAX_COLUMN_MINOR,
  outOfRangeReason,
  readable as readableAmount,
  recordOutOfRange,
  StatusNotApplied,
} from './amount-range.js';
import {
  big,
  lockTransaction,
  lockTransactionByOrderid,
  payDb,
  platformTrx,
  toColumn,
  type PayDatabase,
  type PayDb,
  type PayTrx,
} from './db.js';
import { agreedAgain, driftAuditEntry, finderOf, moneyText, type DriftSource } from './drift.js';
import type { EventBus } from './events.js';
import { unansweredColumns, unansweredOfRow } from './gateway-errors.js';
import { keyRouteOf, settleInterruptedKey, takingInsert, type KeyTaking } from './idempotency.js';
import type {
  ReconcileJobsTable,
  TransactionOperationsTable,
  TransactionsTable,
  TransactionTimelineTable,
} from './migration.js';
import type { PaymentsOptions } from './options.js';
import { gatewayOrderId, pendingOrderId } from './rebills.js';
import { settlementCheckWrite } from './settlement.js';
import { PAYOUT_HISTORY, withhold } from './withheld.js';
import {
  allowedActions,
  amountsOf,
  asTransactionType,
  IN_FLIGHT_STATES,
  iso,
  listedType,
  operationKindOf,
  toOperation,
  toSummary,
  toTimelineEntry,
} from './records.js';

export interface TimelineInput {
  kind: 'gateway' | 'callback' | 'staff' | 'reconcile' | 'drift';
  title: string;
  actor: string | null;
  data: Record<string, unknown>;
}

interface GatewayOp {
  serial: string;
  type: string;
  amountMinor: bigint | null;
  status: string;
  processingDate: string | null;
}

function parseOperations(text: string | undefined): GatewayOp[] {
  if (text === undefined || text === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const out: GatewayOp[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const o = item as Record<string, unknown>;
    const serial = o['serial-number'];
    const type = o.type;
    const status = o.status;
    if (typeof serial !== 'string' || typeof type !== 'string' || typeof status !== 'string')
      continue;
    let amountMinor: bigint | null = null;
    if (typeof o.amount === 'string') {
      try {
        amountMinor = toMinorUnits(o.amount);
      } catch {
        amountMinor = null;
      }
    }
    const date = o['processing-date'];
    out.push({
      serial,
      type,
      amountMinor,
      status,
      processingDate: typeof date === 'string' ? date : null,
    });
  }
  return out;
}

function minorOr(value: string | undefined, fallback: bigint): bigint {
  if (value === undefined || value === '') return fallback;
  try {
    return toMinorUnits(value);
  } catch {
    return fallback;
  }
}

/** Order types that take the customer's money (authorize, capture): the others authorize nothing. */
function isCharge(type: string): boolean {
  return type === 'sale' || type === 'preauth' || type === 'rebill' || type === 'transfer';
}

/** The order as a `status` reply describes it. */
export interface GatewayView {
  orderid: string;
  clientOrderId: string;
  type: string;
  status: TransactionStatus;
  stage: string | null;
  currency: string;
  amountMinor: bigint;
  authorizedMinor: bigint;
  capturedMinor: bigint;
  returnedMinor: bigint;
  cardBin: string | null;
  cardLast4: string | null;
  cardBrand: string | null;
  cardRefId: string | null;
  email: string | null;
  name: string | null;
  operations: GatewayOp[];
  createdAt: number | null;
  /** set on the charges of a recurring payment */
  recurringPaymentId?: string | null;
}

export function viewOfStatus(reply: GatewayReply): GatewayView | null {
  const f = reply.fields;
  const orderid = reply.orderId;
  const clientOrderId = reply.merchantOrderId;
  if (reply.type !== 'status-response' || orderid === undefined || clientOrderId === undefined)
    return null;
  const operations = parseOperations(f.operations);
  const replyStatus = f.status ?? 'processing';
  const first = operations[0];
  // The reply says `processing` while any operation is; the order itself is as final as its
  // originating operation (a return in progress does not make an approved sale pending again).
  let status: TransactionStatus;
  if (isFinalStatus(replyStatus)) status = replyStatus as TransactionStatus;
  else if (first !== undefined && isFinalStatus(first.status))
    status = first.status as TransactionStatus;
  else status = 'processing';
  const amountMinor = minorOr(f.amount, 0n);
  const type = asTransactionType(f['transaction-type']);
  const firstStatus = first?.status ?? replyStatus;
  const capturedMinor = minorOr(f['captured-amount'], 0n);
  const names = [f['first-name'], f['last-name']].filter(
    (n): n is string => n !== undefined && n !== '',
  );
  const firstDate =
    first?.processingDate === null || first === undefined ? NaN : Date.parse(first.processingDate);
  return {
    orderid,
    clientOrderId,
    type,
    status,
    stage: f['order-stage'] ?? null,
    currency: f.currency ?? '',
    amountMinor,
    // Money the gateway shows captured was authorized, whatever its first operation says now (a
    // status forced or corrected afterwards): captured never reads as more than authorized.
    authorizedMinor:
      isCharge(type) && (firstStatus === 'approved' || capturedMinor > 0n) ? amountMinor : 0n,
    capturedMinor,
    returnedMinor: minorOr(f['returned-amount'], 0n),
    cardBin: f.bin ?? null,
    cardLast4: f['last-four-digits'] ?? null,
    cardBrand: f['card-type'] ?? null,
    cardRefId: f['card-ref-id'] ?? null,
    email: f.email ?? null,
    name: names.length > 0 ? names.join(' ') : null,
    operations,
    createdAt: Number.isFinite(firstDate) ? firstDate : null,
    recurringPaymentId: f['recurring-payment-id'] ?? null,
  };
}

/**
 * How far the gateway's clock may be behind Paydesk's: a request sent up to this long after an
 * operation's processing-date may still be it (the dates are the gateway's, `sent_at` Paydesk's).
 */
export const CLOCK_SKEW_MS = 5_000;

/** An unanswered operation of ours whose request the gateway answered with an HTTP error (5xx). */
export function answeredWithError(o: TransactionOperationsTable): boolean {
  if (o.error_code !== null) return true;
  // Recorded before the gateway's error-code was kept (`gateway answered 500`): read once, there.
  return unansweredOfRow(o)?.kind === 'error';
}

/** A gateway operation given to one of several requests of ours alike: see `noteGuesses`. */
interface Guess {
  op: TransactionOperationsTable;
  g: GatewayOp;
  alike: TransactionOperationsTable[];
}

/**
 * Which of `pool` (operations of ours of unknown or given-up outcome, oldest first) the gateway's
 * operation `g` most likely is: same kind and (when both name one) same amount; never one sent
 * after `g` happened (its processing-date, give or take `CLOCK_SKEW_MS`); one whose request got no
 * reply at all (timeout, dropped connection) before one the gateway answered with an HTTP error (a
 * 5xx: it saw the request and failed it, so less likely applied); then the first sent. `alike`:
 * the other candidates just as likely (a guess when not empty); `rankedBelow`: the ones of the
 * same kind and amount ranked below, and why.
 */
export function likeliest(
  pool: readonly TransactionOperationsTable[],
  g: GatewayOp,
  kind: string,
): {
  index: number;
  alike: TransactionOperationsTable[];
  rankedBelow: { operationId: string; why: 'sent_after' | 'answered_with_error' }[];
} | null {
  const happened = g.processingDate === null ? NaN : Date.parse(g.processingDate);
  const rankedBelow: { operationId: string; why: 'sent_after' | 'answered_with_error' }[] = [];
  const eligible: { index: number; op: TransactionOperationsTable; erred: boolean }[] = [];
  pool.forEach((o, index) => {
    if (o.kind !== kind) return;
    if (o.amount_minor !== null && g.amountMinor !== null && big(o.amount_minor) !== g.amountMinor)
      return;
    if (Number.isFinite(happened) && o.sent_at !== null && o.sent_at > happened + CLOCK_SKEW_MS) {
      rankedBelow.push({ operationId: o.id, why: 'sent_after' });
      return;
    }
    eligible.push({ index, op: o, erred: answeredWithError(o) });
  });
  if (eligible.length === 0) return null;
  const unanswered = eligible.filter((c) => !c.erred);
  const best = unanswered.length > 0 ? unanswered : eligible;
  const [first, ...rest] = [...best].sort(
    (a, b) =>
      (a.op.sent_at ?? a.op.created_at) - (b.op.sent_at ?? b.op.created_at) || a.index - b.index,
  );
  if (first === undefined) return null;
  if (best === unanswered) {
    for (const c of eligible)
      if (c.erred) rankedBelow.push({ operationId: c.op.id, why: 'answered_with_error' });
  }
  return { index: first.index, alike: rest.map((c) => c.op), rankedBelow };
}

/** How `applyStatus` was asked for a reply. */
type ApplyHow = Parameters<Ledger['applyStatus']>[3];

const TERMINAL_FOR_MATCH = new Set(['processing', 'approved', 'declined', 'error', 'filtered']);

/**
 * The gateway's totals, plus what a reply that was sent before our latest operation reached the
 * gateway cannot show yet: an accepted operation of ours (it has a serial number) that the
 * reply's operation list does not contain. Without this, a late `status` reply would lower the
 * returned total under a return already accepted and reopen the cap. Exact (bigint): a total may
 * pass what a column holds (2^53 − 1 minor units); `totalsOutOfRange` names it.
 */
export function totalsWithUnseen(
  ops: readonly TransactionOperationsTable[],
  view: GatewayView,
): { capturedMinor: bigint; returnedMinor: bigint } {
  if (view.operations.length === 0)
    return { capturedMinor: view.capturedMinor, returnedMinor: view.returnedMinor };
  const listed = new Set(view.operations.map((g) => g.serial));
  const unseen = ops.filter(
    (o) =>
      o.origin === 'paydesk' &&
      o.gateway_serial !== null &&
      !listed.has(o.gateway_serial) &&
      (o.state === 'processing' || o.state === 'approved') &&
      o.amount_minor !== null,
  );
  let capturedMinor = view.capturedMinor;
  let returnedMinor = view.returnedMinor;
  for (const o of unseen) {
    const amount = big(o.amount_minor);
    if (o.kind === 'capture' && amount > capturedMinor) capturedMinor = amount;
    // A return on an uncaptured preauth cancels the hold; it is not part of the returned total.
    if (o.kind === 'return' && capturedMinor > 0n) returnedMinor += amount;
  }
  return { capturedMinor, returnedMinor };
}

/**
 * The totals of `totalsWithUnseen` beyond what a column holds, named as `amountsOutOfRange` names
 * a reply's amounts (`returned-amount 90,071,992,547,409.90 with Paydesk's returns it does not
 * list: 90,071,992,547,409.92`); none: an empty list. (The captured total is the largest of
 * amounts that each fit a column, so only the returned total, a sum, can pass it.)
 */
export function totalsOutOfRange(
  view: GatewayView,
  totals: { capturedMinor: bigint; returnedMinor: bigint },
): string[] {
  return totals.returnedMinor > MAX_COLUMN_MINOR
    ? [
        `returned-amount ${readableAmount(view.returnedMinor)} with Paydesk's returns it does not list: ${readableAmount(totals.returnedMinor)}`,
      ]
    : [];
}

export interface ApplyResult {
  row: TransactionsTable;
  created: boolean;
  /** Why the order is flagged by this reply; none: not flagged by it. */
  drift: string[];
  /**
   * The reply's amounts Paydesk cannot hold (amount-range.ts): the reply was recorded on the
   * order, flagged and audited, and not applied; the caller stops following it. Empty: applied.
   */
  notApplied: string[];
}

/** Both sides of a drift as its details show them: Paydesk's record, the gateway's reply. */
function driftSides(before: TransactionsTable, view: GatewayView) {
  return {
    paydesk: {
      status: before.status,
      stage: before.stage,
      authorized: formatMinorUnits(big(before.authorized_minor)),
      captured: formatMinorUnits(big(before.captured_minor)),
      returned: formatMinorUnits(big(before.returned_minor)),
    },
    gateway: {
      status: view.status,
      stage: view.stage,
      authorized: formatMinorUnits(view.authorizedMinor),
      captured: formatMinorUnits(view.capturedMinor),
      returned: formatMinorUnits(view.returnedMinor),
    },
  };
}

/**
 * Where the amounts Paydesk would record from a reply break returned ≤ captured ≤ authorized
 * (never what the gateway's caps allow). A return on an uncaptured hold is not in the totals.
 */
function brokenInvariants(
  view: GatewayView,
  totals: { capturedMinor: bigint; returnedMinor: bigint },
  /** the order's currency, for the texts */
  currency: string,
): string[] {
  const reasons: string[] = [];
  if (isCharge(view.type) && totals.capturedMinor > view.authorizedMinor) {
    reasons.push(
      `captured ${moneyText(totals.capturedMinor, currency)} exceeds authorized ${moneyText(view.authorizedMinor, currency)}`,
    );
  }
  if (totals.capturedMinor > 0n && totals.returnedMinor > totals.capturedMinor) {
    reasons.push(
      `returned ${moneyText(totals.returnedMinor, currency)} exceeds captured ${moneyText(totals.capturedMinor, currency)}`,
    );
  }
  return reasons;
}

/**
 * An order's status checks as its page says them: its reconcile job while there is one; `stopped`
 * when there is none although the order's or a follow-up's outcome is unknown (the job gave up
 * after its last scheduled check, or stopped at a reply it could not apply); else null.
 */
export function statusChecksOf(
  row: Pick<TransactionsTable, 'status'>,
  ops: readonly Pick<TransactionOperationsTable, 'state'>[],
  job: Pick<ReconcileJobsTable, 'attempts' | 'last_error'> | undefined,
): StatusChecks | null {
  if (job !== undefined)
    return { state: 'checking', attempts: job.attempts, lastProblem: job.last_error };
  const unknown = row.status === 'unknown' || ops.some((o) => o.state === 'unknown');
  return unknown ? { state: 'stopped' } : null;
}

/** How many timeline entries a transaction's detail shows (the oldest). */
const TIMELINE_LIMIT = 1000;

/** A transaction's detail from its row, its operations and its timeline as read. */
export function detailFrom(
  row: TransactionsTable,
  ops: readonly TransactionOperationsTable[],
  timeline: readonly Selectable<TransactionTimelineTable>[],
): TransactionDetail {
  return {
    ...toSummary(row),
    amounts: amountsOf(row, ops),
    customer: { email: row.customer_email, name: row.customer_name },
    cardRefId: row.card_ref_id,
    allowedActions: allowedActions(row, ops),
    driftDetails:
      row.drift_details === null
        ? null
        : (JSON.parse(row.drift_details) as Record<string, unknown>),
    lastCheckedAt: row.last_checked_at === null ? null : iso(row.last_checked_at),
    operations: ops.map(toOperation),
    timeline: timeline.map((entry) => {
      const shown = toTimelineEntry(entry);
      // A payout's gateway order: its `status` replies echo the payee's name and the card's
      // expiry, which the payout's own page shows to ops users alone.
      return isPayoutOrder(asTransactionType(row.type))
        ? { ...shown, data: withhold(shown.data, PAYOUT_HISTORY) as Record<string, unknown> }
        : shown;
    }),
  };
}

/** An order's row as locked, with its operations as stored. */
export interface LockedOrder {
  row: TransactionsTable;
  ops: TransactionOperationsTable[];
}

/** What paydesk_lock_order returns: null for no such order; the timeline when asked for. */
type LockedOrderResult =
  (LockedOrder & { timeline: Selectable<TransactionTimelineTable>[] | null }) | null;

/** A timeline entry's columns but its order's id. */
function timelineRow(entry: TimelineInput, at: number) {
  return {
    at,
    kind: entry.kind,
    title: entry.title.slice(0, 300),
    actor: entry.actor,
    data: JSON.stringify(redact(entry.data)),
  };
}

// The order's hot reads and writes, compiled once per database and shape (db/query-template.ts).

/** An update of an order's row, by id: the columns `changes` names. */
export const updateOrderRow = queryTemplate(
  (k: PayDb, v: { id: string; changes: Updateable<PayDatabase['transactions']> }) =>
    k.updateTable('transactions').set(v.changes).where('id', '=', v.id),
);

/** An update of an operation's row, by id: the columns `changes` names. */
export const updateOperationRow = queryTemplate(
  (k: PayDb, v: { id: string; changes: Updateable<PayDatabase['transaction_operations']> }) =>
    k.updateTable('transaction_operations').set(v.changes).where('id', '=', v.id),
);

/** A new operation row. */
export const insertOperationRow = queryTemplate(
  (k: PayDb, v: { row: Insertable<PayDatabase['transaction_operations']> }) =>
    k.insertInto('transaction_operations').values(v.row),
);

const insertTimelineRows = queryTemplate(
  (k: PayDb, v: { rows: Insertable<PayDatabase['transaction_timeline']>[] }) =>
    k.insertInto('transaction_timeline').values(v.rows),
);

function reconcileJobInsert(k: PayDb, v: { transactionId: string; at: number }) {
  return k.insertInto('reconcile_jobs').values({
    transaction_id: v.transactionId,
    first_at: v.at,
    next_attempt_at: v.at,
    attempts: 0,
    lease_owner: null,
    lease_until: null,
    last_error: null,
  });
}

/** A reconcile job starting at `at`, or the order's job restarted at `at`. */
const restartReconcile = queryTemplate((k: PayDb, v: { transactionId: string; at: number }) =>
  reconcileJobInsert(k, v).onConflict((oc) =>
    oc.column('transaction_id').doUpdateSet((eb) => ({
      first_at: eb.ref('excluded.first_at'),
      next_attempt_at: eb.ref('excluded.next_attempt_at'),
      attempts: 0,
    })),
  ),
);

/** A reconcile job starting at `at`, unless the order has one (which keeps its schedule). */
const keepReconcile = queryTemplate((k: PayDb, v: { transactionId: string; at: number }) =>
  reconcileJobInsert(k, v).onConflict((oc) => oc.column('transaction_id').doNothing()),
);

const deleteReconcile = queryTemplate((k: PayDb, v: { transactionId: string }) =>
  k.deleteFrom('reconcile_jobs').where('transaction_id', '=', v.transactionId),
);

/** An order's operations, oldest first. */
const operationsQuery = queryTemplate((k: PayDb, v: { transactionId: string }) =>
  k
    .selectFrom('transaction_operations')
    .selectAll()
    .where('transaction_id', '=', v.transactionId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc'),
);

/** The first TIMELINE_LIMIT entries of an order, oldest first. */
const timelineQuery = queryTemplate((k: PayDb, v: { transactionId: string }) =>
  k
    .selectFrom('transaction_timeline')
    .selectAll()
    .where('transaction_id', '=', v.transactionId)
    .orderBy('id', 'asc')
    .limit(TIMELINE_LIMIT),
);

/** What paydesk_lock_order is given: the order by id or orderid, a timeline row to append. */
interface LockOrderArgs {
  id: string | null;
  orderid: string | null;
  row: string | null;
}

function lockOrderCall(v: LockOrderArgs) {
  return sql<LockedOrderResult>`paydesk_lock_order(${v.id}::text, ${v.orderid}::text, ${v.row}::json, ${TIMELINE_LIMIT})`;
}

/** PostgreSQL: paydesk_lock_order with an Idempotency-Key's insert (Ledger.lockOrderTaking). */
const lockOrderTakingQuery = queryTemplate((k: PayDb, v: { id: string; taking: KeyTaking }) =>
  k
    .with('locked', (db) =>
      db.selectNoFrom(lockOrderCall({ id: v.id, orderid: null, row: null }).as('locked')),
    )
    .with('taken', () =>
      takingInsert(
        k,
        v.taking,
        (createdAt) => sql<number>`(select ${createdAt}::bigint from locked)`,
      ).returning('key'),
    )
    .selectNoFrom([
      sql<number>`(select count(*) from taken)`.as('taken'),
      sql<LockedOrderResult>`(select locked from locked)`.as('locked'),
    ]),
);

/** PostgreSQL: paydesk_lock_order as a statement of its own. */
const lockOrderQuery = queryTemplate((k: PayDb, v: LockOrderArgs) =>
  k.selectNoFrom(lockOrderCall(v).as('locked')),
);

export class Ledger {
  readonly k: PayDb;
  constructor(
    readonly db: Db,
    readonly clock: Clock,
    readonly audit: AuditLog,
    readonly bus: EventBus,
    readonly options: PaymentsOptions,
  ) {
    this.k = payDb(db);
  }

  /** One database transaction (BEGIN IMMEDIATE on SQLite). */
  tx<T>(work: (trx: PayTrx) => Promise<T>): Promise<T> {
    return this.k.transaction().execute(work);
  }

  /**
   * A transaction whose commit may reach the disk just after it returns (the next durable commit
   * takes it along): only for writes whose loss in a power cut leaves what a crash just before
   * them leaves, which Paydesk recovers from (db/deferred-sync.ts).
   */
  txSyncedLater<T>(work: (trx: PayTrx) => Promise<T>): Promise<T> {
    return transactionSyncedLater(this.db, this.k, work);
  }

  async timeline(trx: PayTrx, transactionId: string, entry: TimelineInput): Promise<void> {
    await trx.executeQuery(this.timelineInsert(trx, transactionId, [entry]));
  }

  /** Timeline entries in one insert, in this order, to run alone or in a write batch (db/write-batch.ts). */
  timelineInsert(trx: PayTrx, transactionId: string, entries: readonly TimelineInput[]) {
    const at = this.clock.now();
    return insertTimelineRows(trx, {
      rows: entries.map((entry) => ({ transaction_id: transactionId, ...timelineRow(entry, at) })),
    });
  }

  /**
   * Locks the order's row and reads its operations, as `lockTransaction` and `operationsOf` do;
   * given `entry`, also appends it to the timeline and reads the timeline with it, as `timelineOf`
   * does. Undefined when there is no such order. One round trip on PostgreSQL (the
   * paydesk_lock_order function, migration 0009-order-lock).
   */
  async lockOrder(trx: PayTrx, id: string): Promise<LockedOrder | undefined>;
  async lockOrder(
    trx: PayTrx,
    id: string,
    entry: TimelineInput,
  ): Promise<(LockedOrder & { timeline: Selectable<TransactionTimelineTable>[] }) | undefined>;
  async lockOrder(
    trx: PayTrx,
    id: string,
    entry?: TimelineInput,
  ): Promise<
    (LockedOrder & { timeline: Selectable<TransactionTimelineTable>[] | null }) | undefined
  > {
    if (this.db.kind === 'postgres') return this.lockOrderAlone(trx, { id, orderid: null }, entry);
    const row = await lockTransaction(this.db, trx, id);
    if (row === undefined) return undefined;
    const ops = await this.operationsOf(trx, id);
    if (entry === undefined) return { row, ops, timeline: null };
    await trx.executeQuery(this.timelineInsert(trx, id, [entry]));
    return { row, ops, timeline: await this.timelineOf(trx, id) };
  }

  /** `lockOrder` by the gateway's orderid (unique): undefined when Paydesk has no such order yet. */
  async lockOrderByOrderid(trx: PayTrx, orderid: string): Promise<LockedOrder | undefined> {
    if (this.db.kind === 'postgres') return this.lockOrderAlone(trx, { id: null, orderid });
    const row = await lockTransactionByOrderid(this.db, trx, orderid);
    return row === undefined ? undefined : { row, ops: await this.operationsOf(trx, row.id) };
  }

  /**
   * PostgreSQL: `lockOrder` together with an Idempotency-Key's insert (idempotency.ts
   * `takingInsert`) in one statement; `taken` says whether the insert wrote the key.
   *
   * The order is locked before the key is written, as step C locks the order before it writes
   * the key's reply: in the other order, a repeat of a request (same key) could hold the key's row
   * waiting for the order while the first request's step C held the order waiting for the key — a
   * deadlock (seen in the scale-out suite). Sub-statements of one statement run in no set order,
   * so the key's `created_at` is read through the lock's result: the insert cannot run before it.
   */
  async lockOrderTaking(
    trx: PayTrx,
    id: string,
    taking: KeyTaking,
  ): Promise<{ order: LockedOrder | undefined; taken: boolean }> {
    const [result] = (await trx.executeQuery(lockOrderTakingQuery(trx, { id, taking }))).rows;
    if (result === undefined) throw new Error('the order lock returned no row');
    return { order: result.locked ?? undefined, taken: result.taken > 0 };
  }

  /** PostgreSQL: paydesk_lock_order as a statement of its own. */
  private async lockOrderAlone(
    trx: PayTrx,
    order: { id: string | null; orderid: string | null },
    entry?: TimelineInput,
  ) {
    const row = entry === undefined ? null : JSON.stringify(timelineRow(entry, this.clock.now()));
    const [result] = (await trx.executeQuery(lockOrderQuery(trx, { ...order, row }))).rows;
    if (result === undefined) throw new Error('paydesk_lock_order returned no row');
    return result.locked ?? undefined;
  }

  /** The first TIMELINE_LIMIT entries of an order, oldest first. */
  async timelineOf(k: PayDb | PayTrx, transactionId: string) {
    return (await k.executeQuery(timelineQuery(k, { transactionId }))).rows;
  }

  /** Starts (or restarts) the reconcile schedule of a transaction: first attempt at `at`. */
  async scheduleReconcile(trx: PayTrx, transactionId: string, at: number): Promise<void> {
    await trx.executeQuery(this.reconcileUpsert(trx, transactionId, at));
  }

  /** The upsert of `scheduleReconcile`, to run alone or in a write batch. */
  reconcileUpsert(trx: PayTrx, transactionId: string, at: number) {
    return restartReconcile(trx, { transactionId, at });
  }

  /** The delete of an order's reconcile job (it needs none), to run alone or in a write batch. */
  reconcileDelete(k: PayDb | PayTrx, transactionId: string) {
    return deleteReconcile(k, { transactionId });
  }

  async operationsOf(
    trx: PayTrx | PayDb,
    transactionId: string,
  ): Promise<TransactionOperationsTable[]> {
    return (await trx.executeQuery(operationsQuery(trx, { transactionId }))).rows;
  }

  /** Whether the order still needs `status` polling: not final, or an operation of ours pending. */
  needsReconcile(row: TransactionsTable, ops: readonly TransactionOperationsTable[]): boolean {
    if (row.status === 'processing' || row.status === 'unknown') return true;
    return ops.some(
      (o) =>
        o.origin === 'paydesk' &&
        ((IN_FLIGHT_STATES as readonly string[]).includes(o.state) || o.state === 'processing'),
    );
  }

  /**
   * Creates or updates the order from a `status` reply inside `trx`: matches the gateway's
   * operations to ours (by serial number, or a lost reply's operation by kind and amount), flags
   * and audits drift, records the exchange in the timeline, and keeps the order's settlement check
   * (settlement.ts) in step.
   *
   * A reply showing an amount Paydesk cannot hold (amount-range.ts) is never applied: on a known
   * order it is recorded instead (`notApplied` says so; the caller stops following it), and for an
   * order Paydesk does not know, `StatusNotApplied` is thrown with nothing written.
   *
   * A reply that disagrees with what Paydesk recorded (a final status changed, captured or
   * returned gone back), or whose amounts break returned ≤ captured ≤ authorized, applies as the
   * gateway says (the gateway holds the money) and flags the order as drift with both sides, in
   * its details, its timeline and the audit log, until a person has reviewed it.
   */
  async applyStatus(
    trx: PayTrx,
    endpointId: string,
    view: GatewayView,
    how: {
      source: DriftSource;
      actor: string | null;
      /** the id of the staff member `actor` names, when known (a drift's audit row carries it) */
      actorId?: string | null;
      exchange: Record<string, unknown> | null;
      /** timeline entries of the caller's, written after this reply's (in the same statement) */
      timelineAfter?: readonly TimelineInput[];
      /** the caller's own writes on other rows, sent with this reply's (the order's id given) */
      writesAfter?: (trx: PayTrx, transactionId: string) => Write[];
      /**
       * the caller's transaction ends with this call: unless a drift record follows, the writes
       * take the COMMIT along (write-batch.ts `thenCommit`)
       */
      last?: boolean;
    },
  ): Promise<ApplyResult> {
    const outOfRange = amountsOutOfRange(view);
    if (outOfRange.length > 0) return this.recordUnholdable(trx, view, outOfRange, how);
    const now = this.clock.now();
    // An order Paydesk already knows (every callback after the first, every refresh): one
    // statement finds and locks it, with its operations.
    const known = await this.lockOrderByOrderid(trx, view.orderid);
    const { before, created } =
      known === undefined
        ? await this.insertOrLock(trx, endpointId, view, how.source, now)
        : { before: known.row, created: false };

    const ops = known?.ops ?? (await this.operationsOf(trx, before.id));
    const totals = totalsWithUnseen(ops, view);
    // The reply's own amounts fit a column (checked above); with ours it does not list, a total
    // may not: such a reply is recorded and not applied, as one with an amount out of range.
    const beyond = totalsOutOfRange(view, totals);
    if (beyond.length > 0) return this.recordUnholdable(trx, view, beyond, how);
    const drift = created ? [] : this.driftOf(before, ops, view);
    // The order's currency, as the drift and timeline texts name it with each amount.
    const currency = view.currency === '' ? before.currency : view.currency;
    // The writes below touch each row once (the order's row, some of its operations, new
    // timeline rows, its reconcile job, its settlement check, a subscription, the caller's own
    // rows): one write batch (db/write-batch.ts). The order is locked, so the row as updated is
    // kept in memory.
    const writes: Write[] = [];
    const opsAfter = await this.syncOperations(trx, before.id, ops, view, now, writes, drift, {
      currency,
    });
    // Never what the gateway's caps allow: shown as it is, and flagged.
    drift.push(...brokenInvariants(view, totals, currency));

    const driftDetails =
      drift.length > 0
        ? JSON.stringify({ detectedAt: iso(now), reasons: drift, ...driftSides(before, view) })
        : before.drift === 1
          ? // Flagged before, and this reply applies without drift: the two sides agree again.
            agreedAgain(before.drift_details, now)
          : before.drift_details;
    const changes = {
      status: view.status,
      stage: view.stage,
      type: view.type === 'unknown' ? before.type : view.type,
      currency,
      amount_minor: toColumn(view.amountMinor),
      authorized_minor: toColumn(view.authorizedMinor),
      captured_minor: toColumn(totals.capturedMinor),
      returned_minor: toColumn(totals.returnedMinor),
      card_bin: view.cardBin ?? before.card_bin,
      card_last4: view.cardLast4 ?? before.card_last4,
      card_brand: view.cardBrand ?? before.card_brand,
      card_ref_id: view.cardRefId ?? before.card_ref_id,
      customer_email: view.email?.toLowerCase() ?? before.customer_email,
      customer_name: view.name ?? before.customer_name,
      drift: drift.length > 0 ? 1 : before.drift,
      drift_details: driftDetails,
      recurring_payment_id: view.recurringPaymentId ?? before.recurring_payment_id ?? null,
      last_checked_at: now,
      updated_at: now,
    };
    writes.push(updateOrderRow(trx, { id: before.id, changes }));
    const row: TransactionsTable = { ...before, ...changes };

    const link = this.linkSubscription(trx, view);
    if (link !== null) writes.push(link);
    const entries: TimelineInput[] = [];
    if (how.exchange !== null) {
      entries.push({
        kind: how.source === 'reconcile' ? 'reconcile' : 'gateway',
        title: `status: ${view.status}${view.stage === null ? '' : ` (${view.stage})`}`,
        actor: how.actor,
        data: how.exchange,
      });
    }
    if (drift.length > 0) {
      entries.push({
        kind: 'drift',
        // Said as what happened: Paydesk took the gateway's figures (the previous entry's status).
        title: `the gateway contradicted Paydesk's record: ${drift.join(' · ')}`,
        actor: null,
        data: JSON.parse(driftDetails ?? '{}') as Record<string, unknown>,
      });
    }
    entries.push(...(how.timelineAfter ?? []));
    if (entries.length > 0) writes.push(this.timelineInsert(trx, before.id, entries));
    if (this.needsReconcile(row, opsAfter)) {
      // A job already scheduled keeps its schedule.
      writes.push(
        keepReconcile(trx, { transactionId: row.id, at: now + this.options.reconcile.fastMinMs }),
      );
    }
    // The gateway says nothing when the order settles: a status check is due then.
    const settlement = settlementCheckWrite(
      trx,
      created ? null : before,
      row,
      view,
      now,
      this.options.settlement.afterMs,
    );
    if (settlement !== null) writes.push(settlement);
    writes.push(...(how.writesAfter?.(trx, before.id) ?? []));
    const writesLast = how.last === true && how.source !== 'reconcile' && drift.length === 0;
    // When these writes were the last, nothing below runs: no reconciliation, no drift.
    await runWrites(this.db.kind, trx, writes, { thenCommit: writesLast });

    if (how.source === 'reconcile') await this.settleInterruptedKeys(trx, row, opsAfter, now);
    if (drift.length > 0) {
      await this.audit.appendIn(
        platformTrx(trx),
        driftAuditEntry({
          target: `transaction:${before.id}`,
          summary: { orderid: view.orderid, reasons: drift },
          source: how.source,
          finder: finderOf(how.actor, how.actorId),
        }),
      );
    }
    return { row, created, drift, notApplied: [] };
  }

  /**
   * applyStatus for a reply with amounts Paydesk cannot hold: the known order flagged, the
   * exchange, the caller's timeline entries and its writes recorded (amount-range.ts
   * `recordOutOfRange`); nothing else of the order changes, its jobs are left to their callers.
   * An order Paydesk does not know cannot be created: `StatusNotApplied`, nothing written.
   */
  private async recordUnholdable(
    trx: PayTrx,
    view: GatewayView,
    amounts: string[],
    how: ApplyHow,
  ): Promise<ApplyResult> {
    const known = await this.lockOrderByOrderid(trx, view.orderid);
    if (known === undefined) throw new StatusNotApplied(view, null);
    const row = await recordOutOfRange(this, trx, known.row.id, view, amounts, {
      source: how.source,
      exchange: how.exchange,
      actor: how.actor,
      ...(how.actorId === undefined ? {} : { actorId: how.actorId }),
      ...(how.timelineAfter === undefined ? {} : { timelineAfter: how.timelineAfter }),
    });
    const writes = how.writesAfter?.(trx, row.id) ?? [];
    if (writes.length > 0) await runWrites(this.db.kind, trx, writes);
    return { row, created: false, drift: [outOfRangeReason(amounts)], notApplied: amounts };
  }

  /**
   * An order Paydesk does not know under this orderid: a rebill whose reply was lost carries a
   * placeholder orderid until the gateway names it (this reply does); otherwise the order is
   * inserted, unless a concurrent transaction just did. Either way the row is locked.
   */
  private async insertOrLock(
    trx: PayTrx,
    endpointId: string,
    view: GatewayView,
    source: string,
    now: number,
  ): Promise<{ before: TransactionsTable; created: boolean }> {
    const id = randomUUID();
    await trx
      .updateTable('transactions')
      .set({ orderid: view.orderid })
      .where('orderid', '=', pendingOrderId(view.clientOrderId))
      .execute();
    await trx
      .insertInto('transactions')
      .values({
        id,
        endpoint_id: endpointId,
        orderid: view.orderid,
        client_orderid: view.clientOrderId,
        type: view.type,
        status: view.status,
        stage: view.stage,
        currency: view.currency,
        amount_minor: toColumn(view.amountMinor),
        authorized_minor: toColumn(view.authorizedMinor),
        captured_minor: toColumn(view.capturedMinor),
        returned_minor: toColumn(view.returnedMinor),
        card_bin: view.cardBin,
        card_last4: view.cardLast4,
        card_brand: view.cardBrand,
        card_ref_id: view.cardRefId,
        customer_email: view.email?.toLowerCase() ?? null,
        customer_name: view.name,
        drift: 0,
        drift_details: null,
        source: source === 'callback' ? 'callback' : 'lookup',
        recurring_payment_id: view.recurringPaymentId ?? null,
        last_checked_at: now,
        created_at: view.createdAt ?? now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('orderid').doNothing())
      .execute();
    const before = await lockTransactionByOrderid(this.db, trx, view.orderid);
    if (before === undefined)
      throw new Error('transaction vanished inside its own database transaction');
    // The id is new: the row carries it only when this call inserted it.
    return { before, created: before.id === id };
  }

  /**
   * A charge of a recurring payment names it. A subscription whose create reply was lost learns
   * its recurring-payment-id here: the charge's client_orderid is the plan's plus `-n`.
   */
  private linkSubscription(trx: PayTrx, view: GatewayView) {
    const match = /^(.+)-\d+$/.exec(view.clientOrderId);
    const rpId = view.recurringPaymentId;
    if (match?.[1] === undefined || rpId === undefined || rpId === null) return null;
    // A charge proves the plan exists: it wins over an outcome not known yet and over an earlier
    // "not created" verdict of the crash recovery (a gateway that charged later than expected).
    return trx
      .updateTable('subscriptions')
      .set({
        recurring_payment_id: rpId,
        state: 'active',
        error_code: null,
        error_message: null,
        ...unansweredColumns(null),
        updated_at: this.clock.now(),
      })
      .where('client_orderid', '=', match[1])
      .where('recurring_payment_id', 'is', null)
      .where((eb) =>
        eb.or([
          eb('state', 'in', ['unknown', 'sending']),
          eb.and([eb('state', '=', 'not_sent'), eb('error_code', '=', 'NOT_CREATED')]),
        ]),
      );
  }

  /**
   * Where the gateway contradicts what Paydesk knew for certain. Amounts that still depend on an
   * operation of ours awaiting its outcome are not compared: the gateway may rightly decline it.
   */
  private driftOf(
    before: TransactionsTable,
    ops: readonly TransactionOperationsTable[],
    view: GatewayView,
  ): string[] {
    const pending = (kind: string) =>
      ops.some(
        (o) =>
          o.kind === kind &&
          o.origin === 'paydesk' &&
          ['sending', 'unknown', 'processing'].includes(o.state),
      );
    // Said as what happened: Paydesk had its record; the gateway's, applied, is what it shows now.
    const ours = (minor: bigint) => moneyText(minor, before.currency);
    const theirs = (minor: bigint) =>
      moneyText(minor, view.currency === '' ? before.currency : view.currency);
    const reasons: string[] = [];
    if (
      isFinalStatus(before.status) &&
      isFinalStatus(view.status) &&
      before.status !== view.status
    ) {
      reasons.push(`Paydesk had the order ${before.status}; the gateway says ${view.status}`);
    }
    if (!pending('capture') && view.capturedMinor < big(before.captured_minor)) {
      reasons.push(
        `Paydesk had ${ours(big(before.captured_minor))} captured; the gateway ${theirs(view.capturedMinor)}`,
      );
    }
    if (!pending('return') && view.returnedMinor < big(before.returned_minor)) {
      reasons.push(
        `Paydesk had ${ours(big(before.returned_minor))} returned; the gateway ${theirs(view.returnedMinor)}`,
      );
    }
    if (
      !pending('void') &&
      before.stage === 'voided' &&
      view.stage !== null &&
      view.stage !== 'voided'
    ) {
      reasons.push(
        `Paydesk had the order voided; the gateway says ${view.stage.replace(/_/g, ' ')}`,
      );
    }
    return reasons;
  }

  private async syncOperations(
    trx: PayTrx,
    transactionId: string,
    ops: TransactionOperationsTable[],
    view: GatewayView,
    now: number,
    writes: Write[],
    /** drift reasons found here are added to it (an operation applied after "not applied") */
    drift: string[],
    /** `currency`: the order's, named with each amount its texts say */
    text: { currency: string },
  ): Promise<TransactionOperationsTable[]> {
    // The operations as they are after this call (the order is locked), for needsReconcile; the
    // gateway's own operations inserted here are left out (it looks at Paydesk's only). Each
    // operation row is written at most once, by the caller's write batch (`writes`); timeline
    // entries and audit rows of the rare cases below are written at once, so that they come
    // before the caller's entries.
    const after = new Map(ops.map((o) => [o.id, o]));
    const bySerial = new Map(
      ops.filter((o) => o.gateway_serial !== null).map((o) => [o.gateway_serial, o]),
    );
    const waiting = ops.filter(
      (o) =>
        o.origin === 'paydesk' &&
        o.gateway_serial === null &&
        (IN_FLIGHT_STATES as readonly string[]).includes(o.state),
    );
    // Operations of ours judged not applied: the gateway may still apply one late (it held the
    // request past the verdict). Matched like a lost reply's, after those.
    const givenUp = ops.filter(
      (o) => o.origin === 'paydesk' && o.gateway_serial === null && o.state === 'not_applied',
    );
    // Attributions among requests alike (same kind and amount, same likelihood), each the first
    // sent: checked once every listed operation is matched (see `noteGuesses`).
    const guesses: Guess[] = [];
    const matchedAs = new Map<string, string>();
    // A serial listed twice is one operation, one row to write: its last listing counts.
    const listed = new Map(view.operations.map((g) => [g.serial, g]));
    for (const g of listed.values()) {
      const kind = operationKindOf(g.type);
      if (kind === null || !TERMINAL_FOR_MATCH.has(g.status)) continue;
      const mine = bySerial.get(g.serial);
      if (mine !== undefined) {
        // A late reply may still show as processing what is already final here: keep the final state.
        const regress =
          g.status === 'processing' &&
          mine.state !== 'processing' &&
          mine.state !== 'unknown' &&
          mine.state !== 'sending';
        if (mine.state !== g.status && !regress) {
          const changes = { state: g.status, reserved_minor: 0, updated_at: now };
          writes.push(updateOperationRow(trx, { id: mine.id, changes }));
          after.set(mine.id, { ...mine, ...changes });
        }
        continue;
      }
      // An operation of ours whose reply was lost: same kind and (when it has one) same amount,
      // the one most likely applied (`likeliest`).
      const pick = likeliest(waiting, g, kind);
      if (pick !== null) {
        const matched = waiting.splice(pick.index, 1)[0];
        if (matched !== undefined) {
          const changes = {
            state: g.status,
            reserved_minor: 0,
            gateway_serial: g.serial,
            updated_at: now,
          };
          writes.push(updateOperationRow(trx, { id: matched.id, changes }));
          after.set(matched.id, { ...matched, ...changes });
          matchedAs.set(matched.id, g.status);
          if (pick.alike.length > 0) guesses.push({ op: matched, g, alike: pick.alike });
          await this.timeline(trx, transactionId, {
            kind: 'reconcile',
            title: `${matched.kind} found at the gateway: ${g.status} (it was applied; not sent again)`,
            actor: null,
            data: {
              operationId: matched.id,
              serialNumber: g.serial,
              status: g.status,
              ...(pick.rankedBelow.length === 0 ? {} : { rankedBelow: pick.rankedBelow }),
            },
          });
          await this.auditReconciled(trx, transactionId, matched, 'applied', g.status);
        }
        continue;
      }
      const late = likeliest(givenUp, g, kind);
      if (late !== null) {
        const matched = givenUp.splice(late.index, 1)[0];
        if (matched !== undefined) {
          matchedAs.set(matched.id, g.status);
          if (late.alike.length > 0) guesses.push({ op: matched, g, alike: late.alike });
          await this.appliedAfterNotApplied(
            trx,
            transactionId,
            matched,
            g,
            now,
            writes,
            drift,
            text.currency,
          );
          after.set(matched.id, {
            ...matched,
            state: g.status,
            reserved_minor: 0,
            gateway_serial: g.serial,
            updated_at: now,
          });
        }
        continue;
      }
      writes.push(
        trx
          .insertInto('transaction_operations')
          .values({
            id: randomUUID(),
            transaction_id: transactionId,
            kind,
            origin: 'gateway',
            state: g.status,
            amount_minor: g.amountMinor === null ? null : toColumn(g.amountMinor),
            reserved_minor: 0,
            gateway_serial: g.serial,
            idempotency_key: null,
            requested_by: null,
            reason_code: null,
            comment: null,
            error_code: null,
            error_message: null,
            sent_at: null,
            created_at:
              g.processingDate === null || !Number.isFinite(Date.parse(g.processingDate))
                ? now
                : Date.parse(g.processingDate),
            updated_at: now,
          })
          .onConflict((oc) => oc.columns(['transaction_id', 'gateway_serial']).doNothing()),
      );
    }
    await this.noteGuesses(trx, transactionId, guesses, matchedAs, drift, text.currency);
    // create-card-ref leaves no operation in the status reply, only the card-ref-id.
    if (view.cardRefId !== null) {
      for (const o of waiting.filter((w) => w.kind === 'card-ref')) {
        const changes = { state: 'approved', reserved_minor: 0, updated_at: now };
        writes.push(updateOperationRow(trx, { id: o.id, changes }));
        after.set(o.id, { ...o, ...changes });
        waiting.splice(waiting.indexOf(o), 1);
      }
    }
    // A lost reply whose operation the gateway still does not show, long enough after sending
    // that it cannot be on its way: it was not applied. It is never sent again by Paydesk. An
    // operation left `sending` by an instance that stopped mid-request is judged the same way.
    const notAppliedAfter = Math.max(
      this.options.reconcile.notAppliedAfterMs,
      this.options.gatewayTimeoutMs,
    );
    for (const o of waiting) {
      if (o.sent_at === null) continue;
      const age = now - o.sent_at;
      const abandoned =
        o.state === 'sending' && age >= notAppliedAfter + this.options.gatewayTimeoutMs;
      if (!abandoned && (o.state !== 'unknown' || age < notAppliedAfter)) continue;
      const changes = { state: 'not_applied', reserved_minor: 0, updated_at: now };
      writes.push(updateOperationRow(trx, { id: o.id, changes }));
      after.set(o.id, { ...o, ...changes });
      await this.timeline(trx, transactionId, {
        kind: 'reconcile',
        title: `${o.kind} was not applied by the gateway (its status does not show it); it was not sent again`,
        actor: null,
        data: { operationId: o.id },
      });
      await this.auditReconciled(trx, transactionId, o, 'not_applied', null);
    }
    return [...after.values()];
  }

  /**
   * Attributions that were a guess: the gateway's operation went to the first sent of requests
   * alike (same kind and amount, both unanswered or both answered with an error, none sent after
   * it), and one of the others was not matched by this reply, or to an operation of another
   * status. Their requester, reason and comment may belong to another request: the timeline says
   * so, and the order is flagged for finance's review. Requests alike that the gateway all shows
   * with the same status are not a guess worth a word (each of them was applied).
   */
  private async noteGuesses(
    trx: PayTrx,
    transactionId: string,
    guesses: readonly Guess[],
    matchedAs: ReadonlyMap<string, string>,
    drift: string[],
    currency: string,
  ): Promise<void> {
    for (const { op, g, alike } of guesses) {
      const open = alike.filter((o) => matchedAs.get(o.id) !== g.status);
      if (open.length === 0) continue;
      const what = `${op.kind}${op.amount_minor === null ? '' : ` of ${moneyText(big(op.amount_minor), currency)}`}`;
      const who = (o: TransactionOperationsTable) =>
        `${o.requested_by ?? 'Paydesk'}${o.sent_at === null ? '' : ` at ${iso(o.sent_at)}`}`;
      drift.push(
        `the gateway's ${what} (serial ${g.serial}) was attributed to the request of ${who(op)}, the first sent; Paydesk cannot tell it from ${open.map(who).join(', ')} (check who requested it)`,
      );
      await this.timeline(trx, transactionId, {
        kind: 'reconcile',
        title: `${what} at the gateway attributed by guess to the first request sent: ${open.length + 1} alike requests could be it`,
        actor: null,
        data: {
          finding: 'ambiguous_match',
          serialNumber: g.serial,
          operationId: op.id,
          alternatives: open.map((o) => ({
            operationId: o.id,
            requestedBy: o.requested_by,
            sentAt: o.sent_at === null ? null : iso(o.sent_at),
            state: o.state,
          })),
        },
      });
    }
  }

  /**
   * An operation of ours judged not applied (`not_applied`, its reservation released) that the
   * gateway shows after all: it held the request past the verdict and applied it. The operation
   * takes the gateway's serial and status (its money moved), and since staff may have made the
   * same request again meanwhile (the verdict told them it was not applied), the order is flagged
   * as drift, audited and explained on the timeline; its totals are the gateway's.
   */
  private async appliedAfterNotApplied(
    trx: PayTrx,
    transactionId: string,
    op: TransactionOperationsTable,
    g: GatewayOp,
    now: number,
    writes: Write[],
    drift: string[],
    currency: string,
  ): Promise<void> {
    const changes = {
      state: g.status,
      reserved_minor: 0,
      gateway_serial: g.serial,
      updated_at: now,
    };
    writes.push(updateOperationRow(trx, { id: op.id, changes }));
    const what = `${op.kind}${op.amount_minor === null ? '' : ` of ${moneyText(big(op.amount_minor), currency)}`}`;
    const by = op.requested_by === null ? '' : ` requested by ${op.requested_by}`;
    // Declined (or failed) at the gateway after all: no money moved, nothing to flag.
    const moved = g.status === 'processing' || g.status === 'approved';
    if (moved) {
      drift.push(
        `${what}${by} was applied by the gateway after Paydesk had judged it not applied (check for a repeat of it)`,
      );
    }
    await this.timeline(trx, transactionId, {
      kind: 'reconcile',
      title: moved
        ? `${what} applied by the gateway after it was judged not applied (${g.status}); a repeat of it made since is applied as well`
        : `${what} reached the gateway after it was judged not applied: ${g.status}`,
      actor: null,
      data: {
        operationId: op.id,
        serialNumber: g.serial,
        status: g.status,
        finding: 'applied_after_not_applied',
      },
    });
    await this.auditReconciled(trx, transactionId, op, 'applied_after_not_applied', g.status);
  }

  /**
   * The Idempotency-Keys of requests interrupted mid-operation (their instance stopped between
   * sending and recording the reply): still in flight although their operation was sent longer
   * ago than any live request takes (the gateway call times out by then, and the outcome step
   * follows at once). Settled when the reconciler looks at the order (the safety-net job of step A
   * comes due just then): an operation the gateway has answers repeats with the reply the request
   * would have had; one it did not apply lets the key go, so the same request can be made again.
   */
  private async settleInterruptedKeys(
    trx: PayTrx,
    row: TransactionsTable,
    ops: readonly TransactionOperationsTable[],
    now: number,
  ): Promise<void> {
    const over = now - (this.options.gatewayTimeoutMs + this.options.reconcile.fastMinMs);
    const candidates = ops.filter(
      (o) =>
        o.origin === 'paydesk' &&
        o.idempotency_key !== null &&
        o.requested_by !== null &&
        o.sent_at !== null &&
        o.sent_at <= over &&
        !(IN_FLIGHT_STATES as readonly string[]).includes(o.state),
    );
    if (candidates.length === 0) return;
    const inFlight = await trx
      .selectFrom('idempotency_keys')
      .select('key')
      .where('user_id', 'in', (eb) =>
        eb
          .selectFrom('users')
          .select('id')
          .where('email', 'in', [...new Set(candidates.map((o) => o.requested_by ?? ''))]),
      )
      .where(
        'key',
        'in',
        candidates.map((o) => o.idempotency_key ?? ''),
      )
      .where('state', '=', 'in_flight')
      .execute();
    if (inFlight.length === 0) return;
    const waiting = new Set(inFlight.map((k) => k.key));
    let detail: TransactionDetail | null = null;
    for (const op of candidates) {
      if (op.idempotency_key === null || op.requested_by === null) continue;
      if (!waiting.has(op.idempotency_key)) continue;
      const at = {
        requestedBy: op.requested_by,
        key: op.idempotency_key,
        route: keyRouteOf(op.kind, row.id),
        now,
      };
      if (op.state === 'not_applied') {
        await settleInterruptedKey(trx, at, null);
        continue;
      }
      detail ??= await this.detailOf(trx, row, ops);
      const operation = detail.operations.find((o) => o.id === op.id);
      if (operation === undefined) continue;
      const body: OperationResult = {
        operation,
        transaction: detail,
        message: `The ${op.kind} was interrupted before Paydesk recorded the gateway's reply; the gateway's status shows it ${operation.state}. It was not sent again.`,
      };
      await settleInterruptedKey(trx, at, { status: 200, body });
    }
  }

  /**
   * An order Paydesk created (a rebill) whose reply was lost, and that the gateway still does not
   * know (`status` 404) long enough after sending: it was never created. The operation becomes
   * `not_applied`, the order `error` / `not_created`; nothing is sent again. Null while it is too
   * early to tell.
   */
  async settleNotCreated(trx: PayTrx, transactionId: string): Promise<TransactionsTable | null> {
    const order = await this.lockOrder(trx, transactionId);
    if (order === undefined) return null;
    const { row, ops } = order;
    // `unknown`: the reply was lost. `processing` with the placeholder orderid: the instance that
    // sent it stopped before recording anything (the row is as step A of the rebill wrote it).
    const unnamed = row.status === 'processing' && gatewayOrderId(row.orderid) === undefined;
    if (row.status !== 'unknown' && !unnamed) return null;
    const now = this.clock.now();
    const notAppliedAfter = Math.max(
      this.options.reconcile.notAppliedAfterMs,
      this.options.gatewayTimeoutMs,
    );
    const waiting = ops.filter(
      (o) =>
        o.origin === 'paydesk' &&
        o.sent_at !== null &&
        ((o.state === 'unknown' && now - o.sent_at >= notAppliedAfter) ||
          (o.state === 'sending' &&
            now - o.sent_at >= notAppliedAfter + this.options.gatewayTimeoutMs)),
    );
    if (waiting.length === 0 || waiting.length !== ops.length) return null;
    for (const o of waiting) {
      await trx
        .updateTable('transaction_operations')
        .set({ state: 'not_applied', reserved_minor: 0, updated_at: now })
        .where('id', '=', o.id)
        .execute();
      await this.timeline(trx, transactionId, {
        kind: 'reconcile',
        title: `${o.kind} was not applied: the gateway does not know the order; it was not sent again`,
        actor: null,
        data: { operationId: o.id },
      });
      await this.auditReconciled(trx, transactionId, o, 'not_applied', null);
      if (o.state === 'sending' && o.idempotency_key !== null && o.requested_by !== null) {
        // Its request was interrupted: the key is let go, so the same request may be made again.
        await settleInterruptedKey(
          trx,
          {
            requestedBy: o.requested_by,
            key: o.idempotency_key,
            route: keyRouteOf(o.kind, row.id),
            now,
          },
          null,
        );
      }
    }
    await trx
      .updateTable('transactions')
      .set({ status: 'error', stage: 'not_created', last_checked_at: now, updated_at: now })
      .where('id', '=', transactionId)
      .execute();
    await trx.executeQuery(this.reconcileDelete(trx, transactionId));
    return trx
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', transactionId)
      .executeTakeFirstOrThrow();
  }

  /** The outcome of an operation whose reply was lost, learned by reconciliation: audited. */
  private async auditReconciled(
    trx: PayTrx,
    transactionId: string,
    op: TransactionOperationsTable,
    finding: 'applied' | 'not_applied' | 'applied_after_not_applied',
    gatewayStatus: string | null,
  ): Promise<void> {
    await this.audit.appendIn(platformTrx(trx), {
      actorId: null,
      actorEmail: null,
      actorRoles: [],
      action: 'transaction.reconcile',
      target: `transaction:${transactionId}`,
      summary: {
        operationId: op.id,
        operation: op.kind,
        amount: op.amount_minor === null ? null : formatMinorUnits(big(op.amount_minor)),
        requestedBy: op.requested_by,
        finding,
        gatewayStatus,
      },
      outcome: finding === 'not_applied' ? 'failed' : 'success',
      errorCode:
        finding === 'not_applied'
          ? 'NOT_APPLIED'
          : finding === 'applied_after_not_applied'
            ? 'APPLIED_AFTER_NOT_APPLIED'
            : null,
      requestId: null,
      ip: null,
      userAgent: null,
    });
  }

  async detail(k: PayDb | PayTrx, id: string): Promise<TransactionDetail | null> {
    const row = await k
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return null;
    return this.detailOf(k, row, await this.operationsOf(k, id));
  }

  /**
   * The detail of a row and its operations already read (or just written) in `k`: reads the
   * timeline, the order's status checks and the subscription it is a charge of.
   */
  async detailOf(
    k: PayDb | PayTrx,
    row: TransactionsTable,
    ops: readonly TransactionOperationsTable[],
  ): Promise<TransactionDetail> {
    const timeline = await this.timelineOf(k, row.id);
    const job = await k
      .selectFrom('reconcile_jobs')
      .select(['attempts', 'last_error'])
      .where('transaction_id', '=', row.id)
      .executeTakeFirst();
    const recurring = row.recurring_payment_id ?? null;
    const plan =
      recurring === null
        ? undefined
        : await k
            .selectFrom('subscriptions')
            .select(['id', 'order_desc'])
            .where('recurring_payment_id', '=', recurring)
            .executeTakeFirst();
    return {
      ...detailFrom(row, ops, timeline),
      statusChecks: statusChecksOf(row, ops, job),
      subscription: plan === undefined ? null : { id: plan.id, orderDesc: plan.order_desc },
    };
  }

  publish(row: TransactionsTable, created: boolean): void {
    const event: TransactionEvent = {
      type: created ? 'transaction.created' : 'transaction.updated',
      transactionId: row.id,
      orderid: row.orderid,
      status: row.status as TransactionStatus,
      drift: row.drift === 1,
      at: iso(this.clock.now()),
      transactionType: listedType(row),
    };
    this.bus.publish(event);
  }
}
