import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReadyResponseSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase } from './db/connect.js';
import { createLogger } from './logger.js';
import { SETTLEMENT_CHECK_AFTER_MS_DEFAULT } from './payments/options.js';
import {
  DB_VARIANTS,
  errorCode,
  startApp,
  testConfig,
  type TestApp,
} from './test-support/harness.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`app shell (${variant.name})`, () => {
    let t: TestApp;
    let gatewayUp = true;
    let dist = '';
    beforeAll(async () => {
      dist = mkdtempSync(join(tmpdir(), 'paydesk-dist-'));
      mkdirSync(join(dist, 'assets'));
      writeFileSync(
        join(dist, 'index.html'),
        '<!doctype html><title>Paydesk</title><div id="root"></div>',
      );
      writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
      writeFileSync(join(dist, 'favicon.svg'), '<svg/>');
      t = await startApp(variant, {
        config: { webDistDir: dist },
        gatewayProbe: () => (gatewayUp ? Promise.resolve() : Promise.reject(new Error('down'))),
      });
    });
    afterAll(async () => {
      await t.close();
      rmSync(dist, { recursive: true, force: true });
    });

    it('when a customer returns from a hosted form, then a plain thank-you page answers, not the staff SPA', async () => {
      const res = await t.client().get('/payment-links/done');
      expect(res.status).toBe(200);
      expect(res.text).toContain('Thank you');
      expect(res.text).not.toContain('index-abc123.js');
    });

    it('when /healthz is asked, then 200 ok', async () => {
      const res = await t.client().get('/healthz');
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ status: 'ok' });
    });

    it('when the database and gateway answer, then /readyz is 200; when the gateway does not, still 200 (staff can work without it), naming it', async () => {
      expect(ReadyResponseSchema.parse((await t.client().get('/readyz')).json)).toEqual({
        status: 'ok',
        checks: { database: 'ok', gateway: 'ok' },
      });
      gatewayUp = false;
      const down = await t.client().get('/readyz');
      gatewayUp = true;
      expect(down.status).toBe(200);
      expect(ReadyResponseSchema.parse(down.json)).toMatchObject({ status: 'ok' });
      expect(ReadyResponseSchema.parse(down.json).checks).toEqual({
        database: 'ok',
        gateway: 'unavailable',
      });
    });

    it('when any page is served, then it carries the CSP (no unsafe-eval, inline styles for emotion) and security headers', async () => {
      const res = await t.client().get('/');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      // Agrees with frame-ancestors 'none' (SAMEORIGIN would contradict it).
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('when a client route is reloaded, then index.html is served uncached; hashed assets are cached for a year (and logged at debug only)', async () => {
      const page = await t.client().get('/transactions/123?tab=timeline');
      expect(page.status).toBe(200);
      expect(page.text).toContain('<div id="root">');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const asset = await t.client().get('/assets/index-abc123.js');
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(t.logs.some((l) => l.includes('/assets/index-abc123.js'))).toBe(false);
      expect(t.logs.some((l) => l.includes('/transactions/123'))).toBe(true);
      expect((await t.client().get('/assets/missing-999.js')).status).toBe(404);
      expect(t.logs.some((l) => l.includes('/assets/missing-999.js'))).toBe(true);
      expect((await t.client().get('/favicon.svg')).headers.get('cache-control')).toBe(
        'public, max-age=3600',
      );
    });

    it('when a page is asked under another loopback name of PUBLIC_ORIGIN (127.0.0.1 for localhost, same port), then 307 to PUBLIC_ORIGIN, where sign-in works; other hosts are served', async () => {
      // PUBLIC_ORIGIN is http://localhost:8080 here; the test server listens on another port
      const page = (host: string) =>
        new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
          const url = new URL(t.url);
          const req = httpRequest(
            {
              host: url.hostname,
              port: url.port,
              path: '/transactions/123?tab=timeline',
              headers: { host },
            },
            (res) => {
              res.resume();
              resolve({ status: res.statusCode ?? 0, location: res.headers.location });
            },
          );
          req.on('error', reject);
          req.end();
        });
      expect(await page('127.0.0.1:8080')).toEqual({
        status: 307,
        location: 'http://localhost:8080/transactions/123?tab=timeline',
      });
      expect(await page('[::1]:8080')).toMatchObject({ status: 307 });
      expect((await page('localhost:8080')).status).toBe(200);
      expect((await page('127.0.0.1:9999')).status).toBe(200);
      expect((await page('paydesk.internal:8080')).status).toBe(200);
    });

    it('when an unknown API path is asked, then 404 in the error envelope, never index.html', async () => {
      const res = await t.client().get('/api/nothing-here');
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe('NOT_FOUND');
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('when a known path is asked with a method it does not take, then 405 with Allow in the error envelope', async () => {
      const put = await t.client().request('PUT', '/api/transactions', {});
      expect(put.status).toBe(405);
      expect(errorCode(put)).toBe('METHOD_NOT_ALLOWED');
      expect(put.headers.get('allow')).toBe('GET, HEAD');
      const onId = await t.client().request('DELETE', `/api/transactions/${crypto.randomUUID()}`);
      expect(onId.status).toBe(405);
      expect(onId.headers.get('allow')).toBe('GET, HEAD');
      const session = await t.client().request('PATCH', '/api/session', {});
      expect(session.headers.get('allow')).toBe('DELETE, GET, HEAD, POST');
      const options = await t.client().request('OPTIONS', '/api/transactions/lookup');
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toBe('POST');
      const callback = await t.client().request('POST', '/gateway/callback?endpoint=1', 'x=1', {
        'Content-Type': 'application/x-www-form-urlencoded',
      });
      expect(callback.status).toBe(405);
      expect(errorCode(callback)).toBe('METHOD_NOT_ALLOWED');
      expect(callback.headers.get('allow')).toBe('GET, HEAD');
    });

    it('when a path nothing serves is posted to, then 404 in the error envelope, not an HTML page', async () => {
      const res = await t.client().request('POST', '/transactions', {});
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe('NOT_FOUND');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('when a GET’s path is malformed (a %-escape that is not UTF-8, a ".." the static files refuse) or a file’s conditional headers cannot hold, then 400 saying what is wrong with the path or headers, never that a body could not be read (QA)', async () => {
      /** `path` as written (node:http sends it unnormalised, as curl --path-as-is does). */
      const raw = (path: string, headers: Record<string, string> = {}) =>
        new Promise<{ status: number; json: unknown }>((resolve, reject) => {
          const url = new URL(t.url);
          const req = httpRequest({ host: url.hostname, port: url.port, path, headers }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown });
            });
          });
          req.on('error', reject);
          req.end();
        });
      const fieldsOf = (json: unknown) =>
        (json as ErrorEnvelope).error.details?.fields?.map((f) => [f.path, f.rule]);
      for (const [path, rule] of [
        ['/assets/..%2f..%2f..%2fpackage.json', 'dot_segments'],
        ['/assets/%2e%2e/%2e%2e/package.json', 'dot_segments'],
        ['/assets/%2E%2E%2fsecret', 'dot_segments'],
        ['/assets/%E0%A4%A', 'percent_encoding'],
        ['/assets/%E0%A4%A.js', 'percent_encoding'],
        ['/api/users/%E0%A4%A/reset-totp', 'percent_encoding'],
      ] as const) {
        const res = await raw(path);
        expect(res.status, path).toBe(400);
        const error = (res.json as ErrorEnvelope).error;
        expect(error.code, path).toBe('VALIDATION_FAILED');
        expect(error.message, path).toMatch(/^the path is malformed: /);
        expect(fieldsOf(res.json), path).toEqual([['(path)', rule]]);
      }
      const stale = await raw('/assets/index-abc123.js', { 'If-Match': '"another"' });
      expect([stale.status, fieldsOf(stale.json)]).toEqual([400, [['(headers)', 'precondition']]]);
      const range = await raw('/assets/index-abc123.js', { Range: 'bytes=500-600' });
      expect([range.status, fieldsOf(range.json)]).toEqual([400, [['(headers)', 'range']]]);
      // Body errors on requests that have a body keep their messages.
      const broken = await t
        .client()
        .request('POST', '/api/session', '{"email": ', { 'Content-Type': 'application/json' });
      expect(fieldsOf(broken.json)).toEqual([['(body)', 'json']]);
    });

    it('when the body is not JSON, then 400 naming the body, not 500', async () => {
      const res = await t
        .client()
        .request('POST', '/api/session', '{"email": ', { 'Content-Type': 'application/json' });
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe('VALIDATION_FAILED');
    });

    it('when the body is not sent as JSON, then 415 naming the body', async () => {
      const res = await t.client().request('POST', '/api/session', 'email=a', {
        'Content-Type': 'application/x-www-form-urlencoded',
      });
      expect(res.status).toBe(415);
      expect(errorCode(res)).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(JSON.stringify(res.json)).toContain('(body)');
    });

    it('when a client sends its own request id, then the BFF still answers with a fresh one of its own', async () => {
      const res = await t
        .client()
        .request('GET', '/api/session', undefined, { 'X-Request-Id': 'abc-123' });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect((res.json as { error: { requestId: string } }).error.requestId).toBe(id);
    });
  });
}

