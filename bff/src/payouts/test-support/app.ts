// Payouts tests: the real sandbox as its own process (`node sandbox/dist/main.js`, demo merchant,
// a free port) and a real BFF (the platform's createApp) with the payouts routes and the payments
// core's callback receiver mounted in front, on a real database (SQLite or PostgreSQL).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import express from 'express';
import { vi } from 'vitest';
import { sql, type Kysely } from 'kysely';
import type {
  PaymentLinkCreateInput,
  PayoutCreateInput,
  PayoutDestination,
  Role,
} from '@paydesk/shared/api';
import { createApp } from '../../app.js';
import { ManualClock } from '../../clock.js';
import { REPO_ROOT, type Config } from '../../config.js';
import { openDatabase, type Db } from '../../db/connect.js';
import { GatewayClient } from '../../gateway-client/client.js';
import { makeRunner } from '../../http/run-route.js';
import { createLogger } from '../../logger.js';
import { createPayments, type Payments } from '../../payments/index.js';
import { ensurePaymentsSchema } from '../../payments/migration.js';
import { PAYMENT_ROUTES } from '../../payments/route-rules.js';
import { callbackRouter, paymentHandlers } from '../../payments/routes.js';
import type { Services } from '../../services/index.js';
import { testConfig, TestClient, type DbVariant, type Reply } from '../../test-support/harness.js';
import type { PayoutsDb } from '../context.js';
import { createPayouts, type Payouts, type PayoutsOptionsInput } from '../index.js';
import { ensurePayoutsSchema } from '../migration.js';
import { mountPayoutRoutes } from '../routes.js';

const DEMO_DIR = join(REPO_ROOT, 'sandbox', 'demo-merchant');
const SANDBOX_MAIN = join(REPO_ROOT, 'sandbox', 'dist', 'main.js');

interface MerchantFile {
  login: string;
  controlKey: string;
}
export const DEMO = JSON.parse(
  readFileSync(join(DEMO_DIR, 'merchant.json'), 'utf8'),
) as MerchantFile;
export const DEMO_PRIVATE_KEY = readFileSync(join(DEMO_DIR, 'private-key.pem'), 'utf8');

