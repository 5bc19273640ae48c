import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router';
import type { FactRow } from './amounts-panel';

/** The client_orderid Paydesk gives a payout it prepares (`pd-payout-<payout id>`). */
const PAYOUT_ORDER = /^pd-payout-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * The Facts row naming what in Paydesk created this order, when its client_orderid says: a payout
 * order leads to the payout's page (who prepared and approved it, every gateway exchange).
 */
export function orderOriginRows(clientOrderId: string): FactRow[] {
  const payoutId = PAYOUT_ORDER.exec(clientOrderId)?.[1];
  if (payoutId === undefined) return [];
  return [
    [
      'Prepared in Paydesk',
      <Link key="origin" component={RouterLink} to={`/payouts/${payoutId}`}>
        the payout, its approvals and timeline
      </Link>,
    ],
  ];
}
