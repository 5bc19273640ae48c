// Follows payouts whose outcome is awaited (checking, processing, unknown) with `status` on the
// issue-5 schedule (3–5 s for 5 minutes, then 5–10 minutes up to an hour; all configurable). It
// never sends a money-moving request. Due payouts are leased in the database (FOR UPDATE SKIP
// LOCKED on PostgreSQL; BEGIN IMMEDIATE on SQLite) so several BFF instances never check one twice.
// Sent payment links whose order Paydesk has not learned (a lost callback) are followed too, on a
// slow schedule of their own (`options.linkFollow`; PaymentLinksService.claimDueChecks), and links
// whose create went unanswered are settled with status (`options.linkSettle`; claimUnknownChecks).
import { sql, type ExpressionBuilder } from 'kysely';
import type { Logger } from 'pino';
import { PollLoop } from '../jobs/poll-loop.js';
import { AppError } from '../errors.js';
import { StatusNotApplied } from '../payments/amount-range.js';
import { payDb } from '../payments/db.js';
import {
  addEvent,
  askStatus,
  eventsOf,
  exchangeData,
  nextPollDelay,
  type Actor,
  type Ctx,
  type PayoutsDatabase,
  type StatusAnswer,
} from './context.js';
import type { PaymentLinksTable, PayoutsTable } from './migration.js';
import { LINK_CHECK_TITLE, type PaymentLinksService } from './links.js';
import {
  mayBePaidLate,
  mayPayAgain,
  NOT_APPLIED,
  type PayoutOutcome,
  type PayoutsService,
} from './service.js';

const AWAITED = ['checking', 'processing', 'unknown'];

/**
 * The payouts a status check can still tell more about: outcome awaited, or judged not applied
 * after their money-moving request was sent (`mayBePaidLate`: the gateway may apply it late).
 */
function reopenable(eb: ExpressionBuilder<PayoutsDatabase, 'payouts'>) {
  return eb.or([
    eb('state', 'in', AWAITED),
    eb.and([
      eb('state', '=', 'failed'),
      eb('error_code', '=', NOT_APPLIED),
      eb('decided_at', 'is not', null),
    ]),
  ]);
}

/** Why a status check learned nothing (`timeout`, `HTTP 500`), for a log line; null: it did. */
function noAnswerReason(answer: StatusAnswer): string | null {
  if (answer.kind !== 'no-answer') return null;
  const { outcome } = answer;
  return outcome.kind === 'reply' ? `HTTP ${String(outcome.httpStatus)}` : outcome.reason;
}

