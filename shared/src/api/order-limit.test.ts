import { describe, expect, it } from 'vitest';
import {
  ORDER_AMOUNT_LIMIT_FIELD,
  ORDER_AMOUNT_LIMIT_RULE,
  OrderAmountLimitsSchema,
  isAboveOrderAmountLimit,
  orderAmountLimit,
  orderAmountLimitRefusal,
  orderAmountLimitRule,
  readableAmount,
  type OrderAmountLimits,
} from './order-limit.js';
import { SessionSettingsSchema } from './session.js';

const limits: OrderAmountLimits = {
  default: '1000000.00',
  currencies: { EUR: '500000.00', USD: '750000.50' },
};

describe('order amount limits', () => {
  it('when a currency has its own limit, then it applies; otherwise the default; null default: none', () => {
    expect(orderAmountLimit(limits, 'EUR')).toBe('500000.00');
    expect(orderAmountLimit(limits, 'usd')).toBe('750000.50');
    expect(orderAmountLimit(limits, 'GBP')).toBe('1000000.00');
    expect(orderAmountLimit({ ...limits, default: null }, 'GBP')).toBeNull();
    expect(orderAmountLimit(undefined, 'EUR')).toBeNull();
  });

  it('when an amount is strictly above its limit, then it is refused; at the limit or below, not', () => {
    expect(isAboveOrderAmountLimit(limits, '500000.00', 'EUR')).toBe(false);
    expect(isAboveOrderAmountLimit(limits, '500000', 'eur')).toBe(false);
    expect(isAboveOrderAmountLimit(limits, '500000.01', 'EUR')).toBe(true);
    expect(isAboveOrderAmountLimit(limits, '750000.51', 'USD')).toBe(true);
    expect(isAboveOrderAmountLimit(limits, '1000000.00', 'GBP')).toBe(false);
    expect(isAboveOrderAmountLimit(limits, ' 1000000.01 ', 'GBP')).toBe(true);
    // The amount that went through in QA: one trillion.
    expect(isAboveOrderAmountLimit(limits, '1000000000000.00', 'GBP')).toBe(true);
    // Nothing known (an older BFF), no limit, or not an amount: not this rule's to refuse.
    expect(isAboveOrderAmountLimit(undefined, '1000000000000.00', 'EUR')).toBe(false);
    expect(isAboveOrderAmountLimit({ default: null, currencies: {} }, '99999999', 'EUR')).toBe(
      false,
    );
    for (const bad of ['', 'abc', '-6000000', '6000000.001', '1e9', '0', '12,50'])
      expect(isAboveOrderAmountLimit(limits, bad, 'GBP')).toBe(false);
  });

  it('when an amount is refused, then the rule names the currency and the limit grouped by thousands, and says an administrator can raise it, never the setting’s name', () => {
    expect(ORDER_AMOUNT_LIMIT_FIELD).toBe('amount');
    expect(ORDER_AMOUNT_LIMIT_RULE).toBe('too_big');
    expect(orderAmountLimitRule('1000000.00', 'eur')).toBe(
      'at most EUR 1,000,000.00 per order; an administrator can raise the limit',
    );
    expect(orderAmountLimitRefusal(limits, '500000.01', 'EUR')).toBe(
      'at most EUR 500,000.00 per order; an administrator can raise the limit',
    );
    expect(orderAmountLimitRefusal(limits, '500000.00', 'EUR')).toBeUndefined();
    expect(orderAmountLimitRule('500.00', 'USD')).not.toMatch(/ORDER_AMOUNT_LIMIT|admin\b/);
    expect(readableAmount(999n)).toBe('9.99');
    expect(readableAmount(123456789012345n)).toBe('1,234,567,890,123.45');
  });

  it('when limits travel in the session, then they parse; an older BFF says none', () => {
    expect(OrderAmountLimitsSchema.parse(limits)).toEqual(limits);
    expect(
      OrderAmountLimitsSchema.safeParse({ default: null, currencies: { eur: '1.00' } }).success,
    ).toBe(false);
    expect(
      SessionSettingsSchema.parse({ payoutHoldMaxAgeMs: 60_000 }).orderAmountLimit,
    ).toBeUndefined();
    expect(
      SessionSettingsSchema.parse({ payoutHoldMaxAgeMs: 60_000, orderAmountLimit: limits })
        .orderAmountLimit,
    ).toEqual(limits);
  });
});
