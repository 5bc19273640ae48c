// createPayments(deps): the payments module's services, reconciler and event bus, built from the
// platform's dependencies. app.ts mounts its routes; main.ts starts and stops the reconciler.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import type { GatewayClient } from '../gateway-client/client.js';
import type { AuditLog } from '../services/audit.js';
import { CallbackReceiver } from './callbacks.js';
import { InProcessEventBus, StreamSlots, type EventBus } from './events.js';
import { configuredEndpointIds, createGatewayClient } from './gateway.js';
import { Idempotency } from './idempotency.js';
import { Ledger } from './ledger.js';
import { OperationsService } from './operations.js';
import { resolveOptions, type PaymentsOptions, type PaymentsOptionsInput } from './options.js';
import { PayoutOrders } from './payout-orders.js';
import { TransactionQueries } from './queries.js';
import { Reconciler } from './reconciler.js';
import { RebillService } from './rebills.js';
import { SubscriptionsService } from './subscriptions.js';
import { TransactionsService } from './transactions.js';

export interface PaymentsDeps {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** the platform's audit log (services.audit) */
  audit: AuditLog;
  options?: PaymentsOptionsInput;
  /** another transport (PostgreSQL LISTEN/NOTIFY) for several instances; default in-process */
  bus?: EventBus;
  /** default: a client on config.gatewayBaseUrl with options.gatewayTimeoutMs */
  gateway?: GatewayClient;
}

export interface Payments {
  clock: Clock;
  config: Config;
  /** the platform's audit log (a refused callback's row: `callbackRouter`) */
  audit: AuditLog;
  options: PaymentsOptions;
  bus: EventBus;
  /** open `GET /api/events` streams per session */
  streams: StreamSlots;
  gateway: GatewayClient;
  services: {
    transactions: TransactionsService;
    operations: OperationsService;
    callbacks: CallbackReceiver;
    queries: TransactionQueries;
    idempotency: Idempotency;
    rebills: RebillService;
    subscriptions: SubscriptionsService;
  };
  reconciler: Reconciler;
  /**
   * Where the transactions search and the lookup learn that an order is a payout's: app.ts attaches
   * the payouts module (`payoutOrders.attach(payouts.services.payouts)`); unattached, none is.
   */
  payoutOrders: PayoutOrders;
  /** stops the reconciler and closes the bus */
  close(): Promise<void>;
}

export function createPayments(deps: PaymentsDeps): Payments {
  const options = resolveOptions(deps.options);
  const bus = deps.bus ?? new InProcessEventBus();
  const gateway =
    deps.gateway ??
    createGatewayClient(deps.config, deps.clock, options.gatewayTimeoutMs, deps.logger);
  const ledger = new Ledger(deps.db, deps.clock, deps.audit, bus, options);
  const endpointIds = configuredEndpointIds(deps.config);
  const payoutOrders = new PayoutOrders();
  const transactions = new TransactionsService(ledger, gateway, endpointIds, payoutOrders);
  const idempotency = new Idempotency(ledger.k, deps.clock, options.idempotencyRetentionMs);
  const operations = new OperationsService(ledger, gateway, options.cardRefVersion, idempotency);
  const callbacks = new CallbackReceiver(
    ledger,
    transactions,
    endpointIds,
    deps.config.merchant.controlKey,
    deps.logger,
    options.callbacks,
  );
  const rebills = new RebillService(ledger, gateway, deps.config);
  const subscriptions = new SubscriptionsService(ledger.k, deps.clock, gateway, deps.config);
  const queries = new TransactionQueries(ledger.k, deps.clock, payoutOrders);
  const reconciler = new Reconciler(ledger, transactions, idempotency, deps.logger);
  return {
    clock: deps.clock,
    config: deps.config,
    audit: deps.audit,
    options,
    bus,
    streams: new StreamSlots(options.liveStreamsPerSession),
    gateway,
    services: {
      transactions,
      operations,
      callbacks,
      queries,
      idempotency,
      rebills,
      subscriptions,
    },
    reconciler,
    payoutOrders,
    close: async () => {
      await reconciler.stop();
      await bus.close();
    },
  };
}

export {
  PAYMENT_ROUTES,
  paymentHandlers,
  mountPaymentRoutes,
  callbackRouter,
  type PaymentRouteKey,
} from './routes.js';
export {
  paymentsMigration,
  paymentsMigrations,
  ensurePaymentsSchema,
  PAYMENTS_MIGRATION_NAME,
} from './migration.js';
export type { PaymentsOptions, PaymentsOptionsInput } from './options.js';
export { InProcessEventBus, type EventBus } from './events.js';
export { PgNotifyEventBus } from './pg-event-bus.js';
