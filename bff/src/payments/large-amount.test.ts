// Large amounts (LARGE_AMOUNT_CONFIRM_ABOVE) on rebills and subscriptions, through the BFF's HTTP
// API against the real sandbox process, on both databases: above the threshold without
// `confirmLargeAmount: true` is 400 naming that field, nothing recorded, sent or kept under the
// Idempotency-Key, audited as refused; confirmed, it goes through and its audit row says so.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OperationResultSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { DB_VARIANTS, type Reply } from '../test-support/harness.js';
import { payDb } from './db.js';
import {
  DEFAULT_LARGE_AMOUNT,
  LARGE_AMOUNT_OFF,
  requireLargeAmountConfirmed,
} from './large-amount.js';
import { key, learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

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
  const refusal = (order: Parameters<typeof requireLargeAmountConfirmed>[1]) => {
    try {
      requireLargeAmountConfirmed(settings, order);
      return null;
    } catch (err) {
      return err;
    }
  };

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

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `large amounts: rebills and subscriptions (${variant.name})`,
    () => {
      let f: Fixture;
      let cardRefId: string;
      const rebill = (extra: Record<string, unknown> = {}) => ({
        cardRefId,
        amount: '12.34',
        currency: 'EUR',
        orderDesc: 'large top-up',
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
        // The thresholds the routes read (as LARGE_AMOUNT_CONFIRM_ABOVE set them at start-up).
        f.bff.config.largeAmount = DEFAULT_LARGE_AMOUNT;
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
        it(`when ${route.name} is above 10000.00 without confirmLargeAmount, then 400 names that field, nothing is recorded, sent or kept under the key, the refusal is audited; the confirmed repeat with the same key goes through and is audited as confirmed`, async () => {
          await f.sandbox.advance(61); // what the tests before sent is delivered first
          const before = await counts();
          const sent = await deliveries();
          const auditBefore = (await audit(route.action)).length;
          const idem = key();
          const refused = await post(f.finance, route.path, route.body({ amount: '12345' }), idem);
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
    },
  );
}
