import Typography from '@mui/material/Typography';
import type { PaymentLink } from '@paydesk/shared/api';
import type { Decision } from '../../../components/decision-buttons';
import { DecisionDialog } from '../../../components/decision-dialog';
import { LargeAmountApprovalWarning } from '../../../components/large-amount-confirm';
import { SpokenMoney } from '../../../components/spoken-money';
import { formatMoney } from '../../../lib/format';
import { Facts } from '../../transactions/components/amounts-panel';
import { approveLink, linkKeys, rejectLink } from '../api/payment-links';
import { linkDecisionSeverity, withDecisionMessage } from './link-decision-outcome';
import { KIND_LABELS } from './link-labels';
import { LinkResultDialog } from './link-result-dialog';

/**
 * Approve (send to the gateway and release its page) or reject a payout-form another ops user
 * created, or withdraw (reject) one's own. The Idempotency-Key is created when the dialog opens.
 */
export default function LinkDecisionDialog({
  link,
  decision,
  own,
  onClose,
}: {
  link: PaymentLink;
  decision: Decision;
  /** the signed-in user created it: rejecting is withdrawing */
  own: boolean;
  onClose: () => void;
}) {
  const amount =
    link.amount !== null && link.currency !== null ? formatMoney(link.amount, link.currency) : '—';
  const linkFacts = (
    <Facts
      rows={[
        ['Kind', KIND_LABELS[link.kind]],
        ['Amount', <strong key="a">{amount}</strong>],
        ['Description', link.orderDesc],
        // where the payee is sent after the form: the approver sees it before releasing it
        ['Return address', link.returnUrl ?? '—'],
        ['Created by', link.createdBy.email],
        ['Client order id', link.clientOrderId],
      ]}
    />
  );
  return (
    <DecisionDialog
      id={link.id}
      decision={decision}
      title={
        decision === 'approve'
          ? 'Approve the payout form'
          : own
            ? 'Withdraw your payout form'
            : 'Reject the payout form'
      }
      question={
        link.amount !== null && link.currency !== null ? (
          <Typography variant="h6" component="p">
            Release a payout form for <SpokenMoney amount={link.amount} currency={link.currency} />?
          </Typography>
        ) : null
      }
      facts={
        <>
          {decision === 'approve' && link.amount !== null && link.currency !== null ? (
            <LargeAmountApprovalWarning
              amount={link.amount}
              currency={link.currency}
              preparer="The ops user who created it"
            />
          ) : null}
          {linkFacts}
        </>
      }
      decidedFacts={linkFacts}
      approveNote="Approving releases the payee’s payout form: the gateway makes its page, the payee enters where the money goes there, and it leaves the account."
      approveLabel={`Approve ${amount}`}
      reasonHint={
        own
          ? 'Audited. Nothing is sent to the gateway; it leaves the approval queue.'
          : 'Shown to the ops user who created it, and audited.'
      }
      rejectLabel={own ? 'Withdraw' : 'Reject'}
      lostReplyNote={
        decision === 'approve' ? ', and Paydesk never sends a payout form twice' : undefined
      }
      // Said in its own colour and words: green only for a released page or a rejection as asked.
      approve={async (key) => withDecisionMessage(await approveLink(link.id, key))}
      reject={async (body, key) => withDecisionMessage(await rejectLink(link.id, body, key))}
      severity={(result) => linkDecisionSeverity(result)}
      queryKey={linkKeys.all}
      // The released page address, to copy and send, beside the message that speaks of it.
      done={(result) =>
        result.link.redirectUrl === null ? null : (
          <LinkResultDialog result={result} onClose={onClose} />
        )
      }
      onClose={onClose}
    />
  );
}
