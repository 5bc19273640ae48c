import ArrowBack from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import type { PayoutDetail, PayoutState } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useRef, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { DetailStates } from '../../../components/detail-states';
import type { Decision } from '../../../components/decision-buttons';
import { PageHeader } from '../../../components/page-header';
import { useStatusCheck } from '../../../components/refresh-button';
import { endSentence, formatMoney } from '../../../lib/format';
import { asClause } from '../../../lib/gateway-error';
import { shortErrorText } from '../api/unanswered-words';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { Facts, Panel, type FactRow } from '../../transactions/components/amounts-panel';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import { Timeline } from '../../transactions/components/timeline';
import { usePayoutEvents } from '../api/live-payouts';
import {
  checksStopped,
  mayBePaidLate,
  mayCheckPayout,
  outcomeOpen,
  PAID_AFTER_NOT_APPLIED,
  payAgainPossible,
  payoutDetailQueryOptions,
  payoutKeys,
  refreshPayout,
} from '../api/payouts';
import { DESTINATION_KIND_LABELS, labelSuffix } from '../components/destination-labels';
import { useFocusAfterDecision } from '../components/focus-after-decision';
import { useKnownOutcomeNotices } from '../components/outcome-follow-up';
import { PayoutDecision } from '../components/payout-decision';
import { relativeTime } from '../components/lapse-time';
import { MODE_LABELS, notCheckedWarning } from '../components/payout-mode';
import { PayoutStateChip } from '../components/payout-state-chip';
import { RepeatCandidates } from '../components/repeat-candidates';
import { SimilarPendingWarning } from '../components/similar-pending';
import { timelineTitle } from '../components/timeline-titles';

const PayoutDecisionDialog = lazy(() => import('../components/payout-decision-dialog'));
const PayAgainDialog = lazy(() => import('../components/pay-again-dialog'));

