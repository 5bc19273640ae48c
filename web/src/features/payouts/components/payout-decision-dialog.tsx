import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PayoutStateSchema, type Payout, type PayoutState } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { useContext, useId, type ReactNode } from 'react';
import { DateTime } from '../../../components/date-time';
import type { Decision } from '../../../components/decision-buttons';
import { DecisionDialog, RefusedForGoodAlert } from '../../../components/decision-dialog';
import { FormDialog } from '../../../components/form-dialog';
import { GatewayWaitNote } from '../../../components/gateway-wait-note';
import { LargeAmountApprovalWarning } from '../../../components/large-amount-confirm';
import { SpokenMoney } from '../../../components/spoken-money';
import type { ApiError } from '../../../lib/api-client';
import { SessionContext } from '../../auth/components/session-context';
import { formatMoney } from '../../../lib/format';
import { Facts, type FactRow } from '../../transactions/components/amounts-panel';
import { approvePayout, payoutDetailQueryOptions, payoutKeys, rejectPayout } from '../api/payouts';
import { useDecisionRequest } from './decision-request';
import { DESTINATION_KIND_LABELS, labelSuffix } from './destination-labels';
import { useAwaitOutcome } from './outcome-follow-up';
import { checkedNote, notCheckedNote, notCheckedWarning } from './payout-mode';
import { PAYOUT_STATE_LOOK } from './payout-state-chip';
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
    // named as the list names it ("Lapses at"): the gateway's registration of the check lapses
    rows.push(['Lapses at', <DateTime key="e" value={payout.expiresAt} />]);
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
  const request = useDecisionRequest();
  const awaitOutcome = useAwaitOutcome();
  // The payout as it is now: its detail is refetched on each of its live events, so a decision
  // taken elsewhere while the dialog is open (withdrawn, rejected, approved by someone else,
  // lapsed) is seen at once; the list's row, which the dialog was opened from, is not followed.
  const detail = useQuery(payoutDetailQueryOptions(payout.id));
  const latest =
    detail.data !== undefined && Date.parse(detail.data.updatedAt) >= Date.parse(payout.updatedAt)
      ? detail.data
      : payout;
  const title =
    decision === 'approve'
      ? 'Approve the payout'
      : own
        ? 'Withdraw your payout'
        : 'Reject the payout';
  // No longer waiting, and not by this dialog's own request (its answer, or its refusal, says what
  // happened then): nothing is offered to send, only what happened (QA: Approve stayed offered
  // until it was refused).
  if (!request.ours && latest.state !== 'pending_approval') {
    return <DecidedMeanwhileDialog title={title} payout={latest} onClose={onClose} />;
  }
  return (
    <DecisionDialog
      id={payout.id}
      decision={decision}
      title={title}
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
            {/* One block: the note, while there is none, adds no gap between the facts and the
                words under them. */}
            <Box>
              <PayoutFacts payout={payout} />
              {/* QA: for up to 15 s a slow gateway left only a spinner without words. */}
              <GatewayWaitNote waiting={request.sending} />
            </Box>
          </>
        ) : payout.mode === 'single' ? (
          <>
            <Alert severity="info">{notCheckedNote(own)}</Alert>
            <PayoutFacts payout={payout} />
          </>
        ) : (
          <PayoutFacts payout={payout} />
        )
      }
      decidedFacts={<PayoutFacts payout={payout} />}
      approveNote={
        payout.mode === 'single'
          ? 'Approving sends the payout for exactly these details in one step; money leaves the account.'
          : 'Approving pays the payout the gateway checked, for exactly these details; money leaves the account.'
      }
      approveLabel={`Approve and pay ${formatMoney(payout.amount, payout.currency)}`}
      reasonHint={
        own
          ? 'Audited. Nothing is paid; it leaves the approval queue.'
          : 'Shown to the ops user who prepared it, and audited.'
      }
      rejectLabel={own ? 'Withdraw' : 'Reject'}
      lostReplyNote=", and Paydesk will not pay twice"
      approve={async (key) => {
        const result = await request.track(approvePayout(payout.id, key));
        // "Not known yet whether the payout was paid": replaced once it is known.
        awaitOutcome(result.payout);
        return result;
      }}
      reject={(body, key) => request.track(rejectPayout(payout.id, body, key))}
      severity={(result) => payoutResultSeverity(result.payout.state)}
      queryKey={payoutKeys.all}
      refused={(error) => <PayoutRefusal payout={payout} error={error} />}
      onClose={onClose}
    />
  );
}

/**
 * The decision dialog once the payout was decided elsewhere while it was open: what happened, in
 * the words a refused decision uses (`PayoutOutcomeNote`), the payout's facts, and only Close,
 * which takes the focus from the button that went.
 */
