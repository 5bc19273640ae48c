// A real BFF (the built @paydesk/bff: createApp over openDatabase, configured through loadConfig
// like main.ts) on SQLite or PostgreSQL, pointed at a real in-process sandbox gateway, with every
// log line of both captured and every reply recorded, so a suite can grep them for secrets.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createApp } from '@paydesk/bff/dist/app.js';
import { ManualClock } from '@paydesk/bff/dist/clock.js';
import { loadConfig, type Config } from '@paydesk/bff/dist/config.js';
import { openDatabase, type Db } from '@paydesk/bff/dist/db/connect.js';
import { createLogger } from '@paydesk/bff/dist/logger.js';
import {
  allowsTemporaryPassword,
  ROUTES,
  splitRouteKey,
  type RouteKey,
} from '@paydesk/bff/dist/http/route-table.js';
import type { Services } from '@paydesk/bff/dist/services/index.js';
import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  REQUEST_ID_HEADER,
  ROLES,
  rolesConflict,
  type Role,
} from '@paydesk/shared/api';
import { uriEncode } from './arbitraries.js';
import type { DbVariant } from './databases.js';
import { startGateway, type Gateway } from './sandbox.js';

export const CONTROL_KEY = 'HOSTILE-CONTROL-KEY-7f3a9c1e5b2d';
export const MERCHANT_LOGIN = 'hostile-merchant';
export const ADMIN = { email: 'admin@paydesk.test', password: 'hostile-admin-password-1' };
export const PUBLIC_ORIGIN = 'http://localhost:8080';
export const COOKIE = 'paydesk_session';

export interface Captured {
  /** what was asked (method and path) */
  request: string;
  status: number;
  headers: Headers;
  text: string;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  requestId: string;
}

export interface SendOptions {
  /** a JSON value (serialized, application/json) or raw text with its content type (null = none) */
  body?: { json: unknown } | { raw: string; contentType: string | null };
  headers?: [string, string][];
  /** send the SPA's CSRF headers (default true) */
  csrf?: boolean;
  /** send the session cookie (default true) */
  session?: boolean;
}

/** A client that behaves like the SPA unless told otherwise; every reply goes to `captured`. */
export class Client {
  cookie: string | undefined;
  readonly #bff: HostileBff;
  constructor(bff: HostileBff, cookie?: string) {
    this.#bff = bff;
    this.cookie = cookie;
  }

  async send(method: string, path: string, options: SendOptions = {}): Promise<Reply> {
    const headers = new Headers();
    if (options.csrf ?? true) {
      headers.set(CSRF_HEADER, CSRF_HEADER_VALUE);
      headers.set('Origin', PUBLIC_ORIGIN);
    }
    // Bytes, so that fetch adds no Content-Type of its own.
    let body: Buffer | undefined;
    if (options.body !== undefined) {
      if ('json' in options.body) {
        body = Buffer.from(jsonText(options.body.json), 'utf8');
        headers.set('Content-Type', 'application/json');
      } else {
        body = Buffer.from(options.body.raw, 'utf8');
        if (options.body.contentType !== null)
          headers.set('Content-Type', options.body.contentType);
      }
    }
    for (const [name, value] of options.headers ?? []) {
      if (name.toLowerCase() === 'content-type' || name.toLowerCase() === 'origin')
        headers.set(name, value);
      else headers.append(name, value);
    }
    if ((options.session ?? true) && this.cookie !== undefined) {
      const extra = headers.get('Cookie');
      headers.set('Cookie', `${COOKIE}=${this.cookie}${extra === null ? '' : `; ${extra}`}`);
    }
    const res = await fetch(this.#bff.url + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      if (pair.startsWith(`${COOKIE}=`)) {
        const value = pair.slice(COOKIE.length + 1);
        this.cookie = value === '' ? undefined : value;
        // A session token is a secret too: it may show in its own Set-Cookie and nowhere else.
        if (value !== '') this.#bff.secrets.push(value);
      }
    }
    let text = '';
    // A live-update stream never ends: its headers are the reply.
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
      await res.body?.cancel();
    else text = await res.text();
    this.#bff.captured.push({
      request: `${method} ${path}`,
      status: res.status,
      headers: res.headers,
      text,
    });
    let json: unknown = null;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text !== '')
      json = JSON.parse(text);
    return {
      status: res.status,
      headers: res.headers,
      text,
      json,
      requestId: res.headers.get(REQUEST_ID_HEADER) ?? '',
    };
  }

  login(email: string, password: string): Promise<Reply> {
    return this.send('POST', '/api/session', { body: { json: { email, password } } });
  }
}

