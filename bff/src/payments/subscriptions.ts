// Subscriptions: v4 create-recurring-payment (OAuth RSA-SHA256) on a stored card reference, with a
// new traceable client_orderid (`rp-<uuid>`). The gateway charges the plan as rebill orders
// (`<client_orderid>-n`) whose callbacks carry `recurring-payment-id`; the ledger links those
// orders to the plan (ledger.applyStatus). The gateway has no cancel or update for a plan, so
// neither has Paydesk. A lost reply leaves the plan `unknown`; it is never sent again, and its
// first charge names it. A plan an instance left `sending` (it stopped between recording and the
// reply) or `unknown` is settled by the reconciler (`SubscriptionRecovery`): it asks the gateway
// after the safe delay, records the plan it has, or marks it not created, audited.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import {
  latestSubscriptionStart,
  type SubscriptionCreateBody,
  type SubscriptionDetail,
  type SubscriptionListQuery,
  type SubscriptionPage,
  type SubscriptionPeriod,
  type SubscriptionResult,
  type SubscriptionState,
  type SubscriptionSummary,
  type Unanswered,
} from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { GatewayClient, GatewayOutcome } from '../gateway-client/client.js';
import { callbackUrl, gatewayIp } from '../payouts/context.js';
import { redact } from '../services/redact.js';
import { amountsOutOfRange, auditNotRecorded, StatusNotApplied } from './amount-range.js';
import { cardRefChargeEndpoint, requireCardRefAtGateway } from './card-refs.js';
import { big, platformTrx, toColumn, type PayDb } from './db.js';
import { exchangeData } from './gateway.js';
import {
  answerText,
  errorAnswerOf,
  gatewayRefusal,
  lostOutcome,
  unansweredColumns,
  unansweredOfRow,
  unansweredText,
} from './gateway-errors.js';
import type { GatewayView, Ledger } from './ledger.js';
import type { SubscriptionsTable } from './migration.js';
import { nextReconcileDelay } from './options.js';
import { iso, toSummary } from './records.js';
import type { ActorInfo, TransactionsService } from './transactions.js';

/** The next due time after `from` (same arithmetic as the gateway's schedule). */
export function advanceSchedule(
  from: number,
  period: SubscriptionPeriod,
  interval: number,
): number {
  const d = new Date(from);
  switch (period) {
    case 'day':
      d.setUTCDate(d.getUTCDate() + interval);
      break;
    case 'week':
      d.setUTCDate(d.getUTCDate() + 7 * interval);
      break;
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + interval);
      break;
  }
  return d.getTime();
}

/** A plan's schedule in words: 'every day', 'every month', 'every 2 weeks'. */
export function scheduleText(period: SubscriptionPeriod, interval: number): string {
  return interval === 1 ? `every ${period}` : `every ${interval} ${period}s`;
}

/** The due time of charge number `made + 1`, or null when the plan has made all its charges. */
export function nextChargeAt(
  firstChargeAt: number,
  period: SubscriptionPeriod,
  interval: number,
  made: number,
  maxPayments: number | null,
): number | null {
  if (maxPayments !== null && made >= maxPayments) return null;
  let at = firstChargeAt;
  for (let i = 0; i < made; i++) at = advanceSchedule(at, period, interval);
  return at;
}

/** Refuses a create when the merchant RSA key (needed to sign v4 requests) is not configured. */
export function requireRsaKey(config: Config): void {
  if (config.merchant.rsaPrivateKeyPem === null) {
    throw new AppError(
      'INVALID_STATE',
      'Subscriptions use the v4 create-recurring-payment request, signed with RSA-SHA256: configure the merchant RSA key (MERCHANT_RSA_KEY_FILE) first. Nothing was sent.',
      { reason: 'MERCHANT_RSA_KEY_FILE is not configured', setting: 'MERCHANT_RSA_KEY_FILE' },
    );
  }
}

const CURSOR = /^(\d{1,16}):([0-9a-f-]{36})$/;