export interface Sandbox {
  origin: string;
  baseUrl: string;
  control(path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  advance(seconds: number): Promise<void>;
  faults(faults: Record<string, unknown>): Promise<void>;
  order(orderid: string): Promise<SandboxOrder>;
  /** a gateway client of the demo merchant (what a storefront would use) */
  merchant: GatewayClient;
  stop(): Promise<void>;
}

export interface SandboxOrder {
  orderid: string;
  clientOrderId: string;
  replyStatus: string;
  orderStage: string;
  amountMinor: string | number;
  serverCallbackUrl?: string;
  operations: { type: string; status: string }[];
}

/** Starts `node sandbox/dist/main.js` with the demo merchant on a free port. */
export async function startSandbox(): Promise<Sandbox> {
  if (!existsSync(SANDBOX_MAIN))
    throw new Error(
      `the sandbox is not built (${SANDBOX_MAIN}): pnpm --filter @paydesk/sandbox build`,
    );
  const child: ChildProcess = spawn(process.execPath, [SANDBOX_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the sandbox did not start: ${stderr.join('')}`));
    }, 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited with ${String(code)}: ${stderr.join('')}`));
    });
    if (child.stdout === null) throw new Error('no stdout');
    createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'sandbox listening' && typeof entry.url === 'string') {
          clearTimeout(timer);
          resolve(new URL(entry.url).origin);
        }
      } catch {
        // not a log line
      }
    });
  });
  const control = async (path: string, body?: unknown) => {
    const res = await fetch(origin + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const ok = async (what: string, p: Promise<{ status: number; json: unknown }>) => {
    const r = await p;
    if (r.status !== 200)
      throw new Error(`${what}: sandbox answered ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  const baseUrl = `${origin}/paynet`;
  return {
    origin,
    baseUrl,
    control,
    advance: async (seconds) => {
      await ok('advance', control('/sandbox/clock/advance', { seconds }));
    },
    faults: async (faults) => {
      await ok('faults', control('/sandbox/faults', faults));
    },
    order: async (orderid) =>
      (await ok(`order ${orderid}`, control(`/sandbox/orders/${orderid}`))) as SandboxOrder,
    merchant: new GatewayClient({
      baseUrl,
      merchant: {
        login: DEMO.login,
        controlKey: DEMO.controlKey,
        rsaPrivateKeyPem: DEMO_PRIVATE_KEY,
      },
      timeoutMs: 5_000,
    }),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export interface PayoutsTestApp {
  url: string;
  config: Config;
  db: Db;
  k: PayoutsDb;
  services: Services;
  payments: Payments;
  payouts: Payouts;
  /**
   * the platform's own payments core (createApp's), which serves `/api/transactions` here; its
   * `payoutOrders` is attached to the platform's payouts, as in production
   */
  platformPayments: Payments;
  clock: ManualClock;
  logs: string[];
  client(): TestClient;
  userWithRoles(roles: Role[]): Promise<TestClient & { email: string }>;
  close(): Promise<void>;
}

/** The demo merchant as the BFF is configured for it (endpoints 1001 EUR, 1002 USD, group 2001). */
export function demoMerchant(controlKey = DEMO.controlKey): Config['merchant'] {
  return {
    login: DEMO.login,
    controlKey,
    rsaPrivateKeyPem: DEMO_PRIVATE_KEY,
    endpoints: [
      { kind: 'endpoint', id: '1001', currency: 'EUR' },
      { kind: 'endpoint', id: '1002', currency: 'USD' },
      { kind: 'group', id: '2001' },
    ],
  };
}

export async function startPayoutsApp(
  variant: DbVariant,
  gatewayBaseUrl: string,
  options: PayoutsOptionsInput = {},
): Promise<PayoutsTestApp> {
  const created = await variant.create();
  // Listen first: PUBLIC_ORIGIN (the callback URL's origin) is this server's own address.
  let handler: express.Express = express();
  const server: Server = createServer((req, res) => {
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = testConfig(created.database, {
    publicOrigin: url,
    gatewayBaseUrl,
    merchant: demoMerchant(),
  });
  const db = await openDatabase(config.database, 8);
  await ensurePaymentsSchema(db.k as unknown as Kysely<unknown>, db.kind);
  await ensurePayoutsSchema(db.k as unknown as Kysely<unknown>, db.kind);
  const logs: string[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(line);
    },
  });
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0));
  const {
    app: platform,
    services,
    payments: platformPayments,
  } = createApp({
    config,
    db,
    logger,
    clock,
    gatewayProbe: () => Promise.resolve(),
  });
  if (config.bootstrapAdmin !== null) await services.users.bootstrapAdmin(config.bootstrapAdmin);
  const payments = createPayments({
    config,
    db,
    clock,
    logger,
    audit: services.audit,
    options: { gatewayTimeoutMs: 2_000 },
  });
  const payouts = createPayouts({
    config,
    db,
    clock,
    logger,
    audit: services.audit,
    idempotency: payments.services.idempotency,
    bus: payments.bus,
    options: { gatewayTimeoutMs: 2_000, random: () => 0, ...options },
  });
  const unsubscribe = payments.bus.subscribe((event) => {
    payouts.onTransactionEvent(event);
  });
  const outer = express();
  outer.disable('x-powered-by');
  const api = express.Router();
  api.use(express.json({ limit: '100kb' }));
  const run = makeRunner(services, logger);
  mountPayoutRoutes(api, run, payouts);
  // Live updates from this payments core's bus, which the payouts above publish to.
  api.get(
    '/events',
    run(PAYMENT_ROUTES['GET /api/events'], paymentHandlers(payments)['GET /api/events']),
  );
  outer.use('/api', api);
  outer.use(callbackRouter(payments, logger));
  outer.use(platform);
  handler = outer;

  let counter = 0;
  const t: PayoutsTestApp = {
    url,
    config,
    db,
    k: db.k,
    services,
    payments,
    payouts,
    platformPayments,
    clock,
    logs,
    client: () => new TestClient(url, config.publicOrigin),
    userWithRoles: async (roles) => {
      counter += 1;
      const email = `po${counter}-${roles.join('-')}@paydesk.test`;
      const password = passwordFor(email);
      // An account whose holder already chose its password (as after a first sign-in): a
      // temporary one would allow nothing but changing it.
      await services.users.create(
        { email, name: `User ${counter}`, password, roles },
        { temporaryPassword: false },
      );
      const c = t.client();
      const res = await c.login(email, password);
      if (res.status !== 200) throw new Error(`login as ${email} failed: ${res.status}`);
      return Object.assign(c, { email });
    },
    close: async () => {
      unsubscribe();
      await payouts.close();
      await payments.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await db.close();
      await created.drop();
    },
  };
  return t;
}

/**
 * Makes the database refuse, as a failing database would, every insert into `table` whose `column`
 * is `value` (a trigger: the statement fails and so does its transaction). Returns the undo.
 */
export async function refuseInserts(
  app: PayoutsTestApp,
  table: 'payout_events' | 'audit_log',
  column: 'title' | 'action',
  value: string,
): Promise<() => Promise<void>> {
  const name = `refuse_${randomUUID().replaceAll('-', '')}`;
  const literal = `'${value.replaceAll("'", "''")}'`;
  const run = (text: string) => sql.raw(text).execute(app.k);
  if (app.db.kind === 'sqlite') {
    await run(
      `create trigger ${name} before insert on ${table} when new.${column} = ${literal} ` +
        `begin select raise(abort, 'injected failure'); end`,
    );
    return async () => {
      await run(`drop trigger ${name}`);
    };
  }
  await run(
    `create function ${name}() returns trigger language plpgsql as ` +
      `$$ begin raise exception 'injected failure'; end $$`,
  );
  await run(
    `create trigger ${name} before insert on ${table} for each row ` +
      `when (new.${column} = ${literal}) execute function ${name}()`,
  );
  return async () => {
    await run(`drop trigger ${name} on ${table}`);
    await run(`drop function ${name}()`);
  };
}

/** The test payee's card (the sandbox approves 4111 1111 1111 1111). */
export const TEST_CARD: Extract<PayoutDestination, { kind: 'card' }> = {
  kind: 'card',
  cardNumber: '4111111111111111',
  cardholderName: 'Jane Payee',
  expiryMonth: '12',
  expiryYear: '2035',
};

/** A payout of `amount` EUR to the test card, as ops prepares it. */
export function cardPayout(
  amount: string,
  extra: Partial<PayoutCreateInput> = {},
): PayoutCreateInput {
  return {
    destination: TEST_CARD,
    amount,
    currency: 'EUR',
    orderDesc: 'Supplier refund',
    ...extra,
  };
}

/** A payout-form link of 15.00 EUR, as ops creates it (held until a second ops user approves). */
export function payoutFormLink(): PaymentLinkCreateInput {
  return { kind: 'payout-form', amount: '15.00', currency: 'EUR', orderDesc: 'Prize payout' };
}

export function key(): string {
  return randomUUID();
}

/** A POST with a fresh Idempotency-Key (or the one given, or none with null). */
export function post(
  client: TestClient,
  path: string,
  body: unknown,
  idempotencyKey: string | null = key(),
): Promise<Reply> {
  return client.request(
    'POST',
    path,
    body,
    idempotencyKey === null ? {} : { 'Idempotency-Key': idempotencyKey },
  );
}

/**
 * The password of a test account, the same each time for its e-mail. Not built from the e-mail
 * itself: the BFF refuses a password holding the account's e-mail or name.
 */
export function passwordFor(email: string): string {
  return `pw-${createHash('sha256').update(email).digest('hex').slice(0, 16)}`;
}

/**
 * A staff account another one (an admin) created through `POST /api/users`: the audit log ties
 * them. Its password is then made not temporary in the database, as for an account created before
 * temporary passwords (migration 0011): such an account acts with the password its creator chose,
 * which is what four-eyes guards against. (A new account's holder must choose their own first.)
 */
export async function accountCreatedBy(
  bff: PayoutsTestApp,
  creator: TestClient,
  roles: Role[],
): Promise<TestClient & { email: string; id: string }> {
  const email = `made-${randomUUID()}@paydesk.test`;
  const password = passwordFor(email);
  // A reason, as giving Finance or Operations requires one.
  const res = await creator.request('POST', '/api/users', {
    email,
    name: 'Made',
    password,
    roles,
    reason: 'Made for a test',
  });
  if (res.status !== 201) throw new Error(`creating ${email} failed: ${res.status} ${res.text}`);
  await bff.k
    .updateTable('users')
    .set({ password_temporary_at: null })
    .where('email', '=', email)
    .execute();
  const c = bff.client();
  const login = await c.login(email, password);
  if (login.status !== 200) throw new Error(`login as ${email} failed: ${login.status}`);
  return Object.assign(c, { email, id: (res.json as { id: string }).id });
}

/** The id of the account with this e-mail. */
export async function userId(bff: PayoutsTestApp, email: string): Promise<string> {
  const row = await bff.k
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The audit rows of `action` on `target`, oldest first. */
export function auditRows(bff: PayoutsTestApp, action: string, target: string) {
  return bff.k
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', action)
    .where('target', '=', target)
    .orderBy('seq')
    .execute();
}

/**
 * Every row of a keyset-paged list (`path` with its query but no `limit`/`cursor`), `limit` rows a
 * page, following `nextCursor` until it is null.
 */
export async function walkPages<T>(
  client: TestClient,
  path: string,
  parse: (json: unknown) => { items: T[]; nextCursor: string | null },
  limit: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const after = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await client.get(`${path}${sep}limit=${limit}${after}`);
    if (res.status !== 200) throw new Error(`${path} page ${pages}: ${res.status} ${res.text}`);
    const page = parse(res.json);
    items.push(...page.items);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== null);
  return { items, pages };
}

/** `items` as a list's view orders them: by creation time (oldest or newest first), ties by id. */
export function inListOrder<T extends { id: string; createdAt: string }>(
  items: readonly T[],
  oldestFirst: boolean,
): T[] {
  const key = (t: T) => `${t.createdAt} ${t.id}`;
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : 1) * (oldestFirst ? 1 : -1));
}

/**
 * Makes the gateway's `status` answers say the order is still processing (as a gateway whose
 * payouts take a while would answer), every other request as it is. Restore the returned spy.
 */
export function statusAnswersProcessing(bff: PayoutsTestApp) {
  const send = bff.payouts.gateway.send.bind(bff.payouts.gateway);
  return vi
    .spyOn(bff.payouts.gateway, 'send')
    .mockImplementation(async (operation, endpointId, fields) => {
      const outcome = await send(operation, endpointId, fields);
      if (operation !== 'status' || outcome.kind !== 'reply') return outcome;
      const { reply } = outcome;
      return {
        ...outcome,
        reply: {
          ...reply,
          status: 'processing',
          fields: { ...reply.fields, status: 'processing', 'order-stage': 'processing' },
        },
      };
    });
}
