// The real processes of the fault suite: the sandbox gateway (`node sandbox/dist/main.js`) and the
// BFF (`node bff/dist/main.js`), each on an ephemeral port with its own temp directory; the BFF on
// SQLite or on a fresh PostgreSQL database, and restartable (SIGKILL, then start on the same data).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { GatewayClient } from '@paydesk/sandbox/dist/storefront/gateway-client.js';
import { createPgDatabase, PG_URL } from '../../support/pg-database.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const SANDBOX_MAIN = join(ROOT, 'sandbox', 'dist', 'main.js');
const BFF_MAIN = join(ROOT, 'bff', 'dist', 'main.js');
const DEMO_MERCHANT_DIR = join(ROOT, 'sandbox', 'demo-merchant');

export const MERCHANT = {
  login: 'paydesk-faults',
  controlKey: 'FAULTS-CONTROL-KEY-4d7e1b9c2a',
  privateKeyFile: join(DEMO_MERCHANT_DIR, 'private-key.pem'),
};
export const ADMIN = { email: 'admin@faults.test', password: 'faults-admin-password-1' };

// ---------------------------------------------------------------- databases

export { PG_URL };

export interface DbVariant {
  name: 'sqlite' | 'postgres';
  skip: boolean;
  /** a fresh database: the BFF's DATABASE_URL and how to drop it */
  create(dir: string): Promise<{ url: string; drop(): Promise<void> }>;
}

export const DB_VARIANTS: readonly DbVariant[] = [
  {
    name: 'sqlite',
    skip: false,
    create: (dir) =>
      Promise.resolve({
        url: `sqlite:${join(dir, 'paydesk.sqlite')}`,
        drop: () => Promise.resolve(),
      }),
  },
  {
    name: 'postgres',
    skip: PG_URL === '',
    create: () => createPgDatabase('paydesk_faults'),
  },
];

/** The title of a suite on one database; the PostgreSQL one says why it is skipped. */
export function variantTitle(what: string, variant: DbVariant): string {
  return variant.skip
    ? `${what} (postgres: skipped, PAYDESK_TEST_PG_URL is not set)`
    : `${what} (${variant.name})`;
}

// ---------------------------------------------------------------- helpers

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((done) => {
    server.close(() => {
      done();
    });
  });
  return port;
}

/**
 * How long a sandbox or BFF process may take to start (or restart). Starting one takes 1–3 s on an
 * idle machine, but 20–30 s when the 2 cores are shared with a loaded machine's other work.
 */
const PROCESS_START_TIMEOUT_MS = 60_000;

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => {
      done();
    });
  });
}

// ---------------------------------------------------------------- sandbox

export interface SandboxRequest {
  operation: string;
  status: number | undefined;
  dropped: boolean;
}

export interface SandboxOrder {
  orderid: string;
  clientOrderId: string;
  replyStatus: string;
  orderStage: string;
  amountMinor: string;
  capturedMinor: string;
  returnedMinor: string;
  voided: boolean;
  operations: { serial: string; type: string; amountMinor: string; status: string }[];
}

export interface CallbackDelivery {
  id: string;
  orderid: string;
  serial: string;
  /** the URL the gateway calls (the BFF's callback URL with the callback's parameters) */
  url: string;
  params: Record<string, string>;
  attempts: { at: string; httpStatus?: number; error?: string }[];
  state: 'pending' | 'delivered' | 'failed' | 'held' | 'dropped';
  duplicateOf?: string;
}

export interface Faults {
  errorRate?: number;
  latencyMs?: number;
  /** hold affected requests until a later `faults` call lifts it */
  hold?: boolean;
  dropResponseRate?: number;
  operations?: string[];
  callbacks?: 'normal' | 'duplicate' | 'reverse' | 'drop';
}

