import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { Payout } from '@paydesk/shared/api';
import { DateTime } from '../../../components/date-time';
import type { Decision } from '../../../components/decision-buttons';
import { DecisionDialog } from '../../../components/decision-dialog';
import { formatMoney } from '../../../lib/format';
import type { FactRow } from '../../transactions/components/amounts-panel';
import { formatMoneyInWords } from '../../../lib/money';
import { approvePayout, payoutKeys, rejectPayout } from '../api/payouts';
import { DESTINATION_KIND_LABELS } from './destination-labels';

/** Exactly what payout-check checked, which is what an approval pays. */
export function CheckedFacts({ payout }: { payout: Payout }) {
  const rows: FactRow[] = [
    ['Amount', <strong key="a">{formatMoney(payout.amount, payout.currency)}</strong>],
    [
      'Destination',
      `${DESTINATION_KIND_LABELS[payout.destination.kind]} ${payout.destination.masked} · ${payout.destination.label}`,
    ],
    ['Description', payout.orderDesc],
    ['Prepared by', payout.preparedBy.email],
    ['Checked', <DateTime key="c" value={payout.createdAt} />],
    ['Endpoint', payout.endpointId],
    ['Client order id', payout.clientOrderId],
  ];
  if (payout.expiresAt) rows.push(['Check expires', <DateTime key="e" value={payout.expiresAt} />]);
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        gridTemplateColumns: 'max-content 1fr',
        columnGap: 2,
        rowGap: 0.5,
        m: 0,
      }}
    >
      {rows.map(([label, value]) => (
        <Box key={label} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'break-word' }}>
            {value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
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
          Pay {formatMoneyInWords(payout.amount, payout.currency)} to {payout.destination.masked}?
        </Typography>
      }
      facts={<CheckedFacts payout={payout} />}
      approveNote="Approving sends payout-pay for exactly these details; money leaves the account."
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
      failed={(result) => result.payout.state === 'failed'}
      queryKey={payoutKeys.all}
      onClose={onClose}
    />
  );
}
