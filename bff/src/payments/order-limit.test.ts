// The per-order ceiling (ORDER_AMOUNT_LIMIT) on rebills and subscriptions, through the BFF's HTTP
// API against the real sandbox process, on both databases: above the limit is 400 naming `amount`
// (rule too_big), confirmed or not, nothing recorded, sent or kept under the Idempotency-Key,
// audited as refused; exactly at the limit it goes through.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OperationResultSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { GatewayClient } from '../gateway-client/client.js';
import { DB_VARIANTS, type Reply } from '../test-support/harness.js';
import { payDb } from './db.js';
import {
  DEFAULT_ORDER_AMOUNT_LIMIT,
  ORDER_AMOUNT_LIMIT_OFF,
  requireWithinOrderAmountLimit,
} from './order-limit.js';
import { key, learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

/** The refusal's one field, as the SPA reads it. */
function refusedField(res: Reply) {
  expect(res.status, res.text).toBe(400);
  const env = res.json as ErrorEnvelope;
  expect(env.error.code).toBe('VALIDATION_FAILED');
  expect(env.error.details?.fields).toHaveLength(1);
  return env.error.details?.fields?.[0];
}

const AT_MOST_EUR_1M =
  'at most EUR 1,000,000.00 per order (ORDER_AMOUNT_LIMIT); an admin can raise it';

describe('requireWithinOrderAmountLimit', () => {
  const limits = { default: '1000000.00', currencies: { USD: '500.00' } };
  const refusal = (order: Parameters<typeof requireWithinOrderAmountLimit>[1]) => {
    try {
      requireWithinOrderAmountLimit(limits, order);
      return null;
    } catch (err) {
      return err;
    }
  };

  it('when an amount is above its currency’s limit (else the default’s), then 400 VALIDATION_FAILED naming amount, rule too_big, with the limit grouped by thousands', () => {
    expect(refusal({ amount: '1000000000000.00', currency: 'eur' })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: `amount: ${AT_MOST_EUR_1M}.`,
      details: { fields: [{ path: 'amount', rule: 'too_big', message: AT_MOST_EUR_1M }] },
    });
    expect(refusal({ amount: '500.01', currency: 'USD' })).not.toBeNull();
    expect(refusal({ amount: '500.00', currency: 'USD' })).toBeNull();
    expect(refusal({ amount: '1000000', currency: 'GBP' })).toBeNull();
    expect(refusal({ amount: '1000000.01', currency: 'GBP' })).not.toBeNull();
    expect(refusal({ currency: 'EUR' })).toBeNull();
    expect(refusal({})).toBeNull();
    expect(() => {
      requireWithinOrderAmountLimit(ORDER_AMOUNT_LIMIT_OFF, {
        amount: '9999999999999.99',
        currency: 'EUR',
      });
    }).not.toThrow();
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `order amount limit: rebills and subscriptions (${variant.name})`,
    () => {
      let f: Fixture;
      let cardRefId: string;
      const rebill = (extra: Record<string, unknown> = {}) => ({
        cardRefId,
        amount: '12.34',
        currency: 'EUR',
        orderDesc: 'top-up',
        reason: 'customer asked by phone',
        ...extra,
      });
      const subscription = (extra: Record<string, unknown> = {}) => ({
        cardRefId,
        amount: '9.99',
        currency: 'EUR',
        period: 'month',
        interval: 1,
        maxPayments: 2,
        orderDesc: 'monthly plan',
        email: 'subscriber@example.com',
        ...extra,
      });
      const deliveries = async (): Promise<number> => {
        const r = await f.sandbox.control('/sandbox/callbacks');
        return (r.json as { callbacks: unknown[] }).callbacks.length;
      };
      const counts = async () => {
        const k = payDb(f.bff.db);
        return {
          transactions: (await k.selectFrom('transactions').select('id').execute()).length,
          subscriptions: (await k.selectFrom('subscriptions').select('id').execute()).length,
          keys: (await k.selectFrom('idempotency_keys').select('key').execute()).length,
        };
      };
      const audit = (action: string) =>
        f.bff.db.k
          .selectFrom('audit_log')
          .select(['outcome', 'error_code', 'summary', 'target'])
          .where('action', '=', action)
          .orderBy('seq')
          .execute();

      beforeAll(async () => {
        f = await startFixture(variant);
        const { tx } = await learnedOrder(f, 'sale', '10.00');
        const res = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
        const ref = OperationResultSchema.parse(res.json).transaction.cardRefId;
        if (ref === null) throw new Error('no card reference');
        cardRefId = ref;
      });
      afterAll(async () => {
        await f.close();
      });
      afterEach(() => {
        vi.restoreAllMocks();
        // The limits the routes read (as ORDER_AMOUNT_LIMIT set them at start-up).
        f.bff.config.orderAmountLimit = DEFAULT_ORDER_AMOUNT_LIMIT;
      });

      const routes = [
        { name: 'a rebill', path: '/api/rebills', action: 'transaction.rebill', body: rebill },
        {
          name: 'a subscription',
          path: '/api/subscriptions',
          action: 'subscription.create',
          body: subscription,
        },
      ] as const;

      for (const route of routes) {
        it(`when ${route.name} is above 1,000,000.00, confirmed or not, then 400 names amount (too_big), nothing is recorded, sent or kept under the key, and the refusal is audited; the corrected repeat with the same key goes through`, async () => {
          await f.sandbox.advance(61); // what the tests before sent is delivered first
          const before = await counts();
          const sent = await deliveries();
          const auditBefore = (await audit(route.action)).length;
          const gateway = vi.spyOn(GatewayClient.prototype, 'send');
          const idem = key();
          // The amount QA rebilled, as typed and as confirmed: the confirmation does not lift it.
          for (const extra of [
            { amount: '1000000000000.00' },
            { amount: '1000000000000.00', confirmLargeAmount: true },
            { amount: '1000000.01', confirmLargeAmount: true },
          ]) {
            const refused = await post(f.finance, route.path, route.body(extra), idem);
            expect(refusedField(refused)).toEqual({
              path: 'amount',
              rule: 'too_big',
              message: AT_MOST_EUR_1M,
            });
            expect((refused.json as ErrorEnvelope).error.message).toBe(
              `amount: ${AT_MOST_EUR_1M}.`,
            );
          }
          expect(gateway).not.toHaveBeenCalled();
          expect(await counts()).toEqual(before);
          await f.sandbox.advance(61);
          expect(await deliveries()).toBe(sent);
          const refusals = (await audit(route.action)).slice(auditBefore);
          expect(refusals).toEqual([
            expect.objectContaining({ outcome: 'refused', error_code: 'VALIDATION_FAILED' }),
            expect.objectContaining({ outcome: 'refused', error_code: 'VALIDATION_FAILED' }),
            expect.objectContaining({ outcome: 'refused', error_code: 'VALIDATION_FAILED' }),
          ]);
          expect(refusals[2]?.summary).toContain('"amount":"1000000.01"');
          expect(refusals[2]?.summary).toContain('"confirmLargeAmount":true');

          const corrected = await post(
            f.finance,
            route.path,
            route.body({ amount: '100.00' }),
            idem,
          );
          expect(corrected.status, corrected.text).toBe(200);
        });

        it(`when ${route.name} is exactly at the limit (and confirmed, being large), then it goes through`, async () => {
          const res = await post(
            f.finance,
            route.path,
            route.body({ amount: '1000000.00', confirmLargeAmount: true }),
          );
          expect(res.status, res.text).toBe(200);
          expect(JSON.stringify(res.json)).toContain('"1000000.00"');
        });
      }

      it('when EUR has its own limit, then it applies instead of the default and an order at it goes through; off limits nothing', async () => {
        f.bff.config.orderAmountLimit = { default: '1000000.00', currencies: { EUR: '500.00' } };
        const above = await post(f.finance, '/api/rebills', rebill({ amount: '500.01' }));
        expect(refusedField(above)?.message).toBe(
          'at most EUR 500.00 per order (ORDER_AMOUNT_LIMIT); an admin can raise it',
        );
        const plan = await post(f.finance, '/api/subscriptions', subscription({ amount: '750' }));
        expect(refusedField(plan)?.path).toBe('amount');
        const at = await post(f.finance, '/api/rebills', rebill({ amount: '500.00' }));
        expect(at.status, at.text).toBe(200);

        f.bff.config.orderAmountLimit = ORDER_AMOUNT_LIMIT_OFF;
        const off = await post(
          f.finance,
          '/api/rebills',
          rebill({ amount: '2000000.00', confirmLargeAmount: true }),
        );
        expect(off.status, off.text).toBe(200);
      });
    },
  );
}