export class SubscriptionsService {
  constructor(
    private readonly k: PayDb,
    private readonly clock: Clock,
    private readonly gateway: GatewayClient,
    private readonly config: Config,
  ) {}

  async create(
    body: SubscriptionCreateBody,
    actor: ActorInfo,
    ip: string | null,
    idempotencyKey: string | null,
    onCreated: (id: string) => void = () => undefined,
  ): Promise<SubscriptionResult> {
    requireRsaKey(this.config);
    // The reference's own endpoint when none is named and Paydesk knows where it was made; a
    // reference that cannot be charged there is refused before the plan is written or sent.
    const endpointId = await cardRefChargeEndpoint(
      this.k,
      this.config,
      body.cardRefId,
      body.endpointId,
      body.currency,
      'set up the subscription',
    );
    const now = this.clock.now();
    const today = iso(now).slice(0, 10);
    // The gateway takes today or a later day (start_date, fields.md), by the UTC calendar.
    if (body.startDate !== undefined && body.startDate < today) {
      const message = `must be today (${today}, UTC) or later`;
      throw new AppError('VALIDATION_FAILED', `startDate: ${message}`, {
        fields: [{ path: 'startDate', rule: 'not_in_past', message }],
      });
    }
    const latest = latestSubscriptionStart(today);
    if (body.startDate !== undefined && body.startDate > latest) {
      const message = `must be at most a year ahead (${latest}, UTC, at the latest)`;
      throw new AppError('VALIDATION_FAILED', `startDate: ${message}`, {
        fields: [{ path: 'startDate', rule: 'too_far_ahead', message }],
      });
    }
    await requireCardRefAtGateway(this.k, this.gateway, body.cardRefId, endpointId);
    const amountMinor = toMinorUnits(body.amount);
    const id = randomUUID();
    const clientOrderId = `rp-${randomUUID()}`;
    onCreated(id);
    const firstChargeAt =
      body.startDate === undefined || body.startDate <= today
        ? now
        : Date.parse(`${body.startDate}T00:00:00Z`);
    const fields: Record<string, string> = {
      client_orderid: clientOrderId,
      cardrefid: body.cardRefId,
      amount: formatMinorUnits(amountMinor),
      currency: body.currency,
      period: body.period,
      interval: String(body.interval),
      order_desc: body.orderDesc,
      email: body.email,
      ipaddress: gatewayIp(ip),
      server_callback_url: callbackUrl(this.config, endpointId),
    };
    if (body.startDate !== undefined) fields.start_date = body.startDate;
    if (body.maxPayments !== undefined) fields.max_payments = String(body.maxPayments);

    await this.k
      .insertInto('subscriptions')
      .values({
        id,
        endpoint_id: endpointId,
        client_orderid: clientOrderId,
        recurring_payment_id: null,
        card_ref_id: body.cardRefId,
        amount_minor: toColumn(amountMinor),
        currency: body.currency,
        period: body.period,
        interval_count: body.interval,
        start_date: body.startDate ?? null,
        first_charge_at: firstChargeAt,
        max_payments: body.maxPayments ?? null,
        order_desc: body.orderDesc,
        email: body.email,
        state: 'sending',
        gateway_serial: null,
        error_code: null,
        error_message: null,
        exchange: null,
        idempotency_key: idempotencyKey,
        created_by: actor.id,
        created_by_email: actor.email,
        created_at: now,
        updated_at: now,
        // Should this instance stop before the reply is recorded, the reconciler settles the
        // plan after the safe delay (SubscriptionRecovery).
        check_at: null,
        check_attempts: 0,
        lease_owner: null,
        lease_until: null,
      })
      .execute();

    // Sent once; whatever happens, the plan row says so.
    const outcome = await this.gateway.send('create-recurring-payment', endpointId, fields);
    const result = classify(outcome);
    await this.k
      .updateTable('subscriptions')
      .set({
        gateway_serial: result.serial,
        error_code: result.errorCode,
        error_message: result.errorMessage,
        ...unansweredColumns(result.unanswered),
        exchange: JSON.stringify(redact(exchangeData(outcome))),
        updated_at: this.clock.now(),
      })
      .where('id', '=', id)
      .execute();
    // A charge's callback may already have named (and activated) a plan whose reply was lost.
    await this.k
      .updateTable('subscriptions')
      .set(
        result.recurringPaymentId === null
          ? { state: result.state }
          : { state: result.state, recurring_payment_id: result.recurringPaymentId },
      )
      .where('id', '=', id)
      .where('state', '=', 'sending')
      .execute();

    if (outcome.kind === 'reply' && result.state === 'refused') {
      throw gatewayRefusal(outcome.httpStatus, outcome.reply, 'create-recurring-payment');
    }
    if (outcome.kind === 'not-sent') {
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        'The create-recurring-payment could not reach the gateway; nothing was sent. Try again.',
      );
    }
    const subscription = await this.get(id);
    const label = `${formatMinorUnits(amountMinor)} ${body.currency} ${scheduleText(body.period, body.interval)}`;
    return {
      subscription,
      message:
        result.state === 'unknown' && outcome.kind === 'unknown'
          ? lostPlanText(outcome, label)
          : `Subscription ${subscription.recurringPaymentId ?? ''} created: ${label}. Paydesk learns each charge, a rebill order, from the gateway automatically.`,
    };
  }

  async get(id: string): Promise<SubscriptionDetail> {
    const row = await this.k
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) throw new AppError('NOT_FOUND', `no subscription ${id}`);
    const charges =
      row.recurring_payment_id === null
        ? []
        : await this.k
            .selectFrom('transactions')
            .selectAll()
            .where('recurring_payment_id', '=', row.recurring_payment_id)
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(1000)
            .execute();
    return {
      ...this.summary(row, charges.length),
      startDate: row.start_date,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      unanswered: unansweredOfRow(row),
      charges: charges.map(toSummary),
    };
  }

  async list(q: SubscriptionListQuery): Promise<SubscriptionPage> {
    let query = this.k
      .selectFrom('subscriptions')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit + 1);
    // Each side read from its unique index.
    if (q.q !== undefined) {
      const term = q.q;
      query = query.where((eb) =>
        eb.or([eb('recurring_payment_id', '=', term), eb('client_orderid', '=', term)]),
      );
    }
    if (q.cursor !== undefined) {
      const m = CURSOR.exec(q.cursor);
      if (m?.[1] === undefined || m[2] === undefined) {
        throw new AppError('VALIDATION_FAILED', 'query.cursor: not a cursor of this list', {
          fields: [{ path: 'query.cursor', rule: 'cursor', message: 'not a cursor of this list' }],
        });
      }
      const at = Number(m[1]);
      const after = m[2];
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', at),
          eb.and([eb('created_at', '=', at), eb('id', '<', after)]),
        ]),
      );
    }
    const rows = await query.execute();
    const page = rows.slice(0, q.limit);
    const ids = page.map((r) => r.recurring_payment_id).filter((v): v is string => v !== null);
    const counts = new Map<string, number>();
    if (ids.length > 0) {
      const grouped = await this.k
        .selectFrom('transactions')
        .select(['recurring_payment_id', (eb) => eb.fn.countAll().as('n')])
        .where('recurring_payment_id', 'in', ids)
        .groupBy('recurring_payment_id')
        .execute();
      for (const g of grouped)
        if (typeof g.recurring_payment_id === 'string')
          counts.set(g.recurring_payment_id, Number(big(g.n)));
    }
    const last = page[page.length - 1];
    return {
      items: page.map((r) =>
        this.summary(
          r,
          r.recurring_payment_id === null ? 0 : (counts.get(r.recurring_payment_id) ?? 0),
        ),
      ),
      nextCursor:
        rows.length > q.limit && last !== undefined ? `${last.created_at}:${last.id}` : null,
    };
  }

  private summary(row: SubscriptionsTable, made: number): SubscriptionSummary {
    const period = row.period as SubscriptionPeriod;
    const planExists = row.state === 'active' || row.state === 'unknown';
    const next = planExists
      ? nextChargeAt(row.first_charge_at, period, row.interval_count, made, row.max_payments)
      : null;
    const completed =
      row.state === 'active' && row.max_payments !== null && made >= row.max_payments;
    return {
      id: row.id,
      endpointId: row.endpoint_id,
      clientOrderId: row.client_orderid,
      recurringPaymentId: row.recurring_payment_id,
      cardRefId: row.card_ref_id,
      amount: formatMinorUnits(big(row.amount_minor)),
      currency: row.currency,
      orderDesc: row.order_desc,
      email: row.email,
      state: completed ? 'completed' : (row.state as SubscriptionState),
      schedule: {
        period,
        interval: row.interval_count,
        start: iso(row.first_charge_at),
        maxPayments: row.max_payments,
        paymentsMade: made,
        nextChargeAt: next === null ? null : iso(next),
      },
      createdBy: row.created_by_email,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
  }
}

