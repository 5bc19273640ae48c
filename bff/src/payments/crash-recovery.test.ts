// Recovery from an instance that stopped between sending and recording (kill -9, power loss): what
// step A left behind (an operation `sending`, its reconcile job, in one database transaction) is
// settled by the reconciler alone, never sent again. Both databases, the real sandbox process.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  SubscriptionDetailSchema,
  SubscriptionResultSchema,
  TransactionDetailSchema,
  type SubscriptionDetail,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { lockTransaction, payDb } from './db.js';
import { InProcessEventBus } from './events.js';
import { configuredEndpointIds } from './gateway.js';
import { Ledger } from './ledger.js';
import { resolveOptions } from './options.js';
import { SubscriptionRecovery } from './subscriptions.js';
import { TransactionsService } from './transactions.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments crash recovery (${variant.name})`, () => {
    let f: Fixture;
    let cardRefId: string;
    let finance: TestClient;
    // No long digit runs in it: the audit log masks PAN-shaped digits.
    const FINANCE = 'crash-finance@paydesk.test';
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);

    beforeAll(async () => {
      f = await startFixture(variant);
      finance = await f.bff.userWithRoles(['finance'], FINANCE);
      const { tx } = await learnedOrder(f, 'sale', '10.00');
      const res = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
      const ref = OperationResultSchema.parse(res.json).transaction.cardRefId;
      if (ref === null) throw new Error('no card reference');
      cardRefId = ref;
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    it('when an instance stopped after recording a rebill as sending and the gateway never created the order, then the reconciler settles it as not created once it is certainly abandoned, audited with who asked, and never sends it again', async () => {
      // A rebill the gateway never applies (500 before applying) ...
      await f.sandbox.faults({ errorRate: 1, operations: ['make-rebill'] });
      const res = await post(finance, '/api/rebills', {
        cardRefId,
        amount: '21.09',
        currency: 'EUR',
        orderDesc: 'top-up',
        reason: 'customer asked by phone',
      });
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation.requestedBy).toBe(FINANCE);
      await f.sandbox.faults({});
      // ... and its rows put back as step A wrote them: the instance died before step C.
      const k = payDb(f.bff.db);
      await k
        .updateTable('transaction_operations')
        .set({ state: 'sending', error_message: null })
        .where('id', '=', result.operation.id)
        .execute();
      await k
        .updateTable('transactions')
        .set({ status: 'processing' })
        .where('id', '=', result.transaction.id)
        .execute();
      const job = () =>
        k
          .selectFrom('reconcile_jobs')
          .select('transaction_id')
          .where('transaction_id', '=', result.transaction.id)
          .execute();
      expect(await job()).toHaveLength(1);

      // Too early to tell: the request could still be on its way.
      f.bff.clock.advance(5_000);
      await f.bff.payments.reconciler.runOnce();
      expect((await detail(result.transaction.id)).operations[0]?.state).toBe('sending');

      // Past notAppliedAfterMs + the gateway timeout: `status` still does not know it.
      f.bff.clock.advance(61_000);
      expect(await f.bff.payments.reconciler.runOnce()).toBeGreaterThanOrEqual(1);
      const settled = await detail(result.transaction.id);
      expect(settled).toMatchObject({ status: 'error', stage: 'not_created' });
      expect(settled.operations).toEqual([
        expect.objectContaining({ id: result.operation.id, state: 'not_applied' }),
      ]);
      expect(await job()).toEqual([]);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile')
        .where('target', '=', `transaction:${settled.id}`)
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ outcome: 'failed', error_code: 'NOT_APPLIED' });
      expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
        operationId: result.operation.id,
        operation: 'rebill',
        requestedBy: FINANCE,
        finding: 'not_applied',
      });
      // Nothing was sent again: the gateway still does not know the order.
      const status = await f.shop.client.send('status', '1001', {
        client_orderid: settled.clientOrderId,
      });
      expect(status.kind === 'reply' ? status.httpStatus : status.kind).toBe(404);
    });

    it('when a callback matches a rebill while its lost reply is being recorded, then the match stands: recording waits for the order lock and does not overwrite it', async () => {
      const gateway = f.bff.payments.gateway;
      const original = gateway.send.bind(gateway);
      const k = payDb(f.bff.db);
      let callback: Promise<void> = Promise.resolve();
      gateway.send = async (operation, endpointId, fields, ...rest) => {
        const outcome = await original(operation, endpointId, fields, ...rest);
        if (operation !== 'make-rebill' || outcome.kind !== 'reply') return outcome;
        const serial = outcome.reply.serialNumber ?? '';
        const row = await k
          .selectFrom('transactions')
          .select('id')
          .where('client_orderid', '=', fields.client_orderid ?? '')
          .executeTakeFirstOrThrow();
        // What a callback's status check does meanwhile: lock the order, match the operation;
        // it commits only once the recording of the lost reply is waiting for it.
        let locked: () => void = () => undefined;
        const hasLock = new Promise<void>((resolve) => {
          locked = resolve;
        });
        callback = k.transaction().execute(async (trx) => {
          await lockTransaction(f.bff.db, trx, row.id);
          await trx
            .updateTable('transaction_operations')
            .set({ state: 'approved', gateway_serial: serial, reserved_minor: 0 })
            .where('transaction_id', '=', row.id)
            .execute();
          locked();
          await someoneWaits(f);
        });
        await hasLock;
        return { kind: 'unknown', reason: 'connection-lost', exchange: outcome.exchange };
      };
      try {
        const res = await post(finance, '/api/rebills', {
          cardRefId,
          amount: '3.33',
          currency: 'EUR',
          orderDesc: 'top-up',
          reason: 'customer asked by phone',
        });
        await callback;
        const result = OperationResultSchema.parse(res.json);
        const op = (await detail(result.transaction.id)).operations[0];
        expect(op).toMatchObject({ state: 'approved' });
        expect(op?.gatewaySerial).not.toBeNull();
      } finally {
        gateway.send = original;
      }
    });

    describe('a subscription left sending', () => {
      const planBody = (extra: Record<string, unknown> = {}) => ({
        cardRefId,
        amount: '7.77',
        currency: 'EUR',
        period: 'day',
        interval: 1,
        maxPayments: 1,
        orderDesc: 'daily plan',
        email: 'subscriber@example.com',
        ...extra,
      });
      const subscription = async (id: string, reader = f.support): Promise<SubscriptionDetail> =>
        SubscriptionDetailSchema.parse((await reader.get(`/api/subscriptions/${id}`)).json);
      const reconcileAudit = (id: string) =>
        f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'subscription.reconcile')
          .where('target', '=', `subscription:${id}`)
          .execute();
      /** Creates a plan, then puts its row back as the create wrote it before sending: the instance died there. */
      async function crashedPlan(extra: Record<string, unknown> = {}) {
        const res = await post(finance, '/api/subscriptions', planBody(extra));
        expect(res.status, res.text).toBe(200);
        const created = SubscriptionResultSchema.parse(res.json).subscription;
        await payDb(f.bff.db)
          .updateTable('subscriptions')
          .set({
            state: 'sending',
            recurring_payment_id: null,
            gateway_serial: null,
            error_code: null,
            error_message: null,
            exchange: null,
          })
          .where('id', '=', created.id)
          .execute();
        return created;
      }
      /** The requests (`operation client_orderid`) the BFF sends to the gateway while `work` runs. */
      async function sentDuring(work: () => Promise<void>): Promise<string[]> {
        const gateway = f.bff.payments.gateway;
        const original = gateway.send.bind(gateway);
        const sent: string[] = [];
        gateway.send = (operation, endpointId, fields, ...rest) => {
          sent.push(`${operation} ${fields.client_orderid ?? ''}`);
          return original(operation, endpointId, fields, ...rest);
        };
        try {
          await work();
        } finally {
          gateway.send = original;
        }
        return sent;
      }

      it('when the instance stopped before the gateway created the plan, then once it is certainly abandoned the reconciler marks it not created (NOT_CREATED in its detail), audited with who asked, and never sends it again', async () => {
        // A create the gateway never applies (500 before applying) ...
        await f.sandbox.faults({ errorRate: 1, operations: ['create-recurring-payment'] });
        const plan = await crashedPlan();
        await f.sandbox.faults({});
        expect((await subscription(plan.id)).state).toBe('sending');

        const sent = await sentDuring(async () => {
          // Too early to tell: the request could still be on its way.
          f.bff.clock.advance(5_000);
          await f.bff.payments.reconciler.runOnce();
          expect((await subscription(plan.id)).state).toBe('sending');

          // Past notAppliedAfterMs + the gateway timeout: neither the plan nor a charge of it is known.
          f.bff.clock.advance(61_000);
          expect(await f.bff.payments.reconciler.runOnce()).toBeGreaterThanOrEqual(1);
          // Settled: later passes leave it alone.
          f.bff.clock.advance(600_000);
          await f.bff.payments.reconciler.runOnce();
        });
        expect(sent.filter((r) => !r.startsWith('status '))).toEqual([]);

        const settled = await subscription(plan.id);
        expect(settled).toMatchObject({
          state: 'not_sent',
          recurringPaymentId: null,
          errorCode: 'NOT_CREATED',
          schedule: { nextChargeAt: null },
        });
        expect(settled.errorMessage).toContain('not created');
        expect(settled.errorMessage).toContain('not sent again');
        const audit = await reconcileAudit(plan.id);
        expect(audit).toHaveLength(1);
        expect(audit[0]).toMatchObject({ outcome: 'failed', error_code: 'NOT_CREATED' });
        expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
          clientOrderId: plan.clientOrderId,
          requestedBy: FINANCE,
          stateBefore: 'sending',
          finding: 'not_created',
        });
        // Nothing was sent again: the gateway still knows no charge of it.
        const status = await f.shop.client.send('status', '1001', {
          client_orderid: `${plan.clientOrderId}-1`,
        });
        expect(status.kind === 'reply' ? status.httpStatus : status.kind).toBe(404);
      });

      it('when the instance stopped after the gateway created the plan, then the reconciler learns it from its first charge: active with its recurring-payment-id and the charge, audited, never sent again', async () => {
        const created = await crashedPlan({ maxPayments: 2 });
        const rpId = created.recurringPaymentId ?? '';
        expect(rpId).toMatch(/^\d+$/);
        expect(await subscription(created.id)).toMatchObject({
          state: 'sending',
          recurringPaymentId: null,
        });

        const sent = await sentDuring(async () => {
          f.bff.clock.advance(5_000);
          await f.bff.payments.reconciler.runOnce();
          expect((await subscription(created.id)).state).toBe('sending');
          f.bff.clock.advance(61_000);
          await f.bff.payments.reconciler.runOnce();
        });
        expect(sent.filter((r) => !r.startsWith('status '))).toEqual([]);

        const found = await subscription(created.id);
        expect(found).toMatchObject({
          state: 'active',
          recurringPaymentId: rpId,
          errorCode: null,
          errorMessage: null,
        });
        expect(found.charges.map((c) => c.clientOrderId)).toEqual([`${created.clientOrderId}-1`]);
        const audit = await reconcileAudit(created.id);
        expect(audit).toHaveLength(1);
        expect(audit[0]).toMatchObject({ outcome: 'success', error_code: null });
        expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
          stateBefore: 'sending',
          finding: 'created',
          evidence: `${created.clientOrderId}-1`,
          recurringPaymentId: rpId,
        });
      });

      it('when the first charge’s status shows an amount above 2^53 minor units, then the plan is settled active by it all the same, the charge is audited (not recorded) and it is not asked about again', async () => {
        const HUGE = '99999999999999999.99';
        const created = await crashedPlan({ maxPayments: 2 });
        const firstCharge = `${created.clientOrderId}-1`;
        // The gateway as it would answer for a charge of that amount (the plan cannot be created
        // with one: Paydesk refuses such an amount).
        const gateway = f.bff.payments.gateway;
        const original = gateway.send.bind(gateway);
        let asked = 0;
        gateway.send = async (operation, endpointId, fields, ...rest) => {
          const outcome = await original(operation, endpointId, fields, ...rest);
          if (operation !== 'status' || fields.client_orderid !== firstCharge) return outcome;
          asked += 1;
          if (outcome.kind !== 'reply' || outcome.httpStatus !== 200) return outcome;
          const replyFields = { ...outcome.reply.fields, amount: HUGE };
          return { ...outcome, reply: { ...outcome.reply, fields: replyFields } };
        };
        const from = f.bff.logs.length;
        try {
          f.bff.clock.advance(66_000);
          expect(await f.bff.payments.reconciler.runOnce()).toBeGreaterThanOrEqual(1);
          f.bff.clock.advance(600_000);
          await f.bff.payments.reconciler.runOnce();
        } finally {
          gateway.send = original;
        }
        expect(asked).toBe(1);
        expect(await subscription(created.id)).toMatchObject({
          state: 'active',
          recurringPaymentId: created.recurringPaymentId,
        });
        expect(
          await payDb(f.bff.db)
            .selectFrom('transactions')
            .select('id')
            .where('client_orderid', '=', firstCharge)
            .execute(),
        ).toEqual([]);
        const drift = (
          await f.bff.db.k
            .selectFrom('audit_log')
            .select(['target', 'summary', 'error_code'])
            .where('action', '=', 'transaction.drift')
            .execute()
        ).filter((r) => r.summary.includes(created.id));
        expect(drift).toHaveLength(1);
        expect(drift[0]).toMatchObject({ target: null, error_code: 'DRIFT' });
        expect(JSON.parse(drift[0]?.summary ?? '{}')).toMatchObject({
          subscriptionId: created.id,
          detectedBy: 'reconcile',
        });
        const lines = f.bff.logs
          .slice(from)
          .map((l) => JSON.parse(l) as { level: number; msg: string; subscriptionId?: string })
          .filter((l) => l.subscriptionId === created.id && l.level >= 40);
        expect(lines.map((l) => l.msg)).toEqual([
          "subscription recovery: its first charge's status shows an amount Paydesk cannot hold; not applied",
        ]);
      });

      it('when two instances look for abandoned plans at once, then the database lease gives the plan to one: the gateway is asked once, one audit row', async () => {
        await f.sandbox.faults({ errorRate: 1, operations: ['create-recurring-payment'] });
        const plan = await crashedPlan();
        await f.sandbox.faults({});
        // A second instance on the same database: its own ledger and lease owner.
        const payments = f.bff.payments;
        const other = new Ledger(
          f.bff.db,
          f.bff.clock,
          f.bff.services.audit,
          new InProcessEventBus(),
          resolveOptions({ ...payments.options, instanceId: 'second-instance' }),
        );
        const secondInstance = new SubscriptionRecovery(
          other,
          new TransactionsService(other, payments.gateway, configuredEndpointIds(f.bff.config)),
          f.bff.logger,
        );
        f.bff.clock.advance(66_000);
        const sent = await sentDuring(async () => {
          await Promise.all([
            payments.reconciler.subscriptions.runOnce(),
            secondInstance.runOnce(),
          ]);
        });
        expect(sent.filter((r) => r.includes(plan.clientOrderId))).toEqual([
          `status ${plan.clientOrderId}`,
          `status ${plan.clientOrderId}-1`,
        ]);
        expect((await subscription(plan.id)).state).toBe('not_sent');
        expect(await reconcileAudit(plan.id)).toHaveLength(1);
      });

      // Last: it moves the BFF clock days ahead, past every session of the suite.
      it('when the plan starts later, then after the safe delay it waits unknown (the gateway can confirm it only by its first charge) and is settled by that charge once due, even with the charge callback lost', async () => {
        const clock = (await f.sandbox.control('/sandbox/clock')).json as { nowMs: number };
        const start = new Date(clock.nowMs + 3 * 24 * 3600_000).toISOString().slice(0, 10);
        const created = await crashedPlan({ startDate: start, maxPayments: undefined });
        const dueAt = Date.parse(`${start}T00:00:00Z`);

        f.bff.clock.advance(66_000);
        await f.bff.payments.reconciler.runOnce();
        const waiting = await subscription(created.id);
        expect(waiting).toMatchObject({ state: 'unknown', recurringPaymentId: null });
        expect(waiting.errorMessage).toContain(`first charge, due ${start}T00:00:00.000Z`);
        // Not asked again (nor settled) before the charge is due.
        const early = await sentDuring(async () => {
          f.bff.clock.advance(Math.max(0, dueAt - f.bff.clock.now() - 60_000));
          await f.bff.payments.reconciler.runOnce();
        });
        expect(early.filter((r) => r.includes(created.clientOrderId))).toEqual([]);
        // The suite's sessions lapsed while the clock moved: a fresh reader.
        const reader = await f.bff.userWithRoles(['support']);
        expect((await subscription(created.id, reader)).state).toBe('unknown');

        // The charge happens at the gateway; its callback never arrives.
        await f.sandbox.control('/sandbox/faults', { callbacks: 'drop' });
        await f.sandbox.advance(Math.ceil((dueAt - clock.nowMs) / 1000) + 61);
        f.bff.clock.advance(Math.max(0, dueAt + 61_000 - f.bff.clock.now()));
        const sent = await sentDuring(async () => {
          await f.bff.payments.reconciler.runOnce();
        });
        expect(sent.filter((r) => !r.startsWith('status '))).toEqual([]);
        const found = await subscription(created.id, reader);
        expect(found).toMatchObject({
          state: 'active',
          recurringPaymentId: created.recurringPaymentId,
        });
        expect(found.charges.map((c) => c.clientOrderId)).toEqual([`${created.clientOrderId}-1`]);
        expect((await reconcileAudit(created.id)).map((a) => a.outcome)).toEqual(['success']);
      });
    });
  });
}

/**
 * Resolves once another transaction waits for a lock (PostgreSQL: a lock not granted). SQLite has
 * one writer at a time on one connection: the recording simply runs after this transaction.
 */
async function someoneWaits(f: Fixture): Promise<void> {
  if (f.bff.db.kind !== 'postgres') return;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where not l.granted and a.datname = current_database()`.execute(f.bff.db.k);
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
