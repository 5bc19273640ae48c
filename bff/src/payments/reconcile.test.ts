// Lost replies, 5xx, drift and the reconciler's leases, against the real sandbox process.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  TransactionDetailSchema,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { payDb } from './db.js';
import { createPayments } from './index.js';
import { nextReconcileDelay, resolveOptions } from './options.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

describe('reconcile schedule', () => {
  it('when the schedule is asked for delays, then 3–5 s for five minutes, 5–10 min up to an hour, then none', () => {
    const t = resolveOptions().reconcile;
    for (const r of [0, 0.5, 0.999]) {
      const fast = nextReconcileDelay(t, 0, 60_000, () => r);
      expect(fast).toBeGreaterThanOrEqual(3_000);
      expect(fast).toBeLessThanOrEqual(5_000);
      const slow = nextReconcileDelay(t, 0, 6 * 60_000, () => r);
      expect(slow).toBeGreaterThanOrEqual(300_000);
      expect(slow).toBeLessThanOrEqual(600_000);
    }
    expect(nextReconcileDelay(t, 0, 60 * 60_000, () => 0.5)).toBeNull();
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments reconciliation (${variant.name})`, () => {
    let f: Fixture;
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
    const reconcileAfter = async (ms: number) => {
      f.bff.clock.advance(ms);
      return f.bff.payments.reconciler.runOnce();
    };
    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    it('when the reply to a return is dropped, then it is unknown with the amount reserved, and the reconciler finds it applied without sending it again', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '60.00');
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['return'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '20.00',
        reasonCode: 'other',
        comment: 'lost reply',
      });
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({ state: 'unknown', gatewaySerial: null });
      expect(result.transaction.amounts).toMatchObject({
        reserved: '20.00',
        remainingReturnable: '40.00',
      });
      expect(result.message).toContain('will not send it again');
      await f.sandbox.faults({});
      const over = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '40.01',
        reasonCode: 'other',
        comment: 'over',
      });
      expect(errorCode(over)).toBe('CAP_EXCEEDED');

      expect(await reconcileAfter(5_000)).toBeGreaterThanOrEqual(1);
      const after = await detail(tx.id);
      const op = after.operations.find((o) => o.id === result.operation.id);
      expect(op?.state).toBe('processing');
      expect(op?.gatewaySerial).not.toBeNull();
      expect(after.amounts).toMatchObject({
        returned: '20.00',
        reserved: '0.00',
        remainingReturnable: '40.00',
      });
      expect(after.timeline.some((e) => e.title.includes('found at the gateway'))).toBe(true);
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.operations.filter((o) => o.type === 'return')).toHaveLength(1);
      expect(atGateway.returnedMinor).toBe('2000');
      const found = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile')
        .where('target', '=', `transaction:${tx.id}`)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(found.summary)).toMatchObject({
        finding: 'applied',
        operation: 'return',
        amount: '20.00',
      });

      await f.sandbox.advance(61);
      expect(
        (await detail(tx.id)).operations.find((o) => o.id === result.operation.id)?.state,
      ).toBe('approved');
      await reconcileAfter(5_000);
      const job = await payDb(f.bff.db)
        .selectFrom('reconcile_jobs')
        .selectAll()
        .where('transaction_id', '=', tx.id)
        .executeTakeFirst();
      expect(job).toBeUndefined();
    });

    it("when two returns of the same amount are lost, one answered 500 and one whose reply was dropped, then the gateway's return goes to the dropped one and the 500 is judged not applied (QA finding 3)", async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '100.10');
      await f.sandbox.faults({ errorRate: 1, operations: ['return'] });
      const refused = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '33.37',
        reasonCode: 'customer_request',
        comment: 'B-500',
      });
      expect(refused.status).toBe(200);
      const b500 = OperationResultSchema.parse(refused.json);
      expect(b500.operation).toMatchObject({ state: 'unknown', errorCode: 'INTERNAL' });
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['return'] });
      const dropped = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '33.37',
        reasonCode: 'customer_request',
        comment: 'A-drop',
      });
      expect(dropped.status).toBe(200);
      const aDrop = OperationResultSchema.parse(dropped.json);
      expect(aDrop.operation).toMatchObject({ state: 'unknown', errorCode: null });
      await f.sandbox.faults({});
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.operations.filter((o) => o.type === 'return')).toHaveLength(1);

      await reconcileAfter(5_000);
      const found = await detail(tx.id);
      const a = found.operations.find((o) => o.id === aDrop.operation.id);
      const b = found.operations.find((o) => o.id === b500.operation.id);
      expect(a).toMatchObject({ state: 'processing', comment: 'A-drop' });
      expect(a?.gatewaySerial).not.toBeNull();
      expect(b).toMatchObject({ state: 'unknown', gatewaySerial: null, comment: 'B-500' });
      const entry = found.timeline.find(
        (e) =>
          e.title.includes('found at the gateway') && e.data.operationId === aDrop.operation.id,
      );
      expect(entry?.data.rankedBelow).toEqual([
        { operationId: b500.operation.id, why: 'answered_with_error' },
      ]);
      // A preference, not a guess: nothing flagged.
      expect(found.drift).toBe(false);

      await reconcileAfter(61_000);
      const after = await detail(tx.id);
      expect(after.operations.find((o) => o.id === b500.operation.id)?.state).toBe('not_applied');
      expect(after.operations.find((o) => o.id === aDrop.operation.id)?.state).toBe('processing');
      expect(after.amounts).toMatchObject({ returned: '33.37', reserved: '0.00' });
      const audits = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile')
        .where('target', '=', `transaction:${tx.id}`)
        .execute();
      const findings = audits.map((r) => JSON.parse(r.summary) as Record<string, unknown>);
      expect(findings).toHaveLength(2);
      expect(findings.find((x) => x.finding === 'applied')).toMatchObject({
        operation: 'return',
        amount: '33.37',
      });
      expect(findings.find((x) => x.finding === 'not_applied')).toBeDefined();
    });

    it('when the gateway answers a return with 500 and an error code, then the operation keeps the code and the message says the gateway answered with an error, not that the answer was lost', async () => {
      const { tx } = await learnedOrder(f, 'sale', '30.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['return'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '10.01',
        reasonCode: 'other',
        comment: '500',
      });
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({
        state: 'unknown',
        errorCode: 'INTERNAL',
        errorMessage:
          'gateway answered 500: injected fault: the gateway failed before applying the operation',
      });
      expect(result.message).toBe(
        "The gateway answered the return of 10.01 with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation); Paydesk cannot tell whether it was applied. Paydesk is asking the gateway for the order's status and will not send it again; the amount stays reserved until then.",
      );
      expect(result.message).not.toContain('lost');
      const entry = result.transaction.timeline.find((e) => e.title.startsWith('return: '));
      expect(entry?.title).toBe('return: outcome unknown (HTTP 500, INTERNAL)');
    });

    it('when the reply to a return is dropped, then the operation says in words that the connection closed, and the library code stays in the timeline data', async () => {
      const { tx } = await learnedOrder(f, 'sale', '30.00');
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['return'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '5.00',
        reasonCode: 'other',
        comment: 'drop',
      });
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({
        state: 'unknown',
        errorCode: null,
        errorMessage: 'the connection closed before the gateway answered',
      });
      expect(result.message).toContain(
        "The gateway's answer to the return of 5.00 was lost (the connection closed before the gateway answered).",
      );
      expect(result.message).not.toMatch(/UND_ERR|connection-lost/);
      const entry = result.transaction.timeline.find((e) => e.title.startsWith('return: '));
      expect(entry?.title).toBe('return: outcome unknown (connection-lost)');
      expect(String(entry?.data.error)).toContain('connection lost before a reply');
    });

    it('when the gateway answers a refresh with 500, then the refusal says it answered with an error (status, code, message); when it drops the reply, that it did not answer', async () => {
      const { tx } = await learnedOrder(f, 'sale', '12.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['status'] });
      const erred = await post(f.support, `/api/transactions/${tx.id}/refresh`, {});
      expect(erred.status).toBe(503);
      expect(errorCode(erred)).toBe('GATEWAY_UNAVAILABLE');
      expect(erred.json).toMatchObject({
        error: {
          message:
            'The gateway answered the status request with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation). Nothing changed; try again.',
          details: { gatewayHttpStatus: 500, gatewayErrorCode: 'INTERNAL' },
        },
      });
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['status'] });
      const dropped = await post(f.support, `/api/transactions/${tx.id}/refresh`, {});
      expect(dropped.status).toBe(503);
      expect(dropped.json).toMatchObject({
        error: {
          message:
            'The gateway did not answer the status request (the connection closed before the gateway answered). Nothing changed; try again.',
        },
      });
      await f.sandbox.faults({});
      const titles = (await detail(tx.id)).timeline.map((e) => e.title);
      expect(titles).toContain('status: error answer (HTTP 500, INTERNAL)');
      expect(titles).toContain('status: no answer (connection-lost)');
    });

    it('when the gateway answers a capture with 500, then the capture is unknown, and after the window the reconciler marks it not applied and a new capture goes through once', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '70.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['capture'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/capture`, { amount: '70.00' });
      expect(res.status).toBe(200);
      const captured = OperationResultSchema.parse(res.json);
      expect(captured.operation.state).toBe('unknown');
      expect(captured.transaction.allowedActions).toEqual([]);
      await f.sandbox.faults({});
      const blocked = await post(f.finance, `/api/transactions/${tx.id}/capture`, {
        amount: '70.00',
      });
      expect(errorCode(blocked)).toBe('INVALID_STATE');

      await reconcileAfter(5_000);
      expect(
        (await detail(tx.id)).operations.find((o) => o.id === captured.operation.id)?.state,
      ).toBe('unknown');
      await reconcileAfter(61_000);
      const after = await detail(tx.id);
      expect(after.operations.find((o) => o.id === captured.operation.id)?.state).toBe(
        'not_applied',
      );
      expect(after.allowedActions).toContain('capture');
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'capture'),
      ).toHaveLength(0);
      const notApplied = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile')
        .where('target', '=', `transaction:${tx.id}`)
        .executeTakeFirstOrThrow();
      expect(notApplied).toMatchObject({ outcome: 'failed', error_code: 'NOT_APPLIED' });

      const again = await post(f.finance, `/api/transactions/${tx.id}/capture`, {
        amount: '70.00',
      });
      expect(again.status).toBe(200);
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'capture'),
      ).toHaveLength(1);

      // The staff attempts as audited: the lost one is unknown (not a success), the repeat done.
      const attempts = await f.bff.db.k
        .selectFrom('audit_log')
        .select(['outcome', 'summary'])
        .where('action', '=', 'transaction.capture')
        .where('target', '=', `transaction:${tx.id}`)
        .orderBy('seq')
        .execute();
      expect(
        attempts.map((a) => [a.outcome, (JSON.parse(a.summary) as { result?: string }).result]),
      ).toEqual([
        ['unknown', 'unknown'],
        ['refused', undefined],
        ['success', 'processing'],
      ]);
    });

    it('when the gateway is forced to another status, then a refresh flags drift, shows both sides and audits it', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '33.00');
      expect(tx.drift).toBe(false);
      const forced = await f.sandbox.control(`/sandbox/orders/${order.orderid}/force`, {
        status: 'declined',
      });
      expect(forced.status).toBe(200);
      const res = await f.support.post(`/api/transactions/${tx.id}/refresh`);
      expect(res.status).toBe(200);
      const after = TransactionDetailSchema.parse(res.json);
      expect(after).toMatchObject({ drift: true, status: 'declined' });
      expect(after.driftDetails).toMatchObject({
        paydesk: { status: 'approved' },
        gateway: { status: 'declined' },
      });
      expect(after.timeline.some((e) => e.kind === 'drift')).toBe(true);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.drift')
        .where('target', '=', `transaction:${tx.id}`)
        .executeTakeFirstOrThrow();
      expect(audit.outcome).toBe('failed');
      const listed = await f.support.get(`/api/transactions?q=${order.orderid}`);
      expect((listed.json as { items: { drift: boolean }[] }).items[0]?.drift).toBe(true);
    });

    it('when another instance holds a job lease, then this instance leaves the job alone until the lease ends', async () => {
      const order = await f.shop.place('sale', {
        amount: '13.13',
        callbackUrl: f.bff.callbackUrl('1001'),
      });
      const looked = await f.support.post('/api/transactions/lookup', {
        orderid: order.orderid,
        client_orderid: order.clientOrderId,
      });
      expect(looked.status).toBe(200);
      const tx = TransactionDetailSchema.parse(looked.json);
      expect(tx.status).toBe('processing');
      const k = payDb(f.bff.db);
      const now = f.bff.clock.now();
      await k
        .updateTable('reconcile_jobs')
        .set({ next_attempt_at: now, lease_owner: 'other-instance', lease_until: now + 30_000 })
        .where('transaction_id', '=', tx.id)
        .execute();
      const checks = async () =>
        (await detail(tx.id)).timeline.filter((e) => e.kind === 'reconcile').length;
      const before = await checks();
      const second = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
      });
      await Promise.all([f.bff.payments.reconciler.runOnce(), second.reconciler.runOnce()]);
      expect(await checks()).toBe(before);
      f.bff.clock.advance(30_001);
      const runs = await Promise.all([
        f.bff.payments.reconciler.runOnce(),
        second.reconciler.runOnce(),
      ]);
      expect(runs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
      expect(await checks()).toBe(before + 1);
      const job = await k
        .selectFrom('reconcile_jobs')
        .selectAll()
        .where('transaction_id', '=', tx.id)
        .executeTakeFirstOrThrow();
      expect(job.lease_owner).toBeNull();
      expect(job.attempts).toBe(1);
      await second.close();
    });

    it('when the reconciler runs on its own timer, then a due job is done without anyone calling it, and stop() ends the loop', async () => {
      const order = await f.shop.place('sale', { amount: '14.00' });
      const tx = TransactionDetailSchema.parse(
        (await f.support.post('/api/transactions/lookup', { client_orderid: order.clientOrderId }))
          .json,
      );
      expect(tx.status).toBe('processing');
      await f.sandbox.advance(61);
      f.bff.clock.advance(5_000);
      const looping = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { reconcile: { pollIntervalMs: 5 } },
      });
      looping.reconciler.start();
      try {
        for (let i = 0; i < 400 && (await detail(tx.id)).status !== 'approved'; i++)
          await new Promise((r) => setTimeout(r, 5));
      } finally {
        await looping.close();
      }
      expect((await detail(tx.id)).status).toBe('approved');
    });

    it('when the gateway answers a return after the timeout, then it is unknown and the reconciler finds it applied once', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '18.00');
      const impatient = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { gatewayTimeoutMs: 100 },
      });
      await f.sandbox.faults({ latencyMs: 400, operations: ['return'] });
      try {
        const result = await impatient.services.operations.return(
          tx.id,
          { amount: '8.00', reasonCode: 'other', comment: 'slow' },
          { id: 'u1', email: 'finance@paydesk.test' },
          'k-timeout-01',
        );
        expect(result.operation.state).toBe('unknown');
        expect(result.operation.errorMessage).toBe('no answer within 100 ms');
      } finally {
        await impatient.close();
      }
      for (
        let i = 0;
        i < 200 &&
        (await f.sandbox.order(order.orderid)).operations.every((o) => o.type !== 'return');
        i++
      ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await f.sandbox.faults({});
      await reconcileAfter(5_000);
      const after = await detail(tx.id);
      expect(after.operations.find((o) => o.kind === 'return')).toMatchObject({
        state: 'processing',
        amount: '8.00',
      });
      expect(after.amounts).toMatchObject({ returned: '8.00', reserved: '0.00' });
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'return'),
      ).toHaveLength(1);
    });

    it('when the gateway cannot be reached at all, then 503, the operation is recorded as not sent and nothing stays reserved', async () => {
      const { tx } = await learnedOrder(f, 'sale', '19.00');
      // A port that was free a moment ago: nothing listens there, so the connection is refused.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as AddressInfo).port;
      await new Promise<void>((resolve) =>
        probe.close(() => {
          resolve();
        }),
      );
      const unreachable = createPayments({
        config: { ...f.bff.config, gatewayBaseUrl: `http://127.0.0.1:${port}/paynet` },
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
      });
      try {
        await expect(
          unreachable.services.operations.return(
            tx.id,
            { amount: '19.00', reasonCode: 'other', comment: 'x' },
            { id: 'u1', email: 'finance@paydesk.test' },
            'k-down-0001',
          ),
        ).rejects.toMatchObject({ code: 'GATEWAY_UNAVAILABLE', status: 503 });
      } finally {
        await unreachable.close();
      }
      const after = await detail(tx.id);
      expect(after.operations.find((o) => o.kind === 'return')?.state).toBe('not_sent');
      expect(after.amounts).toMatchObject({ reserved: '0.00', remainingReturnable: '19.00' });
    });

    it('when card references are configured as v4, then create-card-ref goes out OAuth-signed (RSA-SHA256) and the reference is stored', async () => {
      const { tx } = await learnedOrder(f, 'sale', '16.00');
      const v4 = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { cardRefVersion: 'v4' },
      });
      try {
        const result = await v4.services.operations.cardRef(
          tx.id,
          { id: 'u1', email: 'finance@paydesk.test' },
          'k-v4-0001',
        );
        expect(result.operation).toMatchObject({ kind: 'card-ref', state: 'approved' });
        expect(result.transaction.cardRefId).toMatch(/^\d+$/);
        const sent = result.transaction.timeline.find((e) =>
          e.title.startsWith('create-card-ref-v4'),
        );
        expect((sent?.data as { url: string }).url).toContain('/api/v4/create-card-ref/1001');
      } finally {
        await v4.close();
      }
    });

    it('when a follow-up’s outcome is unknown and the status checks keep failing, then the detail says how many checks were made and why the last brought no status, and once they stop, that Paydesk no longer asks by itself', async () => {
      const { tx } = await learnedOrder(f, 'sale', '30.00');
      expect(await detail(tx.id)).toMatchObject({ statusChecks: null, subscription: null });
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['return'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '5.00',
        reasonCode: 'other',
        comment: 'lost reply, then no status',
      });
      expect(OperationResultSchema.parse(res.json).operation.state).toBe('unknown');
      expect((await detail(tx.id)).statusChecks).toEqual({
        state: 'checking',
        attempts: 0,
        lastProblem: null,
      });
      await f.sandbox.faults({ errorRate: 1, operations: ['status'] });
      await reconcileAfter(6_000);
      await reconcileAfter(6_000);
      expect((await detail(tx.id)).statusChecks).toEqual({
        state: 'checking',
        attempts: 2,
        lastProblem: expect.stringMatching(/^error answer \(HTTP 500/) as unknown,
      });
      // Past the schedule's hour, in steps that keep the staff's sessions alive (idle 30 minutes).
      for (let step = 0; step < 3; step += 1) {
        await reconcileAfter(25 * 60_000);
        expect((await f.support.get('/api/session')).status).toBe(200);
        expect((await f.finance.get('/api/session')).status).toBe(200);
      }
      const stopped = await detail(tx.id);
      expect(stopped.operations.find((o) => o.kind === 'return')?.state).toBe('unknown');
      expect(stopped.statusChecks).toEqual({ state: 'stopped' });
      // Asked by hand once the gateway answers again: the return is known (still processing at
      // the gateway), and Paydesk checks on it by itself again.
      await f.sandbox.faults({});
      expect((await f.finance.post(`/api/transactions/${tx.id}/refresh`)).status).toBe(200);
      const known = await detail(tx.id);
      expect(known.operations.find((o) => o.kind === 'return')?.state).toBe('processing');
      expect(known.statusChecks).toEqual({ state: 'checking', attempts: 0, lastProblem: null });
    });

    it('when an order stays processing past the last scheduled attempt, then the job stops and that is audited', async () => {
      const order = await f.shop.place('sale', { amount: '13.13' });
      const looked = await f.support.post('/api/transactions/lookup', {
        client_orderid: order.clientOrderId,
      });
      const tx = TransactionDetailSchema.parse(looked.json);
      await reconcileAfter(61 * 60_000);
      const job = await payDb(f.bff.db)
        .selectFrom('reconcile_jobs')
        .selectAll()
        .where('transaction_id', '=', tx.id)
        .executeTakeFirst();
      expect(job).toBeUndefined();
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile_gave_up')
        .where('target', '=', `transaction:${tx.id}`)
        .execute();
      expect(audit).toHaveLength(1);
      const gaveUp = f.bff.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.transactionId === tx.id && l.level === 50);
      expect(gaveUp).toEqual([
        expect.objectContaining({
          msg: expect.stringContaining(
            'reconciliation stopped after its last scheduled attempt',
          ) as unknown,
          orderid: order.orderid,
          endpointId: '1001',
          operations: [],
          attempts: 1,
          lastError: null,
        }),
      ]);
    });

    it('when a status reply shows an amount above 2^53 minor units, then the reconciler records it on the order (drift, timeline, audit, an error log line) with its amounts unchanged and stops the job, rather than fail at every attempt', async () => {
      const k = payDb(f.bff.db);
      const huge = await f.shop.place('sale', {
        amount: '99999999999999999.99',
        callbackUrl: 'http://127.0.0.1:9/gateway/callback?endpoint=1001',
      });
      await f.sandbox.advance(61);
      // An order Paydesk knows (its row as a smaller amount was learned) and follows. (Read with
      // a fresh session: the clock moved past the suite's sessions in the tests above.)
      const support = await f.bff.userWithRoles(['support']);
      const modelOrder = await f.shop.place('sale', {
        amount: '3.20',
        callbackUrl: f.bff.callbackUrl('1001'),
      });
      await f.sandbox.advance(61);
      const row = await k
        .selectFrom('transactions')
        .selectAll()
        .where('orderid', '=', modelOrder.orderid)
        .executeTakeFirstOrThrow();
      const id = randomUUID();
      await k
        .insertInto('transactions')
        .values({ ...row, id, orderid: huge.orderid, client_orderid: huge.clientOrderId })
        .execute();
      const now = f.bff.clock.now();
      await k
        .insertInto('reconcile_jobs')
        .values({ transaction_id: id, first_at: now, next_attempt_at: now, attempts: 0 })
        .execute();
      const logsBefore = f.bff.logs.length;

      expect(await reconcileAfter(0)).toBeGreaterThanOrEqual(1);
      const job = await k
        .selectFrom('reconcile_jobs')
        .selectAll()
        .where('transaction_id', '=', id)
        .executeTakeFirst();
      expect(job).toBeUndefined();
      const after = TransactionDetailSchema.parse(
        (await support.get(`/api/transactions/${id}`)).json,
      );
      expect(after.amount).toBe('3.20');
      expect(after.drift).toBe(true);
      expect(JSON.stringify(after.driftDetails)).toContain('more than Paydesk can hold');
      expect(after.timeline.map((e) => e.title)).toEqual(
        expect.arrayContaining(['reconciliation stopped: the status reply cannot be applied']),
      );
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .select('error_code')
        .where('action', '=', 'transaction.drift')
        .where('target', '=', `transaction:${id}`)
        .execute();
      expect(audit).toEqual([{ error_code: 'DRIFT' }]);
      const lines = f.bff.logs
        .slice(logsBefore)
        .map((l) => JSON.parse(l) as { level: number; msg: string; transactionId?: string });
      expect(lines.filter((l) => l.msg === 'reconcile attempt failed')).toEqual([]);
      expect(
        lines
          .filter((l) => l.transactionId === id && l.msg.includes('cannot hold'))
          .map((l) => l.level),
      ).toEqual([50]);
    });
  });
}
