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
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import {
  learnedOrder,
  post,
  reconcileAfter,
  startFixture,
  type Fixture,
} from './test-support/fixture.js';

const DAY = 86_400_000;

/** The orders `client` sees listed by `notMade=true`. */
async function notMadeIds(client: TestClient): Promise<string[]> {
  const res = await client.get('/api/transactions?notMade=true');
  expect(res.status, res.text).toBe(200);
  return TransactionPageSchema.parse(res.json).items.map((i) => i.id);
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`follow-ups not made, listed (${variant.name})`, () => {
    let f: Fixture;
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
      expect(await notMadeIds(f.support)).toEqual([]);

      await reconcileAfter(f, 5_000);
      await reconcileAfter(f, 61_000);
      const after = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${tx.id}`)).json,
      );
      expect(after.operations.find((o) => o.id === lost.id)?.state).toBe('not_applied');

      expect(await notMadeIds(f.support)).toEqual([tx.id]);
      // every list's row says which follow-up was not made, not only the filter's
      const all = TransactionPageSchema.parse((await f.support.get('/api/transactions')).json);
      const notMade = Object.fromEntries(all.items.map((i) => [i.id, i.notMade]));
      expect(notMade[tx.id]).toEqual(['return']);
      expect(notMade[made.id]).toEqual([]);
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

  describe.skipIf(variant.skip)(`follow-ups not made, then done again (${variant.name})`, () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    /** A return of `amount` on `id` that the gateway answers with 500 and the reconciler judges not applied. */
    const returnNotMade = async (id: string, amount: string) => {
      await f.sandbox.faults({ errorRate: 1, operations: ['return'] });
      const res = await post(f.finance, `/api/transactions/${id}/return`, {
        amount,
        reasonCode: 'customer_request',
        comment: 'answered 500',
      });
      expect(res.status, res.text).toBe(200);
      await f.sandbox.faults({});
      await reconcileAfter(f, 5_000);
      await reconcileAfter(f, 61_000);
      return OperationResultSchema.parse(res.json).operation;
    };
    const notMadeOnItsPage = async (id: string) =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json)
        .operations.filter((o) => o.state === 'not_applied')
        .map((o) => o.kind);

    it('when a return not made is made again, then it leaves Home and notMade=true; made again but not made either, or followed by another follow-up, it stays, its order listed once', async () => {
      const { tx: redone } = await learnedOrder(f, 'sale', '30.00');
      const { tx: twice } = await learnedOrder(f, 'sale', '31.00');
      const { tx: other } = await learnedOrder(f, 'sale', '32.00');
      await returnNotMade(redone.id, '5.55');
      await returnNotMade(twice.id, '6.66');
      await returnNotMade(other.id, '7.77');
      expect(new Set(await notMadeIds(f.support))).toEqual(
        new Set([redone.id, twice.id, other.id]),
      );

      // made again, and approved
      const again = await post(f.finance, `/api/transactions/${redone.id}/return`, {
        amount: '5.55',
        reasonCode: 'customer_request',
        comment: 'again',
      });
      expect(again.status, again.text).toBe(200);
      const redo = OperationResultSchema.parse(again.json).operation;
      expect(redo.state).toBe('processing');
      // sent again, and not made either
      await returnNotMade(twice.id, '6.66');
      // a card reference is no return
      const cardRef = await post(f.finance, `/api/transactions/${other.id}/card-ref`, {});
      expect(cardRef.status, cardRef.text).toBe(200);
      expect(OperationResultSchema.parse(cardRef.json).operation.state).toBe('approved');

      // the gateway's callback approves the return made again
      await f.sandbox.advance(61);
      const redoneNow = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${redone.id}`)).json,
      );
      expect(redoneNow.operations.find((o) => o.id === redo.id)?.state).toBe('approved');

      const ids = await notMadeIds(f.support);
      expect(ids).not.toContain(redone.id);
      const rows = TransactionPageSchema.parse((await f.support.get('/api/transactions')).json);
      const kinds = Object.fromEntries(rows.items.map((i) => [i.id, i.notMade]));
      // made again: its row names nothing; not made twice: the return once
      expect([kinds[redone.id], kinds[twice.id], kinds[other.id]]).toEqual([
        [],
        ['return'],
        ['return'],
      ]);
      expect(ids.filter((id) => id === twice.id)).toHaveLength(1);
      expect(ids).toContain(other.id);
      const csv = await f.support.get('/api/transactions/export?notMade=true');
      expect(csv.text).not.toContain(redone.id);
      expect(csv.text).toContain(twice.id);
      const stats = StatsResponseSchema.parse((await f.support.get('/api/stats')).json);
      const named = stats.attention.notApplied?.orders.map((o) => o.id) ?? [];
      expect(named).not.toContain(redone.id);
      // Home counts follow-ups: the order made twice without success has two
      expect(named.filter((id) => id === twice.id)).toHaveLength(2);
      expect(named).toContain(other.id);
      // the order page still shows the first return as not applied, in its operations
      expect(await notMadeOnItsPage(redone.id)).toEqual(['return']);
    });
  });
}
