// createPayouts(deps): payouts under four-eyes approval, payment links and card info, built from
// the platform's dependencies. app.ts mounts its routes (mountPayoutRoutes); main.ts starts and
// stops its status poller (payouts.poller.start() / payouts.close()).
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { amountGuards, type AmountGuards } from '../payments/amount-guards.js';
import type { Db } from '../db/connect.js';
import { GatewayClient } from '../gateway-client/client.js';
import type { LiveEvent } from '@paydesk/shared/api';
import { InProcessEventBus, type EventBus } from '../payments/events.js';
import { payDb } from '../payments/db.js';
import { Idempotency } from '../payments/idempotency.js';
import type { AuditLog } from '../services/audit.js';
import { Sealer } from '../services/sealing.js';
import { CardInfoService } from './card-info.js';
import {
  resolvePayoutsOptions,
  type Ctx,
  type PayoutsOptions,
  type PayoutsOptionsInput,
} from './context.js';
import { DestinationHasher } from './destination.js';
import { PaymentLinksService } from './links.js';
import { PayoutPoller } from './poller.js';
import { PayoutsService } from './service.js';

export interface PayoutsDeps {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** the platform's audit log (services.audit) */
  audit: AuditLog;
  options?: PayoutsOptionsInput;
  /** default: a client on config.gatewayBaseUrl with options.gatewayTimeoutMs */
  gateway?: GatewayClient;
  /** the payments core's idempotency service (payments.services.idempotency); default: a new one on the same table */
  idempotency?: Idempotency;
  /** where payout and payment-link changes are published (payments.bus); default in-process */
  bus?: EventBus;
}

/** `AmountGuards`: the limits and large-amount thresholds a payout or payment link is held to. */
export interface Payouts extends AmountGuards {
  options: PayoutsOptions;
  gateway: GatewayClient;
  idempotency: Idempotency;
  hasher: DestinationHasher;
  services: { payouts: PayoutsService; links: PaymentLinksService; cardInfo: CardInfoService };
  poller: PayoutPoller;
  /**
   * For the payments core's event bus (`payments.bus.subscribe((e) => payouts.onTransactionEvent(e))`):
   * an event about a payout's order (its callback arrived) makes its status check due now; events
   * of other subjects, and of orders that are charges (sale, preauth, rebill), are ignored.
   */
  onTransactionEvent(event: LiveEvent): void;
  /** stops the poller */
  close(): Promise<void>;
}

/** Order types that are never a payout's (payout orders are `payout` or `payout-check`). */
const NOT_PAYOUT_TYPES: ReadonlySet<string> = new Set(['sale', 'preauth', 'rebill']);

export function createPayouts(deps: PayoutsDeps): Payouts {
  const { config, clock } = deps;
  const options = resolvePayoutsOptions({
    ...(config.payoutHoldMaxAgeMs === undefined ? {} : { holdMaxAgeMs: config.payoutHoldMaxAgeMs }),
    ...deps.options,
  });
  const gateway =
    deps.gateway ??
    new GatewayClient({
      baseUrl: config.gatewayBaseUrl,
      merchant: {
        login: config.merchant.login,
        controlKey: config.merchant.controlKey,
        rsaPrivateKeyPem: config.merchant.rsaPrivateKeyPem,
      },
      timeoutMs: options.gatewayTimeoutMs,
      now: () => new Date(clock.now()),
      logger: deps.logger,
    });
  const hasher = new DestinationHasher(config.sessionSecret);
  const ctx: Ctx = {
    config,
    db: deps.db,
    k: deps.db.k,
    clock,
    audit: deps.audit,
    gateway,
    sealer: new Sealer(config.sessionSecret),
    hasher,
    options,
    bus: deps.bus ?? new InProcessEventBus(),
  };
  const payouts = new PayoutsService(ctx);
  const links = new PaymentLinksService(ctx);
  const poller = new PayoutPoller(ctx, payouts, links, deps.logger);
  const idempotency =
    deps.idempotency ?? new Idempotency(payDb(deps.db), clock, options.idempotencyRetentionMs);
  return {
    options,
    gateway,
    idempotency,
    hasher,
    ...amountGuards(config),
    services: { payouts, links, cardInfo: new CardInfoService(ctx) },
    poller,
    onTransactionEvent: (event) => {
      if (event.type !== 'transaction.created' && event.type !== 'transaction.updated') return;
      // A charge (sale, preauth, rebill) is never a payout's order: no statement for it. An
      // event without the type (from an older instance) is checked as before.
      if (event.transactionType !== undefined && NOT_PAYOUT_TYPES.has(event.transactionType))
        return;
      poller.nudge(event.orderid).catch((err: unknown) => {
        deps.logger.error({ err, orderid: event.orderid }, 'payout nudge failed');
      });
    },
    close: () => poller.stop(),
  };
}

export { PAYOUT_ROUTES, payoutHandlers, mountPayoutRoutes, type PayoutRouteKey } from './routes.js';
export {
  payoutsMigration,
  payoutsMigrations,
  ensurePayoutsSchema,
  PAYOUTS_MIGRATION_NAME,
  type PayoutsTables,
} from './migration.js';
export type { PayoutsOptions, PayoutsOptionsInput } from './context.js';
