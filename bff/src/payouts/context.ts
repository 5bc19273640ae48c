import type { PayoutEvent, Role } from '@paydesk/shared/api';
// What the payouts module's services share: options, the database view, endpoint resolution,
// reading a `status` reply, and the redacted history of payouts and links.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { GatewayReply } from '@paydesk/shared/protocol';
import type { Clock } from '../clock.js';
import type { Config, EndpointConfig } from '../config.js';
import type { Db } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { GatewayClient, GatewayOutcome } from '../gateway-client/client.js';
import type { EventBus } from '../payments/events.js';
import { PAYOUT_HISTORY, withhold, type Withheld } from '../payments/withheld.js';
import type { AuditLog } from '../services/audit.js';
import { redact } from '../services/redact.js';
import type { Sealer } from '../services/sealing.js';
import type { DestinationHasher } from './destination.js';
import type { PayoutsTables } from './migration.js';

export type PayoutsDatabase = Database & PayoutsTables;
export type PayoutsDb = Kysely<PayoutsDatabase>;

export interface PollTimings {
  /** fast phase from the first attempt: one check every fastMin–fastMax ms */
  fastPhaseMs: number;
  fastMinMs: number;
  fastMaxMs: number;
  slowMinMs: number;
  slowMaxMs: number;
  /** after this long from the first attempt polling stops (the state stays as it is) */
  horizonMs: number;
  leaseMs: number;
  /** how often the loop looks for due payouts */
  intervalMs: number;
  batchSize: number;
  /** a lost request that `status` still does not show after this long was not applied */
  notAppliedAfterMs: number;
}

/**
 * The slow follow-up of sent payment links whose order Paydesk has not learned (its callback
 * lost): `status` on the link's client_orderid, never anything that moves money.
 */
export interface LinkFollowTimings {
  /** the first check, this long after the link was sent (a customer needs a few minutes) */
  firstAfterMs: number;
  /**
   * then one check every this long; a check's timeline entry is written when it is claimed and is
   * its lease, so keep it well above gatewayTimeoutMs
   */
  intervalMs: number;
  /** no more checks once the link was sent this long ago */
  horizonMs: number;
  /** links one pass checks at most */
  batchSize: number;
  /** how often one instance looks for due links (the poll loop runs every poll.intervalMs) */
  scanEveryMs: number;
}

/**
 * The follow-up of payment links whose create (or a payout-form's approval) went unanswered
 * (`unknown`): `status` on the link's client_orderid, never the create again, until the gateway
 * shows the order (the link is then sent with its orderid) or, after the safe delay of a lost
 * request (`poll.notAppliedAfterMs`, as a rebill's and a subscription's), still does not know it
 * (the link was not created).
 */
export interface LinkSettleTimings {
  /** the first check, this long after the link's request was sent */
  firstAfterMs: number;
  /**
   * then one check every this long; a check's timeline entry is written when it is claimed and is
   * its lease, so keep it above twice gatewayTimeoutMs
   */
  intervalMs: number;
  /** no more scheduled checks once the link's request was sent this long ago */
  horizonMs: number;
  /** links one pass checks at most */
  batchSize: number;
  /** how often one instance looks for due links (the poll loop runs every poll.intervalMs) */
  scanEveryMs: number;
}

export interface PayoutsOptions {
  gatewayTimeoutMs: number;
  /** a registered payout lapses this long after payout-check (sandbox and gateway: 24 h) */
  registrationTtlMs: number;
  /**
   * a held single payout or payout-form link not approved this long after it was prepared lapses
   * (expired, its sealed data erased): `PAYOUT_HOLD_MAX_AGE_MS`
   */
  holdMaxAgeMs: number;
  poll: PollTimings;
  linkFollow: LinkFollowTimings;
  linkSettle: LinkSettleTimings;
  /** idempotency keys are kept at least this long (≥ 24 h) */
  idempotencyRetentionMs: number;
  instanceId: string;
  random: () => number;
}