/**
 * One request with its header lines exactly as given, repeats kept as separate lines (fetch would
 * merge them into one), over node:http. The reply is recorded in `captured` like any other.
 */
export function sendRaw(
  bff: HostileBff,
  method: string,
  path: string,
  lines: [string, string][],
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const host: [string, string] = ['Host', new URL(bff.url).host];
    const named = (name: string) => lines.some(([n]) => n.toLowerCase() === name);
    const all = named('host') ? [...lines] : [host, ...lines];
    // node:http sends POST and PATCH bodies chunked; for other methods a body needs its length.
    if (
      body !== undefined &&
      !['POST', 'PATCH', 'PUT'].includes(method) &&
      !named('content-length') &&
      !named('transfer-encoding')
    )
      all.push(['Content-Length', String(Buffer.byteLength(body))]);
    const req = request(`${bff.url}${path}`, { method, headers: all.flat() }, (res) => {
      const headersOf = () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          for (const v of Array.isArray(value) ? value : [value ?? '']) headers.append(name, v);
        return headers;
      };
      // An event stream (`GET /api/events`, signed in) never ends by itself: its status and
      // headers are the reply, and the stream is closed (a generated request reached it once the
      // route list grew, and the test waited for its end until it timed out).
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        const headers = headersOf();
        res.destroy();
        resolve({
          status: res.statusCode ?? 0,
          headers,
          text: '',
          json: null,
          requestId: headers.get(REQUEST_ID_HEADER) ?? '',
        });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = headersOf();
        bff.captured.push({
          request: `${method} ${path}`,
          status: res.statusCode ?? 0,
          headers,
          text,
        });
        let json: unknown = null;
        if ((headers.get('content-type') ?? '').startsWith('application/json') && text !== '')
          json = JSON.parse(text);
        resolve({
          status: res.statusCode ?? 0,
          headers,
          text,
          json,
          requestId: headers.get(REQUEST_ID_HEADER) ?? '',
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface Account {
  id: string;
  email: string;
  password: string;
  roles: Role[];
  client: Client;
}

export interface HostileBff {
  url: string;
  config: Config;
  db: Db;
  services: Services;
  clock: ManualClock;
  gateway: Gateway;
  /** every log line of the BFF */
  logs: string[];
  /** every reply any client of this BFF received */
  captured: Captured[];
  /** every secret the configuration and the accounts hold; grow it when a test makes one */
  secrets: string[];
  anonymous(): Client;
  /** a new user with these roles, signed in */
  account(roles: Role[]): Promise<Account>;
  close(): Promise<void>;
}

let accountCounter = 0;

export async function startBff(variant: DbVariant): Promise<HostileBff> {
  const gateway = await startGateway({ login: MERCHANT_LOGIN, controlKey: CONTROL_KEY });
  const database = await variant.create();
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-hostile-files-'));
  const sessionSecret = `hostile-session-secret-${randomBytes(24).toString('hex')}`;
  writeFileSync(join(dir, 'session-secret'), sessionSecret, { mode: 0o600 });
  writeFileSync(join(dir, 'merchant.pem'), gateway.privateKeyPem, { mode: 0o600 });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_ORIGIN,
    DATABASE_URL: database.url,
    SESSION_SECRET_FILE: join(dir, 'session-secret'),
    GATEWAY_BASE_URL: gateway.baseUrl,
    MERCHANT_LOGIN,
    MERCHANT_CONTROL_KEY: CONTROL_KEY,
    MERCHANT_RSA_KEY_FILE: join(dir, 'merchant.pem'),
    MERCHANT_ENDPOINTS: '1001:EUR,1002:USD',
    PAYDESK_ADMIN_EMAIL: ADMIN.email,
    PAYDESK_ADMIN_PASSWORD: ADMIN.password,
    WEB_DIST_DIR: join(dir, 'no-web-dist'),
    LOG_LEVEL: 'info',
    ARGON2_MEMORY_KIB: '64',
    ARGON2_TIME_COST: '1',
    // The fuzz runs fail many logins from one address on purpose.
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '10000',
    LOGIN_MAX_FAILURES_PER_IP: '100000',
  });
  const db = await openDatabase(config.database, 4);
  const logs: string[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(line);
    },
  });
  const clock = new ManualClock(Date.now());
  const { app, services } = createApp({
    config,
    db,
    logger,
    clock,
    gatewayProbe: () => Promise.resolve(),
    // These suites check each refusal's own audit row (that it exists and holds no secret), so
    // every refusal is audited here; the one-row-per-client-and-code window for refusals of
    // unidentified clients is tested in bff/src/http/refusal-audit.test.ts.
    refusalAudit: { windowMs: 0 },
  });
  if (config.bootstrapAdmin !== null) await services.users.bootstrapAdmin(config.bootstrapAdmin);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const bff: HostileBff = {
    url,
    config,
    db,
    services,
    clock,
    gateway,
    logs,
    captured: [],
    secrets: [
      CONTROL_KEY,
      sessionSecret,
      ADMIN.password,
      ...pemSecrets(gateway.privateKeyPem),
      ...gateway.secrets,
    ],
    anonymous: () => new Client(bff),
    account: async (roles) => {
      accountCounter += 1;
      const email = `hostile${accountCounter}-${roles.join('-') || 'none'}@paydesk.test`;
      const password = `pw-${randomBytes(9).toString('hex')}-${accountCounter}`;
      bff.secrets.push(password);
      // Its holder's own password (as after a first sign-in): a temporary one, as an admin's
      // `POST /api/users` gives, would allow nothing but changing it.
      // An account with every role (Auditor with Operations or Finance) cannot be created since
      // session 29's segregation-of-duties rule; one made before it keeps working, and the suites
      // want such an account to reach every route. So it is created without Auditor and given
      // its whole set in the database, as an account from before the rule.
      const conflict = rolesConflict(roles) !== undefined;
      const user = await services.users.create(
        {
          email,
          name: `Hostile ${accountCounter}`,
          password,
          roles: conflict ? roles.filter((role) => role !== 'auditor') : roles,
        },
        { temporaryPassword: false },
      );
      if (conflict) {
        await db.k
          .updateTable('users')
          .set({ roles: JSON.stringify(ROLES.filter((role) => roles.includes(role))) })
          .where('id', '=', user.id)
          .execute();
      }
      const client = new Client(bff);
      const res = await client.login(email, password);
      if (res.status !== 200)
        throw new Error(`login as ${email} failed: ${res.status} ${res.text}`);
      return { id: user.id, email, password, roles, client };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await db.close();
      await database.drop();
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bff;
}

/** JSON text of any value (`undefined` → `null`, as a client library would send it). */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'null';
}

/** The base64 lines of a PEM body: any one of them in a reply or log would leak key material. */
export function pemSecrets(pem: string): string[] {
  return pem
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= 40 && !l.startsWith('-----'));
}

