import { describe, expect, it } from 'vitest';
import {
  LARGE_AMOUNT_FIELD,
  LARGE_AMOUNT_RULE,
  LargeAmountSettingsSchema,
  largeAmountThreshold,
  needsLargeAmountConfirmation,
  type LargeAmountSettings,
} from './large-amount.js';
import { RebillBodySchema, SubscriptionCreateBodySchema } from './payments.js';
import { PaymentLinkCreateBodySchema, PayoutCreateBodySchema } from './payouts.js';
import { SessionSettingsSchema } from './session.js';

const settings: LargeAmountSettings = {
  default: '10000.00',
  currencies: { EUR: '5000.00', USD: '12000.50' },
};

describe('large amounts', () => {
  it('when a currency has its own threshold, then it applies; otherwise the default; null default: none', () => {
    expect(largeAmountThreshold(settings, 'EUR')).toBe('5000.00');
    expect(largeAmountThreshold(settings, 'usd')).toBe('12000.50');
    expect(largeAmountThreshold(settings, 'GBP')).toBe('10000.00');
    expect(largeAmountThreshold({ ...settings, default: null }, 'GBP')).toBeNull();
    expect(largeAmountThreshold({ ...settings, default: null }, 'EUR')).toBe('5000.00');
    expect(largeAmountThreshold(undefined, 'EUR')).toBeNull();
  });

  it('when an amount is strictly above its threshold, then it needs confirming; at the threshold or below, not', () => {
    expect(needsLargeAmountConfirmation(settings, '5000.00', 'EUR')).toBe(false);
    expect(needsLargeAmountConfirmation(settings, '5000', 'EUR')).toBe(false);
    expect(needsLargeAmountConfirmation(settings, '5000.01', 'EUR')).toBe(true);
    expect(needsLargeAmountConfirmation(settings, '5000.1', 'eur')).toBe(true);
    expect(needsLargeAmountConfirmation(settings, '12000.50', 'USD')).toBe(false);
    expect(needsLargeAmountConfirmation(settings, '12000.51', 'USD')).toBe(true);
    expect(needsLargeAmountConfirmation(settings, '10000.00', 'GBP')).toBe(false);
    expect(needsLargeAmountConfirmation(settings, '10000.01', 'GBP')).toBe(true);
    // Up to the largest amount, compared in minor units.
    expect(
      needsLargeAmountConfirmation(
        { default: '9999999999999.98', currencies: {} },
        '9999999999999.99',
        'EUR',
      ),
    ).toBe(true);
    expect(needsLargeAmountConfirmation(settings, ' 5000.01 ', 'EUR')).toBe(true);
  });

  it('when nothing is configured or the text is not an amount, then no confirmation is asked (the amount rule refuses it)', () => {
    expect(needsLargeAmountConfirmation(undefined, '99999999.00', 'EUR')).toBe(false);
    expect(
      needsLargeAmountConfirmation({ default: null, currencies: {} }, '99999999.00', 'EUR'),
    ).toBe(false);
    for (const bad of ['', 'abc', '-6000', '6000.001', '1e9', '0'])
      expect(needsLargeAmountConfirmation(settings, bad, 'EUR')).toBe(false);
  });

  it('when settings travel in the session, then they parse; a lower-case code or a malformed amount does not', () => {
    expect(LargeAmountSettingsSchema.parse(settings)).toEqual(settings);
    expect(LargeAmountSettingsSchema.parse({ default: null, currencies: {} })).toEqual({
      default: null,
      currencies: {},
    });
    expect(
      LargeAmountSettingsSchema.safeParse({ default: null, currencies: { eur: '1.00' } }).success,
    ).toBe(false);
    expect(LargeAmountSettingsSchema.safeParse({ default: '1.005', currencies: {} }).success).toBe(
      false,
    );
    expect(SessionSettingsSchema.parse({ payoutHoldMaxAgeMs: 60_000 }).largeAmount).toBeUndefined();
    expect(
      SessionSettingsSchema.parse({ payoutHoldMaxAgeMs: 60_000, largeAmount: settings })
        .largeAmount,
    ).toEqual(settings);
  });

  it('when an order body carries confirmLargeAmount, then only true is taken', () => {
    expect(LARGE_AMOUNT_FIELD).toBe('confirmLargeAmount');
    expect(LARGE_AMOUNT_RULE).toBe('large_amount');
    const rebill = {
      cardRefId: 'ref-1',
      amount: '12345.00',
      currency: 'EUR',
      orderDesc: 'Large rebill',
      reason: 'Customer asked for it',
    };
    const subscription = {
      cardRefId: 'ref-1',
      amount: '12345.00',
      currency: 'EUR',
      period: 'month',
      interval: 1,
      orderDesc: 'Large plan',
      email: 'payer@example.com',
    };
    const payout = {
      destination: { kind: 'ewallet', ewalletType: 'wallet', ewalletId: 'w-1' },
      amount: '12345.00',
      currency: 'EUR',
      orderDesc: 'Large payout',
    };
    const link = { kind: 'payout-form', amount: '12345.00', currency: 'EUR', orderDesc: 'Form' };
    const schemas = [
      [RebillBodySchema, rebill],
      [SubscriptionCreateBodySchema, subscription],
      [PayoutCreateBodySchema, payout],
      [PaymentLinkCreateBodySchema, link],
    ] as const;
    for (const [schema, body] of schemas) {
      expect(schema.safeParse(body).success, JSON.stringify(body)).toBe(true);
      expect(schema.parse({ ...body, confirmLargeAmount: true })).toMatchObject({
        confirmLargeAmount: true,
      });
      for (const wrong of [false, 'true', 1, null]) {
        const result = schema.safeParse({ ...body, confirmLargeAmount: wrong });
        expect(result.success).toBe(false);
        expect(result.error?.issues[0]?.path).toEqual(['confirmLargeAmount']);
      }
    }
  });
});
