// The real Paydesk stack for browser tests: the built sandbox (`node sandbox/dist/main.js`, in
// memory, port 0) and the built BFF (`node bff/dist/main.js`, SQLite in a temporary directory, a
// free port, serving web/dist) as child processes, the way `npm start` runs them. Staff users are
// created through the BFF's own API by the bootstrap admin; orders are placed at the gateway by a
// merchant client (protocol library) with server_callback_url pointing at the BFF.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { GatewayClient } from '@paydesk/sandbox/dist/storefront/gateway-client.js';
import { CSRF_HEADER, CSRF_HEADER_VALUE, type Role } from '@paydesk/shared/api';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const MERCHANT_DIR = join(ROOT, 'sandbox', 'demo-merchant');
const ENDPOINT = 1001;
const ADMIN = {
  email: 'e2e.admin@paydesk.test',
  password: `e2e-admin-${randomBytes(8).toString('hex')}`,
};
const FINAL = new Set(['approved', 'declined', 'error', 'filtered']);

export interface User {
  email: string;
  password: string;
  roles: Role[];
}

export interface PlacedOrder {
  orderid: string;
  clientOrderId: string;
}

/** The sandbox's internal view of an order (GET /sandbox/orders/:id; amounts in minor units). */
export interface SandboxOrder {
  orderid: string;
  status: string;
  orderStage: string;
  amountMinor: string;
  authorizedMinor: string;
  capturedMinor: string;
  returnedMinor: string;
  voided: boolean;
  operations: { type: string; amountMinor?: string; status: string }[];
}

interface Child {
  process: ChildProcess;
  lines: string[];
}

function startChild(name: string, script: string, env: Record<string, string>): Child {
  if (!existsSync(script)) throw new Error(`${script} is missing: build first (pnpm -r build)`);
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never outlive the test worker, even when it exits without running the suite's cleanup.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(`[${name}] ${line}`);
    });
  }
  return { process: child, lines };
}

async function stopChild(child: Child): Promise<void> {
  const p = child.process;
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise<void>((r) => {
    p.once('exit', () => {
      r();
    });
  });
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Resolves with the first log line `match` accepts; rejects if the process exits first. */
function waitForLine<T>(
  child: Child,
  match: (line: string) => T | undefined,
  ms: number,
): Promise<T> {
  return new Promise((resolveLine, reject) => {
    const check = () => {
      for (const line of child.lines) {
        const found = match(line);
        if (found !== undefined) return found;
      }
      return undefined;
    };
    const timer = setInterval(() => {
      const found = check();
      if (found !== undefined) {
        done();
        resolveLine(found);
      }
    }, 50);
    const timeout = setTimeout(() => {
      done();
      reject(new Error(`no expected log line after ${ms} ms:\n${child.lines.join('\n')}`));
    }, ms);
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`process exited (${String(code)}):\n${child.lines.join('\n')}`));
    };
    const done = () => {
      clearInterval(timer);
      clearTimeout(timeout);
      child.process.off('exit', onExit);
    };
    child.process.once('exit', onExit);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolvePort(port);
      });
    });
  });
}