/**
 * What staff read of a create whose outcome Paydesk did not learn: an error answer with the
 * gateway's HTTP status, code and message, or no answer in words (`no answer within 15 s`).
 */
function lostPlanText(
  outcome: Extract<GatewayOutcome, { kind: 'unknown' }>,
  label: string,
): string {
  const next = 'Paydesk will not send it again; its first charge will link it.';
  const answer = errorAnswerOf(outcome);
  if (answer !== null)
    return `The gateway answered the subscription (${label}) with an error (${answerText(answer)}); Paydesk cannot tell whether the plan was created. ${next}`;
  return `The gateway's answer to the subscription (${label}) was lost (${unansweredText(outcome)}). ${next}`;
}

function classify(outcome: GatewayOutcome): {
  state: 'active' | 'unknown' | 'refused' | 'not_sent';
  recurringPaymentId: string | null;
  serial: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  unanswered: Unanswered | null;
} {
  if (outcome.kind === 'not-sent') {
    return {
      state: 'not_sent',
      recurringPaymentId: null,
      serial: null,
      errorCode: null,
      errorMessage: outcome.reason,
      unanswered: null,
    };
  }
  if (outcome.kind === 'unknown') {
    // Recorded as the other operations record it: a 5xx keeps the gateway's error-code (HTTP_<status>
    // when it names none) and `gateway answered 500: <its message>`; no reply is said in words.
    const lost = lostOutcome(outcome, 'create-recurring-payment');
    return {
      state: 'unknown',
      recurringPaymentId: null,
      serial: null,
      errorCode: lost.errorCode,
      errorMessage: lost.errorMessage,
      unanswered: lost.unanswered,
    };
  }
  const reply = outcome.reply;
  const rpId = reply.fields['recurring-payment-id'];
  if (outcome.httpStatus === 200 && rpId !== undefined && rpId !== '') {
    return {
      state: 'active',
      recurringPaymentId: rpId,
      serial: reply.serialNumber ?? null,
      errorCode: null,
      errorMessage: null,
      unanswered: null,
    };
  }
  return {
    state: 'refused',
    recurringPaymentId: null,
    serial: reply.serialNumber ?? null,
    errorCode: reply.errorCode ?? `HTTP_${outcome.httpStatus}`,
    errorMessage: reply.errorMessage ?? null,
    unanswered: null,
  };
}

