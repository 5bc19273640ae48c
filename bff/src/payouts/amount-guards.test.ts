// The two guards on an amount staff type for a new order, on payouts and payment links, through
// the BFF's HTTP API against the real sandbox process, on both databases. Above the per-order
// ceiling (ORDER_AMOUNT_LIMIT) is 400 naming `amount` (rule too_big), confirmed or not; above the
// large-amount threshold (LARGE_AMOUNT_CONFIRM_ABOVE) without `confirmLargeAmount: true` is 400
// naming that field. Either way nothing is recorded, sent or kept under the Idempotency-Key, and the
// refusal is audited; the corrected or confirmed repeat goes through (and its audit row says so).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PaymentLinkResultSchema,
  PayoutResultSchema,
  type ErrorEnvelope,
  type PaymentLinkCreateInput,
  type PayoutCreateInput,
} from '@paydesk/shared/api';
import { GatewayClient } from '../gateway-client/client.js';
import { payDb } from '../payments/db.js';
import { DEFAULT_LARGE_AMOUNT, LARGE_AMOUNT_OFF } from '../payments/large-amount.js';
import { DEFAULT_ORDER_AMOUNT_LIMIT, ORDER_AMOUNT_LIMIT_OFF } from '../payments/order-limit.js';
import { DB_VARIANTS, type Reply, type TestClient } from '../test-support/harness.js';
import {
  key,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

const payoutBody = (extra: Partial<PayoutCreateInput> = {}): PayoutCreateInput => ({
  destination: { kind: 'ewallet', ewalletType: 'paypal', ewalletId: 'payee-guards@example.com' },
  amount: '42.50',
  currency: 'EUR',
  orderDesc: 'Supplier refund',
  ...extra,
});

const saleForm = (extra: Partial<PaymentLinkCreateInput> = {}): PaymentLinkCreateInput => ({
  kind: 'sale-form',
  amount: '19.99',
  currency: 'EUR',
  orderDesc: 'Invoice 42',
  customer: TEST_CUSTOMER,
  redirectUrl: 'https://shop.example/thanks',
  ...extra,
});

const payoutForm = (extra: Partial<PaymentLinkCreateInput> = {}): PaymentLinkCreateInput => ({
  kind: 'payout-form',
  amount: '15.00',
  currency: 'EUR',
  orderDesc: 'Prize payout',
  ...extra,
});

const AT_MOST_EUR_1M = 'at most EUR 1,000,000.00 per order; an administrator can raise the limit';

/** The refusal's one field, as the SPA reads it. */
function refusedField(res: Reply) {
  expect(res.status, res.text).toBe(400);
  const env = res.json as ErrorEnvelope;
  expect(env.error.code).toBe('VALIDATION_FAILED');
  expect(env.error.details?.fields).toHaveLength(1);
  return env.error.details?.fields?.[0];
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `amount guards: payouts and payment links (${variant.name})`,
    () => {
      let sandbox: Sandbox;
      let bff: PayoutsTestApp;
      let ops: TestClient & { email: string };
      let finance: TestClient & { email: string };

      beforeAll(async () => {
        sandbox = await startSandbox();
        bff = await startPayoutsApp(variant, sandbox.baseUrl);
        ops = await bff.userWithRoles(['ops']);
        finance = await bff.userWithRoles(['finance']);
      });
      afterAll(async () => {
        await bff.close();
        await sandbox.stop();
      });
      afterEach(() => {
        vi.restoreAllMocks();
        // What the routes read (as ORDER_AMOUNT_LIMIT and LARGE_AMOUNT_CONFIRM_ABOVE set them at
        // start-up).
        bff.payouts.largeAmount = DEFAULT_LARGE_AMOUNT;
        bff.payouts.orderAmountLimit = DEFAULT_ORDER_AMOUNT_LIMIT;
      });

      const counts = async () => ({
        payouts: (await bff.k.selectFrom('payouts').select('id').execute()).length,
        links: (await bff.k.selectFrom('payment_links').select('id').execute()).length,
        keys: (await payDb(bff.db).selectFrom('idempotency_keys').select('key').execute()).length,
      });
      const audit = (action: string) =>
        bff.k
          .selectFrom('audit_log')
          .select(['outcome', 'error_code', 'summary', 'target'])
          .where('action', '=', action)
          .orderBy('seq')
          .execute();

      const routes = [
        {
          name: 'a two-step payout',
          path: '/api/payouts',
          action: 'payout.prepare',
          by: () => ops,
          body: payoutBody,
          id: (res: Reply) => PayoutResultSchema.parse(res.json).payout.id,
        },
        {
          name: 'a single payout',
          path: '/api/payouts',
          action: 'payout.prepare',
          by: () => ops,
          body: (extra: Partial<PayoutCreateInput> = {}) =>
            payoutBody({ mode: 'single', ...extra }),
          id: (res: Reply) => PayoutResultSchema.parse(res.json).payout.id,
        },
        {
          name: 'a sale-form link',
          path: '/api/payment-links',
          action: 'payment_link.create',
          by: () => finance,
          body: saleForm,
          id: (res: Reply) => PaymentLinkResultSchema.parse(res.json).link.id,
        },
        {
          name: 'a payout-form link',
          path: '/api/payment-links',
          action: 'payment_link.create',
          by: () => ops,
          body: payoutForm,
          id: (res: Reply) => PaymentLinkResultSchema.parse(res.json).link.id,
        },
      ] as const;

      describe('large amounts', () => {
        for (const route of routes) {
          it(`when ${route.name} is above 10000.00 without confirmLargeAmount, then 400 names that field, nothing is recorded or kept under the key, the refusal is audited; the confirmed repeat with the same key goes through and is audited as confirmed`, async () => {
            const before = await counts();
            const auditBefore = (await audit(route.action)).length;
            const idem = key();
            const refused = await post(
              route.by(),
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
            expect((refused.json as ErrorEnvelope).error.message).toContain('confirmLargeAmount');
            expect(await counts()).toEqual(before);
            const refusal = (await audit(route.action)).slice(auditBefore);
            expect(refusal).toEqual([
              expect.objectContaining({ outcome: 'refused', error_code: 'VALIDATION_FAILED' }),
            ]);
            expect(refusal[0]?.summary).toContain('"amount":"12345.00"');
            expect(refusal[0]?.summary).toContain('"confirmLargeAmount":false');

            const confirmed = await post(
              route.by(),
              route.path,
              route.body({ amount: '12345', confirmLargeAmount: true }),
              idem,
            );
            expect(confirmed.status, confirmed.text).toBe(200);
            const id = route.id(confirmed);
            const success = (await audit(route.action)).slice(auditBefore + 1);
            expect(success).toEqual([expect.objectContaining({ outcome: 'success' })]);
            expect(success[0]?.target).toContain(id);
            expect(success[0]?.summary).toContain('"confirmLargeAmount":true');
          });

          it(`when ${route.name} is exactly at the threshold, then it goes through without confirmation`, async () => {
            const res = await post(route.by(), route.path, route.body({ amount: '10000.00' }));
            expect(res.status, res.text).toBe(200);
            route.id(res);
          });
        }

        it('when a currency has its own threshold, then it applies to that currency and the default to the others; off confirms nothing', async () => {
          bff.payouts.largeAmount = { default: '10000.00', currencies: { USD: '500.00' } };
          const usd = await post(
            ops,
            '/api/payouts',
            payoutBody({ currency: 'USD', amount: '500.01' }),
          );
          expect(refusedField(usd)?.message).toBe(
            'Above USD 500.00 an amount needs confirming: confirm USD 500.01 (confirmLargeAmount: true).',
          );
          const usdLink = await post(
            ops,
            '/api/payment-links',
            payoutForm({ currency: 'USD', amount: '600' }),
          );
          expect(refusedField(usdLink)?.path).toBe('confirmLargeAmount');
          const usdAt = await post(
            ops,
            '/api/payouts',
            payoutBody({ currency: 'USD', amount: '500.00' }),
          );
          expect(usdAt.status, usdAt.text).toBe(200);
          // EUR has none of its own: the default's 10000.00.
          const eur = await post(ops, '/api/payouts', payoutBody({ amount: '9000.00' }));
          expect(eur.status, eur.text).toBe(200);
          const eurAbove = await post(ops, '/api/payouts', payoutBody({ amount: '10000.01' }));
          expect(refusedField(eurAbove)?.message).toContain('Above EUR 10,000.00');

          // No default: only USD is guarded.
          bff.payouts.largeAmount = { default: null, currencies: { USD: '500.00' } };
          const eurAny = await post(
            finance,
            '/api/payment-links',
            saleForm({ amount: '99999.99' }),
          );
          expect(eurAny.status, eurAny.text).toBe(200);

          bff.payouts.largeAmount = LARGE_AMOUNT_OFF;
          const off = await post(
            ops,
            '/api/payouts',
            payoutBody({ currency: 'USD', amount: '123456.78' }),
          );
          expect(off.status, off.text).toBe(200);
          const offLink = await post(
            ops,
            '/api/payment-links',
            payoutForm({ amount: '123456.78' }),
          );
          expect(offLink.status, offLink.text).toBe(200);
        });

        it('when an account verification form (no amount) is created, then there is nothing to confirm', async () => {
          bff.payouts.largeAmount = { default: '0.01', currencies: {} };
          const res = await post(finance, '/api/payment-links', {
            kind: 'account-verification-form',
            orderDesc: 'Verify card',
            customer: TEST_CUSTOMER,
          });
          expect(res.status, res.text).toBe(200);
        });
      });

      describe('order amount limit', () => {
        for (const route of routes) {
          it(`when ${route.name} is above 1,000,000.00, confirmed or not, then 400 names amount (too_big), nothing is recorded, sent or kept under the key, and the refusal is audited; the corrected repeat with the same key goes through`, async () => {
            const before = await counts();
            const auditBefore = (await audit(route.action)).length;
            const gateway = vi.spyOn(GatewayClient.prototype, 'send');
            const idem = key();
            for (const extra of [
              { amount: '1000000000000.00' },
              { amount: '1000000000000.00', confirmLargeAmount: true as const },
              { amount: '1000000.01', confirmLargeAmount: true as const },
            ]) {
              const refused = await post(route.by(), route.path, route.body(extra), idem);
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
            const refusals = (await audit(route.action)).slice(auditBefore);
            const refused = expect.objectContaining({
              outcome: 'refused',
              error_code: 'VALIDATION_FAILED',
            }) as unknown;
            expect(refusals).toEqual([refused, refused, refused]);
            expect(refusals[2]?.summary).toContain('"amount":"1000000.01"');
            expect(refusals[2]?.summary).toContain('"confirmLargeAmount":true');

            const corrected = await post(
              route.by(),
              route.path,
              route.body({ amount: '100' }),
              idem,
            );
            expect(corrected.status, corrected.text).toBe(200);
            route.id(corrected);
          });

          it(`when ${route.name} is exactly at the limit (and confirmed, being large), then it goes through`, async () => {
            const res = await post(
              route.by(),
              route.path,
              route.body({ amount: '1000000.00', confirmLargeAmount: true }),
            );
            expect(res.status, res.text).toBe(200);
            route.id(res);
          });
        }

        it('when a currency has its own limit, then it applies to that currency and the default to the others; off limits nothing', async () => {
          bff.payouts.orderAmountLimit = { default: '1000000.00', currencies: { USD: '500.00' } };
          const usd = await post(
            ops,
            '/api/payouts',
            payoutBody({ currency: 'USD', amount: '500.01' }),
          );
          expect(refusedField(usd)?.message).toBe(
            'at most USD 500.00 per order; an administrator can raise the limit',
          );
          const usdLink = await post(
            ops,
            '/api/payment-links',
            payoutForm({ currency: 'USD', amount: '600' }),
          );
          expect(refusedField(usdLink)?.path).toBe('amount');
          const usdAt = await post(
            ops,
            '/api/payouts',
            payoutBody({ currency: 'USD', amount: '500.00' }),
          );
          expect(usdAt.status, usdAt.text).toBe(200);
          const eur = await post(ops, '/api/payouts', payoutBody({ amount: '9000.00' }));
          expect(eur.status, eur.text).toBe(200);

          bff.payouts.orderAmountLimit = ORDER_AMOUNT_LIMIT_OFF;
          const off = await post(
            ops,
            '/api/payouts',
            payoutBody({ amount: '2000000.00', confirmLargeAmount: true }),
          );
          expect(off.status, off.text).toBe(200);
        });

        it('when an account verification form (no amount) is created, then there is nothing to limit', async () => {
          bff.payouts.orderAmountLimit = { default: '0.01', currencies: {} };
          const res = await post(finance, '/api/payment-links', {
            kind: 'account-verification-form',
            orderDesc: 'Verify card',
            customer: TEST_CUSTOMER,
          });
          expect(res.status, res.text).toBe(200);
        });
      });
    },
  );
}