export type PayoutsOptionsInput = Partial<
  Omit<PayoutsOptions, 'poll' | 'linkFollow' | 'linkSettle'>
> & {
  poll?: Partial<PollTimings>;
  linkFollow?: Partial<LinkFollowTimings>;
  linkSettle?: Partial<LinkSettleTimings>;
};

const HOUR = 60 * 60_000;

export function resolvePayoutsOptions(input: PayoutsOptionsInput = {}): PayoutsOptions {
  const poll: PollTimings = {
    fastPhaseMs: 5 * 60_000,
    fastMinMs: 3_000,
    fastMaxMs: 5_000,
    slowMinMs: 5 * 60_000,
    slowMaxMs: 10 * 60_000,
    horizonMs: HOUR,
    leaseMs: 30_000,
    intervalMs: 1_000,
    batchSize: 20,
    notAppliedAfterMs: 60_000,
    ...input.poll,
  };
  const linkFollow: LinkFollowTimings = {
    firstAfterMs: 5 * 60_000,
    intervalMs: 15 * 60_000,
    horizonMs: 24 * HOUR,
    batchSize: 10,
    scanEveryMs: 60_000,
    ...input.linkFollow,
  };
  // As a payout's checks: soon after the request, for an hour (poll.horizonMs's default). Each
  // check writes a timeline entry, so once a minute rather than a payout's every few seconds.
  const linkSettle: LinkSettleTimings = {
    firstAfterMs: 30_000,
    intervalMs: 60_000,
    horizonMs: HOUR,
    batchSize: 10,
    scanEveryMs: 10_000,
    ...input.linkSettle,
  };
  const options: PayoutsOptions = {
    gatewayTimeoutMs: 15_000,
    registrationTtlMs: 24 * HOUR,
    holdMaxAgeMs: 7 * 24 * HOUR,
    idempotencyRetentionMs: 25 * HOUR,
    instanceId: randomUUID(),
    random: Math.random,
    ...input,
    poll,
    linkFollow,
    linkSettle,
  };
  if (options.idempotencyRetentionMs < 24 * HOUR)
    throw new Error('idempotencyRetentionMs must be at least 24 h');
  if (linkFollow.intervalMs <= 2 * options.gatewayTimeoutMs)
    throw new Error('linkFollow.intervalMs must be more than twice gatewayTimeoutMs');
  if (linkSettle.intervalMs <= 2 * options.gatewayTimeoutMs)
    throw new Error('linkSettle.intervalMs must be more than twice gatewayTimeoutMs');
  return options;
}

/** A duration as a timeline says it: `7 days`, `36 hours`, `90 minutes` (whole units), else ms. */
export function describeDuration(ms: number): string {
  for (const [unit, size] of [
    ['day', 24 * HOUR],
    ['hour', HOUR],
    ['minute', 60_000],
  ] as const) {
    const n = ms / size;
    if (Number.isInteger(n) && n > 0) return `${n} ${unit}${n === 1 ? '' : 's'}`;
  }
  return `${ms} ms`;
}

/** Delay before the next status check of something first checked at `firstAt`; null = give up. */
export function nextPollDelay(
  t: PollTimings,
  firstAt: number,
  now: number,
  random: () => number,
): number | null {
  const elapsed = now - firstAt;
  if (elapsed >= t.horizonMs) return null;
  const [min, max] =
    elapsed < t.fastPhaseMs ? [t.fastMinMs, t.fastMaxMs] : [t.slowMinMs, t.slowMaxMs];
  return Math.round(min + (max - min) * random());
}

export interface Actor {
  id: string;
  email: string;
  roles: readonly Role[];
}

export interface Ctx {
  config: Config;
  db: Db;
  k: PayoutsDb;
  clock: Clock;
  audit: AuditLog;
  gateway: GatewayClient;
  sealer: Sealer;
  hasher: DestinationHasher;
  options: PayoutsOptions;
  /** live updates (`GET /api/events`): every payout and payment-link change is published here */
  bus: EventBus;
}

