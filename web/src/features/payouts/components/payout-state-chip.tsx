import Chip from '@mui/material/Chip';
import type { PayoutState } from '@paydesk/shared/api';

/** Each state's words and colour (the chip's; also said in a sentence, lower case). */
export const PAYOUT_STATE_LOOK: Record<
  PayoutState,
  { label: string; color: 'success' | 'error' | 'warning' | 'info' | 'default' }
> = {
  checking: { label: 'Checking', color: 'info' },
  pending_approval: { label: 'Awaiting approval', color: 'warning' },
  sending: { label: 'Sending', color: 'info' },
  processing: { label: 'Processing', color: 'info' },
  unknown: { label: 'Unknown outcome', color: 'warning' },
  approved: { label: 'Paid', color: 'success' },
  declined: { label: 'Declined', color: 'error' },
  error: { label: 'Error', color: 'error' },
  filtered: { label: 'Filtered', color: 'error' },
  check_declined: { label: 'Check declined', color: 'error' },
  rejected: { label: 'Rejected', color: 'default' },
  expired: { label: 'Expired', color: 'default' },
  failed: { label: 'Failed', color: 'error' },
};

/** `withdrawn`: rejected by its own preparer (the BFF's `withdrawn`), said as such. */
export function PayoutStateChip({
  state,
  withdrawn = false,
}: {
  state: PayoutState;
  withdrawn?: boolean;
}) {
  const look =
    state === 'rejected' && withdrawn
      ? { ...PAYOUT_STATE_LOOK.rejected, label: 'Withdrawn' }
      : PAYOUT_STATE_LOOK[state];
  return <Chip size="small" variant="outlined" color={look.color} label={look.label} />;
}
