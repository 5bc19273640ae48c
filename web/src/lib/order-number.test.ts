import { describe, expect, it } from 'vitest';
import {
  isNeverMade,
  isPendingOrderId,
  knownOrderId,
  missingNumberTitle,
  orderName,
  orderNumberText,
} from './order-number';

const pending = { orderid: 'pending:rb-37d5', clientOrderId: 'rb-37d5' };
const known = { orderid: '1000350', clientOrderId: 'rb-37d5' };

describe('order numbers as staff read them', () => {
  it('when the orderid is the BFF’s placeholder, then it is never shown; the client order id is', () => {
    expect(isPendingOrderId(pending.orderid)).toBe(true);
    expect(knownOrderId(pending.orderid)).toBeNull();
    expect(orderName(pending)).toBe('order (number not known yet; client order rb-37d5)');
    expect(orderName(pending, { capital: true })).toBe(
      'Order (number not known yet; client order rb-37d5)',
    );
    expect(orderNumberText(pending)).toBe('order number not known yet (client order rb-37d5)');
    for (const text of [orderName(pending), orderNumberText(pending)])
      expect(text).not.toContain('pending:');
  });

  it('when the gateway named the order, then its number is shown', () => {
    expect(isPendingOrderId(known.orderid)).toBe(false);
    expect(knownOrderId(known.orderid)).toBe('1000350');
    expect(orderName(known)).toBe('order 1000350');
    expect(orderName(known, { capital: true })).toBe('Order 1000350');
    expect(orderNumberText(known)).toBe('1000350');
  });

  it('when the gateway never made the order (stage not_created), then no number is promised', () => {
    const never = { ...pending, stage: 'not_created' };
    expect(isNeverMade(never)).toBe(true);
    expect(isNeverMade(pending)).toBe(false);
    expect(isNeverMade({ ...known, stage: 'not_created' })).toBe(false);
    expect(orderName(never)).toBe('order not made by the gateway (client order rb-37d5)');
    expect(orderNumberText(never)).toBe('none: the gateway did not make the order');
    expect(missingNumberTitle(never)).toBe('Order not made');
    expect(missingNumberTitle(pending)).toBe('Order number not known yet');
  });
});
