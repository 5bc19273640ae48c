import ArrowBack from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import {
  FAILED_STATUSES,
  failureText,
  orderFailureOf,
  TRANSACTION_ID_PATTERN,
  TransactionListQuerySchema,
  type FollowUpAction,
  type Operation,
  type StatusChecks,
  type TransactionDetail,
  type TransactionEvent,
  type TransactionSummary,
} from '@paydesk/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { CopyableCode, CopyButton } from '../../../components/copyable-text';
import { DateTime } from '../../../components/date-time';
import { useNotify } from '../../../components/notifier';
import { ErrorState, LoadingState } from '../../../components/page-states';
import { GatewayWaitNote } from '../../../components/gateway-wait-note';
import { PageHeader } from '../../../components/page-header';
import { describeError, isApiError, isNoSuchRecord } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import {
  knownOrderId,
  missingNumberFact,
  missingNumberTitle,
  orderName,
} from '../../../lib/order-number';
import { RequireRoles } from '../../auth/components/require-roles';
import { CardRefLink } from '../../cards/components/card-ref-link';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { AwaitOutcomeContext, useOutcomeWhenFinal } from '../api/follow-up';
import {
  answerClause,
  gatewayAnswerOf,
  NOT_MADE_EFFECT,
  recentNotApplied,
  redoAdvice,
} from '../api/gateway-answer';
import { describeLiveChange } from '../api/live-change';
import { useTransactionEvents } from '../api/live-events';
import { inSentence } from '../api/operation-message';
import { canRedo, canRefresh, canReviewDrift, offeredActions } from '../api/permissions';
import {
  refreshTransaction,
  transactionDetailQueryOptions,
  transactionKeys,
  transactionListQueryOptions,
} from '../api/transactions';
import { AmountsPanel, Facts, Panel, voidedAmount } from '../components/amounts-panel';
import { orderOriginRows } from '../components/order-origin';
import { EmailText } from '../../../components/email-text';
import {
  headerStageLabel,
  OPERATION_LABELS,
  returnsCancelHold,
  TYPE_LABELS,
} from '../components/labels';
import { LiveIndicator } from '../components/live-indicator';
import { LookUpAtGateway } from '../components/look-up-at-gateway';
import { OperationsList } from '../components/operations-list';
import { PayoutOrderNotice } from '../components/payout-order-notice';
import { STATUS_LOOK, TransactionStatusChips } from '../components/status-chip';
import { inLocalMoney, Timeline } from '../components/timeline';
import { RefreshButton } from '../../../components/refresh-button';

// The dialogs load when one first opens, not with the order.
const DIALOGS = {
  capture: lazy(() => import('../components/capture-dialog')),
  return: lazy(() => import('../components/return-dialog')),
  void: lazy(() => import('../components/void-dialog')),
  'card-ref': lazy(() => import('../components/card-ref-dialog')),
} satisfies Record<FollowUpAction, unknown>;

const ACTION_LABELS: Record<FollowUpAction, string> = {
  capture: 'Capture',
  return: 'Return',
  void: 'Void',
  'card-ref': 'Create card reference',
};

// Finance's review of a drift: loads when first opened, as the follow-up dialogs do.
const DriftReviewDialog = lazy(() => import('../components/drift-review-dialog'));

/**
 * Whether Paydesk still asks the gateway about the order by itself, for the outcome-unknown
 * banners: once its checks stopped (their last scheduled one passed), only Refresh status asks.
 */
function askingWords(checks: StatusChecks | null | undefined): string {
  return checks?.state === 'stopped'
    ? 'has stopped asking the gateway for the status by itself'
    : 'is asking the gateway for the status';
}

/**
 * What Paydesk's status checks have brought so far, when the last brought no status (QA: the
 * banner said "is asking" while every check timed out): how many it made, and what went wrong.
 */
function checksNote(checks: StatusChecks | null | undefined): string {
  if (checks?.state !== 'checking' || checks.lastProblem === null || checks.attempts === 0)
    return '';
  const made =
    checks.attempts === 1 ? 'one status check' : `${String(checks.attempts)} status checks`;
  return ` So far it has made ${made}; the last brought no status: ${checks.lastProblem}.`;
}