/** What the state means for whoever looks at it now, and what (if anything) to do. */
function StateNote({ payout, canCheck }: { payout: PayoutDetail; canCheck: boolean }) {
  // The second person, as the reader is told: its preparer reads "you", not their own address (QA).
  const { user } = useSession();
  const otherThanPreparer =
    user.email === payout.preparedBy.email
      ? 'an ops user other than you'
      : `an ops user other than ${payout.preparedBy.email}`;
  // When the page was opened: whether the gateway's check still holds (the server's canPayAgain
  // decides what the viewer is offered; this only picks the words for others).
  const [openedAt] = useState(Date.now);
  // One sentence: how its outcome went unlearned, or what the gateway answered, in words;
  // Paydesk's own codes not leading it.
  const error = shortErrorText(payout);
  if (mayBePaidLate(payout)) {
    // The BFF's message says what was judged and that a late payment is still possible. While its
    // check holds, it is paid again on the same checked order (at most once), never prepared again.
    const again = payAgainPossible(payout, openedAt);
    return (
      <Alert severity="warning">
        {error || 'Paydesk judged the payout not applied, but the gateway may still pay it late.'}{' '}
        {payout.canPayAgain === true && payout.expiresAt !== null ? (
          <>
            Until <DateTime value={payout.expiresAt} /> ({relativeTime(payout.expiresAt)}), use “Pay
            again” to have the gateway pay this same checked payout (it pays it at most once, and
            Paydesk first asks whether the first payment went through after all); do not prepare it
            again: a new payout could pay the payee twice.
          </>
        ) : payout.canPayAgain === true ? (
          'Use “Pay again” to have the gateway pay this same checked payout (it pays it at most once, and Paydesk first asks whether the first payment went through after all); do not prepare it again.'
        ) : again ? (
          `A${otherThanPreparer.slice(1)} can pay it again (“Pay again”) while the gateway’s check holds; do not prepare it again.`
        ) : canCheck ? (
          'Use “Check payment status” before preparing it again.'
        ) : (
          'Support, finance or ops can ask the gateway with “Check payment status”.'
        )}
      </Alert>
    );
  }
  if (outcomeOpen(payout) && checksStopped(payout)) {
    return (
      <Alert severity="warning">
        The outcome is not known yet{error ? `: ${asClause(error)}` : ''}. Paydesk’s scheduled
        status checks stopped after the last attempt (a callback for the order makes it check once
        more);{' '}
        {canCheck
          ? 'use “Check payment status” to ask the gateway now.'
          : 'support, finance or ops can ask the gateway now with “Check payment status”.'}{' '}
        The payout is never sent again: do not prepare it again until it is settled.
      </Alert>
    );
  }
  switch (payout.state) {
    case 'pending_approval':
      if (payout.mode === 'single') {
        return (
          <Alert severity="warning">
            Waits for {otherThanPreparer} to approve it
            {payout.expiresAt ? (
              <>
                ; it lapses <DateTime value={payout.expiresAt} /> and its held destination is erased
              </>
            ) : null}
            . {notCheckedWarning(payout.destination.kind)} Approving sends the payout itself.
          </Alert>
        );
      }
      return (
        <Alert severity="info">
          Waits for {otherThanPreparer} to approve it
          {payout.expiresAt ? (
            <>
              ; the gateway’s registration lapses <DateTime value={payout.expiresAt} />
            </>
          ) : null}
          .
        </Alert>
      );
    // Each in-flight state says what Paydesk waits for (QA: "sending" spoke of status checks that
    // only begin once the gateway has answered).
    case 'checking':
      return (
        <Alert severity="info">
          The gateway is checking the destination; this page updates by itself when it answers.
        </Alert>
      );
    case 'sending':
      return (
        <Alert severity="info">
          The payout is on its way to the gateway: Paydesk waits for its answer, then follows it
          with status checks. This page updates by itself.
        </Alert>
      );
    case 'processing':
      return (
        <Alert severity="info">
          Paydesk follows the gateway’s answer with status checks; this page updates by itself.
        </Alert>
      );
    case 'unknown':
      return (
        <Alert severity="warning">
          The outcome is not known yet{error ? `: ${asClause(error)}` : ''}. Paydesk does not send
          the payout again on its own:{' '}
          {payout.checksStopped === true
            ? 'its scheduled status checks have stopped without an answer, so only “Check payment status” asks now'
            : 'it checks its status (“Check payment status” asks now)'}
          , and if the gateway does not show it,{' '}
          {payout.mode === 'single'
            ? 'it is marked failed and must be prepared again'
            : `${otherThanPreparer} can pay it again`}
          . Do not prepare it again meanwhile.
        </Alert>
      );
    case 'approved':
      if (payout.errorCode === PAID_AFTER_NOT_APPLIED) {
        return (
          <Alert severity="warning">
            {/* The BFF's message already says it was paid after the verdict: not said twice. */}
            {error || 'The gateway paid it after Paydesk had judged it not applied.'}
          </Alert>
        );
      }
      return <Alert severity="success">The gateway paid it.</Alert>;
    case 'rejected':
      return (
        <Alert severity="info">
          {payout.withdrawn ? 'Withdrawn by its preparer' : 'Rejected by'}{' '}
          {payout.decidedBy?.email ?? 'ops'}: {endSentence(payout.rejectReason ?? '')} Nothing was
          paid.
        </Alert>
      );
    case 'expired':
      if (payout.mode === 'single') {
        return (
          <Alert severity="info">
            It lapsed
            {payout.expiresAt ? (
              <>
                {' '}
                <DateTime value={payout.expiresAt} />
              </>
            ) : null}{' '}
            before anyone approved it and its held destination was erased; nothing was paid. Prepare
            it again if it is still due.
          </Alert>
        );
      }
      return (
        <Alert severity="info">
          The gateway’s registration lapsed before anyone approved it; nothing was paid. Prepare it
          again if it is still due.
        </Alert>
      );
    default:
      return <Alert severity="error">{error || 'The payout failed; nothing was paid.'}</Alert>;
  }
}

/** What `expiresAt` is: a held payout's own lapse, or a checked one's registration at the gateway. */
function lapseLabel(payout: PayoutDetail): string {
  const pending = payout.state === 'pending_approval';
  if (payout.mode === 'single') return pending ? 'Lapses at' : 'Lapsed at';
  return pending ? 'Registration lapses' : 'Registration lapsed';
}

