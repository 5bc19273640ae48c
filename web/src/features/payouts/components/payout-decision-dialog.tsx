import Alert from '@mui/material/Alert';
import Typography from '@mui/material/Typography';
import type { Payout } from '@paydesk/shared/api';
import { DateTime } from '../../../components/date-time';
import type { Decision } from '../../../components/decision-buttons';
import { DecisionDialog } from '../../../components/decision-dialog';
import { LargeAmountApprovalWarning } from '../../../components/large-amount-confirm';
import { SpokenMoney } from '../../../components/spoken-money';
import { formatMoney } from '../../../lib/format';
import { Facts, type FactRow } from '../../transactions/components/amounts-panel';
import { approvePayout, payoutKeys, rejectPayout } from '../api/payouts';
import { DESTINATION_KIND_LABELS, labelSuffix } from './destination-labels';
import { checkedNote, NOT_CHECKED_NOTE, notCheckedWarning } from './payout-mode';
import { payoutResultSeverity } from './result-severity';
import { SimilarPendingWarning } from './similar-pending';

/**
 * Exactly what an approval pays: for a two-step payout what payout-check checked; for a single one
 * what was prepared, which the gateway has not seen.
 */
export function PayoutFacts({ payout }: { payout: Payout }) {
  const checked = payout.mode === 'two-step';
  const rows: FactRow[] = [
    ['Amount', <strong key="a">{formatMoney(payout.amount, payout.currency)}</strong>],
    [
      'Destination',
      `${DESTINATION_KIND_LABELS[payout.destination.kind]} ${payout.destination.masked}${labelSuffix(payout.destination)}`,
    ],
    ['Description', payout.orderDesc],
    ['Prepared by', payout.preparedBy.email],
    [checked ? 'Checked' : 'Prepared', <DateTime key="c" value={payout.createdAt} />],
    ['Endpoint', payout.endpointId],
    ['Client order id', payout.clientOrderId],
  ];
  if (checked && payout.expiresAt)
    // named as the payout's page names it: the gateway's registration of the check lapses
    rows.push(['Registration lapses', <DateTime key="e" value={payout.expiresAt} />]);
  return <Facts rows={rows} />;
}

/**
 * Approve (payout-pay) or reject a payout someone else prepared, or withdraw (reject) one's own.
 * The dialog's Idempotency-Key is created when it opens and reused when the same decision is sent
 * again after a lost reply.
 */
export default function PayoutDecisionDialog({
  payout,
  decision,
  own,
  onClose,
}: {
  payout: Payout;
  decision: Decision;
  /** the signed-in user prepared it: rejecting is withdrawing */
  own: boolean;
  onClose: () => void;
}) {
  return (
    <DecisionDialog
      id={payout.id}
      decision={decision}
      title={
        decision === 'approve'
          ? 'Approve the payout'
          : own
            ? 'Withdraw your payout'
            : 'Reject the payout'
      }
      question={
        <Typography variant="h6" component="p">
          Pay <SpokenMoney amount={payout.amount} currency={payout.currency} /> to{' '}
          {payout.destination.masked}?
        </Typography>
      }
      facts={
        decision === 'approve' ? (
          <>
            <LargeAmountApprovalWarning
              amount={payout.amount}
              currency={payout.currency}
              preparer="The ops user who prepared it"
            />
            <SimilarPendingWarning payout={payout} newTab />
            {payout.mode === 'single' ? (
              <Alert severity="warning">{notCheckedWarning(payout.destination.kind)}</Alert>
            ) : (
              <Alert severity="info">{checkedNote(payout.destination.kind)}</Alert>
            )}
            <PayoutFacts payout={payout} />
          </>
        ) : payout.mode === 'single' ? (
          <>
            <Alert severity="info">{NOT_CHECKED_NOTE}</Alert>
            <PayoutFacts payout={payout} />
          </>
        ) : (
          <PayoutFacts payout={payout} />
        )
      }
      approveNote={
        payout.mode === 'single'
          ? 'Approving sends the payout itself (a v2 payout) for exactly these details; money leaves the account.'
          : 'Approving sends payout-pay for exactly these details; money leaves the account.'
      }
      approveLabel={`Approve and pay ${formatMoney(payout.amount, payout.currency)}`}
      reasonHint={
        own
          ? 'Audited. Nothing is paid; it leaves the approval queue.'
          : 'Shown to the ops user who prepared it, and audited.'
      }
      rejectLabel={own ? 'Withdraw' : 'Reject'}
      lostReplyNote=", and Paydesk will not pay twice"
      approve={(key) => approvePayout(payout.id, key)}
      reject={(body, key) => rejectPayout(payout.id, body, key)}
      severity={(result) => payoutResultSeverity(result.payout.state)}
      queryKey={payoutKeys.all}
      onClose={onClose}
    />
  );
}
