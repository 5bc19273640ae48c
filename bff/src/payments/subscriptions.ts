// Subscriptions: v4 create-recurring-payment (OAuth RSA-SHA256) on a stored card reference, with a
// new traceable client_orderid (`rp-<uuid>`). The gateway charges the plan as rebill orders
// (`<client_orderid>-n`) whose callbacks carry `recurring-payment-id`; the ledger links those
// orders to the plan (ledger.applyStatus). The gateway has no cancel or update for a plan, so
// neither has Paydesk. A lost reply leaves the plan `unknown`; it is never sent again, and its
// first charge names it.
import { randomUUID } from 'node:crypto';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import type {
  SubscriptionCreateBody,
  SubscriptionDetail,
  SubscriptionListQuery,
  SubscriptionPage,
  SubscriptionPeriod,
  SubscriptionResult,
  SubscriptionState,
  SubscriptionSummary,
} from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { GatewayClient, GatewayOutcome } from '../gateway-client/client.js';
import { callbackUrl, gatewayIp, resolveEndpoint } from '../payouts/context.js';
import { redact } from '../services/redact.js';
import { requireCardRefOnEndpoint } from './card-refs.js';
import { big, toColumn, type PayDb } from './db.js';
import { exchangeData } from './gateway.js';
import { gatewayRefusal } from './gateway-errors.js';
import type { SubscriptionsTable } from './migration.js';
import { iso, toSummary } from './records.js';
import type { ActorInfo } from './transactions.js';

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
    const endpointId = resolveEndpoint(this.config, body.endpointId, body.currency);
    await requireCardRefOnEndpoint(this.k, this.config, body.cardRefId, endpointId);
    const amountMinor = toMinorUnits(body.amount);
    const id = randomUUID();
    const clientOrderId = `rp-${randomUUID()}`;
    onCreated(id);
    const now = this.clock.now();
    const today = iso(now).slice(0, 10);
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
    const label = `${formatMinorUnits(amountMinor)} ${body.currency} every ${body.interval} ${body.period}${body.interval === 1 ? '' : 's'}`;
    return {
      subscription,
      message:
        result.state === 'unknown'
          ? `The gateway's answer to the subscription (${label}) was lost (${outcome.kind === 'unknown' ? outcome.reason : 'no reply'}). Paydesk will not send it again; its first charge will link it.`
          : `Subscription ${subscription.recurringPaymentId ?? ''} created: ${label}. Each charge arrives as a rebill order by callback.`,
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

function classify(outcome: GatewayOutcome): {
  state: 'active' | 'unknown' | 'refused' | 'not_sent';
  recurringPaymentId: string | null;
  serial: string | null;
  errorCode: string | null;
  errorMessage: string | null;
} {
  if (outcome.kind === 'not-sent') {
    return {
      state: 'not_sent',
      recurringPaymentId: null,
      serial: null,
      errorCode: null,
      errorMessage: outcome.reason,
    };
  }
  if (outcome.kind === 'unknown') {
    return {
      state: 'unknown',
      recurringPaymentId: null,
      serial: null,
      errorCode: null,
      errorMessage: outcome.exchange.error,
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
    };
  }
  return {
    state: 'refused',
    recurringPaymentId: null,
    serial: reply.serialNumber ?? null,
    errorCode: reply.errorCode ?? `HTTP_${outcome.httpStatus}`,
    errorMessage: reply.errorMessage ?? null,
  };
}
