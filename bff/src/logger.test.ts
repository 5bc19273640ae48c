import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from './app.js';
import { openDatabase } from './db/connect.js';
import { createLogger, logAuditHead } from './logger.js';
import { DB_VARIANTS, startApp, testConfig, type TestApp } from './test-support/harness.js';

type Line = Record<string, unknown> & { level: number; msg: string };

const parse = (lines: readonly string[]): Line[] => lines.map((l) => JSON.parse(l) as Line);

/** The lines about one request: the request logger's (`req.id`) and any naming its id. */
const linesOf = (lines: readonly string[], requestId: string): Line[] =>
  parse(lines).filter(
    (l) => (l.req as { id?: unknown } | undefined)?.id === requestId || l.requestId === requestId,
  );

const requestIdOf = (json: unknown): string =>
  (json as { error: { requestId: string } }).error.requestId;

describe('instance id', () => {
  it('when the logger is made with the instance id, then every line carries it (its own, a child’s, the request logger’s) and the job leases of payments and payouts hold the same id', async () => {
    const created = await DB_VARIANTS[0]!.create();
    const db = await openDatabase(created.database, 1);
    const lines: string[] = [];
    const instanceId = 'instance-under-test';
    const logger = createLogger('info', { write: (l: string) => lines.push(l) }, instanceId);
    const server = createServer();
    try {
      const { app, payments, payouts } = createApp({
        config: testConfig(created.database),
        db,
        logger,
        instanceId,
        gatewayProbe: () => Promise.resolve(),
      });
      expect(payments.options.instanceId).toBe(instanceId);
      expect(payouts.options.instanceId).toBe(instanceId);
      server.on('request', app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      logger.child({ component: 'test' }).warn('a child line');
      await vi.waitFor(() => {
        expect(parse(lines).some((l) => l.msg === 'request completed')).toBe(true);
      });
      expect(parse(lines).map((l) => [l.msg, l.instanceId])).toEqual(
        expect.arrayContaining([
          ['a child line', instanceId],
          ['request completed', instanceId],
        ]),
      );
      expect(parse(lines).filter((l) => l.instanceId !== instanceId)).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await db.close();
      await created.drop();
    }
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `failed requests and the audit head in the log (${variant.name})`,
    () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await startApp(variant);
      });
      afterAll(async () => {
        await t.close();
      });

      it('when a route answers 503 (the gateway unreachable), then one line at warn says so, with the request id and the cause', async () => {
        const support = await t.userWithRoles(['support']);
        const res = await support.post('/api/transactions/lookup', { client_orderid: 'shop-1' });
        expect(res.status).toBe(503);
        const requestId = requestIdOf(res.json);
        await vi.waitFor(() => {
          expect(linesOf(t.logs, requestId).length).toBeGreaterThan(0);
        });
        expect(linesOf(t.logs, requestId)).toEqual([
          expect.objectContaining({
            level: 40,
            res: { statusCode: 503 },
            errorCode: 'GATEWAY_UNAVAILABLE',
            cause: expect.stringContaining('did not answer the status request') as unknown,
          }),
        ]);
        expect(linesOf(t.logs, requestId)[0]).not.toHaveProperty('err');
      });

      it('when /readyz finds the database unavailable, then its 503 is one line at warn naming the database', async () => {
        const db = t.db;
        const ping = db.ping.bind(db);
        db.ping = () => Promise.reject(new Error('connection refused'));
        try {
          const before = t.logs.length;
          const res = await t.client().get('/readyz');
          expect(res.status).toBe(503);
          const readyz = () =>
            parse(t.logs.slice(before)).filter(
              (l) => (l.req as { url?: unknown } | undefined)?.url === '/readyz',
            );
          await vi.waitFor(() => {
            expect(readyz().length).toBeGreaterThan(0);
          });
          expect(readyz()).toEqual([
            expect.objectContaining({
              level: 40,
              errorCode: 'SERVICE_UNAVAILABLE',
              cause: 'database unavailable',
            }),
          ]);
        } finally {
          db.ping = ping;
        }
      });

      it('when a route fails unexpectedly (500), then one line at error carries the error with its stack', async () => {
        await sql.raw('create table sessions_kept as select * from sessions').execute(t.db.k);
        await sql.raw('drop table sessions').execute(t.db.k);
        try {
          const res = await t.client().login('admin@paydesk.test', 'admin-password-0123');
          expect(res.status).toBe(500);
          const requestId = requestIdOf(res.json);
          await vi.waitFor(() => {
            expect(linesOf(t.logs, requestId).length).toBeGreaterThan(0);
          });
          const lines = linesOf(t.logs, requestId);
          expect(lines).toEqual([expect.objectContaining({ level: 50, errorCode: 'INTERNAL' })]);
          expect((lines[0]?.err as { stack?: string } | undefined)?.stack).toMatch(/sessions/);
        } finally {
          await sql.raw('create table sessions as select * from sessions_kept').execute(t.db.k);
        }
      });

      it('when the audit head is logged at start, then one info line names the last row’s seq and hash as an anchor', async () => {
        await t.services.audit.append({
          actorId: null,
          actorEmail: null,
          actorRoles: [],
          action: 'test.head',
          target: null,
          summary: {},
          outcome: 'success',
          errorCode: null,
          requestId: null,
          ip: null,
          userAgent: null,
        });
        const last = await t.db.k
          .selectFrom('audit_log')
          .select(['seq', 'hash'])
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirstOrThrow();
        const lines: string[] = [];
        await logAuditHead(
          t.services.audit,
          createLogger('info', { write: (l: string) => lines.push(l) }),
        );
        expect(parse(lines)).toEqual([
          expect.objectContaining({
            level: 30,
            msg: 'audit chain head',
            head: { seq: last.seq, hash: last.hash },
            anchor: `${String(last.seq)}:${last.hash}`,
          }),
        ]);
      });
    },
  );
}
