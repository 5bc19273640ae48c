// Money and lifecycle edge cases found against the running demo: a return the gateway applies after
// Paydesk judged it not applied, a void refused because the sale settled, a return while a capture
// is still processing, and what `amounts.reserved` counts. Real sandbox process, both databases.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { payDb } from './db.js';
import { createPayments } from './index.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments money lifecycle (${variant.name})`, () => {
    let f: Fixture;
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
    const auditOf = (action: string, transactionId: string) =>
      f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', action)
        .where('target', '=', `transaction:${transactionId}`)
        .orderBy('seq', 'asc')
        .execute();
    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    it('when the gateway applies a return after Paydesk judged it not applied and staff returned again, then the first is linked to it, the returned total is both, and the order is flagged, audited and explained', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '10.00');
      // An instance that gives up on the gateway quickly: the held return's reply is lost.
      const impatient = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { gatewayTimeoutMs: 100 },
      });
      expect(
        (await f.sandbox.control('/sandbox/faults', { hold: true, operations: ['return'] })).status,
      ).toBe(200);
      let firstId: string;
      try {
        const first = await impatient.services.operations.return(
          tx.id,
          { amount: '3.00', reasonCode: 'other', comment: 'held' },
          { id: 'u1', email: 'finance@paydesk.test' },
          'k-late-return-01',
        );
        expect(first.operation.state).toBe('unknown');
        firstId = first.operation.id;
      } finally {
        await impatient.close();
      }
      // Long after sending, the gateway's status still does not show it: not applied.
      f.bff.clock.advance(120_000);
      await f.bff.payments.reconciler.runOnce();
      const judged = await detail(tx.id);
      expect(judged.operations.find((o) => o.id === firstId)?.state).toBe('not_applied');
      expect(judged.amounts).toMatchObject({ returned: '0.00', remainingReturnable: '10.00' });

      // The gateway comes back and handles the request it held.
      await f.sandbox.faults({});
      for (
        let i = 0;
        i < 500 &&
        (await f.sandbox.order(order.orderid)).operations.every((o) => o.type !== 'return');
        i++
      ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      // Staff, told it was not applied, return again.
      const again = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '3.00',
        reasonCode: 'other',
        comment: 'again',
      });
      expect(again.status).toBe(200);
      const retry = OperationResultSchema.parse(again.json).operation;
      expect(retry.state).toBe('processing');

      await f.bff.payments.services.transactions.refresh(tx.id, null);
      const after = await detail(tx.id);
      const returns = after.operations.filter((o) => o.kind === 'return');
      expect(returns.map((o) => o.origin)).toEqual(['paydesk', 'paydesk']);
      expect(returns.find((o) => o.id === firstId)).toMatchObject({ state: 'processing' });
      expect(returns.find((o) => o.id === firstId)?.gatewaySerial).not.toBeNull();
      expect(after.amounts).toMatchObject({
        returned: '6.00',
        reserved: '0.00',
        remainingReturnable: '4.00',
      });
      expect(after.drift).toBe(true);
      expect(JSON.stringify(after.driftDetails)).toContain(
        'after Paydesk had judged it not applied',
      );
      expect(
        after.timeline.some((e) =>
          e.title.includes(
            'return of 3.00 EUR applied by the gateway after it was judged not applied',
          ),
        ),
      ).toBe(true);
      const reconciled = await auditOf('transaction.reconcile', tx.id);
      expect(reconciled.map((r) => JSON.parse(r.summary) as { finding: string })).toMatchObject([
        { finding: 'not_applied' },
        { finding: 'applied_after_not_applied' },
      ]);
      expect(await auditOf('transaction.drift', tx.id)).toHaveLength(1);
      expect((await f.sandbox.order(order.orderid)).returnedMinor).toBe('600');

      // Final at the gateway: both approved, and the cap counts both.
      await f.sandbox.advance(61);
      const final = await detail(tx.id);
      expect(final.operations.filter((o) => o.kind === 'return').map((o) => o.state)).toEqual([
        'approved',
        'approved',
      ]);
      expect(final.amounts).toMatchObject({ returned: '6.00', remainingReturnable: '4.00' });
      const over = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '4.01',
        reasonCode: 'other',
        comment: 'over',
      });
      expect(errorCode(over)).toBe('CAP_EXCEEDED');
    });

    it('when the gateway refuses a void because the sale settled, then Paydesk asks its status once: the order shows settled, void is no longer offered, and staff are told to return it', async () => {
      const { tx } = await learnedOrder(f, 'sale', '15.00');
      await f.sandbox.advance(25 * 3600);
      // Nothing tells Paydesk of the settlement: it still offers a void.
      expect((await detail(tx.id)).allowedActions).toContain('void');
      const res = await post(f.finance, `/api/transactions/${tx.id}/void`, { comment: 'too late' });
      expect(res.status).toBe(409);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('INVALID_STATE');
      expect(env.error.message).toBe(
        'The gateway says the transaction is settled (INVALID_STATE); it cannot be voided — return it instead.',
      );
      expect(env.error.details).toMatchObject({ stage: 'settled', gatewayHttpStatus: 409 });
      const after = await detail(tx.id);
      expect(after.stage).toBe('settled');
      expect(after.allowedActions).not.toContain('void');
      expect(after.allowedActions).toContain('return');
      expect(after.timeline.some((e) => e.title === 'status: approved (settled)')).toBe(true);
      const job = await payDb(f.bff.db)
        .selectFrom('reconcile_jobs')
        .selectAll()
        .where('transaction_id', '=', tx.id)
        .executeTakeFirst();
      expect(job).toBeUndefined();
      // A second void is refused by Paydesk itself: nothing is sent.
      const second = await post(f.finance, `/api/transactions/${tx.id}/void`, { comment: 'again' });
      expect(errorCode(second)).toBe('INVALID_STATE');
      // A refusal for the order's state says its reason, no "(remaining 0.00 EUR)" beside it;
      // the remaining amount stays in the details.
      const refusal = (second.json as ErrorEnvelope).error;
      expect(refusal.message).toMatch(/^Void refused: [^()]+\.$/);
      expect(refusal.details).toMatchObject({ remaining: '0.00', currency: 'EUR' });
      expect((await detail(tx.id)).operations.filter((o) => o.kind === 'void')).toHaveLength(1);
    });

    it('when a capture is still processing, then return and void are neither offered nor sent (409 naming the capture) until it is final, while a card reference stays possible', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '20.00');
      const captured = await post(f.finance, `/api/transactions/${tx.id}/capture`, {
        amount: '20.00',
      });
      const result = OperationResultSchema.parse(captured.json);
      expect(result.operation.state).toBe('processing');
      // A card reference is not money: the gateway takes it meanwhile.
      expect(result.transaction.allowedActions).toEqual(['card-ref']);
      const ret = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '5.00',
        reasonCode: 'other',
        comment: 'right after capture',
      });
      expect(ret.status).toBe(409);
      expect(errorCode(ret)).toBe('INVALID_STATE');
      expect((ret.json as ErrorEnvelope).error.message).toMatch(
        /^Return refused: a capture is still processing at the gateway[^()]*\.$/,
      );
      const voided = await post(f.finance, `/api/transactions/${tx.id}/void`, { comment: 'no' });
      expect(errorCode(voided)).toBe('INVALID_STATE');
      const during = await detail(tx.id);
      expect(during.operations.map((o) => o.kind)).not.toContain('return');
      expect(during.operations.map((o) => o.kind)).not.toContain('void');
      expect((await f.sandbox.order(order.orderid)).operations.map((o) => o.type).sort()).toEqual([
        'capture',
        'preauth',
      ]);

      await f.sandbox.advance(61);
      const final = await detail(tx.id);
      expect(final.operations.find((o) => o.kind === 'capture')?.state).toBe('approved');
      expect(final.allowedActions).toEqual(expect.arrayContaining(['return', 'void']));
    });

    it('when the gateway is slow to answer a capture, then live screens are told of it in flight (its detail shows it sending, actions held back) before its outcome', async () => {
      const { tx } = await learnedOrder(f, 'preauth', '20.00');
      await f.sandbox.faults({ hold: true, operations: ['capture'] });
      const heard: string[] = [];
      const off = f.bff.payments.bus.subscribe((e) => {
        if (e.type === 'transaction.updated' && e.transactionId === tx.id) heard.push(e.type);
      });
      try {
        const capture = post(f.finance, `/api/transactions/${tx.id}/capture`, { amount: '20.00' });
        for (let i = 0; i < 300 && heard.length === 0; i++)
          await new Promise((r) => setTimeout(r, 10));
        expect(heard).toHaveLength(1);
        const during = await detail(tx.id);
        expect(during.operations.find((o) => o.kind === 'capture')?.state).toBe('sending');
        expect(during.allowedActions).toEqual([]);
        await f.sandbox.faults({});
        const done = await capture;
        expect(done.status, done.text).toBe(200);
        expect(heard.length).toBeGreaterThan(1);
      } finally {
        off();
      }
    });

    it('when a card reference’s outcome is unknown, then returns and voids are still offered and sent (it moves no money), and only another card reference waits', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '30.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['create-card-ref'] });
      const ref = OperationResultSchema.parse(
        (await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {})).json,
      );
      expect(ref.operation).toMatchObject({ kind: 'card-ref', state: 'unknown' });
      expect(ref.transaction.allowedActions).toEqual(['return', 'void']);
      await f.sandbox.faults({});
      const again = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
      expect(again.status).toBe(409);
      expect((again.json as ErrorEnvelope).error.message).toContain(
        'a card-ref is still awaiting its outcome',
      );
      const ret = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '5.00',
        reasonCode: 'other',
        comment: 'while the card reference is unknown',
      });
      expect(ret.status, ret.text).toBe(200);
      expect(OperationResultSchema.parse(ret.json).operation).toMatchObject({ kind: 'return' });
      expect((await f.sandbox.order(order.orderid)).operations.map((o) => o.type)).toContain(
        'return',
      );
    });

    it('when a capture’s outcome is unknown, then amounts.reserved stays 0.00 (it counts returns only) while a lost return’s amount is shown reserved', async () => {
      const { tx } = await learnedOrder(f, 'preauth', '10.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['capture'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/capture`, { amount: '10.00' });
      const captured = OperationResultSchema.parse(res.json);
      expect(captured.operation.state).toBe('unknown');
      expect(captured.transaction.amounts).toMatchObject({
        reserved: '0.00',
        remainingCapturable: '0.00',
      });

      const sale = await learnedOrder(f, 'sale', '10.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['return'] });
      const lost = await post(f.finance, `/api/transactions/${sale.tx.id}/return`, {
        amount: '4.00',
        reasonCode: 'other',
        comment: 'lost',
      });
      expect(OperationResultSchema.parse(lost.json).transaction.amounts).toMatchObject({
        reserved: '4.00',
        remainingReturnable: '6.00',
      });
    });
  });
}