/** 400 naming `currency`: the configured endpoint or group does not take it. */
function currencyRefused(message: string): AppError {
  return new AppError('VALIDATION_FAILED', `currency: ${message}`, {
    fields: [{ path: 'currency', rule: 'endpoint_currency', message }],
  });
}

/** Whether the configured endpoint or group takes `currency`: true, false, or null (not known). */
export function takesCurrency(entry: EndpointConfig, currency: string): boolean | null {
  if (entry.kind === 'endpoint') return entry.currency === currency;
  return entry.currencies === undefined ? null : entry.currencies.includes(currency);
}

/**
 * The endpoint (or endpoint group) an order is created on: the one named, which must be
 * configured and take the order's currency (when its currencies are known); else the endpoint of
 * that currency; else a group known to take it; else a group whose currencies are not configured
 * (the gateway decides). A currency that no configured endpoint or group takes is refused here
 * (400 naming `currency`), before anything is written or sent.
 */
export function resolveEndpoint(
  config: Config,
  requested: string | undefined,
  currency: string | undefined,
): string {
  const endpoints = config.merchant.endpoints;
  if (requested !== undefined) {
    const found = endpoints.find((e) => e.id === requested);
    if (found === undefined) {
      throw new AppError(
        'VALIDATION_FAILED',
        'endpointId: must be a configured endpoint or endpoint group',
        {
          fields: [
            {
              path: 'endpointId',
              rule: 'configured_endpoint',
              message: 'must be a configured endpoint or endpoint group',
            },
          ],
        },
      );
    }
    if (currency !== undefined && takesCurrency(found, currency) === false) {
      throw currencyRefused(
        found.kind === 'endpoint'
          ? `endpoint ${found.id} takes ${found.currency}`
          : `endpoint group ${found.id} takes ${(found.currencies ?? []).join(', ')}`,
      );
    }
    return found.id;
  }
  const chosen =
    currency === undefined
      ? (endpoints.find((e) => e.kind === 'endpoint') ?? endpoints[0])
      : (endpoints.find((e) => e.kind === 'endpoint' && e.currency === currency) ??
        endpoints.find((e) => takesCurrency(e, currency) === true) ??
        endpoints.find((e) => takesCurrency(e, currency) === null));
  if (chosen !== undefined) return chosen.id;
  const known = [
    ...new Set(
      endpoints.flatMap((e) => (e.kind === 'endpoint' ? [e.currency] : (e.currencies ?? []))),
    ),
  ];
  throw currencyRefused(
    `no configured endpoint takes ${currency ?? 'it'} (configured: ${known.join(', ')})`,
  );
}