// ------------------------------------------------------------------------- crash recovery

/** What the recovery found, in the plan's audit row. */
type Finding = 'created' | 'not_created';

function notFound(outcome: GatewayOutcome): boolean {
  return outcome.kind === 'reply' && outcome.httpStatus === 404;
}

/**
 * How a plan's create went unlearned, from what its row records: the instance stopped before
 * recording the reply, the gateway answered with an error (its HTTP status and error code, as
 * `classify` records them: `gateway answered 500: …`, INTERNAL), or the reply was lost.
 */
function unlearnedCreate(plan: SubscriptionsTable): string {
  if (plan.state === 'sending') return 'the instance sending it stopped before recording the reply';
  const unanswered = unansweredOfRow(plan);
  if (unanswered?.kind !== 'error') return 'the reply was lost';
  const code = unanswered.code === null ? '' : `, ${unanswered.code}`;
  return `the gateway answered it with an error: HTTP ${String(unanswered.httpStatus)}${code}`;
}

function describeOutcome(outcome: GatewayOutcome): string {
  return outcome.kind === 'reply' ? `HTTP ${outcome.httpStatus}` : outcome.reason;
}

/**
 * The reconciler's part for subscriptions (design §3, §5: a lost outcome is reconciled with
 * `status`, never sent again). A plan still `sending` or `unknown` the safe delay after its create
 * (the request can no longer be on its way: notAppliedAfterMs + the gateway timeout, as for a
 * rebill) is leased in the database (FOR UPDATE SKIP LOCKED on PostgreSQL, the write lock on
 * SQLite), and the gateway is asked: `status` of the plan's client_orderid (a gateway that knows a
 * plan as an order names its recurring-payment-id), then of its first charge (`<client_orderid>-1`,
 * a rebill order naming the plan) once that charge was due. Either answer records the plan
 * `active`; when neither is known, no plan exists: `not_sent` with error NOT_CREATED, audited. A
 * plan whose first charge is not due yet cannot be confirmed before then: it waits `unknown` and
 * is asked again after the charge's due time. Nothing is ever sent again.
 */
