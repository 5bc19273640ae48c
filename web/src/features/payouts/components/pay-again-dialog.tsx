import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { Payout } from '@paydesk/shared/api';
import { DateTime } from '../../../components/date-time';
import { DecisionDialog } from '../../../components/decision-dialog';
import { GatewayWaitNote } from '../../../components/gateway-wait-note';
import { SpokenMoney } from '../../../components/spoken-money';
import { describeError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { payoutKeys, payPayoutAgain } from '../api/payouts';
import { useDecisionRequest } from './decision-request';
import { useAwaitOutcome } from './outcome-follow-up';
import { PayoutFacts } from './payout-decision-dialog';
import { payoutResultSeverity } from './result-severity';

/**
 * Paying again, on the same checked order, a payout whose payment the gateway did not make
 * (judged not applied; `canPayAgain`). The gateway pays a checked payout at most once, so this
 * cannot pay the payee twice, where preparing it again could. As an approval: the dialog's
 * Idempotency-Key is created when it opens and reused when it is sent again after a lost reply.
 */
export default function PayAgainDialog({
  payout,
  onClose,
}: {
  payout: Payout;
  onClose: () => void;
}) {
  const request = useDecisionRequest();
  const awaitOutcome = useAwaitOutcome();
  return (
    <DecisionDialog
      id={payout.id}
      decision="approve"
      title="Pay the payout again"
      question={
        <Typography variant="h6" component="p">
          Pay <SpokenMoney amount={payout.amount} currency={payout.currency} /> to{' '}
          {payout.destination.masked} again?
        </Typography>
      }
      facts={
        <>
          <Alert severity="info">
            The gateway did not make the first payment. Its check of the payee is valid until{' '}
            {payout.expiresAt === null ? 'it lapses' : <DateTime value={payout.expiresAt} />}.
            Paying again asks the gateway to pay this same checked payout, which it pays at most
            once, so the payee cannot be paid twice.
          </Alert>
          {/* One block: the note, while there is none, adds no gap between the facts and the
              words under them. */}
          <Box>
            <PayoutFacts payout={payout} />
            {/* Paydesk asks the gateway first, then may pay: either may take long to answer. */}
            <GatewayWaitNote waiting={request.sending} />
          </Box>
        </>
      }
      decidedFacts={<PayoutFacts payout={payout} />}
      approveNote="Paydesk first asks the gateway whether the first payment went through after all: if it did, nothing is sent again. Otherwise money leaves the account."
      approveLabel={`Pay ${formatMoney(payout.amount, payout.currency)} again`}
      reasonHint=""
      lostReplyNote=", and the gateway pays this payout at most once"
      approve={async (key) => {
        const result = await request.track(payPayoutAgain(payout.id, key));
        // "Not known yet whether the payout was paid": replaced once it is known.
        awaitOutcome(result.payout);
        return result;
      }}
      // Paying again has no rejection: the dialog only ever approves.
      reject={() => Promise.reject(new Error('paying again cannot be rejected'))}
      severity={(result) => payoutResultSeverity(result.payout.state)}
      queryKey={payoutKeys.all}
      // Paid after all, being paid, lapsed, or paid again by someone else: the server says which.
      refused={(error) => <Alert severity="warning">{describeError(error)}</Alert>}
      onClose={onClose}
    />
  );
}
