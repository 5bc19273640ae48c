// A QA pass of the HTTP API found routes that answered unlike their neighbours: each now does as
// the rest of the API does (unknown fields and parameters refused, no body read as `{}`, inverted
// windows refused naming `to`, `:id` a UUID in any case, the Idempotency-Key's messages, a body
// that is JSON but no object). On SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL; no gateway is
// needed: every request here is answered before one would be asked.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type FieldError,
} from '@paydesk/shared/api';
import { payDb } from '../payments/db.js';
import { rowId, transactionRow, VISA_COLUMNS } from '../payments/test-support/rows.js';
import {
  ADMIN,
  DB_VARIANTS,
  errorCode,
  openEventStream,
  startApp,
  type Reply,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';
import { ROUTES, splitRouteKey, type RouteKey } from './route-table.js';

const ZERO_ID = '00000000-0000-4000-8000-000000000000';
const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);
const HOUR = 3_600_000;

const fieldsOf = (res: Reply): FieldError[] =>
  (res.json as ErrorEnvelope).error.details?.fields ?? [];
const messageOf = (res: Reply): string => (res.json as ErrorEnvelope).error.message;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`the API answers alike across routes (${variant.name})`, () => {
    let t: TestApp;
    let admin: TestClient;
    let support: TestClient;
    let finance: TestClient;
    let ops: TestClient;
    const orderId = rowId('abcdef12', 1);
    beforeAll(async () => {
      t = await startApp(variant);
      admin = t.client();
      expect((await admin.login(ADMIN.email, ADMIN.password)).status).toBe(200);
      support = await t.userWithRoles(['support']);
      finance = await t.userWithRoles(['finance']);
      ops = await t.userWithRoles(['ops']);
      await payDb(t.db)
        .insertInto('transactions')
        .values(
          transactionRow({
            id: orderId,
            orderid: '910001',
            client_orderid: 'consistency-1',
            ...VISA_COLUMNS,
            created_at: NOW - HOUR,
            updated_at: NOW - HOUR,
          }),
        )
        .execute();
    });
    afterAll(async () => {
      await t.close();
    });

    it('when an order’s refresh carries an unknown field, then 400 names it, as a payout’s and a payment link’s refresh do', async () => {
      for (const path of [
        `/api/transactions/${orderId}/refresh`,
        `/api/payouts/${ZERO_ID}/refresh`,
        `/api/payment-links/${ZERO_ID}/refresh`,
      ]) {
        const res = await support.post(path, { x: 1 });
        expect(res.status, path).toBe(400);
        expect(fieldsOf(res), path).toEqual([
          { path: 'x', rule: 'unrecognized_keys', message: 'is not a field of this request' },
        ]);
      }
    });

    it('when the users list is asked with parameters, then 400 names each (never every user), and without any it answers', async () => {
      for (const [query, fields] of [
        ['limit=5', ['query.limit']],
        ['foo=1&page=abc', ['query.foo', 'query.page']],
      ] as const) {
        const res = await admin.get(`/api/users?${query}`);
        expect(res.status, query).toBe(400);
        expect(fieldsOf(res), query).toEqual(
          fields.map((path) => ({
            path,
            rule: 'unrecognized_keys',
            message: 'is not a parameter of this request',
          })),
        );
      }
      expect((await admin.get('/api/users')).status).toBe(200);
    });

    it('when the event stream is asked with a parameter, then 400 names it and no stream opens; the bare address still streams', async () => {
      const cookie = [...support.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(`${t.url}/api/events?x=1`, {
        headers: { Accept: 'text/event-stream', Cookie: cookie },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'query.x',
          rule: 'unrecognized_keys',
          message: 'is not a parameter of this request',
        },
      ]);
      const stream = await openEventStream(t.url, support);
      expect(stream.statusCode).toBe(200);
      stream.destroy();
    });

    it('when a user action or a sign-in comes with no body at all, then 400 names the missing fields, as with `{}`', async () => {
      for (const [path, client, fields] of [
        [`/api/users/${ZERO_ID}/reset-totp`, admin, ['reason']],
        [`/api/users/${ZERO_ID}/unlock-sign-in`, admin, ['reason']],
        [`/api/users/${ZERO_ID}/reset-password`, admin, ['password', 'reason']],
        ['/api/session', t.client(), ['email', 'password']],
      ] as const) {
        const none = await client.request('POST', path, undefined);
        const empty = await client.request('POST', path, {});
        expect(none.status, path).toBe(400);
        expect(
          fieldsOf(none).map((f) => f.path),
          path,
        ).toEqual(fields);
        expect(fieldsOf(none), path).toEqual(fieldsOf(empty));
      }
      const reset = await admin.request('POST', `/api/users/${ZERO_ID}/reset-totp`, undefined);
      expect(messageOf(reset)).toBe('reason: is required to reset two-step sign-in (say why)');
    });

    it('when the audit list or export, or the statistics, are asked for a window whose `to` is not after `from`, then 400 names `to`, as the transactions list does', async () => {
      const at = (ms: number) => new Date(ms).toISOString();
      const earlier = at(NOW - 2 * HOUR);
      const later = at(NOW - HOUR);
      for (const [path, client] of [
        ['/api/transactions', support],
        ['/api/audit', admin],
        ['/api/audit/export', admin],
        ['/api/stats', support],
      ] as const) {
        const [fromName, toName] =
          path === '/api/transactions' ? ['createdFrom', 'createdTo'] : ['from', 'to'];
        // `to` is exclusive in every one of these windows: from = to holds nothing, refused too.
        for (const [from, to] of [
          [later, earlier],
          [later, later],
        ] as const) {
          const res = await client.get(`${path}?${fromName}=${from}&${toName}=${to}`);
          expect(res.status, `${path} ${from} ${to}`).toBe(400);
          expect(fieldsOf(res), path).toEqual([
            { path: `query.${toName}`, rule: 'range', message: `must be after ${fromName}` },
          ]);
        }
        const fine = await client.get(`${path}?${fromName}=${earlier}&${toName}=${later}`);
        expect(fine.status, path).toBe(200);
      }
      // Without `to` the statistics run until now: a `from` past now is refused, naming it.
      const future = await support.get(`/api/stats?from=${at(NOW + HOUR)}`);
      expect(future.status).toBe(400);
      expect(fieldsOf(future).map((f) => [f.path, f.rule])).toEqual([['query.from', 'range']]);
    });

    it('when an address’s id is a UUID in upper case, then it names the record, lower-cased', async () => {
      const read = await support.get(`/api/transactions/${orderId.toUpperCase()}`);
      expect(read.status, read.text).toBe(200);
      expect(TransactionDetailSchema.parse(read.json).id).toBe(orderId);
      const created = await support.post('/api/views', {
        screen: 'transactions',
        name: 'Approved',
        role: 'support',
        query: 'status=approved',
      });
      expect(created.status, created.text).toBe(201);
      const viewId = (created.json as { id: string }).id;
      expect((await support.delete(`/api/views/${viewId.toUpperCase()}`)).status).toBe(204);
      const user = await t.services.users.create(
        {
          email: 'upper@paydesk.test',
          name: 'Upper',
          password: 'upper-password-0123',
          roles: ['support'],
        },
        { temporaryPassword: false },
      );
      const userId = user.id;
      const renamed = await admin.patch(`/api/users/${userId.toUpperCase()}`, { name: 'Renamed' });
      expect(renamed.status, renamed.text).toBe(200);
      // Well-formed in upper case, naming nothing: 404, not a 400 for its case.
      for (const path of [
        `/api/payouts/${ZERO_ID.toUpperCase()}`,
        `/api/payment-links/${ZERO_ID.toUpperCase()}`,
        `/api/subscriptions/${ZERO_ID.toUpperCase()}`,
      ]) {
        expect((await support.get(path)).status, path).toBe(404);
      }
    });

    it('when an address’s id is not UUID-shaped (36 dashes, 36 letters), then every `:id` route answers 400 naming params.id, the id not echoed', async () => {
      /** A client whose roles the route allows, so that the id is what is judged. */
      const allowed = (key: RouteKey): TestClient => {
        const { access } = ROUTES[key];
        if (access === 'public' || access === 'authenticated') return support;
        for (const [role, client] of [
          ['support', support],
          ['finance', finance],
          ['ops', ops],
          ['admin', admin],
        ] as const) {
          if ((access as readonly string[]).includes(role)) return client;
        }
        throw new Error(`no client for ${key}`);
      };
      const keys = (Object.keys(ROUTES) as RouteKey[]).filter((key) => key.includes(':id'));
      expect(keys.length).toBeGreaterThan(15);
      for (const bad of ['-'.repeat(36), 'a'.repeat(36), `${ZERO_ID.slice(0, 35)}g`]) {
        for (const key of keys) {
          const { method, path } = splitRouteKey(key);
          const res = await allowed(key).request(
            method.toUpperCase(),
            path.replace(':id', bad),
            method === 'get' || method === 'delete' ? undefined : {},
            { 'Idempotency-Key': crypto.randomUUID() },
          );
          expect(res.status, `${key} ${bad}`).toBe(400);
          expect(
            fieldsOf(res).map((f) => f.path),
            key,
          ).toEqual(['params.id']);
          expect(res.text, key).not.toContain(bad);
        }
      }
    });

    it('when a query parameter is given twice, then every route that reads a query answers 400 saying it must be given once (rule `repeated`), not that it is missing or not one of its values, and the refusal is audited (QA)', async () => {
      const twice: [TestClient, string, string][] = [
        [support, '/api/transactions', 'status=approved&status=declined'],
        [support, '/api/transactions/export', 'status=approved&status=declined'],
        [support, '/api/subscriptions', 'limit=10&limit=20'],
        [support, '/api/stats', 'period=7d&period=30d'],
        [support, '/api/events', 'x=1&x=2'],
        [support, '/api/payouts', 'view=all&view=all'],
        [support, '/api/payment-links', 'view=all&view=all'],
        [support, '/api/cards', 'limit=10&limit=10'],
        [support, '/api/views', 'screen=transactions&screen=payouts'],
        [admin, '/api/users', 'page=1&page=2'],
        [admin, '/api/audit', 'actor=a&actor=b'],
        [admin, '/api/audit/export', 'actor=a&actor=b'],
        [admin, '/api/audit/verify', 'anchor=1:a&anchor=2:b'],
      ];
      for (const [client, path, query] of twice) {
        const name = query.split('=')[0] ?? '';
        const res = await client.get(`${path}?${query}`, { Accept: 'text/event-stream' });
        expect(res.status, path).toBe(400);
        expect(messageOf(res), path).toBe(`query.${name}: must be given once`);
        expect(fieldsOf(res), path).toEqual([
          { path: `query.${name}`, rule: 'repeated', message: 'must be given once' },
        ]);
        const row = await t.db.k
          .selectFrom('audit_log')
          .select(['outcome', 'summary'])
          .where('request_id', '=', res.headers.get('x-request-id'))
          .executeTakeFirst();
        expect(row, path).toEqual({
          outcome: 'refused',
          summary: JSON.stringify({ invalid: [`query.${name}: repeated`] }),
        });
      }
      // Each repeated one is named; given once, the same parameters answer.
      const both = await support.get('/api/transactions?status=approved&status=declined&q=a&q=b');
      expect(fieldsOf(both).map((f) => f.path)).toEqual(['query.status', 'query.q']);
      expect((await support.get('/api/transactions?status=approved&q=a')).status).toBe(200);
    });

    it('when a payout, a payment link or an order is decided or acted on without an Idempotency-Key, then 400 says why the key is needed, not that a rejection moves money', async () => {
      for (const [client, path, body] of [
        [ops, `/api/payouts/${ZERO_ID}/reject`, { reason: 'not ours' }],
        [ops, `/api/payment-links/${ZERO_ID}/reject`, { reason: 'not ours' }],
        [ops, `/api/payouts/${ZERO_ID}/approve`, {}],
        [finance, `/api/transactions/${orderId}/capture`, {}],
      ] as const) {
        const res = await client.post(path, body);
        expect(res.status, path).toBe(400);
        expect(errorCode(res), path).toBe('IDEMPOTENCY_KEY_MISSING');
        expect(messageOf(res), path).toBe(
          'this request changes something at the gateway or records a money decision, so a repeat must not act twice: send an Idempotency-Key header (a fresh UUID per intended operation)',
        );
      }
    });

    it('when the Idempotency-Key header is sent twice, then 400 asks for one header, not a key without spaces', async () => {
      const cookie = [...finance.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const url = new URL(`${t.url}/api/transactions/${orderId}/capture`);
      const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST' }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
          });
        });
        req.on('error', reject);
        req.setHeader('Content-Type', 'application/json');
        req.setHeader('Cookie', cookie);
        req.setHeader('Origin', t.config.publicOrigin);
        req.setHeader(CSRF_HEADER, CSRF_HEADER_VALUE);
        // Two header lines, as a client or a proxy that adds its own would send them.
        req.setHeader('Idempotency-Key', [crypto.randomUUID(), crypto.randomUUID()]);
        req.end('{}');
      });
      expect(reply.status, reply.body).toBe(400);
      expect((JSON.parse(reply.body) as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'header.Idempotency-Key',
          rule: 'single',
          message: 'send one Idempotency-Key header, not several',
        },
      ]);
    });

    it('when the body is JSON but not an object (null, a number, a string), then 400 says it must be a JSON object; broken JSON is still said to be not JSON', async () => {
      const path = `/api/transactions/${orderId}/refresh`;
      for (const body of ['null', '1', '"x"']) {
        const res = await support.request('POST', path, body);
        expect(res.status, body).toBe(400);
        expect(fieldsOf(res), body).toEqual([
          { path: '(body)', rule: 'object', message: 'the body must be a JSON object' },
        ]);
      }
      const broken = await support.request('POST', path, '{"x":');
      expect(fieldsOf(broken)).toEqual([
        { path: '(body)', rule: 'json', message: 'the body is not valid JSON' },
      ]);
    });
  });
}
