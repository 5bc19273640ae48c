// GET /api/cards: the card references Paydesk knows (orders carrying one), through the BFF's HTTP
// API against the real sandbox process, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CardRefListSchema,
  OperationResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { payDb } from '../payments/db.js';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import {
  learnedOrder,
  post,
  startFixture,
  type Fixture,
} from '../payments/test-support/fixture.js';

const DAY = 86_400_000;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`card references list (${variant.name})`, () => {
    let f: Fixture;

    beforeAll(async () => {
      f = await startFixture(variant);
      // The gateway's clock a day behind Paydesk's: orders are charged (dated by the gateway) a day
      // before Paydesk learns them, and a rebill Paydesk sends is charged at Paydesk's time.
      const seconds = Math.round((f.bff.clock.now() - DAY - Date.now()) / 1000);
      const moved = await f.sandbox.control(
        `/sandbox/clock/${seconds < 0 ? 'rewind' : 'advance'}`,
        {
          seconds: Math.max(1, Math.abs(seconds)),
        },
      );
      expect(moved.status).toBe(200);
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
      // Where the gateway charges each (its source order's endpoint) and in what, even for refA,
      // whose latest order is the rebill.
      expect(items.map((i) => [i.endpointId, i.currency])).toEqual([
        ['1001', 'EUR'],
        ['1001', 'EUR'],
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

    it('when an order made with a card is returned or refreshed later, then Last used stays the time the card was charged; a rebill with it moves it, one never created does not', async () => {
      const { tx: sale } = await learnedOrder(f, 'sale', '20.00');
      const made = await post(f.finance, `/api/transactions/${sale.id}/card-ref`, {});
      expect(made.status, made.text).toBe(200);
      const ref = OperationResultSchema.parse(made.json).transaction.cardRefId;
      if (ref === null) throw new Error('no card reference');
      const lastUsed = async () => {
        const { items } = CardRefListSchema.parse((await f.finance.get('/api/cards')).json);
        return items.find((i) => i.cardRefId === ref)?.lastUsedAt;
      };
      const createdAt = async (id: string) =>
        TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json)
          .createdAt;
      expect(await lastUsed()).toBe(sale.createdAt);

      // A return on the order, and a refresh of it, change the record, not the use.
      const returned = await post(f.finance, `/api/transactions/${sale.id}/return`, {
        amount: '5.00',
        reasonCode: 'other',
        comment: 'partly returned',
      });
      expect(returned.status, returned.text).toBe(200);
      await f.bff.payments.services.transactions.refresh(sale.id, null);
      const row = await payDb(f.bff.db)
        .selectFrom('transactions')
        .select(['updated_at', 'created_at'])
        .where('id', '=', sale.id)
        .executeTakeFirstOrThrow();
      expect(row.updated_at).toBeGreaterThan(row.created_at + DAY / 2);
      expect(await lastUsed()).toBe(sale.createdAt);

      // A rebill charges the card again: its time is the last use.
      const rebill = await post(f.finance, '/api/rebills', {
        cardRefId: ref,
        amount: '3.00',
        currency: 'EUR',
        orderDesc: 'top-up',
        reason: 'customer asked',
      });
      expect(rebill.status, rebill.text).toBe(200);
      const rebillId = OperationResultSchema.parse(rebill.json).transaction.id;
      await f.sandbox.advance(61);
      const rebilledAt = await createdAt(rebillId);
      expect(Date.parse(rebilledAt)).toBeGreaterThan(Date.parse(sale.createdAt));
      expect(await lastUsed()).toBe(rebilledAt);

      // A later rebill that the gateway never created charged nothing.
      await payDb(f.bff.db)
        .updateTable('transactions')
        .set({ status: 'error', stage: 'not_created', created_at: Date.parse(rebilledAt) + DAY })
        .where('id', '=', rebillId)
        .execute();
      expect(await lastUsed()).toBe(sale.createdAt);
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
