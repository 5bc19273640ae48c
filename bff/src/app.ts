// Builds the Express app from injected dependencies; listens only in main.ts.
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import { REQUEST_ID_HEADER, type ReadyResponse } from '@paydesk/shared/api';
import { systemClock, type Clock } from './clock.js';
import type { Config, ReconcileConfig } from './config.js';
import type { Db } from './db/connect.js';
import { AppError } from './errors.js';
import { ROUTES, splitRouteKey, type RouteKey } from './http/route-table.js';
import { auditHandlers } from './http/routes/audit.js';
import { sessionHandlers } from './http/routes/session.js';
import { userHandlers } from './http/routes/users.js';
import {
  bodyError,
  errorEnvelope,
  makeRunner,
  requestIdOf,
  toAppError,
  type Handler,
} from './http/run-route.js';
import { customerPages } from './http/customer-pages.js';
import type { RefusalThrottleOptions } from './http/refusal-throttle.js';
import { requestError } from './http/path-errors.js';
import { spaRouter } from './http/spa.js';
import { methodNotAllowed, notFound } from './http/method-not-allowed.js';
import {
  callbackRouter,
  createPayments,
  paymentHandlers,
  type EventBus,
  type Payments,
} from './payments/index.js';
import { createPayouts, type Payouts } from './payouts/index.js';
import { payoutHandlers } from './payouts/routes.js';
import { createServices, type Services } from './services/index.js';
import { viewHandlers } from './views/routes.js';
import { SavedViews } from './views/service.js';
import { maskPans } from './services/redact.js';
import { failureFields, failureLevel, noteFailure } from './logger.js';

export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  clock?: Clock;
  /** resolves when the gateway answers HTTP at all (default: GET GATEWAY_BASE_URL) */
  gatewayProbe?: () => Promise<void>;
  /** live-update transport; in-process by default, PostgreSQL LISTEN/NOTIFY for several instances */
  eventBus?: EventBus;
  /** how refusals of unidentified clients are audited (default: one per client and code a minute) */
  refusalAudit?: Partial<RefusalThrottleOptions>;
  /** this instance in job leases (main.ts gives the logger the same); default: a random one */
  instanceId?: string;
}

export interface App {
  app: express.Express;
  services: Services;
  payments: Payments;
  payouts: Payouts;
}

export function defaultGatewayProbe(config: Config): () => Promise<void> {
  return async () => {
    const res = await fetch(config.gatewayBaseUrl, {
      method: 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(config.readyGatewayTimeoutMs),
    });
    await res.body?.cancel();
  };
}

/** The payout poller follows the reconciler's schedule (`RECONCILE_*`). */
function pollTimings(r: ReconcileConfig) {
  return {
    intervalMs: r.pollIntervalMs,
    fastMinMs: r.fastMinMs,
    fastMaxMs: r.fastMaxMs,
    leaseMs: r.leaseMs,
    notAppliedAfterMs: r.notAppliedAfterMs,
  };
}

