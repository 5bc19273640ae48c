// A status reply that contradicts what Paydesk recorded as final (a sale approved and captured that
// the gateway now says is declined) shows the gateway's word, flagged as drift: the details, the
// timeline and the audit log say both sides, authorized included, and returned ≤ captured ≤
// authorized still holds (money the gateway shows captured was authorized). A status that moves on
// (processing → approved) applies without drift. Real sandbox process, both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionDetailSchema, type TransactionDetail } from '@paydesk/shared/api';
import { toMinorUnits } from '@paydesk/shared/protocol';
import { DB_VARIANTS } from '../test-support/harness.js';
import { learnedOrder, startFixture, type Fixture } from './test-support/fixture.js';

/** The money invariants: returned ≤ captured ≤ authorized. */
function expectConsistent(detail: TransactionDetail): void {
  const { authorized, captured, returned } = detail.amounts;
  expect(toMinorUnits(returned) <= toMinorUnits(captured), `${returned} ≤ ${captured}`).toBe(true);
  expect(toMinorUnits(captured) <= toMinorUnits(authorized), `${captured} ≤ ${authorized}`).toBe(
    true,
  );
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `a status reply contradicting a final record (${variant.name})`,
    () => {
      let f: Fixture;
      beforeAll(async () => {
        f = await startFixture(variant);
      });
      afterAll(async () => {
        await f.close();
      });

      const detail = async (id: string): Promise<TransactionDetail> =>
        TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
      const force = async (orderid: string, status: string) => {
        const res = await f.sandbox.control(`/sandbox/orders/${orderid}/force`, { status });
        expect(res.status).toBe(200);
      };
      const refresh = async (id: string): Promise<TransactionDetail> => {
        const res = await f.finance.post(`/api/transactions/${id}/refresh`, {});
        expect(res.status).toBe(200);
        return TransactionDetailSchema.parse(res.json);
      };

      it('when the gateway says an approved, captured sale is declined, then the refresh shows the gateway’s word flagged as drift with both sides (authorized too), audits it, and returned ≤ captured ≤ authorized still holds', async () => {
        const { order, tx } = await learnedOrder(f, 'sale', '6.01');
        expect(tx).toMatchObject({ status: 'approved', stage: 'captured', drift: false });
        expect(tx.amounts).toMatchObject({ authorized: '6.01', captured: '6.01' });

        await force(order.orderid, 'declined');
        const after = await refresh(tx.id);

        // The gateway holds the money: its status shows, flagged. The money it still shows
        // captured was authorized, so the amounts stay consistent.
        expect(after).toMatchObject({ status: 'declined', drift: true });
        expect(after.amounts).toMatchObject({
          authorized: '6.01',
          captured: '6.01',
          returned: '0.00',
        });
        expectConsistent(after);
        expect(after.driftDetails).toMatchObject({
          reasons: ['Paydesk had the order approved; the gateway says declined'],
          paydesk: { status: 'approved', authorized: '6.01', captured: '6.01', returned: '0.00' },
          gateway: { status: 'declined', authorized: '6.01', captured: '6.01', returned: '0.00' },
        });
        const drifts = after.timeline.filter((e) => e.kind === 'drift');
        expect(drifts.map((e) => e.title)).toEqual([
          "the gateway contradicted Paydesk's record: Paydesk had the order approved; the gateway says declined",
        ]);
        const audit = await f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'transaction.drift')
          .where('target', '=', `transaction:${tx.id}`)
          .execute();
        expect(audit).toHaveLength(1);
        expect(audit[0]).toMatchObject({ outcome: 'failed', error_code: 'DRIFT' });
        expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
          orderid: order.orderid,
          reasons: ['Paydesk had the order approved; the gateway says declined'],
          detectedBy: 'refresh',
        });

        // Reviewed: the flag clears; a further reply saying the same brings no new drift.
        const reviewed = await f.finance.post(`/api/transactions/${tx.id}/drift/review`, {
          comment: 'Asked the gateway',
        });
        expect(reviewed.status).toBe(200);
        const again = await refresh(tx.id);
        expect(again).toMatchObject({ status: 'declined', drift: false });
        expectConsistent(again);
        expect((await detail(tx.id)).timeline.filter((e) => e.kind === 'drift')).toHaveLength(1);
      });

      it('when a sale Paydesk saw processing is approved at the gateway, then the reply applies as before: no drift', async () => {
        const order = await f.shop.place('sale', {
          amount: '6.03',
          callbackUrl: f.bff.callbackUrl('1001'),
        });
        const looked = await f.support.post('/api/transactions/lookup', {
          orderid: order.orderid,
          client_orderid: order.clientOrderId,
        });
        expect(looked.status).toBe(200);
        const tx = TransactionDetailSchema.parse(looked.json);
        expect(tx.status).toBe('processing');
        await f.sandbox.advance(61);
        const after = await refresh(tx.id);
        expect(after).toMatchObject({ status: 'approved', drift: false });
        expect(after.amounts).toMatchObject({ authorized: '6.03', captured: '6.03' });
        expect(after.operations.find((o) => o.kind === 'sale')?.state).toBe('approved');
      });
    },
  );
}