export class PayoutPoller {
  readonly #loop: PollLoop;
  /** when this instance next looks for payment links due a status check */
  #nextLinkScanAt = Number.NEGATIVE_INFINITY;
  /** when this instance next looks for unknown payment links due a status check */
  #nextSettleScanAt = Number.NEGATIVE_INFINITY;
  /** when this instance next looks for held payouts and payout-forms to lapse */
  #nextLapseScanAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly c: Ctx,
    private readonly payouts: PayoutsService,
    private readonly links: PaymentLinksService,
    private readonly logger: Logger,
  ) {
    this.#loop = new PollLoop(
      c.options.poll.intervalMs,
      () => this.runOnce(),
      (err: unknown) => {
        logger.error({ err }, 'payout poll pass failed');
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

  /**
   * Makes a payout with this gateway order id due now (hook it to the payments core's event bus:
   * a callback for the order means its status is worth asking at once). A payout whose scheduled
   * checks had stopped (`poll_next_at` NULL) while its outcome is still open gets one check too, as
   * does one judged not applied whose request the gateway may have applied late (`reopenable`).
   * A payout whose reply was lost never learned its orderid (a single payout's `payout`, held by
   * the gateway past the verdict, QA): its order is found by the client_orderid Paydesk gave it, on
   * its endpoint, as the payments core recorded them for the order, and its check learns the orderid.
   */
  async nudge(orderid: string): Promise<void> {
    const { k, db, clock } = this.c;
    const now = clock.now();
    const byOrderid = await k
      .updateTable('payouts')
      .set({ poll_next_at: now })
      .where('orderid', '=', orderid)
      .where(reopenable)
      .executeTakeFirst();
    if (Number(byOrderid.numUpdatedRows) > 0) return;
    const order = await payDb(db)
      .selectFrom('transactions')
      .select(['client_orderid', 'endpoint_id'])
      .where('orderid', '=', orderid)
      .executeTakeFirst();
    if (order === undefined) return;
    await k
      .updateTable('payouts')
      .set({ poll_next_at: now })
      .where('client_orderid', '=', order.client_orderid)
      .where('endpoint_id', '=', order.endpoint_id)
      .where('orderid', 'is', null)
      .where(reopenable)
      .execute();
  }

  /**
   * A staff "Check payment status": asks `status` now for a payout whose outcome is open, or that
   * was judged not applied after its money request was sent (`mayBePaidLate`), and applies the
   * answer as a scheduled check does (nothing that moves money is sent). The payout's
   * lease is taken first, as the poller's claim does, so it never races a check of another
   * instance; the schedule is left as it was.
   */
  async refresh(id: string, actor: Actor): Promise<PayoutOutcome> {
    const { k, clock, options } = this.c;
    const now = clock.now();
    const leased = await k
      .updateTable('payouts')
      .set({ lease_owner: options.instanceId, lease_until: now + options.poll.leaseMs })
      .where('id', '=', id)
      .where(reopenable)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .executeTakeFirst();
    const row = await this.payouts.row(id);
    if (Number(leased.numUpdatedRows) !== 1) {
      if (!AWAITED.includes(row.state) && !mayBePaidLate(row)) {
        throw new AppError(
          'INVALID_STATE',
          `The payout is ${row.state.replace('_', ' ')}: its outcome is not open, there is nothing to check.`,
          { state: row.state },
        );
      }
      throw new AppError(
        'INVALID_STATE',
        'A status check of this payout is under way; try again in a moment.',
        { state: row.state },
      );
    }
    const after = await this.check(row, actor);
    if (after === undefined) {
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        'The gateway did not answer the status request. Nothing changed; try again.',
      );
    }
    const open = AWAITED.includes(after.state);
    return {
      payout: await this.payouts.viewOf(after, actor),
      message: mayBePaidLate(after)
        ? mayPayAgain(after, clock.now())
          ? `The gateway still does not show the payout: the payout stays failed (judged not applied). A late payment is still possible: check again, or have an ops user other than its preparer pay it again (the gateway pays this checked payout at most once).`
          : `The gateway still does not show the payout: the payout stays failed (judged not applied). A late payment is still possible: check again before preparing it again.`
        : open
          ? `The gateway does not show a final outcome yet (the payout is ${after.state}). Check again later.`
          : `The gateway shows the payout ${after.state.replace('_', ' ')}.`,
    };
  }

  /**
   * A payout left in `sending` longer than a gateway call can take was claimed by an instance that
   * stopped mid-send: its request may or may not have reached the gateway, so it becomes `unknown`
   * (its held destination wiped, never sent again) and is reconciled with `status`. A payment link
   * left `sending` becomes `unknown` too (`PaymentLinksService.recoverStale`). Returns how many.
   */
  async recoverStale(): Promise<number> {
    const { k, clock, options } = this.c;
    const now = clock.now();
    const staleBefore = now - (options.gatewayTimeoutMs + options.poll.leaseMs);
    const stale = await k
      .selectFrom('payouts')
      .select(['id', 'decided_at', 'decided_by_email'])
      .where('state', '=', 'sending')
      .where('decided_at', '<', staleBefore)
      .execute();
    let recovered = 0;
    for (const { id, decided_at: decidedAt, decided_by_email: approvedBy } of stale) {
      if (decidedAt === null) continue;
      const message = 'the instance sending it stopped before recording the outcome';
      const after = await this.payouts.write(
        id,
        {
          state: 'unknown',
          destination_sealed: null,
          // The money-moving request left right after the claim (decided_at); a two-step payout's
          // sent_at is still its payout-check's, which would judge the payout-pay not applied too soon.
          sent_at: decidedAt,
          poll_first_at: now,
          poll_next_at: now,
          poll_attempts: 0,
          lease_owner: null,
          lease_until: null,
          error_message: message,
        },
        // still the same claim: one released and approved again since is being sent right now
        { state: 'sending', decidedAt },
        {
          events: [
            {
              kind: 'reconcile',
              title: `outcome unknown: ${message}; followed with status, never sent again`,
              actor: null,
              data: { approvedBy, approvedAt: new Date(decidedAt).toISOString() },
            },
          ],
        },
      );
      if (after !== undefined) recovered += 1;
    }
    return recovered + (await this.links.recoverStale(staleBefore));
  }

  /** Claims the due payouts and checks each once; returns how many were checked. */
  async runOnce(): Promise<number> {
    await this.recoverStale();
    await this.lapseHeld();
    const rows = await this.claim();
    for (const row of rows) {
      try {
        await this.check(row);
      } catch (err) {
        this.logger.error({ err, payoutId: row.id }, 'payout status check failed');
        await this.reschedule(row, 'internal error');
      }
    }
    return rows.length + (await this.followLinks()) + (await this.settleLinks());
  }

  /**
   * Checks the unknown payment links due a status check (at most once per `linkSettle.scanEveryMs`
   * on this instance; the claim is in the database); returns how many were checked. A link still
   * unknown at its last scheduled check is logged once, as a payout whose checks stopped is.
   */
  async settleLinks(): Promise<number> {
    const now = this.c.clock.now();
    if (now < this.#nextSettleScanAt) return 0;
    this.#nextSettleScanAt = now + this.c.options.linkSettle.scanEveryMs;
    const claims = await this.links.claimUnknownChecks();
    for (const claim of claims) {
      let last: Record<string, string>;
      try {
        const settle = await this.links.runUnknownCheck(claim);
        if (settle.outcome === 'order_found' || settle.outcome === 'not_created') continue;
        last = { lastCheck: settle.title };
      } catch (err) {
        // Its claim stays in the timeline: the link is due again after linkSettle.intervalMs.
        this.logger.error(
          { err, linkId: claim.row.id },
          'unknown payment link status check failed',
        );
        last = { lastError: err instanceof AppError ? err.message : 'internal error' };
      }
      if (!claim.last) continue;
      const { row } = claim;
      this.logger.error(
        {
          linkId: row.id,
          kind: row.kind,
          clientOrderId: row.client_orderid,
          endpointId: row.endpoint_id,
          ...last,
        },
        'unknown payment link status checks stopped after the last scheduled attempt; check the order at the gateway',
      );
    }
    return claims.length;
  }

  /**
   * Lapses the held single payouts and payout-forms not approved within `holdMaxAgeMs`, their
   * sealed data erased (at most once per `linkFollow.scanEveryMs` on this instance: the lapse is
   * not due to the second, as approving and every screen already treat one that is due as expired;
   * the claim is in the database). Returns how many lapsed.
   */
  async lapseHeld(): Promise<number> {
    const now = this.c.clock.now();
    if (now < this.#nextLapseScanAt) return 0;
    this.#nextLapseScanAt = now + this.c.options.linkFollow.scanEveryMs;
    return (await this.payouts.lapseHeld()) + (await this.links.lapseHeld());
  }

  /**
   * Checks the sent payment links due a status check (at most once per `linkFollow.scanEveryMs` on
   * this instance; the claim is in the database); returns how many were checked.
   */
  async followLinks(): Promise<number> {
    const now = this.c.clock.now();
    if (now < this.#nextLinkScanAt) return 0;
    this.#nextLinkScanAt = now + this.c.options.linkFollow.scanEveryMs;
    const claims = await this.links.claimDueChecks();
    for (const claim of claims) {
      let last: Record<string, string>;
      try {
        const check = await this.links.runScheduledCheck(claim);
        if (check.final) continue;
        last = { lastCheck: check.title };
      } catch (err) {
        if (err instanceof StatusNotApplied) {
          // Its entry ended the follow-up: logged once, here, as a settlement check's end is.
          this.linkChecksNotApplied(claim.row, err);
          continue;
        }
        // Its claim stays in the timeline: the link is due again after linkFollow.intervalMs.
        this.logger.error({ err, linkId: claim.row.id }, 'payment link status check failed');
        last = { lastError: err instanceof AppError ? err.message : 'internal error' };
      }
      if (claim.last) await this.linkChecksStopped(claim.row, last);
    }
    return claims.length;
  }

  /**
   * Logs, once, that a sent link's scheduled checks stopped at a `status` answer that cannot be
   * applied (an amount Paydesk cannot hold): what staff need to look the order up at the gateway.
   */
  private linkChecksNotApplied(row: PaymentLinksTable, err: StatusNotApplied): void {
    this.logger.error(
      {
        linkId: row.id,
        kind: row.kind,
        orderid: row.orderid,
        clientOrderId: row.client_orderid,
        endpointId: row.endpoint_id,
        transactionId: err.details?.transactionId ?? null,
        fields: err.details?.fields ?? [],
      },
      'payment link status checks stopped: the status shows an amount Paydesk cannot hold; check the order at the gateway',
    );
  }

  /**
   * Logs, once, that a sent link's scheduled status checks stopped at its last (the horizon, or the
   * first pass after it when none came in the last check's window) with no final order learned:
   * what staff need to look the order up at the gateway, and what the last check found or why it
   * failed (never the page's address, which carries its token).
   */
  private async linkChecksStopped(
    row: PaymentLinksTable,
    last: Record<string, string>,
  ): Promise<void> {
    const attempts = (await eventsOf(this.c.k, `link:${row.id}`)).filter(
      (e) => e.kind === 'reconcile' && e.title.startsWith(LINK_CHECK_TITLE),
    ).length;
    this.logger.warn(
      {
        linkId: row.id,
        kind: row.kind,
        orderid: row.orderid,
        clientOrderId: row.client_orderid,
        endpointId: row.endpoint_id,
        state: row.state,
        attempts,
        ...last,
      },
      'payment link status checks stopped after the last scheduled attempt; check the order at the gateway',
    );
  }

  private async claim(): Promise<PayoutsTable[]> {
    const { db, k, clock, options } = this.c;
    const now = clock.now();
    return k.transaction().execute(async (trx) => {
      let ids: string[];
      if (db.kind === 'postgres') {
        const due = await sql<{ id: string }>`
          select id from payouts
          where poll_next_at <= ${now}
            and (state in ('checking', 'processing', 'unknown')
              or (state = 'failed' and error_code = ${NOT_APPLIED} and decided_at is not null))
            and (lease_until is null or lease_until <= ${now})
          order by poll_next_at limit ${options.poll.batchSize}
          for update skip locked`.execute(trx);
        ids = due.rows.map((r) => r.id);
      } else {
        const due = await trx
          .selectFrom('payouts')
          .select('id')
          .where('poll_next_at', '<=', now)
          .where(reopenable)
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
          .orderBy('poll_next_at')
          .limit(options.poll.batchSize)
          .execute();
        ids = due.map((r) => r.id);
      }
      if (ids.length === 0) return [];
      await trx
        .updateTable('payouts')
        .set({ lease_owner: options.instanceId, lease_until: now + options.poll.leaseMs })
        .where('id', 'in', ids)
        .execute();
      return trx.selectFrom('payouts').selectAll().where('id', 'in', ids).execute();
    });
  }

  /**
   * One `status` check of a leased payout, its answer applied. A scheduled check (no `by`) is
   * rescheduled while the outcome stays open; a staff check releases the lease and leaves the
   * schedule as it was. Returns the row afterwards (undefined: no answer, or the lease lapsed).
   */
  private async check(row: PayoutsTable, by?: Actor): Promise<PayoutsTable | undefined> {
    const c = this.c;
    const answer = await askStatus(c.gateway, row.endpoint_id, row.client_orderid, row.orderid);
    // Only the lease holder writes: a lease that lapsed mid-call may be someone else's now.
    const current = await c.k
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', row.id)
      .where('lease_owner', '=', c.options.instanceId)
      .executeTakeFirst();
    if (current === undefined) return undefined;
    await addEvent(c.k, c.clock, `payout:${row.id}`, {
      kind: by === undefined ? 'reconcile' : 'staff',
      title: by === undefined ? 'status check' : `status check by ${by.email}`,
      actor: by?.email ?? null,
      data: exchangeData(answer.outcome),
    });
    const after =
      answer.kind === 'no-answer'
        ? current
        : await this.payouts.applyStatus(current, answer.kind === 'view' ? answer.view : null);
    if (AWAITED.includes(after.state)) {
      if (by === undefined) await this.reschedule(after, noAnswerReason(answer));
      else await this.payouts.update(row.id, { lease_owner: null, lease_until: null });
    } else if (after.lease_owner !== null) {
      // Judged not applied and not answered: its one check is over (a later callback asks again).
      await this.payouts.update(row.id, this.payouts.pollStop());
    }
    return answer.kind === 'no-answer' ? undefined : after;
  }

  /** `lastError`: why the last check learned nothing (for the log line when the checks stop) */
  private async reschedule(row: PayoutsTable, lastError: string | null): Promise<void> {
    const c = this.c;
    const now = c.clock.now();
    const delay = nextPollDelay(c.options.poll, row.poll_first_at ?? now, now, c.options.random);
    if (delay === null) {
      const attempts = row.poll_attempts + 1;
      await this.payouts.update(
        row.id,
        { poll_next_at: null, lease_owner: null, lease_until: null },
        {
          events: [
            {
              kind: 'reconcile',
              title:
                'status checks stopped after the last scheduled attempt; check the order at the gateway',
              actor: null,
              data: { attempts },
            },
          ],
          audit: (after) => ({
            ...this.payouts.systemAudit('payout.reconcile_gave_up', after, {
              attempts,
              state: after.state,
            }),
            outcome: 'failed',
            errorCode: 'RECONCILE_GAVE_UP',
          }),
        },
      );
      this.logger.error(
        {
          payoutId: row.id,
          clientOrderId: row.client_orderid,
          orderid: row.orderid,
          endpointId: row.endpoint_id,
          mode: row.mode,
          state: row.state,
          attempts,
          lastError,
        },
        'payout status checks stopped after the last scheduled attempt; check the order at the gateway',
      );
      return;
    }
    await this.payouts.update(row.id, {
      poll_next_at: now + delay,
      poll_attempts: row.poll_attempts + 1,
      lease_owner: null,
      lease_until: null,
    });
  }
}