function DecidedMeanwhileDialog({
  title,
  payout,
  onClose,
}: {
  title: string;
  payout: Payout;
  onClose: () => void;
}) {
  const titleId = useId();
  return (
    <FormDialog
      open
      dirty={false}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <PayoutOutcomeNote
            payout={payout}
            now={payout}
            state={payout.state}
            otherwise={
              <Alert severity="info">
                It no longer waits for approval; its page says where it stands. Nothing more to do
                here.
              </Alert>
            }
          />
          <PayoutFacts payout={payout} />
        </Stack>
      </DialogContent>
      <DialogActions>
        {/* Focused when it shows: the button that had the focus went. */}
        <Button autoFocus onClick={onClose} variant="contained">
          Close
        </Button>
      </DialogActions>
    </FormDialog>
  );
}

/** The payout's state a refusal names (the BFF's `details.state`), if it names one. */
function refusedState(error: ApiError): PayoutState | null {
  const parsed = PayoutStateSchema.safeParse(error.details?.state);
  return parsed.success ? parsed.data : null;
}

/**
 * What a decision refused for good means, from where the payout stands now: its detail, fetched
 * afresh (the refusal refreshed the payouts' queries), else the state the refusal named. Who
 * decided it instead and when, and whether money went out; no alarm when someone else simply got
 * there first.
 */
export function PayoutRefusal({ payout, error }: { payout: Payout; error: ApiError }) {
  const detail = useQuery(payoutDetailQueryOptions(payout.id));
  // While it is fetched again, what was cached may be from before the refusal.
  const now = detail.isFetching ? undefined : detail.data;
  return (
    <PayoutOutcomeNote
      payout={payout}
      now={now}
      state={now?.state ?? refusedState(error)}
      otherwise={
        // Still waiting (nothing reached the gateway), or a refusal about what was prepared: the
        // server's sentence says what to do.
        <RefusedForGoodAlert error={error} />
      }
    />
  );
}

/**
 * What became of a payout someone decided while the dialog was open, from `state` and, when
 * known, the payout as it is `now` (who decided it and when, the reason): the same words whether
 * the dialog learned it from a refusal or from the payout's live change. `otherwise` for a state
 * that says nothing of a decision.
 */
function PayoutOutcomeNote({
  payout,
  now,
  state,
  otherwise,
}: {
  payout: Payout;
  now: Payout | undefined;
  state: PayoutState | null;
  otherwise: ReactNode;
}) {
  const myId = useContext(SessionContext)?.user.id;
  const decider = now?.decidedBy ?? null;
  const decidedAt = now?.decidedAt ?? null;
  const who = decider === null ? null : decider.id === myId ? 'You' : decider.email;
  const whoDid = (verb: string, fallback: string): ReactNode =>
    who === null ? (
      fallback
    ) : (
      <>
        {who} {verb} it
        {decidedAt === null ? null : (
          <>
            {' '}
            at <DateTime value={decidedAt} />
          </>
        )}
      </>
    );
  const said = (severity: 'info' | 'warning', words: ReactNode) => (
    <Alert severity={severity}>{words}</Alert>
  );
  switch (state) {
    case 'sending':
    case 'processing':
      return said(
        'info',
        <>
          {whoDid('approved', 'Another approver approved it')}; it is being paid. Nothing more to
          do.
        </>,
      );
    case 'unknown':
      return said(
        'info',
        <>
          {whoDid('approved', 'Another approver approved it')}; Paydesk is confirming with the
          gateway whether it was paid. Nothing more to do.
        </>,
      );
    case 'approved':
      return said(
        'info',
        <>{whoDid('approved', 'Another approver approved it')}; it was paid. Nothing more to do.</>,
      );
    case 'declined':
    case 'error':
    case 'filtered':
    case 'failed':
      return said(
        'warning',
        <>
          {whoDid('approved', 'Another approver approved it')}
          {`, but it was not paid (${PAYOUT_STATE_LOOK[state].label.toLowerCase()}); its page says why. Nothing more to do here.`}
        </>,
      );
    case 'rejected': {
      const withdrawn = now?.withdrawn ?? false;
      const reason = now?.rejectReason ?? null;
      return said(
        'info',
        <>
          {whoDid(withdrawn ? 'withdrew' : 'rejected', 'It was rejected')}
          {reason === null || withdrawn ? '' : ` (“${reason}”)`}; nothing was paid. Nothing more to
          do.
        </>,
      );
    }
    case 'expired':
      return said(
        'warning',
        payout.mode === 'single'
          ? 'Nothing was paid: the held payout lapsed before it was approved. Ask ops to prepare it again.'
          : 'Nothing was paid: the gateway’s check lapsed. Ask ops to prepare it again.',
      );
    default:
      return otherwise;
  }
}
