// A real BFF (the platform's createApp) with the payments module mounted in front of it, on a
// real database, pointed at a real sandbox process. Works before app.ts wires payments in.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Role } from '@paydesk/shared/api';
import { createApp } from '../../app.js';
import { ManualClock } from '../../clock.js';
import type { Config } from '../../config.js';
import { openDatabase, type Db } from '../../db/connect.js';
import { AppError } from '../../errors.js';
import { errorEnvelope, makeRunner } from '../../http/run-route.js';
import { createLogger } from '../../logger.js';
import type { Services } from '../../services/index.js';
import { ADMIN, testConfig, TestClient, type DbVariant } from '../../test-support/harness.js';
import { createPayments, type Payments } from '../index.js';
import { ensurePaymentsSchema } from '../migration.js';
import type { PaymentsOptionsInput } from '../options.js';
import { callbackRouter, mountPaymentRoutes } from '../routes.js';
import { MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT } from './sandbox-process.js';

export interface PaymentsTestApp {
  url: string;
  config: Config;
  db: Db;
  services: Services;
  payments: Payments;
  clock: ManualClock;
  logger: Logger;
  logs: string[];
  /** the server_callback_url this BFF gives the gateway for an endpoint */
  callbackUrl(endpointId: string): string;
  client(): TestClient;
  userWithRoles(roles: Role[], email?: string): Promise<TestClient>;
  close(): Promise<void>;
}

export interface PaymentsAppOptions {
  gatewayBaseUrl: string;
  payments?: PaymentsOptionsInput;
  config?: Partial<Config>;
  /** an existing database (a second BFF instance on the same data) */
  shared?: { database: Config['database'] };
}

export async function startPaymentsApp(
  variant: DbVariant,
  options: PaymentsAppOptions,
): Promise<PaymentsTestApp> {
  const created = options.shared === undefined ? await variant.create() : null;
  const database = options.shared?.database ?? created?.database;
  if (database === undefined) throw new Error('no database');
  // Listen first: PUBLIC_ORIGIN (the origin of the server_callback_url of the orders this BFF
  // creates, such as rebills) is this server's own address.
  let handler: express.Express = express();
  const server: Server = createServer((req, res) => {
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = testConfig(database, {
    publicOrigin: url,
    gatewayBaseUrl: options.gatewayBaseUrl,
    merchant: {
      login: TEST_MERCHANT.login,
      controlKey: TEST_MERCHANT.controlKey,
      rsaPrivateKeyPem: MERCHANT_PRIVATE_KEY_PEM,
      endpoints: [
        { kind: 'endpoint', id: '1001', currency: 'EUR' },
        { kind: 'endpoint', id: '1002', currency: 'USD' },
      ],
    },
    ...options.config,
  });
  const db = await openDatabase(config.database, 8);
  await ensurePaymentsSchema(db.k as unknown as Kysely<unknown>, db.kind);
  const logs: string[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(line);
    },
  });
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0));
  const { app: platform, services } = createApp({
    config,
    db,
    logger,
    clock,
    gatewayProbe: () => Promise.resolve(),
  });
  if (config.bootstrapAdmin !== null && options.shared === undefined)
    await services.users.bootstrapAdmin(config.bootstrapAdmin);
  const payments = createPayments({
    config,
    db,
    clock,
    logger,
    audit: services.audit,
    options: { gatewayTimeoutMs: 2_000, ...options.payments },
  });

  const outer = express();
  outer.disable('x-powered-by');
  // Same as app.ts: no body parser here, the platform's runner reads (and refuses) bodies itself.
  const api = express.Router();
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  mountPaymentRoutes(api, makeRunner(services, logger), payments);
  outer.use('/api', api);
  outer.use(callbackRouter(payments, logger));
  outer.use(platform);
  outer.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const e = new AppError('VALIDATION_FAILED', 'the body is not valid JSON', {
      fields: [{ path: '(body)', rule: 'json', message: 'the body is not valid JSON' }],
    });
    res.status(400).json(errorEnvelope(e, 'test'));
  });

  handler = outer;
  let counter = 0;
  const t: PaymentsTestApp = {
    url,
    config,
    db,
    services,
    payments,
    clock,
    logger,
    logs,
    callbackUrl: (endpointId) => `${url}/gateway/callback?endpoint=${endpointId}`,
    client: () => new TestClient(url, config.publicOrigin),
    userWithRoles: async (roles, email) => {
      counter += 1;
      const address =
        email ?? `pay${counter}-${roles.join('-')}-${String(Date.now())}@paydesk.test`;
      const password = `password-for-${address}`;
      // An account whose holder already chose its password (as after a first sign-in): a
      // temporary one would allow nothing but changing it.
      await services.users.create(
        { email: address, name: `User ${counter}`, password, roles },
        { temporaryPassword: false },
      );
      const c = t.client();
      const res = await c.login(address, password);
      if (res.status !== 200) throw new Error(`login as ${address} failed: ${res.status}`);
      return c;
    },
    close: async () => {
      await payments.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await db.close();
      if (created !== null) await created.drop();
    },
  };
  return t;
}

export { ADMIN };