export function createApp(deps: AppDeps): App {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const instanceId = deps.instanceId ?? randomUUID();
  const services = createServices(config, db, clock);
  const payments = createPayments({
    config,
    db,
    clock,
    logger,
    audit: services.audit,
    options: {
      gatewayTimeoutMs: config.gatewayTimeoutMs,
      instanceId,
      cardRefVersion: config.cardRefVersion,
      ...(config.reconcile === undefined ? {} : { reconcile: { ...config.reconcile } }),
      ...(config.callbacks === undefined ? {} : { callbacks: config.callbacks }),
      ...(config.liveEventsHeartbeatMs === undefined
        ? {}
        : { sseHeartbeatMs: config.liveEventsHeartbeatMs }),
      ...(config.settlementCheckAfterMs === undefined
        ? {}
        : { settlement: { afterMs: config.settlementCheckAfterMs } }),
    },
    ...(deps.eventBus === undefined ? {} : { bus: deps.eventBus }),
  });
  const payouts = createPayouts({
    config,
    db,
    clock,
    logger,
    audit: services.audit,
    options: {
      gatewayTimeoutMs: config.gatewayTimeoutMs,
      instanceId,
      ...(config.reconcile === undefined ? {} : { poll: pollTimings(config.reconcile) }),
      ...(config.paymentLinkFollow === undefined
        ? {}
        : { linkFollow: { ...config.paymentLinkFollow } }),
    },
    idempotency: payments.services.idempotency,
    // Payout and payment-link changes reach `GET /api/events` (and other instances) like transactions'.
    bus: payments.bus,
  });
  // A search or lookup of a payout's order (awaiting approval: no transaction yet) leads to it.
  payments.payoutOrders.attach(payouts.services.payouts);
  // A lookup of a payment link's order (its page not used yet: no transaction) leads to the link.
  payments.payoutOrders.attachLinks(payouts.services.links);
  // A payout's callback reaches the payments receiver; its status check becomes due at once.
  payments.bus.subscribe((event) => {
    payouts.onTransactionEvent(event);
  });
  const gatewayProbe = deps.gatewayProbe ?? defaultGatewayProbe(config);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);

  // Requests being served, live-event streams aside (they wait for events, not for the event
  // loop): while another is, SQLite's commit syncs leave the event loop to it (node-sqlite-dialect.ts).
  let working = 0;
  app.use((req, res, next) => {
    if (req.path === '/api/events') {
      next();
      return;
    }
    working += 1;
    res.once('close', () => {
      working -= 1;
    });
    next();
  });
  if (db.sqlite !== null) db.sqlite.othersAtWork = () => working > 1;

  app.use(
    pinoHttp({
      logger,
      // Always our own id: it keys log lines to audit rows, so a client must not be able to choose
      // it (a repeated or forged id would make the audit trail ambiguous).
      genReqId: (_req, res) => {
        const id = randomUUID();
        res.setHeader(REQUEST_ID_HEADER, id);
        return id;
      },
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: maskPans(req.url.split('?')[0] ?? ''),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      // The SPA's static files (some 60 per page load) only at debug: on-call reads the API.
      customLogLevel: (req, res, err) =>
        err !== undefined || res.statusCode >= 500
          ? failureLevel(res.statusCode)
          : res.statusCode < 400 &&
              ((req as { originalUrl?: string }).originalUrl ?? req.url).startsWith('/assets/')
            ? 'debug'
            : 'info',
      // A failed request's one line carries its cause, as noted where it was answered (noteFailure).
      customErrorObject: (_req, _res, err, val: Record<string, unknown>) => {
        const { err: _placeholder, ...line } = val;
        return { ...line, ...failureFields(err) };
      },
    }),
  );

  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          'default-src': ["'self'"],
          'script-src': ["'self'"],
          // MUI/emotion inject <style> elements at run time.
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:', 'blob:'],
          'font-src': ["'self'", 'data:'],
          'connect-src': ["'self'"],
          'object-src': ["'none'"],
          'base-uri': ["'self'"],
          'form-action': ["'self'"],
          'frame-ancestors': ["'none'"],
          ...(config.secureCookies ? { 'upgrade-insecure-requests': [] } : {}),
        },
      },
      strictTransportSecurity: config.secureCookies
        ? { maxAge: 31_536_000, includeSubDomains: true }
        : false,
      referrerPolicy: { policy: 'no-referrer' },
      // The same as the CSP's frame-ancestors 'none' for browsers that only know this header.
      frameguard: { action: 'deny' },
    }),
  );

  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const check = async (probe: () => Promise<void>) => {
      try {
        await probe();
        return 'ok' as const;
      } catch {
        return 'unavailable' as const;
      }
    };
    const [database, gateway] = await Promise.all([check(() => db.ping()), check(gatewayProbe)]);
    // Ready is the database alone: with the gateway down, staff still find orders, read the
    // audit log and prepare payouts, and every instance would be equally unready anyway.
    const ok = database === 'ok';
    if (!ok) noteFailure(res, new AppError('SERVICE_UNAVAILABLE', 'database unavailable'));
    const body: ReadyResponse = {
      status: ok ? 'ok' : 'unavailable',
      checks: { database, gateway },
    };
    res
      .set('Cache-Control', 'no-store')
      .status(ok ? 200 : 503)
      .json(body);
  });

  const api = express.Router();
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  const handlers: Record<RouteKey, Handler> = {
    ...sessionHandlers(services),
    ...userHandlers(services),
    ...auditHandlers(services),
    ...paymentHandlers(payments),
    ...payoutHandlers(payouts),
    ...viewHandlers(new SavedViews(db, clock)),
  };
  const run = makeRunner(services, logger, deps.refusalAudit);
  const methodsOf = new Map<string, string[]>();
  for (const key of Object.keys(ROUTES) as RouteKey[]) {
    const { method, path } = splitRouteKey(key);
    const route = path.replace(/^\/api/, '');
    api[method](route, run(ROUTES[key], handlers[key]));
    methodsOf.set(route, [...(methodsOf.get(route) ?? []), method]);
  }
  for (const [route, methods] of methodsOf) api.all(route, methodNotAllowed(methods));
  api.use(notFound((req) => `no API route ${req.method} ${req.path}`));
  app.use('/api', api);

  app.use(callbackRouter(payments, logger, deps.refusalAudit));
  app.use(customerPages());
  app.use(spaRouter(config.webDistDir, config.publicOrigin));
  // Whatever is left (a POST to a page, a path nothing serves): JSON, not Express's HTML page.
  app.use(notFound((req) => `nothing is served at ${req.method} ${req.path}`));

  // Errors outside route handlers: unreadable bodies, static files, anything unexpected.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const type = (err as { type?: unknown } | null)?.type;
    const status = (err as { status?: unknown } | null)?.status;
    let appErr: AppError;
    const bodyType =
      typeof type === 'string' &&
      (type.startsWith('entity.') ||
        type === 'charset.unsupported' ||
        type === 'encoding.unsupported');
    const clientError = typeof status === 'number' && status >= 400 && status < 500;
    if (bodyType || (clientError && typeof type === 'string')) {
      // body-parser's (and raw-body's) errors carry a `type`; nothing else here does.
      appErr = bodyError(err);
    } else if (status === 404) {
      appErr = new AppError('NOT_FOUND', 'not found');
    } else if (clientError) {
      // A path that does not decode or climbs with `..`, a static file's conditional headers: a
      // GET has no body to blame (QA).
      appErr = requestError(req, status);
    } else {
      appErr = toAppError(err);
      noteFailure(res, err);
    }
    res.status(appErr.status).json(errorEnvelope(appErr, requestIdOf(req)));
  });

  return { app, services, payments, payouts };
}
