// A card reference belongs to the endpoint it was made on. A rebill or subscription named without
// an endpoint goes there (not to the endpoint of its currency), one that cannot go there is refused
// before anything is written or sent with advice that names where it was made and in which
// currency, and get-card-info asks there. Through the BFF's HTTP API against the real sandbox
// process, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CardInfoSchema,
  CardRefListSchema,
  OperationResultSchema,
  SubscriptionResultSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import { effectsOf, expectNothingDone, startFixtureWithEndpoints } from './test-support/effects.js';
import { learnedOrder, post, type Fixture } from './test-support/fixture.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `card references charged where they were made (${variant.name})`,
    () => {
      let f: Fixture;
      /** made from a USD sale on endpoint 1002 */
      let cardRefId: string;
      let sourceId: string;

      const rebill = (extra: Record<string, unknown> = {}) =>
        post(f.finance, '/api/rebills', {
          cardRefId,
          amount: '4.00',
          currency: 'USD',
          orderDesc: 'top-up',
          reason: 'customer asked by phone',
          ...extra,
        });
      const subscribe = (extra: Record<string, unknown> = {}) =>
        post(f.finance, '/api/subscriptions', {
          cardRefId,
          amount: '4.00',
          currency: 'USD',
          period: 'month',
          interval: 1,
          orderDesc: 'monthly plan',
          email: 'subscriber@example.com',
          ...extra,
        });
      beforeAll(async () => {
        // Two USD endpoints, 1003 first: USD alone (and no currency at all) would choose it. The
        // sandbox has no endpoint 1003, so nothing may be sent there.
        f = await startFixtureWithEndpoints(variant, [
          { kind: 'endpoint', id: '1003', currency: 'USD' },
          { kind: 'endpoint', id: '1001', currency: 'EUR' },
          { kind: 'endpoint', id: '1002', currency: 'USD' },
        ]);
        const { tx } = await learnedOrder(f, 'sale', '10.00', {
          endpointId: '1002',
          currency: 'USD',
        });
        const made = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
        expect(made.status, made.text).toBe(200);
        const ref = OperationResultSchema.parse(made.json).transaction.cardRefId;
        if (ref === null) throw new Error('no card reference');
        cardRefId = ref;
        sourceId = tx.id;
      });
      afterAll(async () => {
        await f.close();
      });
      afterEach(() => {
        vi.restoreAllMocks();
      });

      it('when a card reference made on endpoint 1002 is rebilled or subscribed in USD without an endpoint, then each goes to 1002, not to 1003 (the first USD endpoint)', async () => {
        const effects = await effectsOf(f, async () => {
          const res = await rebill();
          expect(res.status, res.text).toBe(200);
          expect(OperationResultSchema.parse(res.json).transaction.endpointId).toBe('1002');
          const sub = await subscribe();
          expect(sub.status, sub.text).toBe(200);
          expect(SubscriptionResultSchema.parse(sub.json).subscription.endpointId).toBe('1002');
        });
        expect(effects.sent).toEqual([
          ['make-rebill', '1002'],
          ['create-recurring-payment', '1002'],
        ]);
      });

      it('when it is rebilled or subscribed without an endpoint in a currency its endpoint does not take, then 400 names currency and says to charge it in USD; nothing is written or sent', async () => {
        await expectNothingDone(f, async () => {
          for (const [send, action] of [
            [rebill, 'rebill it'],
            [subscribe, 'set up the subscription'],
          ] as const) {
            const res = await send({ currency: 'EUR' });
            expect(res.status, res.text).toBe(400);
            const message = `card reference ${cardRefId} was made on endpoint 1002, which takes USD: ${action} in USD`;
            expect((res.json as ErrorEnvelope).error).toMatchObject({
              code: 'VALIDATION_FAILED',
              message: `currency: ${message}`,
              details: { fields: [{ path: 'currency', rule: 'card_ref_currency', message }] },
            });
          }
        });
      });

      it('when it is rebilled or subscribed on another endpoint, then 400 names cardRefId and says where it was made and in which currency; nothing is written or sent', async () => {
        await expectNothingDone(f, async () => {
          for (const [send, action] of [
            [rebill, 'rebill it'],
            [subscribe, 'set up the subscription'],
          ] as const) {
            const res = await send({ currency: 'EUR', endpointId: '1001' });
            expect(res.status, res.text).toBe(400);
            const message = `card reference ${cardRefId} was made on endpoint 1002, which takes USD, not on endpoint 1001: ${action} on endpoint 1002 in USD`;
            expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
              { path: 'cardRefId', rule: 'card_ref_endpoint', message },
            ]);
          }
        });
      });

      it('when support asks for its card details without an endpoint, then get-card-info asks 1002, not 1003 (the first endpoint); the list names 1002 and USD', async () => {
        const effects = await effectsOf(f, async () => {
          const res = await f.support.post(`/api/cards/${cardRefId}/info`, {
            reason: 'customer asked which card was charged',
          });
          expect(res.status, res.text).toBe(200);
          expect(CardInfoSchema.parse(res.json)).toMatchObject({ cardRefId, bin: '411111' });
        });
        expect(effects.sent).toEqual([['get-card-info', '1002']]);
        const { items } = CardRefListSchema.parse((await f.finance.get('/api/cards')).json);
        expect(items.find((i) => i.cardRefId === cardRefId)).toMatchObject({
          source: { transactionId: sourceId },
          endpointId: '1002',
          currency: 'USD',
        });
      });

      it('when a card reference Paydesk has never seen is rebilled without an endpoint, then it goes to the endpoint of its currency (EUR: 1001), where the gateway is asked about it', async () => {
        // Made by the shop itself on 1002: Paydesk does not know where.
        const order = await f.shop.place('sale', {
          amount: '3.00',
          currency: 'USD',
          endpointId: '1002',
        });
        await f.sandbox.advance(61);
        const made = await f.bff.payments.gateway.send('create-card-ref', '1002', {
          client_orderid: order.clientOrderId,
          orderid: order.orderid,
        });
        const unseen = made.kind === 'reply' ? (made.reply.fields['card-ref-id'] ?? '') : '';
        expect(unseen).not.toBe('');
        const effects = await effectsOf(f, async () => {
          const res = await rebill({ cardRefId: unseen, currency: 'EUR' });
          expect(res.status, res.text).toBe(404);
          expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
            expect.objectContaining({
              path: 'cardRefId',
              rule: 'card_ref_unknown',
              message:
                'no card is stored under this reference at the gateway (endpoint 1001); check the reference, or pick one from the list of stored cards',
            }),
          ]);
        });
        expect(effects.written.after).toEqual(effects.written.before);
        expect(effects.sent).toEqual([['get-card-info', '1001']]);
      });
    },
  );
}
