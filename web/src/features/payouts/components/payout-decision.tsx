import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Payout, PayoutState } from '@paydesk/shared/api';
import {
  DecisionButtons,
  OwnPendingDecision,
  type Decision,
} from '../../../components/decision-buttons';
import { EmailText } from '../../../components/email-text';
import { StaffEmail } from '../../../components/staff-email';
import { formatMoney } from '../../../lib/format';

/**
 * The final states of an approved payout in which its money did not go out: it lapsed at the
 * gateway before payout-pay, the gateway refused it, or Paydesk judged it not applied.
 */
const NOT_PAID_STATES: ReadonlySet<PayoutState> = new Set<PayoutState>([
  'expired',
  'failed',
  'declined',
  'error',
  'filtered',
]);

/**
 * What the signed-in user may do about a payout, or who decided it: Approve / Reject for another's
 * pending payout, Withdraw for their own, Pay again (with `onPayAgain`) for one whose payment the
 * gateway did not make that they may pay again (`canPayAgain`), else the decision taken.
 */
export function PayoutDecision({
  payout,
  myId,
  onDecide,
  onPayAgain,
}: {
  payout: Payout;
  myId: string;
  onDecide: (decision: Decision) => void;
  /** opens the dialog that pays it again; without it, Pay again is not offered */
  onPayAgain?: () => void;
}) {
  const subject = `payout of ${formatMoney(payout.amount, payout.currency)} to ${payout.destination.masked}`;
  if (payout.canDecide) return <DecisionButtons subject={subject} onDecide={onDecide} />;
  if (payout.state === 'pending_approval' && payout.preparedBy.id === myId) {
    // Four eyes: the one who prepared it can never approve it, only take it back.
    return (
      <OwnPendingDecision
        subject={subject}
        onWithdraw={() => {
          onDecide('reject');
        }}
      />
    );
  }
  // The decider's e-mail may wrap after its @, so that it does not widen the table; one's own
  // decision says "you".
  if (payout.rejectReason) {
    return (
      <Typography variant="caption" component="div" color="text.secondary">
        {payout.withdrawn ? 'Withdrawn' : 'Rejected'} by{' '}
        {payout.decidedBy ? <StaffEmail user={payout.decidedBy} /> : 'ops'}: {payout.rejectReason}
      </Typography>
    );
  }
  if (payout.decidedBy) {
    // Beside a state that says no money went out (Expired, Failed, Declined…), a bare "Approved
    // by" would read as if it did.
    const caption = (
      <Typography variant="caption" component="div" color="text.secondary">
        {payout.paidAgain ? (
          // Paid again: the decider is who paid it again; the first approval's payment was not made.
          <>
            Paid again by <StaffEmail user={payout.decidedBy} /> · first approved by{' '}
            <EmailText value={payout.paidAgain.firstApprovedBy.email} />
          </>
        ) : (
          <>
            Approved by <StaffEmail user={payout.decidedBy} />
          </>
        )}
        {NOT_PAID_STATES.has(payout.state) ? ' · not paid' : null}
      </Typography>
    );
    if (payout.canPayAgain !== true || onPayAgain === undefined) return caption;
    return (
      <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
        {caption}
        <Button
          size="small"
          variant="contained"
          aria-label={`Pay again ${subject}`}
          onClick={onPayAgain}
        >
          Pay again
        </Button>
      </Stack>
    );
  }
  return null;
}