/** Polls `probe` until it returns a value (not undefined) or the time is up. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A client of the BFF's API that behaves like the SPA (CSRF header, Origin, session cookie). */
export class ApiClient {
  #cookie = '';
  constructor(
    private readonly baseUrl: string,
    private readonly origin: string,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = {
      [CSRF_HEADER]: CSRF_HEADER_VALUE,
      Origin: this.origin,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.#cookie !== '') headers.Cookie = this.#cookie;
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = res.headers.getSetCookie()[0];
    if (set !== undefined) this.#cookie = set.split(';')[0] ?? '';
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  async signIn(user: { email: string; password: string }): Promise<void> {
    const res = await this.call('POST', '/api/session', {
      email: user.email,
      password: user.password,
    });
    if (res.status !== 200) throw new Error(`sign-in as ${user.email}: HTTP ${res.status}`);
  }
}

export interface Stack {
  /** the BFF's origin, which is also its PUBLIC_ORIGIN (the browser opens it) */
  url: string;
  /** `http://127.0.0.1:port` of the sandbox (control API under /sandbox) */
  sandbox: string;
  /** every log line of both processes, for failure messages */
  logs(): string;
  /** the bootstrap admin (admin + auditor; its password is its own, not a temporary one) */
  admin: User;
  /** a new staff user with these roles, created by the admin through POST /api/users */
  createUser(label: string, roles: Role[]): Promise<User>;
  /** a sale or preauth placed at the gateway, once the BFF has learned its final status */
  placeOrder(kind: 'sale' | 'preauth', amount: string, card?: string): Promise<PlacedOrder>;
  sandboxOrder(orderid: string): Promise<SandboxOrder>;
  /** the sandbox's callback deliveries (URL parameters as sent) */
  callbacks(): Promise<{ orderid: string; state: string; params: Record<string, string> }[]>;
  close(): Promise<void>;
}

async function startBff(env: Record<string, string>): Promise<{ child: Child; url: string }> {
  // A free port chosen up front (PUBLIC_ORIGIN must name it for the CSRF check); another process
  // may take it in between, so a start that finds it in use tries another.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = startChild('bff', join(ROOT, 'bff', 'dist', 'main.js'), {
      ...env,
      PORT: String(port),
      PUBLIC_ORIGIN: url,
    });
    try {
      await waitForLine(
        child,
        (l) => (l.includes('paydesk-bff listening') ? true : undefined),
        30_000,
      );
      return { child, url };
    } catch (error) {
      await stopChild(child);
      if (attempt >= 3 || !child.lines.join('\n').includes('already in use')) throw error;
    }
  }
}

