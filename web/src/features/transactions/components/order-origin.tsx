import Link from '@mui/material/Link';
import type { TransactionDetail } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import type { FactRow } from './amounts-panel';

const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';

/** The client_orderid Paydesk gives a payout it prepares (`pd-payout-<payout id>`). */
const PAYOUT_ORDER = new RegExp(`^pd-payout-${UUID}$`);

/** The client_orderid Paydesk gives a payment link's order (`pd-link-<link id>`). */
const LINK_ORDER = new RegExp(`^pd-link-${UUID}$`);

/**
 * The Facts row naming what in Paydesk created this order: a payout order leads to the payout's
 * page (who prepared and approved it, every gateway exchange), a payment link's order to the link
 * (who created it, and approved it for a payout form), a subscription's charge to its plan (its
 * schedule and the charges it made; QA: none of the last two led back).
 */
export function orderOriginRows(
  detail: Pick<TransactionDetail, 'clientOrderId' | 'subscription'>,
): FactRow[] {
  const row = (label: string, to: string, words: string): FactRow[] => [
    [
      label,
      <Link key="origin" component={RouterLink} to={to}>
        {words}
      </Link>,
    ],
  ];
  const payoutId = PAYOUT_ORDER.exec(detail.clientOrderId)?.[1];
  if (payoutId !== undefined)
    return row(
      'Prepared in Paydesk',
      `/payouts/${payoutId}`,
      'the payout, its approvals and timeline',
    );
  const linkId = LINK_ORDER.exec(detail.clientOrderId)?.[1];
  if (linkId !== undefined)
    return row(
      'Created in Paydesk',
      `/payment-links/${linkId}`,
      'the payment link it came through',
    );
  const plan = detail.subscription;
  if (plan !== undefined && plan !== null)
    return row(
      'Subscription',
      `/subscriptions/${encodeURIComponent(plan.id)}`,
      `a charge of “${plan.orderDesc}”`,
    );
  return [];
}
