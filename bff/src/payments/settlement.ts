// Settlement checks. The gateway settles an approved sale, rebill, transfer or capture 24 h after
// approval (design §4) and sends no callback for it: Paydesk would go on showing the order
// `captured` (and offering a void the gateway refuses) until someone asked. So every order that
// awaits its settlement has one check, due `settlement.afterMs` after the approval: `status` once,
// applied like any status reply; should the order not show settled yet (the two clocks differ), it
// is asked again `retryAfterMs` later, at most `maxChecks` times. Nothing here moves money.
//
// The checks are rows of `settlement_checks` (0013), written with the status replies that show the
// order approved and captured (ledger.ts applyStatus) and claimed like the reconciler's jobs: rows
// locked with FOR UPDATE SKIP LOCKED on PostgreSQL, BEGIN IMMEDIATE on SQLite, the claim moving
// `due_at` past the whole pass (its lease), so two instances never ask for one order twice. A pass
// makes at most `batchSize` checks, one after another, on a loop of its own: hundreds of orders
// due at once (a database of older orders) are worked off over a few minutes without flooding
// the gateway or holding up the reconciler.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { queryTemplate } from '../db/query-template.js';
import { PollLoop } from '../jobs/poll-loop.js';
import { amountsOutOfRange } from './amount-range.js';
import type { PayDb, PayTrx } from './db.js';
import { exchangeData } from './gateway.js';
import { unansweredText } from './gateway-errors.js';
import type { GatewayView, Ledger } from './ledger.js';
import type { SettlementChecksTable, TransactionsTable } from './migration.js';
import { gatewayOrderId } from './rebills.js';
import { iso } from './records.js';
import type { TransactionsService } from './transactions.js';

/** The gateway operations whose approval starts the 24 h to settlement. */
const SETTLING = new Set(['sale', 'rebill', 'transfer', 'capture']);

/**
 * Whether the order waits for its settlement to show: approved and captured, nothing returned.
 * (A partly returned order settles too, but its stage stays `partially_returned` and it can no
 * longer be voided: nothing would change.)
 */
export function awaitsSettlement(order: Pick<TransactionsTable, 'status' | 'stage'>): boolean {
  return order.status === 'approved' && order.stage === 'captured';
}

/**
 * When the gateway approved the charge that settles (the latest approved sale, rebill, transfer or
 * capture in the reply): its processing date, but never later than Paydesk's `now` (the gateway's
 * clock may run ahead); `now` when the reply has none.
 */
export function approvalTime(view: GatewayView, now: number): number {
  let at: number | null = null;
  for (const op of view.operations) {
    if (op.status !== 'approved' || !SETTLING.has(op.type) || op.processingDate === null) continue;
    const time = Date.parse(op.processingDate);
    if (Number.isFinite(time) && (at === null || time > at)) at = time;
  }
  return at === null ? now : Math.min(at, now);
}

/** The order's check, unless it has one (which keeps its schedule and its lease). */
const keepCheck = queryTemplate(
  (k: PayDb, v: { transactionId: string; approvedAt: number; dueAt: number }) =>
    k
      .insertInto('settlement_checks')
      .values({
        transaction_id: v.transactionId,
        approved_at: v.approvedAt,
        due_at: v.dueAt,
        attempts: 0,
        lease_owner: null,
      })
      .onConflict((oc) => oc.column('transaction_id').doNothing()),
);

const dropCheck = queryTemplate((k: PayDb, v: { transactionId: string }) =>
  k.deleteFrom('settlement_checks').where('transaction_id', '=', v.transactionId),
);

/**
 * The write that keeps an order's settlement check in step with a status reply just applied, for
 * applyStatus's write batch (its own table): a check for an order that awaits settlement (kept
 * when it has one), none once it no longer does. `before`: the order as it was (null: created by
 * this reply).
 */
export function settlementCheckWrite(
  trx: PayTrx,
  before: TransactionsTable | null,
  after: TransactionsTable,
  view: GatewayView,
  now: number,
  afterMs: number,
) {
  if (awaitsSettlement(after)) {
    const approvedAt = approvalTime(view, now);
    return keepCheck(trx, { transactionId: after.id, approvedAt, dueAt: approvedAt + afterMs });
  }
  return before !== null && awaitsSettlement(before)
    ? dropCheck(trx, { transactionId: after.id })
    : null;
}

export class SettlementChecks {
  readonly #loop: PollLoop;

  constructor(
    private readonly ledger: Ledger,
    private readonly transactions: TransactionsService,
    private readonly logger: Logger,
  ) {
    this.#loop = new PollLoop(
      ledger.options.settlement.pollIntervalMs,
      () => this.runOnce(),
      (err: unknown) => {
        logger.error({ err }, 'settlement check pass failed');
      },
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops the loop and waits for the pass under way. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Claims the due checks and makes each; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claims = await this.claim();
    for (const claim of claims) {
      try {
        await this.check(claim);
      } catch (err) {
        // Its claim lapses at its lease's end: it is due again then (counted as made).
        this.logger.error({ err, transactionId: claim.transaction_id }, 'settlement check failed');
      }
    }
    return claims.length;
  }

