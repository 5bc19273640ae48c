// Two BFF processes on one PostgreSQL database, behind a round-robin proxy, against one sandbox
// process: concurrent returns, captures and payout approvals on the same orders at both
// instances. Caps hold (checked against the sandbox's own totals), an Idempotency-Key runs once
// across instances, reconcile jobs and payout status checks are leased to one instance at a
// time, the audit chain stays whole, a session works on both, and live updates cross instances.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AuditVerifyResponseSchema,
  IDEMPOTENT_REPLAYED_HEADER,
  OperationResultSchema,
  PayoutResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type Role,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { openEvents, Staff, type EventStream, type Reply } from './support/client.js';
import { DEMO, DEMO_KEY_FILE, gatewayOps, Shop } from './support/orders.js';
import {
  createDatabase,
  PG_URL,
  startBff,
  startSandbox,
  type Database,
  type Process,
} from './support/processes.js';
import {
  startRecorder,
  startRoundRobin,
  type GatewayRequest,
  type Recorder,
  type RoundRobin,
} from './support/proxies.js';

const ADMIN = { email: 'admin@scale-out.test', password: 'scale-out-admin-password' };
const PEOPLE: Record<string, Role[]> = {
  fin1: ['finance'],
  fin2: ['finance'],
  ops1: ['ops'],
  ops2: ['ops'],
  ops3: ['ops'],
  support: ['support'],
  auditor: ['auditor'],
};
const CARD = {
  kind: 'card',
  cardNumber: '4111111111111111',
  cardholderName: 'Jane Payee',
  expiryMonth: '12',
  expiryYear: '2035',
} as const;
const UNSETTLED = ['sending', 'processing', 'unknown'];

const minor = (v: string | number) => Number(v);
const cents = (money: string) => Math.round(Number(money) * 100);
const errorCode = (r: Reply) => (r.json as Partial<ErrorEnvelope> | null)?.error?.code;

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