export class SubscriptionRecovery {
  constructor(
    private readonly ledger: Ledger,
    private readonly transactions: TransactionsService,
    private readonly logger: Logger,
  ) {}

  /** After this long from its create, a plan's request is certainly no longer on its way. */
  get safeDelayMs(): number {
    const o = this.ledger.options;
    return Math.max(o.reconcile.notAppliedAfterMs, o.gatewayTimeoutMs) + o.gatewayTimeoutMs;
  }

  /** Claims the plans due for a look and settles each it can; returns how many it looked at. */
  async runOnce(): Promise<number> {
    const plans = await this.claim();
    for (const plan of plans) {
      try {
        await this.recover(plan);
      } catch (err) {
        this.logger.error({ err, subscriptionId: plan.id }, 'subscription recovery attempt failed');
        await this.reschedule(plan, 'internal error');
      }
    }
    return plans.length;
  }

  private async claim(): Promise<SubscriptionsTable[]> {
    const { db, options, clock } = this.ledger;
    const now = clock.now();
    const firstLookBefore = now - this.safeDelayMs;
    return this.ledger.tx(async (trx) => {
      let query = trx
        .selectFrom('subscriptions')
        .select('id')
        // A literal, so that the partial index subscriptions_awaiting serves it.
        .where(sql<boolean>`state in ('sending', 'unknown')`)
        .where((eb) =>
          eb.or([
            eb.and([eb('check_at', 'is', null), eb('created_at', '<=', firstLookBefore)]),
            eb('check_at', '<=', now),
          ]),
        )
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .orderBy('created_at')
        .limit(options.reconcile.batchSize);
      if (db.kind === 'postgres') query = query.forUpdate().skipLocked();
      const due = await query.execute();
      if (due.length === 0) return [];
      const ids = due.map((d) => d.id);
      await trx
        .updateTable('subscriptions')
        .set({ lease_owner: options.instanceId, lease_until: now + options.reconcile.leaseMs })
        .where('id', 'in', ids)
        .execute();
      return trx.selectFrom('subscriptions').selectAll().where('id', 'in', ids).execute();
    });
  }