  /**
   * At most `batchSize` due checks, oldest due first, claimed for this instance: each counted as
   * made and due again only after the lease, long enough for the whole pass (every check of it
   * may wait for the gateway's timeout).
   */
  async claim(): Promise<SettlementChecksTable[]> {
    const { db, options, clock } = this.ledger;
    const now = clock.now();
    const { batchSize } = options.settlement;
    const leaseMs = batchSize * options.gatewayTimeoutMs + options.reconcile.leaseMs;
    return this.ledger.tx(async (trx) => {
      let ids: string[];
      if (db.kind === 'postgres') {
        const due = await sql<{ transaction_id: string }>`
          select transaction_id from settlement_checks where due_at <= ${now}
          order by due_at limit ${batchSize} for update skip locked`.execute(trx);
        ids = due.rows.map((r) => r.transaction_id);
      } else {
        const due = await trx
          .selectFrom('settlement_checks')
          .select('transaction_id')
          .where('due_at', '<=', now)
          .orderBy('due_at')
          .limit(batchSize)
          .execute();
        ids = due.map((r) => r.transaction_id);
      }
      if (ids.length === 0) return [];
      return trx
        .updateTable('settlement_checks')
        .set((eb) => ({
          due_at: now + leaseMs,
          attempts: eb('attempts', '+', 1),
          lease_owner: options.instanceId,
        }))
        .where('transaction_id', 'in', ids)
        .returningAll()
        .execute();
    });
  }

  /**
   * One claimed check: an order that no longer awaits settlement (voided meanwhile, say) loses its
   * check unasked; otherwise `status` is asked once and applied, and the check ends, or is due
   * again, or stops after its last attempt (said in the order's timeline). A reply showing an
   * amount Paydesk cannot hold is recorded, not applied (ledger.ts applyStatus), and the check
   * ends: asked again, the gateway would say the same.
   */
  private async check(claim: SettlementChecksTable): Promise<void> {
    const ledger = this.ledger;
    const id = claim.transaction_id;
    const row = await ledger.k
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined || !awaitsSettlement(row)) {
      await ledger.tx((trx) => this.end(trx, id));
      return;
    }
    const { outcome, view } = await this.transactions.askStatus(
      row.endpoint_id,
      gatewayOrderId(row.orderid),
      row.client_orderid,
    );
    const t = ledger.options.settlement;
    const last = claim.attempts >= t.maxChecks;
    const nextAt = ledger.clock.now() + t.retryAfterMs;
    const of = `settlement check ${String(claim.attempts)} of ${String(t.maxChecks)}`;
    const then = last
      ? 'no further checks (refresh the order to ask again)'
      : `asked again at ${iso(nextAt)}`;
    const data = {
      approvedAt: iso(claim.approved_at),
      check: claim.attempts,
      maxChecks: t.maxChecks,
    };
    if (view === null) {
      // Said as it happened, as the other follow-ups say it: a reply that is no status (its HTTP
      // status and the gateway's error code), an error answer (`the gateway answered with an error
      // (HTTP 500, INTERNAL: …)`), or no answer in words (`no answer within 15 s`).
      const why =
        outcome.kind === 'reply'
          ? `the gateway answered the status request with HTTP ${String(outcome.httpStatus)}${outcome.reply.errorCode === undefined ? '' : ` (${outcome.reply.errorCode})`}`
          : unansweredText(outcome);
      await ledger.tx(async (trx) => {
        if (!(await this.mine(trx, claim))) return;
        await ledger.timeline(trx, id, {
          kind: 'reconcile',
          title: `${of}: ${why}; ${then}`,
          actor: null,
          data: { ...data, ...exchangeData(outcome) },
        });
        await this.again(trx, claim, last ? null : nextAt);
      });
      return;
    }
    const waiting = awaitsSettlement(view);
    // Only to word the timeline: applyStatus decides.
    const unholdable = amountsOutOfRange(view).length > 0;
    const applied = await ledger.tx(async (trx) => {
      // Only the holder of the claim writes: one that lapsed mid-call may be another's now.
      if (!(await this.mine(trx, claim))) return null;
      const result = await ledger.applyStatus(trx, row.endpoint_id, view, {
        source: 'reconcile',
        actor: null,
        exchange: exchangeData(outcome),
        timelineAfter: [
          {
            kind: 'reconcile',
            title: unholdable
              ? `${of}: the status reply cannot be applied; no further checks`
              : waiting
                ? `${of}: not settled yet; ${then}`
                : `${of}: ${view.stage === 'settled' ? 'settled' : `no longer awaiting settlement (${view.stage ?? view.status})`}`,
            actor: null,
            data,
          },
        ],
      });
      if (result.notApplied.length === 0 && awaitsSettlement(result.row))
        await this.again(trx, claim, last ? null : nextAt);
      else await this.end(trx, id);
      return result;
    });
    if (applied === null) return;
    ledger.publish(applied.row, false);
    if (applied.notApplied.length > 0) {
      this.logger.error(
        {
          transactionId: id,
          orderid: row.orderid,
          endpointId: row.endpoint_id,
          amounts: applied.notApplied,
        },
        'settlement check stopped: the status shows an amount Paydesk cannot hold',
      );
      return;
    }
    if (waiting && last) {
      this.logger.warn(
        { transactionId: id, checks: claim.attempts },
        'settlement not confirmed by the gateway after the last scheduled check',
      );
    }
  }

  /** Whether this instance still holds the claim. */
  private async mine(trx: PayTrx, claim: SettlementChecksTable): Promise<boolean> {
    const held = await trx
      .selectFrom('settlement_checks')
      .select('transaction_id')
      .where('transaction_id', '=', claim.transaction_id)
      .where('lease_owner', '=', this.ledger.options.instanceId)
      .executeTakeFirst();
    return held !== undefined;
  }

  /** The claim given back: due at `at`, or (null) no further checks. */
  private async again(trx: PayTrx, claim: SettlementChecksTable, at: number | null) {
    await trx
      .updateTable('settlement_checks')
      .set({ due_at: at, lease_owner: null })
      .where('transaction_id', '=', claim.transaction_id)
      .where('lease_owner', '=', this.ledger.options.instanceId)
      .execute();
  }

  private async end(trx: PayTrx, transactionId: string) {
    await trx.executeQuery(dropCheck(trx, { transactionId }));
  }
}
