// The payouts a gateway order belongs to, for the transactions search and the lookup: a payout
// awaiting approval already has its order (payout-check) but is no transaction until its money is
// sent. The payouts module answers; app.ts attaches it (`payments.payoutOrders.attach`), since it
// is built after the payments core. Unattached (the payments core alone), no order is a payout's.
// Likewise the payment links (`attachLinks`): a sent link's order is no transaction until Paydesk
// learns it, and the lookup needs the link's client_orderid to ask the gateway for it.
import { PAYOUT_ROUTES } from '../payouts/route-rules.js';
import type { PayoutOrder, Role, TransactionPayout } from '@paydesk/shared/api';

export interface PayoutOrderSource {
  /** the payouts whose orderid or client_orderid is `term`, exactly (PayoutsService.ordersNamed) */
  ordersNamed(term: string): Promise<PayoutOrder[]>;
  /**
   * the payout whose gateway order this is, with who prepared and approved it
   * (PayoutsService.payoutOfOrder); a source without it names none
   */
  payoutOfOrder?(order: {
    orderid: string;
    clientOrderId: string;
    endpointId: string;
  }): Promise<TransactionPayout | null>;
}

/** A payment link's gateway order, as the lookup asks the gateway for it. */
export interface LinkOrder {
  /** the link's id (`/payment-links/:id`) */
  id: string;
  endpointId: string;
  orderid: string;
  clientOrderId: string;
}

export interface LinkOrderSource {
  /** the payment link whose gateway order has this orderid (PaymentLinksService.linkOfOrder) */
  linkOfOrder(orderid: string): Promise<LinkOrder | null>;
}

export class PayoutOrders {
  #source: PayoutOrderSource | null = null;
  #links: LinkOrderSource | null = null;

  attach(source: PayoutOrderSource): void {
    this.#source = source;
  }

  attachLinks(source: LinkOrderSource): void {
    this.#links = source;
  }

  async linkOfOrder(orderid: string): Promise<LinkOrder | null> {
    return (await this.#links?.linkOfOrder(orderid)) ?? null;
  }

  named(term: string): Promise<PayoutOrder[]> {
    return this.#source === null ? Promise.resolve([]) : this.#source.ordersNamed(term);
  }

  /** The payout Paydesk prepared whose order this is (an order's detail), or null. */
  async ofOrder(order: {
    orderid: string;
    clientOrderId: string;
    endpointId: string;
  }): Promise<TransactionPayout | null> {
    return (await this.#source?.payoutOfOrder?.(order)) ?? null;
  }
}

/**
 * Whether a staff member with `roles` may be led to a payout: they may open it (`GET
 * /api/payouts/:id`, the payouts route table's rule), so the transactions' readers and the lookup's
 * users see a payout only where the payouts screen would show it to them.
 */
export function mayReadPayouts(roles: readonly Role[]): boolean {
  const readers: readonly Role[] = PAYOUT_ROUTES['GET /api/payouts/:id'].access;
  return roles.some((role) => readers.includes(role));
}
