// What the BFF can check itself is refused before anything is written or sent: a currency no
// configured endpoint or group takes, a code that is not an ISO 4217 currency, a payout card that
// has expired. The four routes that create something at the gateway (rebills, subscriptions,
// payment links, payouts), through the BFF's HTTP API against the real sandbox process.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OperationResultSchema, PayoutResultSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { expectNothingDone, startFixtureWithEndpoints } from './test-support/effects.js';
import { learnedOrder, post, type Fixture } from './test-support/fixture.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

const CARD = {
  kind: 'card',
  cardNumber: '4111111111111111',
  cardholderName: 'Jane Payee',
  expiryMonth: '12',
  expiryYear: '2035',
} as const;
const BANK = {
  kind: 'bank',
  accountNumber: 'DE89370400440532013000',
  bankName: 'Test Bank',
  bankBic: 'COBADEFFXXX',
} as const;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`refusals the BFF decides itself (${variant.name})`, () => {
    let f: Fixture;
    let ops: TestClient;
    let cardRefId: string;
    /** The four create requests, in `currency` (and on `endpointId` when given). */
    let creates: (
      currency: string,
      endpointId?: string,
    ) => [client: TestClient, path: string, body: Record<string, unknown>][];

    beforeAll(async () => {
      f = await startFixtureWithEndpoints(variant, [
        { kind: 'endpoint', id: '1001', currency: 'EUR' },
        { kind: 'endpoint', id: '1002', currency: 'USD' },
        // the sandbox's group 2001 holds 1001 and 1002
        { kind: 'group', id: '2001', currencies: ['EUR', 'USD'] },
      ]);
      ops = await f.bff.userWithRoles(['ops']);
      const { tx } = await learnedOrder(f, 'sale', '10.00');
      const ref = OperationResultSchema.parse(
        (await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {})).json,
      ).transaction.cardRefId;
      if (ref === null) throw new Error('no card reference');
      cardRefId = ref;
      creates = (currency, endpointId) => {
        const on = endpointId === undefined ? {} : { endpointId };
        return [
          [
            f.finance,
            '/api/rebills',
            { cardRefId, amount: '5.00', currency, orderDesc: 'top-up', reason: 'asked', ...on },
          ],
          [
            f.finance,
            '/api/subscriptions',
            {
              cardRefId,
              amount: '5.00',
              currency,
              period: 'month',
              interval: 1,
              orderDesc: 'plan',
              email: 'subscriber@example.com',
              ...on,
            },
          ],
          [
            f.finance,
            '/api/payment-links',
            {
              kind: 'sale-form',
              amount: '5.00',
              currency,
              orderDesc: 'Invoice 7',
              customer: TEST_CUSTOMER,
              ...on,
            },
          ],
          [
            ops,
            '/api/payouts',
            { destination: BANK, amount: '5.00', currency, orderDesc: 'refund', ...on },
          ],
        ];
      };
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('when no configured endpoint or endpoint group takes the currency, then each create answers 400 naming currency, writes nothing, sends nothing, and the refusal is audited', async () => {
      const auditBefore = (await f.bff.db.k.selectFrom('audit_log').select('seq').execute()).length;
      await expectNothingDone(f, async () => {
        for (const [client, path, body] of [...creates('GBP'), ...creates('GBP', '2001')]) {
          const res = await post(client, path, body);
          expect(res.status, `${path} ${res.text}`).toBe(400);
          const fields = (res.json as ErrorEnvelope).error.details?.fields;
          expect(fields, path).toEqual([
            expect.objectContaining({ path: 'currency', rule: 'endpoint_currency' }),
          ]);
          expect(fields?.[0]?.message, path).toMatch(
            body.endpointId === undefined
              ? /^no configured endpoint takes GBP/
              : /^endpoint group 2001 takes EUR, USD$/,
          );
        }
      });
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .select(['action', 'outcome', 'error_code'])
        .where('seq', '>', auditBefore)
        .where('action', 'in', [
          'transaction.rebill',
          'subscription.create',
          'payment_link.create',
          'payout.prepare',
        ])
        .execute();
      expect(audit).toHaveLength(8);
      for (const row of audit)
        expect(row).toMatchObject({ outcome: 'refused', error_code: 'VALIDATION_FAILED' });
    });

    it('when the currency is not an ISO 4217 code at all, then each create answers 400 naming currency, writes nothing and sends nothing', async () => {
      await expectNothingDone(f, async () => {
        for (const code of ['ZZZ', 'XXX']) {
          for (const [client, path, body] of creates(code)) {
            const res = await post(client, path, body);
            expect(res.status, `${path} ${code}`).toBe(400);
            expect((res.json as ErrorEnvelope).error.details?.fields, path).toEqual([
              expect.objectContaining({
                path: 'currency',
                message: 'must be an ISO 4217 currency code (e.g. EUR)',
              }),
            ]);
          }
        }
      });
    });

    it('when a payout card has expired (by the BFF clock, 2026-11-21), then 400 names its expiry field and nothing is written or sent; a card valid to the end of this month is taken; a year over 20 years ahead is refused', async () => {
      await expectNothingDone(f, async () => {
        for (const [expiryMonth, expiryYear, field] of [
          ['12', '2025', 'destination.expiryYear'],
          ['10', '2026', 'destination.expiryMonth'],
        ] as const) {
          for (const mode of ['two-step', 'single'] as const) {
            const res = await post(ops, '/api/payouts', {
              destination: { ...CARD, expiryMonth, expiryYear },
              amount: '5.00',
              currency: 'EUR',
              orderDesc: 'refund',
              mode,
            });
            expect(res.status, `${expiryMonth}/${expiryYear} ${mode}`).toBe(400);
            expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
              {
                path: field,
                rule: 'card_expired',
                message: `the card expired at the end of ${expiryMonth}/${expiryYear}`,
              },
            ]);
          }
        }
      });
      // A year no card has (a slip): refused at the year, 20 years ahead at the latest.
      await expectNothingDone(f, async () => {
        const res = await post(ops, '/api/payouts', {
          destination: { ...CARD, expiryMonth: '12', expiryYear: '9999' },
          amount: '5.00',
          currency: 'EUR',
          orderDesc: 'refund',
          mode: 'single',
        });
        expect(res.status, res.text).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
          {
            path: 'destination.expiryYear',
            rule: 'card_expiry_too_far',
            message: 'must be at most 20 years ahead (2046 at the latest)',
          },
        ]);
      });
      // Held until approved (single mode): nothing is sent now, so the sandbox's clock cannot differ.
      const held = await post(ops, '/api/payouts', {
        destination: { ...CARD, expiryMonth: '11', expiryYear: '2026' },
        amount: '5.00',
        currency: 'EUR',
        orderDesc: 'refund',
        mode: 'single',
      });
      expect(held.status, held.text).toBe(200);
      expect(PayoutResultSchema.parse(held.json).payout.state).toBe('pending_approval');
    });
  });
}
