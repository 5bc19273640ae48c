import { describe, expect, it } from 'vitest';
import { isPayoutOrder, paidOutMinor, payoutMoneyOf } from './payout-money.js';
import type { TransactionStatus, TransactionType } from './payments.js';

const order = (type: TransactionType, status: TransactionStatus, stage: string | null = null) => ({
  type,
  status,
  stage,
});

describe('payout money', () => {
  it('when an order is a payout’s, then it is money out; a charge, a transfer or a verification is not', () => {
    expect(isPayoutOrder('payout')).toBe(true);
    expect(isPayoutOrder('payout-check')).toBe(true);
    for (const type of ['sale', 'preauth', 'rebill', 'transfer', 'account-verification'] as const)
      expect(isPayoutOrder(type)).toBe(false);
  });

  it('when a payout (or a two-step payout listed as paid) was approved, then its amount was paid out', () => {
    expect(payoutMoneyOf(order('payout', 'approved', 'paid'))).toBe('paid');
    expect(paidOutMinor(order('payout', 'approved', 'paid'), 15000n)).toBe(15000n);
  });

  it('when a payout is under way, its outcome unknown, failed, or only checked, then nothing was paid out and the state says which', () => {
    expect(payoutMoneyOf(order('payout', 'processing'))).toBe('pending');
    expect(payoutMoneyOf(order('payout', 'unknown'))).toBe('pending');
    // payout-pay on its way: the order keeps its payout-check's approval, stage processing
    expect(payoutMoneyOf(order('payout-check', 'approved', 'processing'))).toBe('pending');
    for (const status of ['declined', 'error', 'filtered'] as const) {
      expect(payoutMoneyOf(order('payout', status))).toBe('failed');
      expect(payoutMoneyOf(order('payout-check', status, 'registered'))).toBe('failed');
    }
    expect(payoutMoneyOf(order('payout-check', 'approved', 'registered'))).toBe('not_sent');
    expect(payoutMoneyOf(order('payout-check', 'approved', 'expired'))).toBe('not_sent');
    for (const o of [
      order('payout', 'processing'),
      order('payout', 'declined'),
      order('payout-check', 'approved', 'registered'),
    ])
      expect(paidOutMinor(o, 15000n)).toBe(0n);
  });

  it('when an order is not a payout’s, then there is no paid-out amount at all (not a zero)', () => {
    expect(payoutMoneyOf(order('sale', 'approved', 'captured'))).toBeNull();
    expect(paidOutMinor(order('sale', 'approved', 'captured'), 100n)).toBeNull();
  });
});