export interface RouteInfo {
  key: RouteKey;
  method: string;
  path: string;
  access: (typeof ROUTES)[RouteKey]['access'];
  action: string;
  /** the `:name` parameters of the path */
  params: string[];
  /** a session whose password an admin chose (temporary) may call it */
  allowsTemporaryPassword: boolean;
}

export function routes(): RouteInfo[] {
  return (Object.keys(ROUTES) as RouteKey[]).map((key) => {
    const { method, path } = splitRouteKey(key);
    const rule = ROUTES[key];
    return {
      key,
      method: method.toUpperCase(),
      path,
      access: rule.access,
      action: rule.action,
      params: [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? ''),
      allowsTemporaryPassword: allowsTemporaryPassword(rule),
    };
  });
}

/** A role the route table allows, `null` for public routes, `[]`-roles user for 'authenticated'. */
export function allowedRoles(route: RouteInfo): Role[] | null {
  if (route.access === 'public') return null;
  if (route.access === 'authenticated') return ['support'];
  const [first] = route.access as readonly Role[];
  return first === undefined ? [] : [first];
}

export function isStateChanging(route: RouteInfo): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
}

/** `/api/payment-links/:id/approve` → `payment_links`: the table a path parameter names rows of. */
export function tableOfParam(route: RouteInfo, param: string): string {
  const segments = route.path.split('/');
  const at = segments.indexOf(`:${param}`);
  return (segments[at - 1] ?? '').replaceAll('-', '_');
}

