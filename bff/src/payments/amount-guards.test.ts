// The two guards on an amount staff type for a new order, on rebills and subscriptions, through
// the BFF's HTTP API against the real sandbox process, on both databases. Above the per-order
// ceiling (ORDER_AMOUNT_LIMIT) is 400 naming `amount` (rule too_big), confirmed or not; above the
// large-amount threshold (LARGE_AMOUNT_CONFIRM_ABOVE) without `confirmLargeAmount: true` is 400
// naming that field. Either way nothing is recorded, sent or kept under the Idempotency-Key, and the
// refusal is audited; the corrected or confirmed repeat goes through (and its audit row says so).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OperationResultSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { GatewayClient } from '../gateway-client/client.js';
import { DB_VARIANTS, type Reply } from '../test-support/harness.js';
import { amountGuards, requireAmountAccepted } from './amount-guards.js';
import { payDb } from './db.js';
import {
  DEFAULT_LARGE_AMOUNT,
  LARGE_AMOUNT_OFF,
  requireLargeAmountConfirmed,
} from './large-amount.js';
import {
  DEFAULT_ORDER_AMOUNT_LIMIT,
  ORDER_AMOUNT_LIMIT_OFF,
  requireWithinOrderAmountLimit,
} from './order-limit.js';
import { key, learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

/** What `guard` throws, or null. */
function thrown(guard: () => void): unknown {
  try {
    guard();
    return null;
  } catch (err) {
    return err;
  }
}

/** The refusal's one field, as the SPA reads it. */
function refusedField(res: Reply) {
  expect(res.status, res.text).toBe(400);
  const env = res.json as ErrorEnvelope;
  expect(env.error.code).toBe('VALIDATION_FAILED');
  expect(env.error.details?.fields).toHaveLength(1);
  return env.error.details?.fields?.[0];
}

describe('requireLargeAmountConfirmed', () => {
  const settings = { default: '10000.00', currencies: { USD: '500.00' } };
  const refusal = (order: Parameters<typeof requireLargeAmountConfirmed>[1]) =>
    thrown(() => {
      requireLargeAmountConfirmed(settings, order);
    });

  it('when an amount is above its currency’s threshold (else the default’s) without confirmation, then 400 VALIDATION_FAILED naming confirmLargeAmount, rule large_amount', () => {
    expect(refusal({ amount: '1234567.8', currency: 'eur' })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message:
        'confirmLargeAmount: Above EUR 10,000.00 an amount needs confirming: confirm EUR 1,234,567.80 (confirmLargeAmount: true).',
      details: {
        fields: [
          {
            path: 'confirmLargeAmount',
            rule: 'large_amount',
            message:
              'Above EUR 10,000.00 an amount needs confirming: confirm EUR 1,234,567.80 (confirmLargeAmount: true).',
          },
        ],
      },
    });
    expect(refusal({ amount: '500.01', currency: 'USD' })).not.toBeNull();
    expect(refusal({ amount: '500.00', currency: 'USD' })).toBeNull();
    expect(refusal({ amount: '10000', currency: 'GBP' })).toBeNull();
    expect(refusal({ amount: '10000.01', currency: 'GBP' })).not.toBeNull();
    expect(refusal({ amount: '10000.01', currency: 'GBP', confirmLargeAmount: true })).toBeNull();
    expect(refusal({ currency: 'EUR' })).toBeNull();
    expect(refusal({})).toBeNull();
  });
});

const AT_MOST_EUR_1M = 'at most EUR 1,000,000.00 per order; an administrator can raise the limit';

