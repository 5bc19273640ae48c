// Recovery from an instance that stopped between sending and recording (kill -9, power loss): what
// step A left behind (an operation `sending`, its reconcile job, in one database transaction) is
// settled by the reconciler alone, never sent again. Both databases, the real sandbox process.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  TransactionDetailSchema,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { lockTransaction, payDb } from './db.js';
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
