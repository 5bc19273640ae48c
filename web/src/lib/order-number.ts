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

/** An order as the words below name it; `stage` tells a rebill the gateway never made. */
export interface NamedOrder {
  orderid: string;
  clientOrderId: string;
  stage?: string | null;
}

/**
 * Whether the gateway never made the order: a rebill whose request it refused, or that Paydesk
 * learned it never received (stage `not_created`, its orderid still the placeholder). Its number
 * will never come, so "not known yet" would promise one (QA B6).
 */
export function isNeverMade(order: NamedOrder): boolean {
  return isPendingOrderId(order.orderid) && order.stage === 'not_created';
}

/** What stands for the number of an order the gateway never made. */
const NEVER_MADE_NUMBER = 'none: the gateway did not make the order';

/** The gateway's order number, or null while it is not known yet (a placeholder). */
export function knownOrderId(orderid: string): string | null {
  return isPendingOrderId(orderid) ? null : orderid;
}

/**
 * The order as named in a sentence or a title: `order 1000350`, or, while the gateway has not
 * named it, `order (number not known yet; client order rb-…)`, or, when it never made it,
 * `order not made by the gateway (client order rb-…)`. `capital` starts it with "Order".
 */
export function orderName(
  order: NamedOrder,
  { capital = false }: { capital?: boolean } = {},
): string {
  const word = capital ? 'Order' : 'order';
  const known = knownOrderId(order.orderid);
  if (known !== null) return `${word} ${known}`;
  return isNeverMade(order)
    ? `${word} not made by the gateway (client order ${order.clientOrderId})`
    : `${word} (number not known yet; client order ${order.clientOrderId})`;
}

/**
 * What an "Orderid" cell or field shows: the number, or `order number not known yet` (with the
 * client order id to quote meanwhile), or `none: the gateway did not make the order`.
 */
export function orderNumberText(order: NamedOrder): string {
  const known = knownOrderId(order.orderid);
  if (known !== null) return known;
  return isNeverMade(order)
    ? NEVER_MADE_NUMBER
    : `order number not known yet (client order ${order.clientOrderId})`;
}

/** An order page's "Orderid" fact while the gateway has named no order (beside its client order id). */
export function missingNumberFact(order: NamedOrder): string {
  return isNeverMade(order)
    ? NEVER_MADE_NUMBER
    : 'not known yet: the gateway has not named the order';
}

/** A title or link for an order with no number: `Order not made` or `Order number not known yet`. */
export function missingNumberTitle(order: NamedOrder): string {
  return isNeverMade(order) ? 'Order not made' : 'Order number not known yet';
}