/**
 * An alert's action (the drift's "Mark reviewed") on one line: beside the alert's long text it
 * was squeezed, and its label broke over two lines even at 1440 px (QA), so it never shrinks.
 */
const ACTION_BESIDE_TEXT = { '& .MuiAlert-action': { flexShrink: 0 } } as const;

/**
 * On a phone, beside the text, the action left the text a column a few words wide: it goes
 * under the text instead, on a line of its own, and the text takes the alert's width.
 */
const ACTION_UNDER_TEXT = {
  flexWrap: 'wrap',
  '& .MuiAlert-message': { flex: '1 1 0' },
  '& .MuiAlert-action': { flexShrink: 0, flexBasis: '100%', justifyContent: 'flex-end', pt: 0 },
} as const;

/** `onReview`: opens the drift review (roles that may mark it reviewed only). */
function Attention({
  detail,
  onReview,
}: {
  detail: TransactionDetail;
  onReview: (() => void) | null;
}) {
  const since = agreedSince(detail.driftDetails);
  const found = driftFoundAt(detail.driftDetails);
  const reasons = driftReasons(detail.driftDetails);
  const kept = recordKept(detail.driftDetails);
  // A follow-up whose reply was lost, on an order whose own status is known: said as plainly.
  const unknownOps =
    detail.status === 'unknown'
      ? []
      : detail.operations.filter((operation) => operation.state === 'unknown');
  // The request behind an order whose own outcome is unknown (a rebill, say): its latest unknown one.
  const orderOp =
    detail.status === 'unknown'
      ? detail.operations.findLast((operation) => operation.state === 'unknown')
      : undefined;
  const notApplied = recentNotApplied(detail.operations);
  // A follow-up on its way to the gateway right now (seen by a colleague, or after a reload).
  const sendingOps = detail.operations.filter((operation) => operation.state === 'sending');
  // Who may do a follow-up not made again is told to; the others, whom to ask.
  const { user } = useSession();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const sent = (operation: Operation) =>
    operation.amount === null
      ? `a ${inSentence(operation.kind)}`
      : `a ${inSentence(operation.kind)} of ${formatMoney(operation.amount, detail.currency)}`;
  return (
    <>
      {sendingOps.length > 0 ? (
        <Alert severity="info">
          <AlertTitle>
            {sendingOps.length === 1
              ? `${OPERATION_LABELS[sendingOps[0]?.kind ?? 'return']} on its way to the gateway`
              : `${String(sendingOps.length)} follow-ups on their way to the gateway`}
          </AlertTitle>
          {sendingOps.map((operation) => (
            <div key={operation.id}>
              Paydesk sent {sent(operation)}
              {operation.requestedBy === null
                ? ''
                : ` requested by ${operation.requestedBy}`} at{' '}
              <DateTime value={operation.createdAt} /> and is waiting for the gateway’s answer.
            </div>
          ))}
          <div>
            The page shows the outcome as soon as it comes. Should no answer come, Paydesk asks the
            gateway for the order’s status; it never sends the request again on its own.
          </div>
        </Alert>
      ) : null}
      {detail.status === 'unknown' ? (
        <Alert severity="warning">
          <AlertTitle>Outcome unknown</AlertTitle>
          {orderOp === undefined
            ? 'Paydesk sent a request but did not learn its outcome.'
            : `Paydesk sent ${sent(orderOp)}${answerClause(gatewayAnswerOf(orderOp))}.`}{' '}
          Paydesk cannot tell yet whether it was made, and {askingWords(detail.statusChecks)}; it
          will not send anything again on its own.{checksNote(detail.statusChecks)} Refresh the
          status to ask now.
        </Alert>
      ) : null}
      {unknownOps.length > 0 ? (
        <Alert severity="warning">
          <AlertTitle>
            {unknownOps.length === 1
              ? `${OPERATION_LABELS[unknownOps[0]?.kind ?? 'return']}: outcome unknown`
              : `${String(unknownOps.length)} follow-ups: outcome unknown`}
          </AlertTitle>
          {unknownOps
            .map(
              (operation) =>
                `Paydesk sent ${sent(operation)}${answerClause(gatewayAnswerOf(operation))}.`,
            )
            .join(' ')}{' '}
          Paydesk cannot tell yet whether{' '}
          {unknownOps.length === 1
            ? `the ${inSentence(unknownOps[0]?.kind ?? 'return')} was`
            : 'they were'}{' '}
          made, and {askingWords(detail.statusChecks)}; it will not send anything again on its own.
          {checksNote(detail.statusChecks)}
          {unknownOps.some((operation) => operation.kind === 'return')
            ? ' Until then, the return is held against what can still be returned.'
            : ''}{' '}
          Refresh the status to ask now.
        </Alert>
      ) : null}
      {notApplied.length > 0 ? (
        <Alert severity="error">
          <AlertTitle>
            {notApplied.length === 1
              ? `${OPERATION_LABELS[notApplied[0]?.kind ?? 'return']} not made`
              : `${String(notApplied.length)} follow-ups not made`}
          </AlertTitle>
          {notApplied.map((operation) => (
            <div key={operation.id}>
              The {inSentence(operation.kind)}
              {operation.amount === null
                ? ''
                : ` of ${formatMoney(operation.amount, detail.currency)}`}
              {operation.requestedBy === null ? '' : ` requested by ${operation.requestedBy}`} at{' '}
              <DateTime value={operation.createdAt} /> was not made by the gateway:{' '}
              {NOT_MADE_EFFECT[operation.kind]}.{' '}
              {redoAdvice(operation.kind, canRedo(operation.kind, user.roles))}
            </div>
          ))}
          <div>
            Paydesk judged {notApplied.length === 1 ? 'it' : 'them'} not made because the gateway’s
            status, asked after the request, did not show {notApplied.length === 1 ? 'it' : 'them'}.
            Should the gateway still apply {notApplied.length === 1 ? 'it' : 'one'} late, Paydesk
            records it and flags the order with drift.
          </div>
        </Alert>
      ) : null}
      {detail.drift ? (
        <Alert
          severity="warning"
          sx={phone ? ACTION_UNDER_TEXT : ACTION_BESIDE_TEXT}
          action={
            onReview === null ? undefined : (
              <Button color="inherit" size="small" onClick={onReview} sx={{ whiteSpace: 'nowrap' }}>
                Mark reviewed
              </Button>
            )
          }
        >
          {/* Said as what happened: Paydesk took the gateway's figures when it found the drift
              (the page shows them), unless the reply could not be applied at all. */}
          <AlertTitle>
            {kept
              ? 'Paydesk could not apply the gateway’s status'
              : 'The gateway contradicted Paydesk’s record'}
          </AlertTitle>
          <div>
            {kept
              ? 'The gateway’s status showed what Paydesk cannot record'
              : 'The gateway’s status differed from what Paydesk had recorded'}
            {reasons === null && detail.driftDetails
              ? `: ${Object.entries(detail.driftDetails)
                  .map(
                    ([key, value]) =>
                      `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
                  )
                  .join(', ')}.`
              : reasons === null
                ? '.'
                : ':'}
          </div>
          {reasons?.map((reason) => (
            <div key={reason}>{reason}</div>
          ))}
          <div>
            {kept
              ? 'Paydesk kept its own figures. '
              : 'Paydesk now shows the gateway’s record, which is what counts for the money. '}
            {onReview === null
              ? 'Finance checks the order at the gateway and marks the drift reviewed'
              : 'Check the order at the gateway, then mark the drift reviewed'}
            ; the timeline keeps what differed.
          </div>
          {since === null ? null : (
            <div>
              The gateway and Paydesk agree again since <DateTime value={since} />
              {found === null ? null : sameSecond(found, since) ? (
                // Shown to the second, one time twice would read as a slip (QA).
                ' (a later status than the one that found the difference, the same second)'
              ) : (
                <>
                  {' '}
                  (a later status than the one that found the difference, at{' '}
                  <DateTime value={found} />)
                </>
              )}
              . Agreeing again does not undo what differed (a return made twice stays made): the
              flag stays until someone checks it and marks the drift reviewed.
            </div>
          )}
        </Alert>
      ) : null}
    </>
  );
}

/** Whether two instants fall in the same second, the precision the page shows them at. */
function sameSecond(a: string, b: string): boolean {
  return Math.floor(Date.parse(a) / 1000) === Math.floor(Date.parse(b) / 1000);
}

/** When the drift was found (`driftDetails.detectedAt`), or null when the details do not say. */
function driftFoundAt(details: TransactionDetail['driftDetails']): string | null {
  const found = details?.detectedAt;
  return typeof found === 'string' && !Number.isNaN(Date.parse(found)) ? found : null;
}

/**
 * Since when a later status reply agrees with Paydesk again (`driftDetails.agreedSince`, set by the
 * BFF when a reply applied without drift), or null: not since the drift was found.
 */
function agreedSince(details: TransactionDetail['driftDetails']): string | null {
  const since = details?.agreedSince;
  if (typeof since !== 'string' || Number.isNaN(Date.parse(since))) return null;
  // Only a reply after the one that found the drift agrees "again": the same instant (or an
  // earlier one) would have the banner say that they contradict and agree at once.
  const found = driftFoundAt(details);
  if (found !== null && Date.parse(since) <= Date.parse(found)) return null;
  return since;
}

/**
 * The reasons the BFF recorded for a drift (its `driftDetails.reasons`), when there are any: free
 * text, shown as recorded (older rows keep their older words).
 */
function driftReasons(details: TransactionDetail['driftDetails']): string[] | null {
  const reasons = details?.reasons;
  if (!Array.isArray(reasons)) return null;
  // Their amounts as the page writes money (QA F13: "3.00 EUR" beside the page's "€3.00").
  const texts = reasons.filter((r): r is string => typeof r === 'string').map(inLocalMoney);
  return texts.length === 0 ? null : texts;
}

/**
 * Whether Paydesk kept its own record: the gateway's reply was not applied (an amount Paydesk
 * cannot hold), so the details keep the gateway's side alone. Any other drift applied the reply,
 * and its details keep both sides (`paydesk`, `gateway`).
 */
function recordKept(details: TransactionDetail['driftDetails']): boolean {
  if (details === null || 'paydesk' in details) return false;
  const gateway = details.gateway;
  return typeof gateway === 'object' && gateway !== null;
}

// Off screen but read aloud (sx would take a width of 1 as 100%: hence '1px').
const VISUALLY_HIDDEN = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

/**
 * The sentence for the page's live region: when a live event for this order brings a different
 * record (someone else's action, a callback), what changed. The user's own actions are already
 * in the cache when their event comes, so they are not said twice. `describeLiveChange` words it.
 */
function useLiveNote(detail: TransactionDetail) {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const id = detail.id;
  const onEvent = useCallback(
    (event: TransactionEvent | null) => {
      if (event !== null && event.transactionId !== id) return;
      const key = transactionKeys.detail(id);
      const before = client.getQueryData<TransactionDetail>(key);
      void client.invalidateQueries({ queryKey: key }, { cancelRefetch: false }).then(() => {
        const after = client.getQueryData<TransactionDetail>(key);
        if (before === undefined || after === undefined) return;
        if (before.updatedAt === after.updatedAt && before.status === after.status) return;
        setText(describeLiveChange(before, after));
      });
    },
    [client, id],
  );
  return { text, onEvent };
}

function DetailView({ detail }: { detail: TransactionDetail }) {
  const { user } = useSession();
  const client = useQueryClient();
  const notify = useNotify();
  const [open, setOpen] = useState<FollowUpAction | null>(null);
  const [reviewing, setReviewing] = useState(false);
  const actions = offeredActions(detail, user.roles);
  const liveNote = useLiveNote(detail);
  const live = useTransactionEvents(liveNote.onEvent);
  const awaitOutcome = useOutcomeWhenFinal(detail);
  // Why the gateway failed the order, from its latest status reply (the list's rows say the same).
  const failure = FAILED_STATUSES.has(detail.status) ? orderFailureOf(detail.timeline) : null;
  const headingRef = useRef<HTMLHeadingElement>(null);
  const afterDialog = useRef(false);
  const actionsKey = actions.join(' ');
  // An action done is often no longer offered: its button, where the dialog gives the focus back,
  // goes away (before or just after the dialog closes), which would leave the keyboard focus on
  // the page's body. The heading takes it then.
  useEffect(() => {
    if (open !== null || reviewing) {
      afterDialog.current = true;
      return;
    }
    const active = document.activeElement;
    if (afterDialog.current && (active === null || active === document.body)) {
      afterDialog.current = false;
      headingRef.current?.focus();
    }
  }, [open, reviewing, actionsKey]);

  const refresh = useMutation({
    mutationFn: () => refreshTransaction(detail.id),
    onSuccess: async (fresh) => {
      client.setQueryData(transactionKeys.detail(detail.id), fresh);
      notify(
        `Status checked: the gateway says ${STATUS_LOOK[fresh.status].label}${fresh.drift ? ' (drift flagged)' : ''}.`,
        fresh.drift ? 'info' : 'success',
      );
      await client.invalidateQueries({ queryKey: transactionKeys.lists });
    },
    onError: (error) => {
      notify(isApiError(error) ? describeError(error) : 'The status could not be asked.', 'error');
    },
  });

  const Dialog = open === null ? null : DIALOGS[open];

  return (
    <>
      <Button component={RouterLink} to="/transactions" startIcon={<ArrowBack />} sx={{ mb: 1 }}>
        All transactions
      </Button>
      <PageHeader
        title={
          knownOrderId(detail.orderid) === null
            ? missingNumberTitle(detail)
            : `Order ${detail.orderid}`
        }
        headingRef={headingRef}
        actions={
          <>
            <LiveIndicator state={live} />
            {canRefresh(user.roles) ? (
              <RefreshButton pending={refresh.isPending} onRefresh={() => refresh.mutateAsync()}>
                Refresh status
              </RefreshButton>
            ) : null}
            {actions.map((action) => (
              <Button
                key={action}
                variant={action === 'capture' || action === 'return' ? 'contained' : 'outlined'}
                color={action === 'void' ? 'error' : 'primary'}
                onClick={() => {
                  setOpen(action);
                }}
              >
                {ACTION_LABELS[action]}
              </Button>
            ))}
          </>
        }
      >
        <Stack
          direction="row"
          spacing={1}
          useFlexGap
          sx={{ alignItems: 'center', flexWrap: 'wrap' }}
        >
          <TransactionStatusChips order={detail} />
          <span>
            {TYPE_LABELS[detail.type]}
            {detail.stage ? ` · ${headerStageLabel(detail, detail.stage)}` : ''} · client order{' '}
            {detail.clientOrderId}
          </span>
        </Stack>
        {failure === null ? null : (
          // The gateway's words as text (React never reads them as markup), already one line.
          <Box component="p" sx={{ m: 0, mt: 0.5, color: 'error.main' }}>
            {STATUS_LOOK[detail.status].label}: {failureText(failure)}
          </Box>
        )}
      </PageHeader>
      <GatewayWaitNote waiting={refresh.isPending} words="status" />
      {/* Says a change the live events brought (someone else's return, a callback) aloud. */}
      <Box role="status" aria-live="polite" sx={VISUALLY_HIDDEN}>
        {liveNote.text}
      </Box>
      <Stack spacing={2}>
        <Attention
          detail={detail}
          onReview={
            canReviewDrift(user.roles)
              ? () => {
                  setReviewing(true);
                }
              : null
          }
        />
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            // As many columns as fit at 18rem each: three on a wide screen, fewer as the text is
            // zoomed or the window narrows, so a panel never squeezes its amounts.
            gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 18rem), 1fr))',
          }}
        >
          <AmountsPanel detail={detail} />
          <Panel title="Card and customer">
            <Facts
              rows={[
                ['Card', detail.card ? <code key="c">{detail.card.masked}</code> : '—'],
                ['Brand', detail.card?.brand ?? '—'],
                [
                  'Card reference',
                  detail.cardRefId === null ? (
                    '—'
                  ) : (
                    <Box
                      key="ref"
                      component="span"
                      sx={{ display: 'inline-flex', alignItems: 'center' }}
                    >
                      <CardRefLink cardRefId={detail.cardRefId} />
                      <CopyButton label="Card reference" value={detail.cardRefId} />
                    </Box>
                  ),
                ],
                ['Customer', detail.customer.name ?? '—'],
                [
                  'E-mail',
                  detail.customer.email === null ? (
                    '—'
                  ) : (
                    <EmailText key="e" value={detail.customer.email} />
                  ),
                ],
              ]}
            />
          </Panel>
          <Panel title="Order">
            <Facts
              rows={[
                [
                  'Orderid',
                  knownOrderId(detail.orderid) === null ? (
                    missingNumberFact(detail)
                  ) : (
                    <CopyableCode key="o" label="Orderid" value={detail.orderid} />
                  ),
                ],
                [
                  'Client order id',
                  <CopyableCode key="c" label="Client order id" value={detail.clientOrderId} />,
                ],
                ...orderOriginRows(detail),
                ['Endpoint', detail.endpointId],
                ['Created', <DateTime key="cr" value={detail.createdAt} />],
                ['Updated', <DateTime key="u" value={detail.updatedAt} />],
                [
                  // When its status was last applied: a check that brought no status (a timeout)
                  // does not move it, so "Last asked: never" read false beside "11 status checks"
                  // (QA B6). Short: the panel's label column is as wide as its longest label.
                  'Gateway status as of',
                  detail.lastCheckedAt ? (
                    <DateTime key="l" value={detail.lastCheckedAt} />
                  ) : (
                    'no answer yet'
                  ),
                ],
              ]}
            />
          </Panel>
        </Box>
        <Panel title="Operations">
          <OperationsList
            operations={detail.operations}
            currency={detail.currency}
            holdCancelled={returnsCancelHold(detail)}
            voided={voidedAmount(detail)}
          />
        </Panel>
        <Panel title="Timeline">
          <Timeline entries={detail.timeline} holdCancelled={returnsCancelHold(detail)} />
        </Panel>
      </Stack>
      <Suspense fallback={null}>
        {Dialog ? (
          <AwaitOutcomeContext value={awaitOutcome}>
            <Dialog
              detail={detail}
              onClose={() => {
                setOpen(null);
              }}
            />
          </AwaitOutcomeContext>
        ) : null}
        {reviewing ? (
          <DriftReviewDialog
            detail={detail}
            onClose={() => {
              setReviewing(false);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

/** The page of an order Paydesk cannot show: `children` say what was looked for, and where to go. */
function OrderNotFound({ children }: { children: ReactNode }) {
  return (
    <>
      <PageHeader title="Order not found" />
      <Alert severity="info">{children}</Alert>
    </>
  );
}

/**
 * The order at Paydesk's own address (its id, a UUID), or the not-found page when there is none.
 */
function OrderById({ id }: { id: string }) {
  const detail = useQuery(transactionDetailQueryOptions(id));
  if (detail.isPending) return <LoadingState label="Loading the order…" />;
  if (detail.isError) {
    if (isNoSuchRecord(detail.error)) {
      return (
        <OrderNotFound>
          Paydesk knows no transaction with this address. Look the order up by its orderid or client
          order id (Ctrl+K), or go back to{' '}
          <RouterLink to="/transactions">all transactions</RouterLink>.
        </OrderNotFound>
      );
    }
    return (
      <ErrorState
        error={detail.error}
        what="the order"
        onRetry={() => void detail.refetch()}
        asPage
      />
    );
  }
  return <DetailView detail={detail.data} />;
}

/** Orders the list's search found whose orderid is `term`, or client_orderid in any case. */
function namedBy(items: readonly TransactionSummary[], term: string): TransactionSummary[] {
  const lower = term.toLowerCase();
  return items.filter((t) => t.orderid === term || t.clientOrderId.toLowerCase() === lower);
}

/**
 * An address that holds the gateway's orderid (or the shop's client_orderid) instead of Paydesk's
 * id: support pastes such addresses from tickets and the gateway's back-office. The order is found
 * among those Paydesk has learned, by the list's exact search (never by asking the gateway: opening
 * a page must not send anything), and the address replaced by the order's own. None found: the
 * page says what was looked for and offers the gateway lookup; several (one client_orderid on
 * two endpoints): they are listed to choose from.
 */
function OrderByGatewayId({ term }: { term: string }) {
  const navigate = useNavigate();
  const text = term.trim();
  // The list's rules for a search (no card number, at most 128 characters): an address that
  // breaks them names no order, and is not repeated on the page.
  const parsed = TransactionListQuerySchema.safeParse({ q: text, limit: 200 });
  const query = parsed.success ? parsed.data : TransactionListQuerySchema.parse({});
  const search = useQuery({ ...transactionListQueryOptions(query), enabled: parsed.success });
  const found = search.data === undefined ? [] : namedBy(search.data.items, text);
  const only = found.length === 1 ? found[0] : undefined;
  useEffect(() => {
    if (only !== undefined)
      void navigate(`/transactions/${encodeURIComponent(only.id)}`, { replace: true });
  }, [navigate, only]);

  if (!parsed.success) {
    return (
      <OrderNotFound>
        Paydesk knows no transaction with this address. Look the order up by its orderid or client
        order id (Ctrl+K), or go back to{' '}
        <RouterLink to="/transactions">all transactions</RouterLink>.
      </OrderNotFound>
    );
  }
  if (search.isPending || only !== undefined) return <LoadingState label="Finding the order…" />;
  if (search.isError) {
    return (
      <ErrorState
        error={search.error}
        what="the order"
        onRetry={() => void search.refetch()}
        asPage
      />
    );
  }
  if (found.length > 1) {
    return (
      <>
        <PageHeader title={`Orders “${text}”`} />
        <Alert severity="info" sx={{ mb: 2 }}>
          {String(found.length)} orders Paydesk has learned have “{text}” as their orderid or client
          order id (one client order id may be used on several endpoints). Choose one:
        </Alert>
        <List aria-label={`Orders “${text}”`}>
          {found.map((t) => (
            <ListItem key={t.id} disableGutters>
              <ListItemText
                primary={
                  <Link component={RouterLink} to={`/transactions/${encodeURIComponent(t.id)}`}>
                    {orderName(t, { capital: true })}
                  </Link>
                }
                secondary={`Client order id ${t.clientOrderId} · endpoint ${t.endpointId} · ${TYPE_LABELS[t.type]} · ${formatMoney(t.amount, t.currency)} · ${STATUS_LOOK[t.status].label}`}
              />
            </ListItem>
          ))}
        </List>
      </>
    );
  }
  return (
    <>
      <OrderNotFound>
        Paydesk has learned no order with the orderid or client order id “{text}”; the gateway was
        not asked. Look the order up (Look up order, Ctrl+K), or go back to{' '}
        <RouterLink to="/transactions">all transactions</RouterLink>.
        <LookUpAtGateway term={text} align="flex-start" />
      </OrderNotFound>
      {search.data.payouts === undefined ? null : (
        <Box sx={{ mt: 2 }}>
          <PayoutOrderNotice term={text} payouts={search.data.payouts} />
        </Box>
      )}
    </>
  );
}

/**
 * `/transactions/:id`: Paydesk's id opens the order; anything else is taken for the gateway's
 * orderid or the shop's client_orderid (`OrderByGatewayId`).
 */
function TransactionDetailScreen() {
  const { id = '' } = useParams();
  return TRANSACTION_ID_PATTERN.test(id) ? (
    <OrderById id={id} />
  ) : (
    <OrderByGatewayId key={id} term={id} />
  );
}

export default function TransactionDetailRoute() {
  return (
    <RequireRoles roles={SCREENS.transactions.roles} what="the transactions">
      <TransactionDetailScreen />
    </RequireRoles>
  );
}