export interface SandboxProcess {
  origin: string;
  baseUrl: string;
  /** signs and sends gateway requests as the merchant (to place orders as a shop would) */
  client: GatewayClient;
  /** every gateway request the sandbox logged, in order */
  requests: SandboxRequest[];
  control(path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  faults(faults: Faults): Promise<void>;
  order(orderid: string): Promise<SandboxOrder>;
  callbacks(orderid?: string): Promise<CallbackDelivery[]>;
  delayed(): Promise<{ operation: string; orderid?: string }[]>;
  stop(): Promise<void>;
}

export async function startSandbox(): Promise<SandboxProcess> {
  if (!existsSync(SANDBOX_MAIN)) throw new Error(`${SANDBOX_MAIN} is missing: run pnpm -r build`);
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-faults-sandbox-'));
  const configFile = join(dir, 'sandbox.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      merchants: [
        {
          login: MERCHANT.login,
          controlKey: MERCHANT.controlKey,
          publicKeyFile: join(DEMO_MERCHANT_DIR, 'public-key.pem'),
          endpoints: [{ id: 1001, currency: 'EUR' }],
          endpointGroups: [],
        },
      ],
      processingDelayMs: 0,
      callbackMaxAttempts: 10,
      callbackBackoffSeconds: 1,
    }),
  );
  const child = spawn(process.execPath, [SANDBOX_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_CONFIG: configFile,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const requests: SandboxRequest[] = [];
  const origin = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => {
      fail(new Error(`the sandbox did not start: ${stderr.join('')}`));
    }, PROCESS_START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the sandbox exited with ${String(code)}: ${stderr.join('')}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (entry.msg === 'sandbox listening' && typeof entry.url === 'string') {
        clearTimeout(timer);
        done(new URL(entry.url).origin);
      }
      if (entry.msg === 'request' && typeof entry.operation === 'string') {
        requests.push({
          operation: entry.operation,
          status: typeof entry.status === 'number' ? entry.status : undefined,
          dropped: entry.dropped === true,
        });
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
  const ok = async (path: string, body?: unknown): Promise<unknown> => {
    const r = await control(path, body);
    if (r.status !== 200) throw new Error(`sandbox ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  return {
    origin,
    baseUrl: `${origin}/paynet`,
    client: new GatewayClient(`${origin}/paynet`, {
      login: MERCHANT.login,
      controlKey: MERCHANT.controlKey,
      privateKeyPem: '',
    }),
    requests,
    control,
    faults: async (faults) => {
      await ok('/sandbox/faults', faults);
    },
    order: async (orderid) => (await ok(`/sandbox/orders/${orderid}`)) as SandboxOrder,
    callbacks: async (orderid) =>
      (
        (await ok(`/sandbox/callbacks${orderid === undefined ? '' : `?orderid=${orderid}`}`)) as {
          callbacks: CallbackDelivery[];
        }
      ).callbacks,
    delayed: async () =>
      (
        (await ok('/sandbox/faults/delayed')) as {
          delayed: { operation: string; orderid?: string }[];
        }
      ).delayed,
    stop: async () => {
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- BFF

export interface BffOptions {
  gatewayTimeoutMs: number;
  /** RECONCILE_* (the reconciler's and the payout poller's schedule) */
  reconcile: {
    pollIntervalMs: number;
    fastMinMs: number;
    fastMaxMs: number;
    leaseMs: number;
    notAppliedAfterMs: number;
  };
  /** CALLBACK_CONCURRENCY / CALLBACK_QUEUE_LIMIT (default: the BFF's) */
  callbacks?: { concurrency: number; queueLimit: number };
}

export interface BffProcess {
  /** `http://127.0.0.1:port` (also PUBLIC_ORIGIN, so callbacks reach it) */
  url: string;
  /** its DATABASE_URL */
  databaseUrl: string;
  /** the process's stderr and warnings, for failure messages */
  output: string[];
  /** SIGKILL: no shutdown, nothing flushed, nothing recorded after this instant */
  kill9(): Promise<void>;
  /** starts `node bff/dist/main.js` again on the same port, database and secrets */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBff(
  variant: DbVariant,
  gatewayBaseUrl: string,
  options: BffOptions,
): Promise<BffProcess> {
  if (!existsSync(BFF_MAIN)) throw new Error(`${BFF_MAIN} is missing: run pnpm -r build`);
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-faults-bff-'));
  const database = await variant.create(dir);
  const secretFile = join(dir, 'session-secret');
  writeFileSync(secretFile, randomBytes(48).toString('base64url'), { mode: 0o600 });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const r = options.reconcile;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_ORIGIN: url,
    DATABASE_URL: database.url,
    SESSION_SECRET_FILE: secretFile,
    GATEWAY_BASE_URL: gatewayBaseUrl,
    MERCHANT_LOGIN: MERCHANT.login,
    MERCHANT_CONTROL_KEY: MERCHANT.controlKey,
    MERCHANT_RSA_KEY_FILE: MERCHANT.privateKeyFile,
    MERCHANT_ENDPOINTS: '1001:EUR',
    PAYDESK_ADMIN_EMAIL: ADMIN.email,
    PAYDESK_ADMIN_PASSWORD: ADMIN.password,
    WEB_DIST_DIR: join(dir, 'no-web'),
    LOG_LEVEL: 'warn',
    ARGON2_MEMORY_KIB: '64',
    ARGON2_TIME_COST: '1',
    // The BFF refuses a shutdown timeout not longer than the gateway timeout.
    SHUTDOWN_TIMEOUT_MS: String(options.gatewayTimeoutMs + 1_000),
    GATEWAY_TIMEOUT_MS: String(options.gatewayTimeoutMs),
    RECONCILE_POLL_INTERVAL_MS: String(r.pollIntervalMs),
    RECONCILE_FAST_MIN_MS: String(r.fastMinMs),
    RECONCILE_FAST_MAX_MS: String(r.fastMaxMs),
    RECONCILE_LEASE_MS: String(r.leaseMs),
    RECONCILE_NOT_APPLIED_AFTER_MS: String(r.notAppliedAfterMs),
    ...(options.callbacks === undefined
      ? {}
      : {
          CALLBACK_CONCURRENCY: String(options.callbacks.concurrency),
          CALLBACK_QUEUE_LIMIT: String(options.callbacks.queueLimit),
        }),
  };
  const output: string[] = [];
  let child: ChildProcess | undefined;

  const launch = async () => {
    const proc = spawn(process.execPath, [BFF_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    await until(
      `the BFF to answer /readyz (${output.join('').slice(-2000)})`,
      async () => {
        if (proc.exitCode !== null)
          throw new Error(`the BFF exited with ${proc.exitCode}: ${output.join('')}`);
        const res = await fetch(`${url}/readyz`);
        await res.body?.cancel();
        return res.status === 200 ? true : undefined;
      },
      PROCESS_START_TIMEOUT_MS,
    );
  };
  await launch();

  return {
    url,
    databaseUrl: database.url,
    output,
    kill9: async () => {
      if (child === undefined) return;
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
      child = undefined;
    },
    restart: launch,
    stop: async () => {
      if (child !== undefined) {
        const done = exited(child);
        child.kill('SIGTERM');
        await done;
        child = undefined;
      }
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