  private async recover(plan: SubscriptionsTable): Promise<void> {
    const own = await this.transactions.askStatus(plan.endpoint_id, undefined, plan.client_orderid);
    if (own.view !== null) {
      const rpId = own.view.recurringPaymentId ?? null;
      if (rpId === null || rpId === '') {
        await this.reschedule(plan, 'status named no recurring-payment-id');
        return;
      }
      await this.settle(plan, 'created', { recurringPaymentId: rpId, evidence: 'plan' });
      return;
    }
    if (!notFound(own.outcome)) {
      await this.reschedule(plan, describeOutcome(own.outcome));
      return;
    }
    // The gateway does not know the plan as an order: its first charge tells, once it was due.
    const chargeDueBy = plan.first_charge_at + this.ledger.options.reconcile.notAppliedAfterMs;
    if (this.ledger.clock.now() < chargeDueBy) {
      await this.awaitFirstCharge(plan, chargeDueBy);
      return;
    }
    const firstCharge = `${plan.client_orderid}-1`;
    const charge = await this.transactions.askStatus(plan.endpoint_id, undefined, firstCharge);
    if (charge.view !== null) {
      // The plan exists. Its charge is an ordinary order, recorded as its callback would record
      // it (which also links the plan).
      const view = charge.view;
      await this.recordCharge(plan, view, charge.outcome);
      await this.settle(plan, 'created', {
        recurringPaymentId: view.recurringPaymentId ?? null,
        evidence: firstCharge,
      });
      return;
    }
    if (!notFound(charge.outcome)) {
      await this.reschedule(plan, describeOutcome(charge.outcome));
      return;
    }
    await this.settle(plan, 'not_created', { recurringPaymentId: null, evidence: firstCharge });
  }

  /**
   * The plan's first charge as `status` shows it, recorded as its callback would record it. One
   * showing an amount Paydesk cannot hold is not applied (ledger.ts applyStatus): a known order is
   * flagged, an unknown one only audited; either way the plan is settled by it (the charge proves
   * the plan), not asked about again and again.
   */
  private async recordCharge(
    plan: SubscriptionsTable,
    view: GatewayView,
    outcome: GatewayOutcome,
  ): Promise<void> {
    const ledger = this.ledger;
    let recorded: { id: string | null; amounts: string[] };
    try {
      const applied = await ledger.tx((trx) =>
        ledger.applyStatus(trx, plan.endpoint_id, view, {
          source: 'reconcile',
          actor: null,
          exchange: exchangeData(outcome),
        }),
      );
      ledger.publish(applied.row, applied.created);
      recorded = { id: applied.row.id, amounts: applied.notApplied };
    } catch (err) {
      if (!(err instanceof StatusNotApplied)) throw err;
      const amounts = amountsOutOfRange(view);
      await ledger.tx((trx) =>
        auditNotRecorded(ledger, trx, view, amounts, 'reconcile', { subscriptionId: plan.id }),
      );
      recorded = { id: null, amounts };
    }
    if (recorded.amounts.length === 0) return;
    this.logger.error(
      {
        subscriptionId: plan.id,
        orderid: view.orderid,
        transactionId: recorded.id,
        amounts: recorded.amounts,
      },
      "subscription recovery: its first charge's status shows an amount Paydesk cannot hold; not applied",
    );
  }

