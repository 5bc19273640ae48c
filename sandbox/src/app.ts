// createSandbox(options): the Express app and its state from injected config and clock. main.ts
// listens; tests start it on port 0.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { maskCardNumbers } from '@paydesk/shared/api';
import { pino, type Logger } from 'pino';
import { Scheduler, VirtualClock } from './clock.js';
import type { SandboxConfig } from './config.js';
import { controlRouter } from './control/router.js';
import { Callbacks } from './gateway/callbacks.js';
import { Engine } from './gateway/engine.js';
import { DelayedRequests, NO_FAULTS, type Faults } from './gateway/faults.js';
import { NonceStore } from './gateway/nonces.js';
import { openApiDocument } from './gateway/openapi.js';
import { GATEWAY_PREFIX, baseUrlOf, gatewayRouter } from './gateway/router.js';
import { hostedRouter } from './hosted/router.js';
import { errorBody, GatewayError, sendGateway } from './http/gateway-error.js';
import { Store } from './state/store.js';

export interface SandboxOptions {
  config: SandboxConfig;
  /** Defaults to a virtual clock over real time. */
  clock?: VirtualClock;
  /** SQLite file for SANDBOX_DB; in memory when absent. */
  dbPath?: string | undefined;
  logger?: Logger;
  /** Randomness of fault injection (tests use rates 0 or 1). */
  random?: () => number;
}

export interface Sandbox {
  app: Express;
  clock: VirtualClock;
  store: Store;
  scheduler: Scheduler;
  engine: Engine;
  /** Stops timers and closes the database (the HTTP server is the caller's). */
  close(): Promise<void>;
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const logger = options.logger ?? pino({ level: 'silent' });
  const store = new Store(options.dbPath);
  const clock = options.clock ?? new VirtualClock();
  if (store.persistent && clock.offset === 0) {
    // Behind real time (a demo history whose run was interrupted) or ahead of it (advanced).
    const saved = store.loadClockOffset();
    if (saved < 0) clock.rewind(-saved);
    else clock.advance(saved);
  }
  const scheduler = new Scheduler(clock, (error) => {
    logger.error({ err: error }, 'scheduled task failed');
  });
  const config = options.config;
  let faults: Faults = NO_FAULTS;
  const delayed = new DelayedRequests();
  const callbacks = new Callbacks(
    store,
    scheduler,
    clock,
    config,
    logger,
    (login) => config.merchants.find((m) => m.login === login)?.controlKey,
    () => faults.callbacks,
  );
  const engine = new Engine(store, scheduler, clock, config, callbacks);
  const nonces = new NonceStore();
  engine.rescheduleAll();
  // Callbacks a `reverse` fault held when the sandbox stopped: faults do not survive a restart.
  void callbacks.releaseHeld();

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // One log line per request; never bodies or headers (they carry card data and signatures).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          method: req.method,
          // The page token is a capability: it stays out of the log; a card number typed into a
          // path never reaches it either (unbroken or in groups).
          path: maskCardNumbers(
            req.path.replace(
              /^(\/paynet\/(?:hosted|acs|3ds-method)\/[0-9]+\/)[0-9a-f]+/,
              '$1<token>',
            ),
          ),
          status: res.headersSent ? res.statusCode : undefined,
          operation: typeof res.locals.operation === 'string' ? res.locals.operation : undefined,
          dropped: res.locals.dropped === true ? true : undefined,
          ms: Math.round(ms * 10) / 10,
        },
        'request',
      );
    });
    next();
  });

  // Due work (final statuses, timeouts, settlement) is applied before a request is answered.
  app.use((_req, _res, next) => {
    if (scheduler.isDue()) void Promise.all(scheduler.runDue());
    next();
  });

  app.get(`${GATEWAY_PREFIX}/openapi.json`, (req, res) => {
    res.json(openApiDocument(baseUrlOf(req)));
  });
  app.use(
    gatewayRouter({
      engine,
      nonces,
      faults: () => faults,
      delayed,
      random: options.random ?? Math.random,
      logger,
    }),
  );
  app.use(hostedRouter(engine, clock));
  app.use(
    controlRouter({
      engine,
      store,
      clock,
      scheduler,
      getFaults: () => faults,
      delayedRequests: () => delayed.list(),
      setFaults: async (next) => {
        const lifted = faults.callbacks === 'reverse' && next.callbacks !== 'reverse';
        // Held requests go on with the faults they arrived under (an error rate still fails them).
        if (faults.hold && !next.hold) delayed.release();
        faults = next;
        // The held callbacks go out now, newest first; the control call answers once they did.
        if (lifted) await callbacks.releaseHeld();
      },
      reset: () => {
        callbacks.clearHeld();
        scheduler.clear();
        store.reset();
        nonces.clear();
        faults = NO_FAULTS;
      },
    }),
  );

  app.use((req: Request, res: Response) => {
    if (req.path.startsWith(`${GATEWAY_PREFIX}/`)) {
      sendGateway(
        res,
        404,
        errorBody(GatewayError.notFound(`no operation at ${req.method} ${req.path}`), ''),
      );
    } else {
      res
        .status(404)
        .json({ error: { code: 'NOT_FOUND', message: `nothing at ${req.method} ${req.path}` } });
    }
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status =
      typeof error === 'object' &&
      error !== null &&
      'status' in error &&
      typeof error.status === 'number'
        ? error.status
        : 500;
    if (status >= 500) logger.error({ err: error, path: req.path }, 'unhandled error');
    const message = status >= 500 ? 'internal error' : 'malformed request';
    if (req.path.startsWith(`${GATEWAY_PREFIX}/`)) {
      const gatewayError =
        status >= 500
          ? new GatewayError(500, 'INTERNAL', message)
          : GatewayError.validation([{ name: 'body', message }]);
      sendGateway(res, gatewayError.httpStatus, errorBody(gatewayError, ''));
    } else {
      res
        .status(status >= 500 ? 500 : 400)
        .json({ error: { code: status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED', message } });
    }
  });

  return {
    app,
    clock,
    store,
    scheduler,
    engine,
    close: async () => {
      scheduler.close();
      await scheduler.idle();
      store.close();
    },
  };
}
