// Test harness: a real app on a real database (SQLite temp file, or a fresh PostgreSQL database
// per suite when PAYDESK_TEST_PG_URL is set), logs captured, and an HTTP client with a cookie jar.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CSRF_HEADER, CSRF_HEADER_VALUE, type Role } from '@paydesk/shared/api';
import { createApp } from '../app.js';
import { ManualClock } from '../clock.js';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/connect.js';
import { createLogger } from '../logger.js';
import type { Services } from '../services/index.js';

export const PG_URL = process.env.PAYDESK_TEST_PG_URL;

export interface DbVariant {
  name: 'sqlite' | 'postgres';
  skip: boolean;
  /** creates a fresh, empty database and says how to remove it */
  create(): Promise<{ database: Config['database']; drop(): Promise<void> }>;
}

export const DB_VARIANTS: DbVariant[] = [
  {
    name: 'sqlite',
    skip: false,
    create: () => {
      const dir = mkdtempSync(join(tmpdir(), 'paydesk-bff-'));
      return Promise.resolve({
        database: { kind: 'sqlite', file: join(dir, 'paydesk.sqlite') },
        drop: () => {
          rmSync(dir, { recursive: true, force: true });
          return Promise.resolve();
        },
      });
    },
  },
  {
    name: 'postgres',
    skip: PG_URL === undefined || PG_URL === '',
    create: async () => {
      const admin = String(PG_URL);
      const name = `paydesk_test_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      await client.query(`create database ${name}`);
      await client.end();
      const url = new URL(admin);
      url.pathname = `/${name}`;
      return {
        database: { kind: 'postgres', url: url.toString() },
        drop: async () => {
          const c = new pg.Client({ connectionString: admin });
          await c.connect();
          // pg's Pool.end() resolves before its clients' connections have closed: a forced drop
          // at once would terminate them, and a client ending then throws the FATAL uncaught.
          // Their backends go within milliseconds; force only what is left after a while.
          for (let i = 0; i < 100; i += 1) {
            const { rows } = await c.query<{ n: string }>(
              'select count(*) as n from pg_stat_activity where datname = $1',
              [name],
            );
            if (rows[0]?.n === '0') break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          await c.query(`drop database if exists ${name} with (force)`);
          await c.end();
        },
      };
    },
  },
];

export const TEST_CONTROL_KEY = 'TEST-CONTROL-KEY-5b1c7a9e3f';
export const ADMIN = { email: 'admin@paydesk.test', password: 'admin-password-0123' };

export function testConfig(database: Config['database'], overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    publicOrigin: 'http://localhost:8080',
    secureCookies: false,
    devOrigin: null,
    database,
    gatewayBaseUrl: 'http://127.0.0.1:9/paynet',
    merchant: {
      login: 'merchant-test',
      controlKey: TEST_CONTROL_KEY,
      rsaPrivateKeyPem: null,
      endpoints: [{ kind: 'endpoint', id: '1001', currency: 'EUR' }],
    },
    sessionSecret: new TextEncoder().encode('test-session-secret-0123456789-abcdefghijklmnop'),
    bootstrapAdmin: ADMIN,
    webDistDir: join(tmpdir(), 'paydesk-no-web-dist'),
    trustProxy: false,
    logLevel: 'info',
    argon2: { memoryKib: 64, timeCost: 1, parallelism: 1 },
    session: { idleSeconds: 1800, absoluteSeconds: 43_200 },
    login: { maxFailuresPerAccount: 5, maxFailuresPerIp: 50, windowSeconds: 900 },
    readyGatewayTimeoutMs: 500,
    gatewayTimeoutMs: 2_000,
    cardRefVersion: 'v2',
    shutdownTimeoutMs: 0,
    ...overrides,
  };
}

export interface TestApp {
  url: string;
  config: Config;
  db: Db;
  services: Services;
  clock: ManualClock;
  logs: string[];
  /** a client that behaves like the SPA (CSRF header, same-origin Origin, cookie jar) */
  client(): TestClient;
  /** logs in a fresh client as a new user with these roles */
  userWithRoles(roles: Role[], email?: string): Promise<TestClient>;
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Partial<Config>;
  gatewayProbe?: () => Promise<void>;
}

export async function startApp(variant: DbVariant, options: StartOptions = {}): Promise<TestApp> {
  const created = await variant.create();
  const config = testConfig(created.database, options.config);
  const db = await openDatabase(config.database, 4);
  const logs: string[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(line);
    },
  });
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0));
  const { app, services } = createApp({
    config,
    db,
    logger,
    clock,
    gatewayProbe: options.gatewayProbe ?? (() => Promise.resolve()),
  });
  if (config.bootstrapAdmin !== null) await services.users.bootstrapAdmin(config.bootstrapAdmin);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let counter = 0;
  const testApp: TestApp = {
    url,
    config,
    db,
    services,
    clock,
    logs,
    client: () => new TestClient(url, config.publicOrigin),
    userWithRoles: async (roles, email) => {
      counter += 1;
      const address = email ?? `user${counter}-${roles.join('-')}@paydesk.test`;
      const password = `password-for-${address}`;
      // An account whose holder already chose its password (as after a first sign-in): a
      // temporary one would allow nothing but changing it.
      await services.users.create(
        { email: address, name: `User ${counter}`, password, roles },
        { temporaryPassword: false },
      );
      const c = testApp.client();
      const res = await c.login(address, password);
      if (res.status !== 200) throw new Error(`login as ${address} failed: ${res.status}`);
      return c;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await db.close();
      await created.drop();
    },
  };
  return testApp;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** `GET /api/events` as `client`'s browser opens it: the response, its body not read yet. */
export function openEventStream(baseUrl: string, client: TestClient): Promise<IncomingMessage> {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return new Promise<IncomingMessage>((resolve, reject) => {
    get(
      `${baseUrl}/api/events`,
      { headers: { Cookie: cookie, Accept: 'text/event-stream' } },
      resolve,
    ).on('error', reject);
  });
}

export class TestClient {
  readonly baseUrl: string;
  readonly origin: string;
  cookies = new Map<string, string>();
  constructor(baseUrl: string, origin: string) {
    this.baseUrl = baseUrl;
    this.origin = origin;
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    options: { csrf?: boolean } = {},
  ): Promise<Reply> {
    const h: Record<string, string> = {
      ...((options.csrf ?? true) ? { [CSRF_HEADER]: CSRF_HEADER_VALUE, Origin: this.origin } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    };
    if (this.cookies.size > 0) h.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: h,
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      redirect: 'manual',
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /Max-Age=0(;|$)/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let json: unknown = null;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text !== '')
      json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }
  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, body ?? {}, headers);
  }
  patch(path: string, body: unknown) {
    return this.request('PATCH', path, body);
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }
  login(email: string, password: string, totp?: string) {
    return this.post('/api/session', { email, password, ...(totp === undefined ? {} : { totp }) });
  }
}

/** The error code of an error reply, for short assertions. */
export function errorCode(reply: Reply): string | undefined {
  const body = reply.json as { error?: { code?: string } } | null;
  return body?.error?.code;
}