  /** Records what the gateway said, if this instance still holds the plan; audited. */
  private async settle(
    plan: SubscriptionsTable,
    finding: Finding,
    found: { recurringPaymentId: string | null; evidence: string },
  ): Promise<void> {
    const { clock, options } = this.ledger;
    const now = clock.now();
    const message =
      finding === 'created'
        ? null
        : `The plan was not created: Paydesk did not learn the outcome of its create-recurring-payment (${unlearnedCreate(plan)}), and after the safe delay the gateway knows neither the plan (${plan.client_orderid}) nor its first charge (${found.evidence}). Nothing will be charged; it was not sent again. Create a new subscription if the customer still wants one.`;
    await this.ledger.tx(async (trx) => {
      const done = await trx
        .updateTable('subscriptions')
        .set(
          finding === 'created'
            ? {
                state: 'active',
                ...(found.recurringPaymentId === null
                  ? {}
                  : { recurring_payment_id: found.recurringPaymentId }),
                error_code: null,
                error_message: null,
                ...unansweredColumns(null),
                check_at: null,
                lease_owner: null,
                lease_until: null,
                updated_at: now,
              }
            : {
                state: 'not_sent',
                error_code: 'NOT_CREATED',
                error_message: message,
                ...unansweredColumns(null),
                check_at: null,
                lease_owner: null,
                lease_until: null,
                updated_at: now,
              },
        )
        .where('id', '=', plan.id)
        // Only the lease holder writes: a lease that expired mid-call may be someone else's.
        .where('lease_owner', '=', options.instanceId)
        .where(
          'state',
          'in',
          // The charge just recorded may already have linked (activated) the plan.
          finding === 'created' ? ['sending', 'unknown', 'active'] : ['sending', 'unknown'],
        )
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) return;
      await this.ledger.audit.appendIn(platformTrx(trx), {
        actorId: null,
        actorEmail: null,
        actorRoles: [],
        action: 'subscription.reconcile',
        target: `subscription:${plan.id}`,
        summary: {
          clientOrderId: plan.client_orderid,
          amount: formatMinorUnits(big(plan.amount_minor)),
          currency: plan.currency,
          requestedBy: plan.created_by_email,
          stateBefore: plan.state,
          finding,
          evidence: found.evidence,
          recurringPaymentId: found.recurringPaymentId,
        },
        outcome: finding === 'created' ? 'success' : 'failed',
        errorCode: finding === 'created' ? null : 'NOT_CREATED',
        requestId: null,
        ip: null,
        userAgent: null,
      });
    });
  }

  /** A plan the gateway can confirm only by its first charge, not due yet: `unknown` until then. */
  private async awaitFirstCharge(plan: SubscriptionsTable, at: number): Promise<void> {
    const now = this.ledger.clock.now();
    await this.ledger.k
      .updateTable('subscriptions')
      .set({
        state: 'unknown',
        error_message:
          plan.state === 'sending'
            ? `Paydesk stopped before recording the gateway's answer to this plan. The gateway can confirm it only by its first charge, due ${iso(plan.first_charge_at)}; Paydesk asks again then. It is never sent again.`
            : plan.error_message,
        check_at: at,
        check_attempts: 0,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      })
      .where('id', '=', plan.id)
      .where('lease_owner', '=', this.ledger.options.instanceId)
      .where('state', 'in', ['sending', 'unknown'])
      .execute();
  }

  /** No answer to go by (timeout, 5xx, unreachable): asked again on the reconcile schedule, never given up. */
  private async reschedule(plan: SubscriptionsTable, error: string): Promise<void> {
    const { clock, options } = this.ledger;
    const t = options.reconcile;
    const now = clock.now();
    // The schedule runs from the first look, or from the first charge's due time once it passed.
    const chargeDueBy = plan.first_charge_at + t.notAppliedAfterMs;
    const firstLook = plan.created_at + this.safeDelayMs;
    const phaseStart = chargeDueBy <= now ? Math.max(firstLook, chargeDueBy) : firstLook;
    const delay =
      nextReconcileDelay(t, phaseStart, now, options.random) ??
      Math.round(t.slowMinMs + (t.slowMaxMs - t.slowMinMs) * options.random());
    this.logger.warn(
      { subscriptionId: plan.id, attempts: plan.check_attempts + 1, error },
      'subscription outcome still unknown; asking the gateway again later',
    );
    await this.ledger.k
      .updateTable('subscriptions')
      .set({
        check_at: now + delay,
        check_attempts: plan.check_attempts + 1,
        lease_owner: null,
        lease_until: null,
      })
      .where('id', '=', plan.id)
      .where('lease_owner', '=', options.instanceId)
      .execute();
  }
}
