// GET /api/cards: the card references Paydesk knows (orders carrying one), through the BFF's HTTP
// API against the real sandbox process, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardRefListSchema, OperationResultSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import {
  learnedOrder,
  post,
  startFixture,
  type Fixture,
} from '../payments/test-support/fixture.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`card references list (${variant.name})`, () => {
    let f: Fixture;

    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });

    it('when no order carries a card reference, then the list is empty', async () => {
      await learnedOrder(f, 'sale', '3.00');
      const res = await f.support.get('/api/cards');
      expect(res.status, res.text).toBe(200);
      expect(CardRefListSchema.parse(res.json)).toEqual({ items: [] });
    });

    it('when finance made card references and rebilled one, then each is listed once with its source order, masked card and order count, most recently used first', async () => {
      const { tx: first } = await learnedOrder(f, 'sale', '10.00');
      const { tx: second } = await learnedOrder(f, 'sale', '11.00', {
        card: '5555555555554444',
      });
      const refOf = async (id: string) => {
        const res = await post(f.finance, `/api/transactions/${id}/card-ref`, {});
        expect(res.status, res.text).toBe(200);
        const ref = OperationResultSchema.parse(res.json).transaction.cardRefId;
        if (ref === null) throw new Error('no card reference');
        return ref;
      };
      const refA = await refOf(first.id);
      f.bff.clock.advance(1_000);
      const refB = await refOf(second.id);
      f.bff.clock.advance(1_000);
      const rebill = await post(f.finance, '/api/rebills', {
        cardRefId: refA,
        amount: '2.50',
        currency: 'EUR',
        orderDesc: 'top-up',
        reason: 'customer asked',
      });
      expect(rebill.status, rebill.text).toBe(200);

      const res = await f.finance.get('/api/cards');
      expect(res.status, res.text).toBe(200);
      const { items } = CardRefListSchema.parse(res.json);
      expect(
        items.map((i) => [i.cardRefId, i.source.transactionId, i.source.type, i.orders]),
      ).toEqual([
        [refA, first.id, 'sale', 2],
        [refB, second.id, 'sale', 1],
      ]);
      expect(items[0]?.card?.masked).toBe('411111******1111');
      expect(items[1]?.card?.masked).toBe('555555******4444');
      expect(Date.parse(items[0]?.lastUsedAt ?? '')).toBeGreaterThan(
        Date.parse(items[1]?.lastUsedAt ?? ''),
      );
      // Nothing more than the masked card leaves.
      expect(res.text).not.toContain('5555555555554444');

      const one = CardRefListSchema.parse((await f.support.get('/api/cards?limit=1')).json);
      expect(one.items.map((i) => i.cardRefId)).toEqual([refA]);
    });

    it('when the limit is not a page size, then 400 names the field; ops and auditors may not list cards', async () => {
      const bad = await f.support.get('/api/cards?limit=0');
      expect(bad.status).toBe(400);
      expect((bad.json as ErrorEnvelope).error.details?.fields?.map((x) => x.path)).toEqual([
        'query.limit',
      ]);
      for (const roles of [['ops'], ['auditor']] as const) {
        const client = await f.bff.userWithRoles([...roles]);
        const res = await client.get('/api/cards');
        expect(errorCode(res)).toBe('FORBIDDEN');
      }
    });
  });
}