/** States in which the payout (or payout-pay) was sent: its order's callbacks reach Transactions. */
const SENT: ReadonlySet<PayoutState> = new Set([
  'processing',
  'unknown',
  'approved',
  'declined',
  'error',
  'filtered',
]);

/** The gateway's order id, and once the payout was sent, where its order's own record is. */
function GatewayOrder({ payout }: { payout: PayoutDetail }) {
  if (payout.orderid === null) {
    // A held single payout rejected or lapsed was never sent: it will never have one.
    const never =
      payout.mode === 'single' && (payout.state === 'rejected' || payout.state === 'expired');
    return <>{never ? 'none (never sent)' : 'not known yet'}</>;
  }
  return (
    <>
      <code>{payout.orderid}</code>
      {SENT.has(payout.state) || mayBePaidLate(payout) ? (
        <>
          {' · '}
          <Link component={RouterLink} to={`/transactions?q=${encodeURIComponent(payout.orderid)}`}>
            its order in Transactions
          </Link>
        </>
      ) : null}
    </>
  );
}

/**
 * What the decider did: an approval that never reached the gateway (the registration lapsed first)
 * was only attempted. One judged not applied was sent, and the gateway may still pay it.
 */
function deciderLabel(payout: PayoutDetail): string {
  if (payout.rejectReason !== null) return payout.withdrawn ? 'Withdrawn by' : 'Rejected by';
  return payout.state === 'expired' ? 'Approval attempted by' : 'Approved by';
}

