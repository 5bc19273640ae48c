// Who is led from a transactions search or a lookup to a payout, and what the payments core alone
// (no payouts module attached) says of a payout's order. The HTTP behaviour, against the sandbox on
// both databases, is in payouts/order-search.test.ts.
import { describe, expect, it } from 'vitest';
import { ROLES, type PayoutOrder, type Role } from '@paydesk/shared/api';
import { mayReadPayouts, PayoutOrders } from './payout-orders.js';
import { PAYMENT_ROUTES } from './route-rules.js';

const PAYOUT: PayoutOrder = {
  id: '10000000-0000-4000-8000-000000000001',
  state: 'pending_approval',
  amount: '12.00',
  currency: 'EUR',
  endpointId: '1001',
  orderid: '1000001',
  clientOrderId: 'pd-payout-10000000-0000-4000-8000-000000000001',
};

describe('payout orders in the transactions search and the lookup', () => {
  it('when a role may open payouts, then it is led to them; admin alone (no payouts screen) is not', () => {
    expect(ROLES.filter((role) => mayReadPayouts([role]))).toEqual([
      'support',
      'finance',
      'ops',
      'auditor',
    ]);
    expect(mayReadPayouts(['admin', 'auditor'])).toBe(true);
    expect(mayReadPayouts([])).toBe(false);
  });

  it('when a role may search the transactions or look orders up, then it may open the payout it is led to (the hint never names one it could not open)', () => {
    for (const key of ['GET /api/transactions', 'POST /api/transactions/lookup'] as const) {
      const roles: readonly Role[] = PAYMENT_ROUTES[key].access;
      for (const role of roles) expect(mayReadPayouts([role]), `${key} ${role}`).toBe(true);
    }
  });

  it('when no payouts module is attached (the payments core alone), then no order is a payout’s; once attached, its answer is passed on', async () => {
    const orders = new PayoutOrders();
    expect(await orders.named(PAYOUT.clientOrderId)).toEqual([]);
    const asked: string[] = [];
    orders.attach({
      ordersNamed: (term) => {
        asked.push(term);
        return Promise.resolve(term === PAYOUT.orderid ? [PAYOUT] : []);
      },
    });
    expect(await orders.named('1000001')).toEqual([PAYOUT]);
    expect(await orders.named('shop-1')).toEqual([]);
    expect(asked).toEqual(['1000001', 'shop-1']);
  });
});