describe('app shell without a built SPA', () => {
  const variant = DB_VARIANTS[0]!;
  it('when web/dist does not exist, then non-API GETs get a 404 saying the SPA is not built', async () => {
    const t = await startApp(variant, {
      config: { webDistDir: join(tmpdir(), 'no-such-dist-dir') },
    });
    try {
      const res = await t.client().get('/users');
      expect(res.status).toBe(404);
      expect(res.text).toContain('not built');
    } finally {
      await t.close();
    }
  });
});

describe('payments settings', () => {
  const variant = DB_VARIANTS[0]!;
  it('when SETTLEMENT_CHECK_AFTER_MS is configured, then the settlement checks wait that long; absent, their default', async () => {
    const created = await variant.create();
    const db = await openDatabase(created.database, 1);
    try {
      const afterMs = (overrides: Partial<Config>) =>
        createApp({
          config: testConfig(created.database, overrides),
          db,
          logger: createLogger('silent'),
          gatewayProbe: () => Promise.resolve(),
        }).payments.options.settlement.afterMs;
      expect(afterMs({ settlementCheckAfterMs: 90_000 })).toBe(90_000);
      expect(afterMs({})).toBe(SETTLEMENT_CHECK_AFTER_MS_DEFAULT);
    } finally {
      await db.close();
      await created.drop();
    }
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`unexpected failures (${variant.name})`, () => {
    it('when a route fails unexpectedly, then 500 INTERNAL without internals, a failed audit row and an error log line', async () => {
      const t = await startApp(variant);
      try {
        await sql.raw('drop table sessions').execute(t.db.k);
        const res = await t.client().login('admin@paydesk.test', 'admin-password-0123');
        expect(res.status).toBe(500);
        expect(errorCode(res)).toBe('INTERNAL');
        expect(res.text).not.toMatch(/sessions|sql|stack|at .*\.js/i);
        const row = await t.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'session.login')
          .executeTakeFirstOrThrow();
        expect([row.outcome, row.error_code]).toEqual(['failed', 'INTERNAL']);
        const requestId = (res.json as { error: { requestId: string } }).error.requestId;
        expect(t.logs.some((l) => l.includes('"level":50') && l.includes(requestId))).toBe(true);
      } finally {
        await t.close();
      }
    });
  });
}

describe('requests at work, as SQLite hears of them', () => {
  it('when a second request is being served, then SQLite hears that other work waits (a commit’s sync then leaves the event loop to it), and no longer once both are answered', async () => {
    const sqlite = DB_VARIANTS.find((v) => v.name === 'sqlite');
    if (sqlite === undefined) throw new Error('no SQLite variant');
    // The gateway probe of /readyz waits until released: a request held in flight.
    let probing = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await startApp(sqlite, {
      gatewayProbe: async () => {
        probing += 1;
        await held;
      },
    });
    try {
      const database = t.db.sqlite;
      if (database === null) throw new Error('not SQLite');
      const first = t.client().get('/readyz');
      await vi.waitFor(() => {
        expect(probing).toBe(1);
      });
      expect(database.othersAtWork()).toBe(false);
      const second = t.client().get('/readyz');
      await vi.waitFor(() => {
        expect(probing).toBe(2);
      });
      expect(database.othersAtWork()).toBe(true);
      release();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      await vi.waitFor(() => {
        expect(database.othersAtWork()).toBe(false);
      });
    } finally {
      release();
      await t.close();
    }
  });
});