function DetailView({
  payout,
  myId,
  canCheck,
}: {
  payout: PayoutDetail;
  myId: string;
  /** support, finance and ops may ask the gateway (auditors read only) */
  canCheck: boolean;
}) {
  const live = usePayoutEvents();
  const [deciding, setDeciding] = useState<Decision | 'pay-again' | null>(null);
  const { button: checkButton, result: checkResult } = useStatusCheck(
    () => refreshPayout(payout.id),
    (r: Awaited<ReturnType<typeof refreshPayout>>) => !mayCheckPayout(r.payout),
    payoutKeys.all,
  );
  const own = payout.preparedBy.id === myId;
  // Approved, rejected or withdrawn, the page no longer offers the decision: the heading takes the
  // focus its button had.
  const headingRef = useRef<HTMLHeadingElement>(null);
  useFocusAfterDecision(
    deciding !== null,
    `${payout.state} ${String(payout.canDecide)} ${String(payout.canPayAgain)}`,
    () => headingRef.current,
  );
  const destination = `${DESTINATION_KIND_LABELS[payout.destination.kind]} ${payout.destination.masked}`;
  const decided: FactRow[] =
    payout.decidedBy === null
      ? [
          [
            'Decided',
            payout.state === 'pending_approval' || payout.state === 'checking' ? 'not yet' : '—',
          ],
        ]
      : payout.paidAgain !== null && payout.rejectReason === null
        ? [
            // Paid again: who approved it first (that payment was not made), then who paid it again.
            [
              'First approved by',
              <span key="f">
                {payout.paidAgain.firstApprovedBy.email} at{' '}
                <DateTime value={payout.paidAgain.firstApprovedAt} /> — the gateway did not make
                that payment
              </span>,
            ],
            [
              'Paid again by',
              <span key="a">
                {payout.decidedBy.email}
                {payout.decidedAt ? (
                  <>
                    {' '}
                    at <DateTime value={payout.decidedAt} />
                  </>
                ) : null}
              </span>,
            ],
          ]
        : [
            [deciderLabel(payout), payout.decidedBy.email],
            ['Decided', payout.decidedAt ? <DateTime key="d" value={payout.decidedAt} /> : '—'],
          ];
  return (
    <>
      <Button component={RouterLink} to="/payouts" startIcon={<ArrowBack />} sx={{ mb: 1 }}>
        All payouts
      </Button>
      <PageHeader
        title={`Payout of ${formatMoney(payout.amount, payout.currency)}`}
        headingRef={headingRef}
        actions={
          <>
            <LiveIndicator state={live} />
            {mayCheckPayout(payout) && canCheck ? checkButton : null}
            {/* only the actions: the state note and the facts say who decided */}
            {payout.canDecide || (payout.state === 'pending_approval' && own) ? (
              <PayoutDecision payout={payout} myId={myId} onDecide={setDeciding} />
            ) : null}
            {payout.canPayAgain === true ? (
              <Button
                variant="contained"
                onClick={() => {
                  setDeciding('pay-again');
                }}
              >
                Pay again
              </Button>
            ) : null}
          </>
        }
      >
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <PayoutStateChip state={payout.state} withdrawn={payout.withdrawn} />
          <span>
            to {destination} · {payout.orderDesc}
          </span>
        </Stack>
      </PageHeader>
      <Stack spacing={2}>
        <StateNote payout={payout} canCheck={canCheck} />
        <SimilarPendingWarning payout={payout} />
        <RepeatCandidates payout={payout} />
        {checkResult}
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Panel title="Payout">
            <Facts
              rows={[
                ['Amount', <strong key="a">{formatMoney(payout.amount, payout.currency)}</strong>],
                ['Destination', `${destination}${labelSuffix(payout.destination)}`],
                ['Description', payout.orderDesc],
                ['Mode', MODE_LABELS[payout.mode]],
                ['Endpoint', payout.endpointId],
              ]}
            />
          </Panel>
          <Panel title="Four eyes">
            <Facts
              rows={[
                ['Prepared by', payout.preparedBy.email],
                ['Prepared', <DateTime key="p" value={payout.createdAt} />],
                ...decided,
                ...(payout.rejectReason === null
                  ? []
                  : ([['Reason', payout.rejectReason]] as FactRow[])),
              ]}
            />
          </Panel>
          <Panel title="Gateway order">
            <Facts
              rows={[
                ['Client order id', <code key="c">{payout.clientOrderId}</code>],
                ['Gateway order id', <GatewayOrder key="o" payout={payout} />],
                ...((payout.state === 'pending_approval' || payout.state === 'expired') &&
                payout.expiresAt
                  ? ([
                      [lapseLabel(payout), <DateTime key="e" value={payout.expiresAt} />],
                    ] as FactRow[])
                  : []),
                ['Last change', <DateTime key="u" value={payout.updatedAt} />],
              ]}
            />
          </Panel>
        </Box>
        <Panel title="Timeline">
          <Timeline
            entries={payout.events.map((event, id) => ({
              ...event,
              title: timelineTitle(event.title),
              id,
            }))}
          />
        </Panel>
      </Stack>
      <Suspense fallback={null}>
        {deciding === 'pay-again' ? (
          <PayAgainDialog
            payout={payout}
            onClose={() => {
              setDeciding(null);
            }}
          />
        ) : deciding ? (
          <PayoutDecisionDialog
            key={deciding}
            payout={payout}
            decision={deciding}
            own={own}
            onClose={() => {
              setDeciding(null);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

function PayoutDetailScreen() {
  const { id = '' } = useParams();
  const { user } = useSession();
  const detail = useQuery(payoutDetailQueryOptions(id));
  // An approval's "not known yet" snackbar is replaced once its payout's outcome is known.
  useKnownOutcomeNotices();
  if (!detail.isSuccess) {
    return (
      <DetailStates query={detail} what="payout" back={{ to: '/payouts', label: 'all payouts' }} />
    );
  }
  return (
    <DetailView
      // Another payout (a link from this one) starts afresh: no dialog of this one stays open.
      key={detail.data.id}
      payout={detail.data}
      myId={user.id}
      canCheck={user.roles.some((r) => r === 'support' || r === 'finance' || r === 'ops')}
    />
  );
}

export default function PayoutDetailRoute() {
  return (
    <RequireRoles roles={SCREENS.payouts.roles} what="the payouts">
      <PayoutDetailScreen />
    </RequireRoles>
  );
}
