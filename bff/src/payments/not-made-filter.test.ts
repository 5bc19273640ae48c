// The list's `notMade=true` filter over a follow-up the gateway really never made: a return the
// sandbox answered with 500, judged not applied by the reconciler, against the real sandbox
// process, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  StatsResponseSchema,
  TransactionDetailSchema,
  TransactionPageSchema,
} from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

const DAY = 86_400_000;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`follow-ups not made, listed (${variant.name})`, () => {
    let f: Fixture;
    const reconcileAfter = async (ms: number) => {
      f.bff.clock.advance(ms);
      return f.bff.payments.reconciler.runOnce();
    };
    const notMadeIds = async (client = f.support) => {
      const res = await client.get('/api/transactions?notMade=true');
      expect(res.status, res.text).toBe(200);
      return TransactionPageSchema.parse(res.json).items.map((i) => i.id);
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

    it('when the reconciler judges a return not applied, then notMade=true lists its order (not one whose return was made), the export holds it, Home counts it, and seven days on it leaves the list', async () => {
      const { tx: made } = await learnedOrder(f, 'sale', '20.00');
      const returned = await post(f.finance, `/api/transactions/${made.id}/return`, {
        amount: '5.00',
        reasonCode: 'customer_request',
        comment: 'made',
      });
      expect(returned.status, returned.text).toBe(200);
      const { tx } = await learnedOrder(f, 'sale', '40.00');
      await f.sandbox.faults({ errorRate: 1, operations: ['return'] });
      const refused = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '10.00',
        reasonCode: 'customer_request',
        comment: 'answered 500',
      });
      expect(refused.status, refused.text).toBe(200);
      const lost = OperationResultSchema.parse(refused.json).operation;
      expect(lost.state).toBe('unknown');
      await f.sandbox.faults({});
      // Still unknown: not (yet) a follow-up not made.
      expect(await notMadeIds()).toEqual([]);

      await reconcileAfter(5_000);
      await reconcileAfter(61_000);
      const after = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${tx.id}`)).json,
      );
      expect(after.operations.find((o) => o.id === lost.id)?.state).toBe('not_applied');

      expect(await notMadeIds()).toEqual([tx.id]);
      const csv = await f.support.get('/api/transactions/export?notMade=true');
      expect(csv.status, csv.text).toBe(200);
      expect(csv.text).toContain(tx.id);
      expect(csv.text).not.toContain(made.id);
      const stats = StatsResponseSchema.parse((await f.support.get('/api/stats')).json);
      expect(stats.attention.notApplied?.count).toBe(1);
      expect(stats.attention.notApplied?.orders.map((o) => o.id)).toEqual([tx.id]);

      f.bff.clock.advance(7 * DAY);
      // (the sessions of a week ago have expired: a new one)
      expect(await notMadeIds(await f.bff.userWithRoles(['support']))).toEqual([]);
    });
  });
}