describe('requireWithinOrderAmountLimit', () => {
  const limits = { default: '1000000.00', currencies: { USD: '500.00' } };
  const refusal = (order: Parameters<typeof requireWithinOrderAmountLimit>[1]) =>
    thrown(() => {
      requireWithinOrderAmountLimit(limits, order);
    });

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

describe('requireAmountAccepted', () => {
  it('when an amount is above both the limit and the threshold, then the limit is named (confirming would not help); unset guards are the defaults', () => {
    const guards = amountGuards({});
    expect(guards).toEqual({
      orderAmountLimit: DEFAULT_ORDER_AMOUNT_LIMIT,
      largeAmount: DEFAULT_LARGE_AMOUNT,
    });
    const refusal = (order: Parameters<typeof requireAmountAccepted>[1]) =>
      thrown(() => {
        requireAmountAccepted(guards, order);
      });
    expect(refusal({ amount: '1000000.01', currency: 'EUR' })).toMatchObject({
      details: { fields: [{ path: 'amount', rule: 'too_big' }] },
    });
    expect(refusal({ amount: '10000.01', currency: 'EUR' })).toMatchObject({
      details: { fields: [{ path: 'confirmLargeAmount', rule: 'large_amount' }] },
    });
    expect(refusal({ amount: '10000.01', currency: 'EUR', confirmLargeAmount: true })).toBeNull();
    expect(refusal({ amount: '10000.00', currency: 'EUR' })).toBeNull();
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `amount guards: rebills and subscriptions (${variant.name})`,
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
        // What the routes read (as ORDER_AMOUNT_LIMIT and LARGE_AMOUNT_CONFIRM_ABOVE set them at
        // start-up).
        f.bff.config.largeAmount = DEFAULT_LARGE_AMOUNT;
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

      describe('large amounts', () => {
        for (const route of routes) {
          it(`when ${route.name} is above 10000.00 without confirmLargeAmount, then 400 names that field, nothing is recorded, sent or kept under the key, the refusal is audited; the confirmed repeat with the same key goes through and is audited as confirmed`, async () => {
            await f.sandbox.advance(61); // what the tests before sent is delivered first
            const before = await counts();
            const sent = await deliveries();
            const auditBefore = (await audit(route.action)).length;
            const idem = key();
            const refused = await post(
              f.finance,
              route.path,
              route.body({ amount: '12345' }),
              idem,
            );
            expect(refusedField(refused)).toEqual({
              path: 'confirmLargeAmount',
              rule: 'large_amount',
              message:
                'Above EUR 10,000.00 an amount needs confirming: confirm EUR 12,345.00 (confirmLargeAmount: true).',
            });
            expect(await counts()).toEqual(before);
            await f.sandbox.advance(61);
            expect(await deliveries()).toBe(sent);
            const refusal = (await audit(route.action)).slice(auditBefore);
            expect(refusal).toEqual([
              expect.objectContaining({ outcome: 'refused', error_code: 'VALIDATION_FAILED' }),
            ]);
            expect(refusal[0]?.summary).toContain('"amount":"12345.00"');

            const confirmed = await post(
              f.finance,
              route.path,
              route.body({ amount: '12345', confirmLargeAmount: true }),
              idem,
            );
            expect(confirmed.status, confirmed.text).toBe(200);
            expect(JSON.stringify(confirmed.json)).toContain('"12345.00"');
            const success = (await audit(route.action)).slice(auditBefore + 1);
            expect(success).toEqual([expect.objectContaining({ outcome: 'success' })]);
            expect(success[0]?.summary).toContain('"confirmLargeAmount":true');
          });

          it(`when ${route.name} is exactly at the threshold, then it goes through without confirmation`, async () => {
            const res = await post(f.finance, route.path, route.body({ amount: '10000.00' }));
            expect(res.status, res.text).toBe(200);
          });
        }

        it('when EUR has its own threshold, then it applies instead of the default; off confirms nothing', async () => {
          f.bff.config.largeAmount = { default: '10000.00', currencies: { EUR: '500.00' } };
          const above = await post(f.finance, '/api/rebills', rebill({ amount: '500.01' }));
          expect(refusedField(above)?.message).toBe(
            'Above EUR 500.00 an amount needs confirming: confirm EUR 500.01 (confirmLargeAmount: true).',
          );
          const plan = await post(f.finance, '/api/subscriptions', subscription({ amount: '750' }));
          expect(refusedField(plan)?.path).toBe('confirmLargeAmount');
          const at = await post(f.finance, '/api/rebills', rebill({ amount: '500.00' }));
          expect(at.status, at.text).toBe(200);

          // Only other currencies guarded: EUR follows the default, which is none.
          f.bff.config.largeAmount = { default: null, currencies: { USD: '1.00' } };
          const unguarded = await post(f.finance, '/api/rebills', rebill({ amount: '20000.00' }));
          expect(unguarded.status, unguarded.text).toBe(200);

          f.bff.config.largeAmount = LARGE_AMOUNT_OFF;
          const off = await post(
            f.finance,
            '/api/subscriptions',
            subscription({ amount: '54321.00' }),
          );
          expect(off.status, off.text).toBe(200);
        });
      });

      describe('order amount limit', () => {
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
            'at most EUR 500.00 per order; an administrator can raise the limit',
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
      });
    },
  );
}
