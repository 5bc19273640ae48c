import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import type { PaymentLink } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import {
  DecisionButtons,
  OwnPendingDecision,
  type Decision,
} from '../../../components/decision-buttons';
import { formatMoney } from '../../../lib/format';
import { shortErrorText } from '../../payouts/api/unanswered-words';
import {
  KIND_LABELS,
  linkOrderStateWords,
  pageHolders,
  pageUsedUp,
  pageWithheld,
} from './link-labels';
import { CompactPageAddress } from './page-address';

/** Who decided, as the row's "by …" says it: "you" for one's own decision (`StaffEmail`). */
function decider(decidedBy: PaymentLink['decidedBy'], myId: string): string {
  if (decidedBy === null) return 'ops';
  return decidedBy.id === myId ? 'you' : decidedBy.email;
}

/**
 * What the signed-in user may do with a link, or what to know about it: the page address once
 * sent (until the page is used: then the order it made), Approve / Reject for another's
 * payout-form, Withdraw for their own, else why it has none.
 */
export function LinkDecision({
  link,
  myId,
  isOps,
  onDecide,
}: {
  link: PaymentLink;
  myId: string;
  isOps: boolean;
  onDecide: (decision: Decision) => void;
}) {
  // Once the customer (payee) used the page its address is no longer to share: the row says what
  // came of it instead, the order it made.
  if (link.order !== null && pageUsedUp(link)) {
    return (
      <Typography variant="caption" component="div" color="text.secondary" sx={{ maxWidth: 240 }}>
        Page used: order{' '}
        <Link
          component={RouterLink}
          to={`/transactions/${encodeURIComponent(link.order.transactionId)}`}
        >
          {link.order.orderid}
        </Link>{' '}
        ({linkOrderStateWords(link.kind, link.order)})
      </Typography>
    );
  }
  // Only a sent link's page is to share (a rejected, withdrawn or lapsed one never had one).
  if (link.redirectUrl !== null && link.state === 'sent') {
    return <CompactPageAddress value={link.redirectUrl} />;
  }
  // canDecide is the BFF's four-eyes view (an ops user other than the creator); the screen agrees.
  const subject = `${KIND_LABELS[link.kind].toLowerCase()}${
    link.amount !== null && link.currency !== null
      ? ` of ${formatMoney(link.amount, link.currency)}`
      : ''
  }: ${link.orderDesc}`;
  if (link.canDecide && isOps) return <DecisionButtons subject={subject} onDecide={onDecide} />;
  if (link.state === 'pending_approval' && link.createdBy.id === myId) {
    // Four eyes: its creator can never approve it, only take it back.
    return (
      <OwnPendingDecision
        subject={subject}
        onWithdraw={() => {
          onDecide('reject');
        }}
      />
    );
  }
  const note =
    link.state === 'pending_approval'
      ? 'Waits for a second ops user'
      : pageWithheld(link) && link.order === null
        ? `Page address only for ${pageHolders(link)}, who send it to the payee`
        : link.rejectReason !== null
          ? `${link.withdrawn ? 'Withdrawn' : 'Rejected'} by ${decider(link.decidedBy, myId)}: ${link.rejectReason}`
          : link.errorMessage !== null || link.unanswered !== null
            ? shortErrorText(link)
            : link.state === 'unknown'
              ? 'The gateway’s reply was lost; the page address is not known.'
              : link.state === 'expired'
                ? 'Lapsed before anyone approved it; nothing was sent.'
                : null;
  return note === null ? null : (
    <Typography variant="caption" component="div" color="text.secondary" sx={{ maxWidth: 240 }}>
      {note}
    </Typography>
  );
}