/** Fills the path's parameters (each value percent-encoded as one segment). */
export function fillPath(route: RouteInfo, values: Record<string, string>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) =>
    segment(values[name] ?? 'missing'),
  );
}

/** One path segment; never empty and never a dot segment (the URL parser would remove those). */
export function segment(value: string): string {
  const encoded = uriEncode(value);
  return encoded === '' || /^(\.|%2e){1,2}$/i.test(encoded) ? `x${encoded}` : encoded;
}

// ---- database state ----------------------------------------------------------------------------

export async function tableNames(db: Db): Promise<string[]> {
  const q =
    db.kind === 'sqlite'
      ? sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
      : sql<{
          name: string;
        }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`;
  return (await q.execute(db.k)).rows.map((r) => r.name);
}

/**
 * Tables whose writes are not business state: the audit log (refusals are audited on purpose),
 * failed logins (recorded for the lockout on purpose) and idempotency keys (a refused request's
 * answer is kept for replays under the same key, on purpose).
 */
export const BOOKKEEPING_TABLES = new Set(['audit_log', 'login_failures', 'idempotency_keys']);

/** Row counts of every business table, plus the full content of users (roles, disabled). */
export async function businessState(db: Db): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of await tableNames(db)) {
    if (BOOKKEEPING_TABLES.has(name)) continue;
    const { rows } = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(name)}`.execute(db.k);
    out[name] = Number(rows[0]?.n ?? 0);
  }
  const users = await db.k
    .selectFrom('users')
    .select(['id', 'email', 'name', 'roles', 'disabled_at', 'password_hash', 'totp_secret'])
    .orderBy('id')
    .execute();
  out['users.content'] = users;
  const revoked = await db.k
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('revoked_at', 'is not', null)
    .executeTakeFirst();
  out['sessions.revoked'] = Number(revoked?.n ?? 0);
  return out;
}

export async function knownIds(db: Db, table: string): Promise<string[]> {
  if (!(await tableNames(db)).includes(table)) return [];
  const { rows } = await sql<{ id: unknown }>`select * from ${sql.table(table)} limit 5`.execute(
    db.k,
  );
  return rows
    .map((r) => (typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : ''))
    .filter((id) => id !== '');
}

/** Card reference ids Paydesk knows (`:cardRefId` parameters name these, not rows of a table). */
export async function knownCardRefs(db: Db): Promise<string[]> {
  const { rows } = await sql<{
    ref: string | null;
  }>`select distinct card_ref_id as ref from transactions where card_ref_id is not null limit 5`.execute(
    db.k,
  );
  return rows.map((r) => r.ref ?? '').filter((r) => r !== '');
}

export async function auditRowsFor(db: Db, requestId: string) {
  return db.k.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).execute();
}

export async function allAuditText(db: Db): Promise<string[]> {
  const rows = await db.k.selectFrom('audit_log').selectAll().orderBy('seq').execute();
  return rows.map((r) => JSON.stringify(r));
}