/** What a `status` reply says about an order. */
export interface StatusView {
  orderid: string | null;
  status: string;
  stage: string | null;
  lastOperation: string | null;
  transactionType: string | null;
  amount: string | null;
  currency: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export function statusView(reply: GatewayReply): StatusView | null {
  if (reply.type !== 'status-response' || reply.status === undefined) return null;
  const f = reply.fields;
  return {
    orderid: reply.orderId ?? null,
    status: reply.status,
    stage: f['order-stage'] ?? null,
    lastOperation: f['last-operation'] ?? null,
    transactionType: f['transaction-type'] ?? null,
    amount: f.amount ?? null,
    currency: f.currency ?? null,
    errorCode: reply.errorCode ?? null,
    errorMessage: reply.errorMessage ?? null,
  };
}

export type StatusAnswer =
  | { kind: 'view'; view: StatusView; outcome: GatewayOutcome }
  | { kind: 'not-found'; outcome: GatewayOutcome }
  | { kind: 'no-answer'; outcome: GatewayOutcome };

export async function askStatus(
  gateway: GatewayClient,
  endpointId: string,
  clientOrderId: string,
  orderid: string | null,
): Promise<StatusAnswer> {
  const outcome = await gateway.send('status', endpointId, {
    client_orderid: clientOrderId,
    ...(orderid === null ? {} : { orderid }),
  });
  if (outcome.kind !== 'reply') return { kind: 'no-answer', outcome };
  if (outcome.httpStatus === 404) return { kind: 'not-found', outcome };
  const view = outcome.httpStatus === 200 ? statusView(outcome.reply) : null;
  return view === null ? { kind: 'no-answer', outcome } : { kind: 'view', view, outcome };
}

/** The exchange as the history keeps it (the client already redacted card and account data). */
export function exchangeData(outcome: GatewayOutcome): Record<string, unknown> {
  return {
    ...outcome.exchange,
    outcome: outcome.kind,
    ...(outcome.kind === 'reply' ? {} : { reason: outcome.reason }),
  };
}

/**
 * A payout-form link's history: the gateway's `redirect-url`, the payee's page, a bearer address
 * that pays whoever fills it in. Only the link's creator and approver are given it (`redirectUrl`).
 */
export const PAYOUT_FORM_HISTORY: Withheld = {
  fields: new Set(['redirect-url']),
  cardLabel: false,
};

/** What a timeline keeps from every reader: nothing for card links, the above for the rest. */
export function withheldFor(subject: string, linkKind?: string): Withheld | null {
  if (subject.startsWith('payout:')) return PAYOUT_HISTORY;
  return linkKind === 'payout-form' ? PAYOUT_FORM_HISTORY : null;
}

/** One entry of a payout's or a link's timeline (`payout_events`). */
export interface EventEntry {
  kind: 'gateway' | 'staff' | 'reconcile';
  title: string;
  actor: string | null;
  data: Record<string, unknown>;
}

/**
 * Writes a timeline entry with `k`: inside the transaction of the change it describes, or on its
 * own for a gateway exchange or a status check (evidence kept even when what follows fails).
 * `withheld` (default: `withheldFor(subject)`) is left out before it is stored.
 */
export async function addEvent(
  k: PayoutsDb,
  clock: Clock,
  subject: string,
  entry: EventEntry,
  withheld: Withheld | null = withheldFor(subject),
): Promise<void> {
  await k
    .insertInto('payout_events')
    .values({
      subject,
      at: clock.now(),
      kind: entry.kind,
      title: entry.title,
      actor: entry.actor,
      data: storedEventData(entry.data, withheld),
    })
    .execute();
}

/** A timeline entry's data as stored: without `withheld`, redacted, JSON. */
export function storedEventData(data: Record<string, unknown>, withheld: Withheld | null): string {
  return JSON.stringify(redact(withheld === null ? data : withhold(data, withheld)));
}

/**
 * The timeline of `subject` (`payout:<id>`, `link:<id>`), oldest first, as the API gives it:
 * without `withheld` (default: `withheldFor(subject)`), also in entries stored before it was.
 */
export async function eventsOf(
  k: PayoutsDb,
  subject: string,
  withheld: Withheld | null = withheldFor(subject),
): Promise<PayoutEvent[]> {
  const rows = await k
    .selectFrom('payout_events')
    .selectAll()
    .where('subject', '=', subject)
    .orderBy('id', 'asc')
    .execute();
  return rows.map((e) => {
    const data = JSON.parse(e.data) as Record<string, unknown>;
    return {
      at: new Date(e.at).toISOString(),
      kind: e.kind as EventEntry['kind'],
      title: e.title,
      actor: e.actor,
      data: withheld === null ? data : (withhold(data, withheld) as Record<string, unknown>),
    };
  });
}

/** The `server_callback_url` of every order Paydesk creates: the payments core's receiver. */
export function callbackUrl(config: Config, endpointId: string): string {
  return `${config.publicOrigin.replace(/\/+$/, '')}/gateway/callback?endpoint=${encodeURIComponent(endpointId)}`;
}

/** The staff member's address as the gateway's `ipaddress` (IPv4-mapped IPv6 unwrapped). */
export function gatewayIp(ip: string | null): string {
  if (ip === null || ip === '') return '127.0.0.1';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}