describe.skipIf(PG_URL === '')(
  'scale-out: two BFF instances on one PostgreSQL database (needs PAYDESK_TEST_PG_URL)',
  () => {
    let db: Database;
    let lb: RoundRobin;
    let shop: Shop;
    /** what afterAll undoes, newest first: processes, proxies, the database, the temp folder */
    const cleanups: (() => Promise<void> | void)[] = [];
    const recorders: Recorder[] = [];
    const gatewayLog: GatewayRequest[] = [];
    const instances: Process[] = [];
    const streams: EventStream[] = [];
    const staff: Record<string, Staff> = {};
    let A = '';
    let B = '';

    beforeAll(async () => {
      db = await createDatabase();
      cleanups.push(() => db.drop());
      const dir = mkdtempSync(join(tmpdir(), 'paydesk-scaleout-'));
      cleanups.push(() => {
        rmSync(dir, { recursive: true, force: true });
      });
      const secretFile = join(dir, 'session-secret');
      writeFileSync(secretFile, randomBytes(48), { mode: 0o600 });
      const controlKeyFile = join(dir, 'control-key');
      writeFileSync(controlKeyFile, DEMO.controlKey, { mode: 0o600 });
      const sandbox = await startSandbox();
      cleanups.push(() => sandbox.stop());
      lb = await startRoundRobin();
      cleanups.push(() => lb.close());
      shop = new Shop(sandbox.origin, `${lb.origin}/gateway/callback?endpoint=1001`);
      for (const name of ['A', 'B']) {
        const recorder = await startRecorder(name, sandbox.origin, gatewayLog);
        cleanups.push(() => recorder.close());
        recorders.push(recorder);
      }
      // Everything an instance needs that must be the same on all of them.
      const shared = {
        DATABASE_URL: db.url,
        PUBLIC_ORIGIN: lb.origin,
        SESSION_SECRET_FILE: secretFile,
        MERCHANT_LOGIN: DEMO.login,
        MERCHANT_CONTROL_KEY_FILE: controlKeyFile,
        MERCHANT_RSA_KEY_FILE: DEMO_KEY_FILE,
        MERCHANT_ENDPOINTS: '1001:EUR,1002:USD,group:2001',
        PAYDESK_ADMIN_EMAIL: ADMIN.email,
        PAYDESK_ADMIN_PASSWORD: ADMIN.password,
        WEB_DIST_DIR: dir,
        ARGON2_MEMORY_KIB: '64',
        ARGON2_TIME_COST: '1',
        GATEWAY_TIMEOUT_MS: '5000',
        RECONCILE_POLL_INTERVAL_MS: '100',
        RECONCILE_FAST_MIN_MS: '200',
        RECONCILE_FAST_MAX_MS: '400',
        LOG_LEVEL: 'info',
      };
      // Both start at once on the empty database: migrations and the first admin race.
      instances.push(
        ...(await Promise.all(
          ['A', 'B'].map((name, i) =>
            startBff(name, { ...shared, GATEWAY_BASE_URL: recorders[i]?.baseUrl ?? '' }),
          ),
        )),
      );
      cleanups.push(() => Promise.all(instances.map((p) => p.stop())).then(() => undefined));
      A = instances[0]?.origin ?? '';
      B = instances[1]?.origin ?? '';
      lb.targets.push(A, B);
      for (const origin of [A, B]) {
        await vi.waitFor(
          async () => {
            expect((await fetch(`${origin}/readyz`)).status).toBe(200);
          },
          { timeout: 10_000, interval: 100 },
        );
      }
      // Users are created once, through the load balancer.
      const admin = new Staff(ADMIN.email, ADMIN.password, lb.origin);
      await admin.signIn(lb.origin);
      for (const [name, roles] of Object.entries(PEOPLE)) {
        const person = new Staff(`${name}@scale-out.test`, `pw-own-${randomUUID()}`, lb.origin);
        // A one-time password, then the person sets their own: four-eyes counts an account whose
        // password the admin chose as the admin's, so such ops users could not approve each other.
        const oneTime = new Staff(person.email, `pw-once-${randomUUID()}`, lb.origin);
        const res = await admin.send(lb.origin, 'POST', '/api/users', {
          email: person.email,
          name,
          password: oneTime.password,
          roles,
          // Required when the roles include Finance or Operations.
          reason: 'Scale-out test account',
        });
        expect(res.status, res.text).toBe(201);
        await oneTime.signIn(lb.origin);
        const own = await oneTime.send(lb.origin, 'POST', '/api/session/password', {
          currentPassword: oneTime.password,
          newPassword: person.password,
        });
        expect(own.status, own.text).toBe(200);
        await person.signIn(lb.origin);
        staff[name] = person;
      }
    });

    afterAll(async () => {
      for (const s of streams) s.close();
      for (const undo of cleanups.reverse()) await undo();
    });

    const who = (name: string): Staff => {
      const s = staff[name];
      if (s === undefined) throw new Error(`no ${name}`);
      return s;
    };

    /** Places orders and has the BFF learn each (looked up at both instances at once). */
    const learn = async (kind: 'sale' | 'preauth', count: number, amount = '100.00') => {
      const placed = await Promise.all(
        Array.from({ length: count }, () => shop.place(kind, amount)),
      );
      const details: TransactionDetail[] = [];
      for (const body of placed) {
        await vi.waitFor(
          async () => {
            expect((await shop.order(body.orderid)).replyStatus).toBe('approved');
          },
          { timeout: 10_000, interval: 50 },
        );
        const replies = await Promise.all(
          [A, B].map((base) => who('fin1').send(base, 'POST', '/api/transactions/lookup', body)),
        );
        for (const r of replies) expect(r.status, r.text).toBe(200);
        const [first, second] = replies.map((r) => TransactionDetailSchema.parse(r.json));
        expect(second?.id).toBe(first?.id);
        if (first === undefined) throw new Error('no lookup');
        details.push(first);
      }
      return details;
    };

    const prepare = async (amount: string, base = lb.origin) => {
      const res = await who('ops1').send(
        base,
        'POST',
        '/api/payouts',
        { destination: CARD, amount, currency: 'EUR', orderDesc: 'Scale-out payout' },
        randomUUID(),
      );
      expect(res.status, res.text).toBe(200);
      const payout = PayoutResultSchema.parse(res.json).payout;
      expect(payout.state).toBe('pending_approval');
      return payout;
    };

    const returnBody = (amount: string) => ({
      amount,
      reasonCode: 'customer_request',
      comment: 'scale-out',
    });

    /** Waits until the sandbox has no operation of the order still processing. */
    const settled = async (orderid: string) => {
      let order = await shop.order(orderid);
      await vi.waitFor(
        async () => {
          order = await shop.order(orderid);
          expect(order.operations.filter((o) => o.status === 'processing')).toEqual([]);
        },
        { timeout: 10_000, interval: 50 },
      );
      return order;
    };

    it('when staff sign in through one instance, then the same cookie works on the other, and signing out on one ends it on both', async () => {
      const agent = new Staff(who('support').email, who('support').password, lb.origin);
      await agent.signIn(A);
      const onB = await agent.send(B, 'GET', '/api/session');
      expect(onB.status, onB.text).toBe(200);
      expect(JSON.stringify(onB.json)).toContain(agent.email);
      // A state-changing request too (the CSRF origin is the shared PUBLIC_ORIGIN): sign out on B.
      const cookie = agent.cookie;
      expect((await agent.send(B, 'DELETE', '/api/session')).status).toBe(204);
      agent.cookie = cookie;
      expect((await agent.send(A, 'GET', '/api/session')).status).toBe(401);
    });

    it('when a screen is connected to instance B, then it receives the transaction and payout changes made through instance A', async () => {
      // Only A can cause these changes: callbacks are held back (the gateway retries them later),
      // the order is looked up at A alone, and the payout is held (single mode: nothing is sent).
      lb.refuseCallbacks = true;
      try {
        const stream = await openEvents(B, who('support'));
        streams.push(stream);
        const placed = await shop.place('sale', '30.00');
        await vi.waitFor(
          async () => {
            expect((await shop.order(placed.orderid)).replyStatus).toBe('approved');
          },
          { timeout: 10_000, interval: 50 },
        );
        const looked = await who('fin1').send(A, 'POST', '/api/transactions/lookup', placed);
        expect(looked.status, looked.text).toBe(200);
        const transaction = TransactionDetailSchema.parse(looked.json);
        await vi.waitFor(
          () => {
            expect(stream.events.map((e) => [e.name, e.event])).toContainEqual([
              'transaction',
              expect.objectContaining({
                type: 'transaction.created',
                transactionId: transaction.id,
                status: 'approved',
              }),
            ]);
          },
          { timeout: 10_000, interval: 20 },
        );

        const prepared = await who('ops1').send(
          A,
          'POST',
          '/api/payouts',
          {
            destination: CARD,
            amount: '5.00',
            currency: 'EUR',
            orderDesc: 'Held payout',
            mode: 'single',
          },
          randomUUID(),
        );
        expect(prepared.status, prepared.text).toBe(200);
        const payout = PayoutResultSchema.parse(prepared.json).payout;
        const rejected = await who('ops2').send(
          A,
          'POST',
          `/api/payouts/${payout.id}/reject`,
          { reason: 'scale-out check' },
          randomUUID(),
        );
        expect(rejected.status, rejected.text).toBe(200);
        await vi.waitFor(
          () => {
            const seen = stream.events.flatMap(({ name, event }) =>
              name === 'payout' &&
              (event.type === 'payout.created' || event.type === 'payout.updated') &&
              event.payoutId === payout.id
                ? [`${event.type} ${event.state}`]
                : [],
            );
            expect(seen).toEqual(['payout.created pending_approval', 'payout.updated rejected']);
          },
          { timeout: 10_000, interval: 20 },
        );
      } finally {
        lb.refuseCallbacks = false;
      }
    });

    it('when captures, returns and payout approvals for the same orders hit both instances at once, then no cap is exceeded at the gateway and each payout is paid once', async () => {
      const preauths = await learn('preauth', 3);
      const sales = await learn('sale', 3);
      const payouts = await Promise.all([prepare('11.00'), prepare('12.00'), prepare('13.00')]);
      const targets = [A, B];
      const fire = (i: number, name: string, path: string, body: unknown) =>
        who(name).send(targets[i % 2] ?? A, 'POST', path, body, randomUUID());
      const captureAmounts = ['40.00', '100.00', '70.00', '100.00'];
      const jobs: { kind: string; key: string; reply: Promise<Reply> }[] = [];
      for (const t of preauths)
        captureAmounts.forEach((amount, i) => {
          jobs.push({
            kind: 'capture',
            key: t.orderid,
            reply: fire(i, i % 2 ? 'fin2' : 'fin1', `/api/transactions/${t.id}/capture`, {
              amount,
            }),
          });
        });
      for (const t of sales)
        for (let i = 0; i < 5; i += 1)
          jobs.push({
            kind: 'return',
            key: t.orderid,
            reply: fire(
              i,
              i % 2 ? 'fin2' : 'fin1',
              `/api/transactions/${t.id}/return`,
              returnBody('30.00'),
            ),
          });
      for (const p of payouts)
        for (let i = 0; i < 4; i += 1)
          jobs.push({
            kind: 'approve',
            key: p.id,
            reply: fire(i, i < 2 ? 'ops2' : 'ops3', `/api/payouts/${p.id}/approve`, {}),
          });
      const replies = await Promise.all(jobs.map(async (j) => ({ ...j, res: await j.reply })));
      for (const { res } of replies) {
        expect([200, 409], res.text).toContain(res.status);
      }
      const accepted = (kind: string, key: string) =>
        replies.filter((r) => r.kind === kind && r.key === key && r.res.status === 200);

      // The instances decided the caps between them: no over-cap request even reached the gateway.
      const sentToGateway = (operation: string, orderid: string) =>
        gatewayLog.filter(
          (r) => r.path.startsWith(`/api/v2/${operation}/`) && r.fields.get('orderid') === orderid,
        ).length;
      for (const t of preauths) {
        expect(accepted('capture', t.orderid)).toHaveLength(1);
        expect(sentToGateway('capture', t.orderid)).toBe(1);
        const order = await settled(t.orderid);
        expect(gatewayOps(order, 'capture')).toHaveLength(1);
        expect(minor(order.capturedMinor)).toBeLessThanOrEqual(minor(order.authorizedMinor));
        const op = OperationResultSchema.parse(
          accepted('capture', t.orderid)[0]?.res.json,
        ).operation;
        expect(minor(order.capturedMinor)).toBe(cents(op.amount ?? '0'));
      }
      for (const t of sales) {
        const ok = accepted('return', t.orderid).length;
        expect(ok).toBeGreaterThan(0);
        expect(ok).toBeLessThanOrEqual(3);
        expect(sentToGateway('return', t.orderid)).toBe(ok);
        const order = await settled(t.orderid);
        expect(gatewayOps(order, 'return')).toHaveLength(ok);
        expect(minor(order.returnedMinor)).toBe(ok * 3000);
        expect(minor(order.returnedMinor)).toBeLessThanOrEqual(minor(order.amountMinor));
      }
      for (const p of payouts) {
        expect(accepted('approve', p.id)).toHaveLength(1);
        const refusals = replies.filter((r) => r.key === p.id && r.res.status !== 200);
        for (const r of refusals) expect(errorCode(r.res)).toBe('INVALID_STATE');
        const row = await db.client.query<{ orderid: string }>(
          'select orderid from payouts where id = $1',
          [p.id],
        );
        const order = await settled(row.rows[0]?.orderid ?? '');
        expect(gatewayOps(order, 'payout-pay')).toHaveLength(1);
      }

      // Both instances show the gateway's totals once the outcomes are in (callbacks, reconciler).
      for (const t of [...preauths, ...sales]) {
        const order = await shop.order(t.orderid);
        for (const base of [A, B]) {
          await vi.waitFor(
            async () => {
              const res = await who('support').send(base, 'GET', `/api/transactions/${t.id}`);
              const { amounts } = TransactionDetailSchema.parse(res.json);
              expect(cents(amounts.captured)).toBe(minor(order.capturedMinor));
              expect(cents(amounts.returned)).toBe(minor(order.returnedMinor));
              expect(cents(amounts.reserved)).toBe(0);
            },
            { timeout: 15_000, interval: 100 },
          );
        }
      }
    });

    it('when one Idempotency-Key and body reach both instances at once, then the gateway sees one operation and both replies are that one', async () => {
      const sales = await learn('sale', 2);
      const preauths = await learn('preauth', 2);
      const payouts = await Promise.all([prepare('21.00'), prepare('22.00')]);
      const cases: { name: string; path: string; body: unknown; orderid: string; op: string }[] = [
        ...sales.map((t) => ({
          name: 'fin1',
          path: `/api/transactions/${t.id}/return`,
          body: returnBody('10.00'),
          orderid: t.orderid,
          op: 'return',
        })),
        ...preauths.map((t) => ({
          name: 'fin2',
          path: `/api/transactions/${t.id}/capture`,
          body: { amount: '50.00' },
          orderid: t.orderid,
          op: 'capture',
        })),
        ...payouts.map((p) => ({
          name: 'ops2',
          path: `/api/payouts/${p.id}/approve`,
          body: {},
          orderid: p.id,
          op: 'payout-pay',
        })),
      ];
      const results = await Promise.all(
        cases.map(async (c) => {
          const key = randomUUID();
          const both = await Promise.all(
            [A, B].map((base) => who(c.name).send(base, 'POST', c.path, c.body, key)),
          );
          return { ...c, key, both };
        }),
      );
      const outcomes = results.map(({ both }) =>
        both.some((r) => r.status === 409) ? 'in-flight' : 'replayed',
      );
      console.info(
        `scale-out: same key at both instances: ${outcomes.filter((o) => o === 'in-flight').length} answered 409 in flight, ${outcomes.filter((o) => o === 'replayed').length} the stored reply`,
      );
      for (const { both, name, path, body, key, op, orderid } of results) {
        const executed = both.filter(
          (r) => r.status === 200 && r.headers.get(IDEMPOTENT_REPLAYED_HEADER) !== 'true',
        );
        expect(
          executed,
          `${path}: ${both.map((r) => `${r.status} ${errorCode(r) ?? r.headers.get(IDEMPOTENT_REPLAYED_HEADER) ?? ''}`).join(', ')}`,
        ).toHaveLength(1);
        for (const other of both.filter((r) => !executed.includes(r))) {
          if (other.status === 200) expect(other.json).toEqual(executed[0]?.json);
          else expect(errorCode(other)).toBe('IDEMPOTENCY_IN_FLIGHT');
        }
        // Asked again on either instance: the stored reply.
        for (const base of [A, B]) {
          const again = await who(name).send(base, 'POST', path, body, key);
          expect(again.status).toBe(200);
          expect(again.headers.get(IDEMPOTENT_REPLAYED_HEADER)).toBe('true');
          expect(again.json).toEqual(executed[0]?.json);
        }
        let gatewayOrder = orderid;
        if (op === 'payout-pay') {
          const row = await db.client.query<{ orderid: string }>(
            'select orderid from payouts where id = $1',
            [orderid],
          );
          gatewayOrder = row.rows[0]?.orderid ?? '';
        }
        expect(gatewayOps(await settled(gatewayOrder), op)).toHaveLength(1);
      }
    });

    it('when replies are lost at the gateway, then both instances reconcile, each order is checked by one instance at a time, and every unknown is settled once', async () => {
      // Earlier work first: nothing left to reconcile.
      await vi.waitFor(
        async () => {
          const jobs = await db.client.query('select 1 from reconcile_jobs');
          expect(jobs.rowCount).toBe(0);
        },
        { timeout: 15_000, interval: 100 },
      );
      const sales = await learn('sale', 4);
      const preauths = await learn('preauth', 4);
      const payouts = await Promise.all([prepare('31.00'), prepare('32.00')]);
      // Callbacks never arrive while this runs: only the reconcilers and the pollers learn outcomes.
      lb.refuseCallbacks = true;
      await shop.faults({ dropResponseRate: 1, operations: ['capture', 'return', 'payout-pay'] });
      const since = performance.now();
      const sent = await Promise.all([
        ...sales.map((t, i) =>
          who('fin1').send(
            i % 2 ? B : A,
            'POST',
            `/api/transactions/${t.id}/return`,
            returnBody('20.00'),
            randomUUID(),
          ),
        ),
        ...preauths.map((t, i) =>
          who('fin2').send(
            i % 2 ? A : B,
            'POST',
            `/api/transactions/${t.id}/capture`,
            { amount: '60.00' },
            randomUUID(),
          ),
        ),
        ...payouts.map((p, i) =>
          who('ops3').send(i % 2 ? A : B, 'POST', `/api/payouts/${p.id}/approve`, {}, randomUUID()),
        ),
      ]);
      // Each status check now takes a while: two instances holding one job at once would overlap.
      await shop.faults({ latencyMs: 250, operations: ['status'] });
      const operationIds: string[] = [];
      for (const res of sent.slice(0, sales.length + preauths.length)) {
        expect(res.status, res.text).toBe(200);
        const { operation } = OperationResultSchema.parse(res.json);
        expect(operation.state).toBe('unknown');
        operationIds.push(operation.id);
      }
      for (const res of sent.slice(sales.length + preauths.length)) {
        expect(res.status, res.text).toBe(200);
        expect(PayoutResultSchema.parse(res.json).payout.state).toBe('unknown');
      }

      await vi.waitFor(
        async () => {
          const ops = await db.client.query<{ state: string }>(
            'select state from transaction_operations where id = any($1)',
            [operationIds],
          );
          expect(ops.rows.map((r) => r.state).filter((s) => UNSETTLED.includes(s))).toEqual([]);
          const pays = await db.client.query<{ state: string }>(
            'select state from payouts where id = any($1)',
            [payouts.map((p) => p.id)],
          );
          expect(pays.rows.map((r) => r.state)).toEqual(['approved', 'approved']);
        },
        { timeout: 30_000, interval: 100 },
      );
      lb.refuseCallbacks = false;
      await shop.faults({});

      const ops = await db.client.query<{ id: string; state: string }>(
        'select id, state from transaction_operations where id = any($1)',
        [operationIds],
      );
      expect(ops.rows.map((r) => r.state)).toEqual(operationIds.map(() => 'approved'));
      // Each lost operation settled exactly once (one audit row each, whoever reconciled it).
      const audits = await db.client.query<{ summary: string }>(
        "select summary from audit_log where action = 'transaction.reconcile'",
      );
      const findings = audits.rows
        .map((r) => JSON.parse(r.summary) as { operationId?: string; finding?: string })
        .filter((s) => s.operationId !== undefined && operationIds.includes(s.operationId));
      expect(findings.map((f) => f.operationId).sort()).toEqual([...operationIds].sort());
      expect(new Set(findings.map((f) => f.finding))).toEqual(new Set(['applied']));
      const payoutAudits = await db.client.query<{ target: string }>(
        "select target from audit_log where action = 'payout.reconciled' and target = any($1)",
        [payouts.map((p) => `payout:${p.id}`)],
      );
      expect(payoutAudits.rows.map((r) => r.target).sort()).toEqual(
        payouts.map((p) => `payout:${p.id}`).sort(),
      );

      // The gateway saw each lost operation once, and each order's status checks from one
      // instance never overlapped another instance's (one lease holder at a time).
      const payoutOrders = await db.client.query<{ orderid: string; client_orderid: string }>(
        'select orderid, client_orderid from payouts where id = any($1)',
        [payouts.map((p) => p.id)],
      );
      for (const t of sales) expect(gatewayOps(await settled(t.orderid), 'return')).toHaveLength(1);
      for (const t of preauths)
        expect(gatewayOps(await settled(t.orderid), 'capture')).toHaveLength(1);
      for (const p of payoutOrders.rows)
        expect(gatewayOps(await settled(p.orderid), 'payout-pay')).toHaveLength(1);
      const watched = new Set([
        ...sales.map((t) => t.clientOrderId),
        ...preauths.map((t) => t.clientOrderId),
        ...payoutOrders.rows.map((p) => p.client_orderid),
      ]);
      const checks = gatewayLog.filter(
        (r) =>
          r.start >= since &&
          r.path.startsWith('/api/v2/status/') &&
          watched.has(r.fields.get('client_orderid') ?? ''),
      );
      const byOrder = groupBy(checks, (r) => r.fields.get('client_orderid') ?? '');
      expect(byOrder.size).toBe(watched.size);
      for (const [order, list] of byOrder) {
        for (const x of list)
          for (const y of list) {
            if (x.instance === y.instance) continue;
            const overlap = x.start < y.end && y.start < x.end;
            expect(overlap, `status checks of ${order} by A and B overlapped`).toBe(false);
          }
      }
      const perInstance = groupBy(checks, (r) => r.instance);
      console.info(
        `scale-out: status checks while reconciling: ${[...perInstance].map(([k, v]) => `${k}=${v.length}`).join(', ')}`,
      );
    });

    it('when both instances have written concurrently, then the audit chain verifies, its sequence has no gaps, and both instances served requests', async () => {
      const res = await who('auditor').send(lb.origin, 'GET', '/api/audit/verify');
      expect(res.status, res.text).toBe(200);
      const verify = AuditVerifyResponseSchema.parse(res.json);
      const seqs = await db.client.query<{ seq: string }>('select seq from audit_log order by seq');
      const numbers = seqs.rows.map((r) => Number(r.seq));
      expect(verify).toMatchObject({ ok: true, firstBrokenSeq: null, reason: null });
      // Rows may have been appended since (callbacks let through again): verify saw a prefix.
      expect(verify.rowsChecked).toBe(verify.verifiedUpToSeq);
      expect(verify.rowsChecked).toBeGreaterThan(100);
      expect(verify.rowsChecked).toBeLessThanOrEqual(numbers.length);
      expect(numbers[0]).toBe(1);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
      expect(lb.served.get(A) ?? 0).toBeGreaterThan(10);
      expect(lb.served.get(B) ?? 0).toBeGreaterThan(10);
    });
  },
);
