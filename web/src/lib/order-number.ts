// The gateway's order number as staff read it. An order Paydesk creates itself (a rebill) has no
// gateway orderid until the gateway's first reply or status names one: until then the BFF stores
// a placeholder, `pending:<client_orderid>` (bff/src/payments/rebills.ts PENDING_ORDERID_PREFIX),
// which is Paydesk's bookkeeping and never an order number to show, search for or quote.

/** The BFF's placeholder prefix for an orderid the gateway has not named yet. */
export const PENDING_ORDERID_PREFIX = 'pending:';

/** Whether `orderid` is the BFF's placeholder, not a number the gateway gave. */
export function isPendingOrderId(orderid: string): boolean {
  return orderid.startsWith(PENDING_ORDERID_PREFIX);
}

/** The gateway's order number, or null while it is not known yet (a placeholder). */
export function knownOrderId(orderid: string): string | null {
  return isPendingOrderId(orderid) ? null : orderid;
}

/**
 * The order as named in a sentence or a title: `order 1000350`, or, while the gateway has not
 * named it, `order (number not known yet; client order rb-…)`. `capital` starts it with "Order".
 */
export function orderName(
  order: { orderid: string; clientOrderId: string },
  { capital = false }: { capital?: boolean } = {},
): string {
  const word = capital ? 'Order' : 'order';
  const known = knownOrderId(order.orderid);
  return known === null
    ? `${word} (number not known yet; client order ${order.clientOrderId})`
    : `${word} ${known}`;
}

/**
 * What an "Orderid" cell or field shows: the number, or `order number not known yet` (with the
 * client order id to quote meanwhile).
 */
export function orderNumberText(order: { orderid: string; clientOrderId: string }): string {
  const known = knownOrderId(order.orderid);
  return known ?? `order number not known yet (client order ${order.clientOrderId})`;
}