export async function startStack(): Promise<Stack> {
  const webIndex = join(ROOT, 'web', 'dist', 'index.html');
  if (!existsSync(webIndex)) throw new Error(`${webIndex} is missing: build first (pnpm -r build)`);
  const merchant = JSON.parse(readFileSync(join(MERCHANT_DIR, 'merchant.json'), 'utf8')) as {
    login: string;
    controlKey: string;
  };
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-e2e-'));
  const children: Child[] = [];
  const close = async () => {
    await Promise.all(children.map(stopChild));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const sandboxChild = startChild('sandbox', join(ROOT, 'sandbox', 'dist', 'main.js'), {
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    children.push(sandboxChild);
    // Port 0: the sandbox says where it listens in its "sandbox listening" log line.
    const gateway = await waitForLine(
      sandboxChild,
      (line) => {
        try {
          const parsed = JSON.parse(line.replace(/^\[sandbox\] /, '')) as {
            msg?: unknown;
            url?: unknown;
          };
          return parsed.msg === 'sandbox listening' && typeof parsed.url === 'string'
            ? parsed.url
            : undefined;
        } catch {
          return undefined;
        }
      },
      20_000,
    );
    const sandbox = new URL(gateway).origin;
    const { child: bffChild, url } = await startBff({
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'paydesk.sqlite')}`,
      GATEWAY_BASE_URL: gateway,
      MERCHANT_LOGIN: merchant.login,
      MERCHANT_CONTROL_KEY: merchant.controlKey,
      MERCHANT_RSA_KEY_FILE: join(MERCHANT_DIR, 'private-key.pem'),
      MERCHANT_ENDPOINTS: '1001:EUR,1002:USD,group:2001',
      PAYDESK_ADMIN_EMAIL: ADMIN.email,
      PAYDESK_ADMIN_PASSWORD: ADMIN.password,
      WEB_DIST_DIR: join(ROOT, 'web', 'dist'),
      LOG_LEVEL: 'info',
      // Cheap password hashing: the suite signs in a handful of users, not an attacker.
      ARGON2_MEMORY_KIB: '64',
      ARGON2_TIME_COST: '1',
    });
    children.push(bffChild);
    await until('the BFF to be ready', async () => {
      const res = await fetch(`${url}/readyz`).catch(() => null);
      return res?.ok === true ? true : undefined;
    });

    const admin = new ApiClient(url, url);
    await admin.signIn(ADMIN);
    const reader = new ApiClient(url, url);
    let readerReady: Promise<void> | null = null;
    const gatewayClient = new GatewayClient(gateway, merchant);
    const callbackUrl = `${url}/gateway/callback?endpoint=${ENDPOINT}`;
    const year = String(new Date().getUTCFullYear() + 2);
    let sequence = 0;

    const stack: Stack = {
      url,
      sandbox,
      admin: { ...ADMIN, roles: ['admin', 'auditor'] },
      logs: () => children.flatMap((c) => c.lines).join('\n'),
      createUser: async (label, roles) => {
        const user: User = {
          email: `${label}.${randomBytes(3).toString('hex')}@paydesk.test`,
          password: `e2e-${label}-${randomBytes(8).toString('hex')}`,
          roles,
        };
        // A one-time password, then the user sets their own: a password the admin chose is
        // temporary (the BFF allows nothing else until it is changed), and four-eyes counts such an
        // account as the admin's, so two such ops users could not approve each other.
        const oneTime = `e2e-once-${randomBytes(8).toString('hex')}`;
        const res = await admin.call('POST', '/api/users', {
          ...user,
          password: oneTime,
          name: `E2E ${label}`,
          // Required when the roles include Finance or Operations.
          reason: 'End-to-end test account',
        });
        if (res.status !== 201) throw new Error(`creating ${label}: HTTP ${res.status}`);
        const self = new ApiClient(url, url);
        await self.signIn({ email: user.email, password: oneTime });
        const own = await self.call('POST', '/api/session/password', {
          currentPassword: oneTime,
          newPassword: user.password,
        });
        if (own.status !== 200) throw new Error(`${label} setting a password: HTTP ${own.status}`);
        await self.call('DELETE', '/api/session');
        return user;
      },
      placeOrder: async (kind, amount, card = '4111111111111111') => {
        sequence += 1;
        const clientOrderId = `e2e-${randomBytes(3).toString('hex')}-${kind}-${sequence}`;
        const placed = await gatewayClient.call(kind, ENDPOINT, {
          client_orderid: clientOrderId,
          order_desc: `E2E ${kind} ${clientOrderId}`,
          amount,
          currency: 'EUR',
          address1: '1 Test Street',
          city: 'Springfield',
          zip_code: '12345',
          country: 'DE',
          phone: '+49 30 5550100',
          email: 'e2e.shopper@example.com',
          ipaddress: '198.51.100.23',
          credit_card_number: card,
          card_printed_name: 'E2E SHOPPER',
          expire_month: '12',
          expire_year: year,
          cvv2: '123',
          redirect_url: 'https://storefront.example/return',
          server_callback_url: callbackUrl,
        });
        const orderid = placed.reply.orderId;
        if (placed.httpStatus !== 200 || orderid === undefined)
          throw new Error(`${kind} answered HTTP ${placed.httpStatus}`);
        // The auditor role reads transactions; this reader only waits for the BFF to learn orders.
        readerReady ??= stack
          .createUser('order-reader', ['auditor'])
          .then((auditor) => reader.signIn(auditor));
        await readerReady;
        await until(`the BFF to learn ${clientOrderId} with a final status`, async () => {
          const res = await reader.call(
            'GET',
            `/api/transactions?q=${encodeURIComponent(clientOrderId)}`,
          );
          const items = (res.json as { items?: { status: string }[] } | null)?.items ?? [];
          return items.some((t) => FINAL.has(t.status)) ? true : undefined;
        });
        return { orderid, clientOrderId };
      },
      sandboxOrder: async (orderid) => {
        const res = await fetch(`${sandbox}/sandbox/orders/${encodeURIComponent(orderid)}`);
        if (res.status !== 200) throw new Error(`sandbox order ${orderid}: HTTP ${res.status}`);
        return (await res.json()) as SandboxOrder;
      },
      callbacks: async () => {
        const res = await fetch(`${sandbox}/sandbox/callbacks`);
        const body = (await res.json()) as {
          callbacks: { orderid: string; state: string; params: Record<string, string> }[];
        };
        return body.callbacks;
      },
      close,
    };
    return stack;
  } catch (error) {
    const logs = children.flatMap((c) => c.lines).join('\n');
    await close();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- logs ---\n${logs.slice(-4000)}`,
      { cause: error },
    );
  }
}
