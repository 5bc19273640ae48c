import Alert from '@mui/material/Alert';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import { PAYOUT_SENT_STATES, type PayoutOrder } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { formatMoney } from '../../../lib/format';
import { PAYOUT_STATE_LOOK } from '../../payouts/components/payout-state-chip';

/**
 * An order support searched for or looked up that is a payout's (the BFF's `payouts` of a search,
 * or its lookup reply): a payout awaiting approval has its gateway order but is no transaction
 * until it is sent, so the payout is where to go. `term`: what support typed (its orderid or
 * client_orderid); `onOpen`: before the payout opens (a dialog closes).
 */
export function PayoutOrderNotice({
  term,
  payouts,
  onOpen,
}: {
  term: string;
  payouts: readonly PayoutOrder[];
  onOpen?: () => void;
}) {
  if (payouts.length === 0) return null;
  return (
    <Stack spacing={1}>
      {payouts.map((payout) => (
        <Alert key={payout.id} severity="info" sx={{ textAlign: 'left' }}>
          Order “{term}” is a payout ({PAYOUT_STATE_LOOK[payout.state].label.toLowerCase()},{' '}
          {formatMoney(payout.amount, payout.currency)}):{' '}
          <Link
            component={RouterLink}
            to={`/payouts/${encodeURIComponent(payout.id)}`}
            onClick={onOpen}
          >
            open the payout
          </Link>
          .
          {PAYOUT_SENT_STATES.has(payout.state)
            ? null
            : ' Its order becomes a transaction only once the payout is sent.'}
        </Alert>
      ))}
    </Stack>
  );
}
