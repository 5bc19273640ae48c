import AddCircleOutline from '@mui/icons-material/AddCircleOutlined';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import {
  PayoutListQuerySchema,
  type Payout,
  type PayoutListQuery,
  type PayoutState,
} from '@paydesk/shared/api';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useRef, useState, type ReactNode, type Ref } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { StaffEmail } from '../../../components/staff-email';
import type { Decision } from '../../../components/decision-buttons';
import { PageHeader } from '../../../components/page-header';
import { ViewTabsPanel, type ListView } from '../../../components/view-tabs-panel';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import {
  AWAITING_LINKS_HREF,
  awaitingLinksQueryOptions,
} from '../../payment-links/api/payment-links';
import { usePayoutEvents } from '../api/live-payouts';
import { payoutPagesQueryOptions } from '../api/payouts';
import { shortErrorText } from '../api/unanswered-words';
import { DESTINATION_KIND_LABELS, labelSuffix } from '../components/destination-labels';
import { useFocusAfterDecision } from '../components/focus-after-decision';
import { LapsesAt } from '../components/lapse-time';
import { useKnownOutcomeNotices } from '../components/outcome-follow-up';
import { PayoutDecision } from '../components/payout-decision';
import { PAYOUT_STATE_LOOK, PayoutStateChip } from '../components/payout-state-chip';
import { PossibleDuplicateMarker } from '../components/similar-pending';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

const PreparePayoutDialog = lazy(() => import('../components/prepare-payout-dialog'));
const PayoutDecisionDialog = lazy(() => import('../components/payout-decision-dialog'));
const PayAgainDialog = lazy(() => import('../components/pay-again-dialog'));

type View = PayoutListQuery['view'];
const VIEWS: ListView<View>[] = [
  {
    value: 'awaiting-my-approval',
    label: 'Awaiting my approval',
    empty: 'Nothing waits for your approval.',
  },
  { value: 'mine', label: 'Prepared by me', empty: 'You have not prepared a payout yet.' },
  // Every payout, also those still waiting for approval: support, finance and auditors have no
  // other view, so it is not a history of decided ones alone, and its name says so.
  { value: 'all', label: 'All payouts', empty: 'No payouts yet.' },
];

const ALL = { value: 'all' as View, label: 'All payouts', empty: 'No payouts yet.' };

/** `?paidLate=true`: only the payouts the gateway paid after a not-applied verdict. */
function paidLateOf(params: URLSearchParams): boolean {
  return params.get('paidLate') === 'true';
}

/**
 * `?state=…`: only the payouts in that state (Home links to `?view=all&state=unknown`). An address
 * whose state is not one is ignored.
 */
function stateOf(params: URLSearchParams): PayoutState | undefined {
  const parsed = PayoutListQuerySchema.shape.state.safeParse(params.get('state') ?? undefined);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The view in the address; without one, an ops user's approval queue, or every payout when only
 * those paid late, or in one state, are asked for. Only ops prepare and approve payouts: anyone
 * else sent to a queue or to "Prepared by me" sees every payout, not an empty list that cannot fill.
 */
function viewOf(params: URLSearchParams, isOps: boolean): View {
  const parsed = PayoutListQuerySchema.shape.view.safeParse(params.get('view') ?? undefined);
  if (parsed.success && params.has('view') && (isOps || parsed.data === 'all')) return parsed.data;
  return isOps && !paidLateOf(params) && stateOf(params) === undefined
    ? 'awaiting-my-approval'
    : 'all';
}

/**
 * `?decidedFrom=…` with the paid-late filter: only those decided since then (Home's card counts
 * the last 30 days and links here with it). An address that is not a date-time is ignored.
 */
function decidedFromOf(params: URLSearchParams): string | undefined {
  const parsed = PayoutListQuerySchema.shape.decidedFrom.safeParse(
    params.get('decidedFrom') ?? undefined,
  );
  return parsed.success ? parsed.data : undefined;
}

/**
 * The address of a view, with the paid-late filter (and its decided-since bound) and the state
 * filter where the view can hold such payouts (the approval queue has filters of its own).
 */
function paramsOf(
  view: View,
  paidLate: boolean,
  decidedFrom?: string,
  state?: PayoutState,
): URLSearchParams {
  if (view === 'awaiting-my-approval') return new URLSearchParams({ view });
  return new URLSearchParams({
    view,
    ...(paidLate ? { paidLate: 'true' } : {}),
    ...(paidLate && decidedFrom !== undefined ? { decidedFrom } : {}),
    ...(state === undefined ? {} : { state }),
  });
}

/** A state as the filter's chip says it: the state chip's words ("Outcome unknown" reads better). */
function stateFilterLabel(state: PayoutState): string {
  return state === 'unknown' ? 'Outcome unknown' : PAYOUT_STATE_LOOK[state].label;
}

/** A filter chip of the list's address with its words beside it, above the table. */
function FilterRow({ children }: { children: ReactNode }) {
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ mb: 1.5, alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}
    >
      {children}
    </Stack>
  );
}

/** The state filter of the address as a chip; its clear icon shows every state again. */
function StateFilter({ state, onClear }: { state: PayoutState; onClear: () => void }) {
  const label = stateFilterLabel(state);
  return (
    <FilterRow>
      <Chip
        label={label}
        color={PAYOUT_STATE_LOOK[state].color}
        variant="filled"
        aria-label={`${label}: only the payouts in this state; press to show every state`}
        onDelete={onClear}
        onClick={onClear}
      />
      <Typography variant="body2" color="text.secondary">
        Only the payouts in this state.
      </Typography>
    </FilterRow>
  );
}

/**
 * The paid-late filter as a chip: pressed, it lists only the payouts the gateway paid after
 * Paydesk had judged them not applied (each may have been prepared and paid again); pressed again,
 * or its clear icon, shows them all. In the approval queue, which never holds one, it moves to
 * every payout.
 */
function PaidLateFilter({
  on,
  decidedFrom,
  onChange,
  onAllDates,
}: {
  on: boolean;
  /** the decided-since bound of the address, said beside the chip with a way to drop it */
  decidedFrom: string | undefined;
  onChange: (next: boolean) => void;
  onAllDates: () => void;
}) {
  return (
    <FilterRow>
      <Chip
        label="Paid after a not-applied verdict"
        color={on ? 'warning' : 'default'}
        variant={on ? 'filled' : 'outlined'}
        aria-pressed={on}
        onClick={() => {
          onChange(!on);
        }}
        {...(on
          ? {
              onDelete: () => {
                onChange(false);
              },
            }
          : {})}
      />
      {on ? (
        <Typography variant="body2" color="text.secondary">
          The gateway paid these after Paydesk judged them not applied: open each to check that it
          was not prepared and paid again.
          {decidedFrom === undefined ? null : (
            <>
              {' '}
              Only those decided since {formatDateTime(decidedFrom)}.{' '}
              <Link component="button" variant="body2" onClick={onAllDates}>
                Show all dates
              </Link>
            </>
          )}
        </Typography>
      ) : null}
    </FilterRow>
  );
}

/** Table cells start at the top: a row's lines read across from its first line. */
const TOP = { verticalAlign: 'top' } as const;

/**
 * Where the money goes: the masked account (an IBAN may wrap between its groups; a long masked
 * e-wallet id anywhere, rather than push the decision column off the screen: QA) and its kind.
 */
function Destination({ payout }: { payout: Payout }) {
  return (
    <>
      <Typography
        variant="body2"
        sx={{ fontFamily: 'ui-monospace, monospace', overflowWrap: 'anywhere' }}
      >
        {payout.destination.masked}
      </Typography>
      <Typography variant="caption" component="div" color="text.secondary">
        {DESTINATION_KIND_LABELS[payout.destination.kind]}
        {labelSuffix(payout.destination)}
      </Typography>
    </>
  );
}

function DescriptionLink({ payout }: { payout: Payout }) {
  return (
    <Link
      component={RouterLink}
      to={`/payouts/${encodeURIComponent(payout.id)}`}
      // a long word (an invoice number) wraps rather than widen the table
      sx={{ overflowWrap: 'anywhere' }}
    >
      {payout.orderDesc}
    </Link>
  );
}

/** Its state, when it lapses while it waits, and what else the approver must know of it. */
function StateDetails({ payout }: { payout: Payout }) {
  const error = shortErrorText(payout);
  return (
    <>
      <PayoutStateChip state={payout.state} withdrawn={payout.withdrawn} />
      <PossibleDuplicateMarker payout={payout} />
      {payout.state === 'pending_approval' && payout.expiresAt ? (
        <LapsesAt value={payout.expiresAt} />
      ) : null}
      {payout.canPayAgain === true && payout.expiresAt ? (
        <LapsesAt value={payout.expiresAt} lead="Can be paid again until" />
      ) : null}
      {payout.mode === 'single' ? (
        <Typography variant="caption" component="div" color="text.secondary">
          Single: not checked by the gateway
        </Typography>
      ) : null}
      {error ? (
        <Typography variant="caption" component="div" color="text.secondary">
          {error}
        </Typography>
      ) : null}
    </>
  );
}

/**
 * The payout in one cell, for a narrow screen: the amount and what it is for, where it goes, and
 * who prepared it when.
 */
function PayoutSummary({ payout }: { payout: Payout }) {
  return (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
      <Typography variant="body2" sx={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
        {formatMoney(payout.amount, payout.currency)}
      </Typography>
      <DescriptionLink payout={payout} />
      <div>
        <Destination payout={payout} />
      </div>
      <Typography variant="caption" component="div" color="text.secondary">
        Prepared <DateTime value={payout.createdAt} /> by <StaffEmail user={payout.preparedBy} />
      </Typography>
    </Stack>
  );
}

/**
 * Which columns the screen's width holds, with Approve and Reject always in sight: six on a wide
 * screen; on a tablet or a small laptop the payout in one column beside its state and the
 * decision; on a phone all of it in one cell per payout.
 */
type Layout = 'wide' | 'narrow' | 'phone';

function useLayout(): Layout {
  const theme = useTheme();
  // noSsr: the first render already has the screen's columns (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const narrow = useMediaQuery(theme.breakpoints.down('lg'), { noSsr: true });
  return phone ? 'phone' : narrow ? 'narrow' : 'wide';
}

const HEADERS: Record<Layout, string[]> = {
  wide: ['Prepared', 'Amount', 'Destination', 'Description', 'State', 'Decision'],
  narrow: ['Payout', 'State', 'Decision'],
  phone: ['Payout'],
};

function PayoutsTable({
  items,
  myId,
  onDecide,
  tableRef,
}: {
  items: Payout[];
  myId: string;
  onDecide: (payout: Payout, decision: Decision | 'pay-again') => void;
  tableRef?: Ref<HTMLTableElement>;
}) {
  const layout = useLayout();
  const decision = (payout: Payout) => (
    <PayoutDecision
      payout={payout}
      myId={myId}
      onDecide={(chosen) => {
        onDecide(payout, chosen);
      }}
      onPayAgain={() => {
        onDecide(payout, 'pay-again');
      }}
    />
  );
  return (
    <SidewaysTableContainer label="Payouts">
      <Table size="small" aria-label="Payouts" ref={tableRef}>
        <TableHead>
          <TableRow>
            {HEADERS[layout].map((header) => (
              <TableCell key={header} scope="col" align={header === 'Amount' ? 'right' : 'left'}>
                {header}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((payout) => (
            <TableRow key={payout.id} hover>
              {layout === 'phone' ? (
                <TableCell sx={TOP}>
                  <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
                    <PayoutSummary payout={payout} />
                    <div>
                      <StateDetails payout={payout} />
                    </div>
                    {decision(payout)}
                  </Stack>
                </TableCell>
              ) : (
                <>
                  {layout === 'wide' ? (
                    <>
                      <TableCell sx={TOP}>
                        <DateTime value={payout.createdAt} stacked />
                        <Typography variant="caption" component="div" color="text.secondary">
                          by <StaffEmail user={payout.preparedBy} />
                        </Typography>
                      </TableCell>
                      <TableCell align="right" sx={{ ...TOP, whiteSpace: 'nowrap' }}>
                        {formatMoney(payout.amount, payout.currency)}
                      </TableCell>
                      <TableCell sx={{ ...TOP, minWidth: 170 }}>
                        <Destination payout={payout} />
                      </TableCell>
                      <TableCell sx={{ ...TOP, minWidth: 120, maxWidth: 260 }}>
                        <DescriptionLink payout={payout} />
                      </TableCell>
                    </>
                  ) : (
                    <TableCell sx={{ ...TOP, minWidth: 160 }}>
                      <PayoutSummary payout={payout} />
                    </TableCell>
                  )}
                  {/* State and decision end every row that has columns. */}
                  <TableCell sx={{ ...TOP, maxWidth: 220 }}>
                    <StateDetails payout={payout} />
                  </TableCell>
                  <TableCell sx={TOP}>{decision(payout)}</TableCell>
                </>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}

/**
 * Beside an ops user's payout approval queue: the payout-form links that also wait for their
 * approval, which are payouts too but listed under Payment links (QA: they lapsed unseen).
 * Nothing while there are none, or while they are being counted.
 */
function AwaitingLinksNote() {
  const links = useQuery(awaitingLinksQueryOptions());
  const n = links.data?.items.length ?? 0;
  if (n === 0) return null;
  const count = `${String(n)}${links.data?.nextCursor === null ? '' : '+'}`;
  return (
    <Alert severity="info" sx={{ mb: 2 }}>
      {n === 1 ? 'A payout form also waits' : `${count} payout forms also wait`} for your approval,
      under Payment links:{' '}
      <Link component={RouterLink} to={AWAITING_LINKS_HREF}>
        open the links awaiting approval
      </Link>
      .
    </Alert>
  );
}

function PayoutsScreen() {
  const { user } = useSession();
  // An approval's "not known yet" snackbar is replaced once its payout's outcome is known.
  useKnownOutcomeNotices();
  const isOps = user.roles.includes('ops');
  const [params, setParams] = useSearchParams();
  const view = viewOf(params, isOps);
  const paidLate = paidLateOf(params) && view !== 'awaiting-my-approval';
  const decidedFrom = paidLate ? decidedFromOf(params) : undefined;
  const state = view === 'awaiting-my-approval' ? undefined : stateOf(params);
  const list = useInfiniteQuery(
    payoutPagesQueryOptions({
      view,
      limit: 100,
      ...(state === undefined ? {} : { state }),
      ...(paidLate ? { paidLate: 'true' } : {}),
      ...(decidedFrom === undefined ? {} : { decidedFrom }),
    }),
  );
  const live = usePayoutEvents();
  const [preparing, setPreparing] = useState(false);
  const [deciding, setDeciding] = useState<{
    payout: Payout;
    decision: Decision | 'pay-again';
  } | null>(null);
  const views = isOps ? VIEWS : VIEWS.filter((v) => v.value === 'all');
  const current = VIEWS.find((v) => v.value === view) ?? ALL;
  const headingRef = useRef<HTMLHeadingElement>(null);
  const tableRef = useRef<HTMLTableElement>(null);
  // Where the decided payout's row was: the row that takes its place (the next one) gets the
  // focus once its Approve or Reject button went, else the last row, else the heading.
  const decidedRow = useRef(0);
  useFocusAfterDecision(deciding !== null, list.data, () => {
    const rows = [...(tableRef.current?.tBodies[0]?.rows ?? [])];
    const row = rows[decidedRow.current] ?? rows.at(-1);
    return row?.querySelector<HTMLElement>('a[href^="/payouts/"]') ?? headingRef.current;
  });

  return (
    <>
      <PageHeader
        title="Payouts"
        headingRef={headingRef}
        actions={
          <>
            <LiveIndicator state={live} />
            {isOps ? (
              <Button
                variant="contained"
                startIcon={<AddCircleOutline />}
                onClick={() => {
                  setPreparing(true);
                }}
              >
                Prepare payout
              </Button>
            ) : null}
          </>
        }
      >
        Every payout needs two people: one ops user prepares it (two-step: the gateway checks the
        payee’s details at once; single: held unchecked), another approves it.
      </PageHeader>
      {isOps && view === 'awaiting-my-approval' ? <AwaitingLinksNote /> : null}
      <PaidLateFilter
        on={paidLate}
        decidedFrom={decidedFrom}
        onChange={(next) => {
          setParams(
            paramsOf(
              next && view === 'awaiting-my-approval' ? 'all' : view,
              next,
              undefined,
              state,
            ),
          );
        }}
        onAllDates={() => {
          setParams(paramsOf(view, paidLate, undefined, state));
        }}
      />
      {state === undefined ? null : (
        <StateFilter
          state={state}
          onClear={() => {
            setParams(paramsOf(view, paidLate, decidedFrom));
          }}
        />
      )}
      <ViewTabsPanel
        label="Which payouts"
        views={views}
        value={view}
        onChange={(next) => {
          setParams(paramsOf(next, paidLate, decidedFrom, state));
        }}
        list={list}
        loading="Loading payouts…"
        what="the payouts"
        empty={
          state !== undefined && !paidLate
            ? `No payout is in the state “${stateFilterLabel(state)}”.`
            : paidLate
              ? view === 'mine'
                ? 'None of your payouts was paid after a not-applied verdict.'
                : decidedFrom === undefined
                  ? 'No payout was paid after a not-applied verdict.'
                  : 'No payout decided since then was paid after a not-applied verdict.'
              : current.empty
        }
        count={(n) =>
          view === 'awaiting-my-approval'
            ? `${n} waiting for your approval, soonest to lapse first`
            : `${n} ${n === '1' ? 'payout' : 'payouts'} ${paidLate ? 'paid after a not-applied verdict' : state !== undefined ? `in the state “${stateFilterLabel(state)}”` : 'shown'}`
        }
      >
        {(items) => (
          <PayoutsTable
            items={items}
            myId={user.id}
            tableRef={tableRef}
            onDecide={(payout, decision) => {
              decidedRow.current = Math.max(
                0,
                items.findIndex((item) => item.id === payout.id),
              );
              setDeciding({ payout, decision });
            }}
          />
        )}
      </ViewTabsPanel>
      <Suspense fallback={null}>
        {preparing ? (
          <PreparePayoutDialog
            onClose={() => {
              setPreparing(false);
            }}
            onPrepared={() => {
              // The new payout is one's own: it never shows in "Awaiting my approval".
              setParams(new URLSearchParams({ view: 'mine' }));
            }}
          />
        ) : null}
        {deciding?.decision === 'pay-again' ? (
          <PayAgainDialog
            key={`${deciding.payout.id}-pay-again`}
            payout={deciding.payout}
            onClose={() => {
              setDeciding(null);
            }}
          />
        ) : deciding ? (
          <PayoutDecisionDialog
            key={`${deciding.payout.id}-${deciding.decision}`}
            payout={deciding.payout}
            decision={deciding.decision}
            own={deciding.payout.preparedBy.id === user.id}
            onClose={() => {
              setDeciding(null);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

export default function PayoutsRoute() {
  return (
    <RequireRoles roles={SCREENS.payouts.roles} what="the payouts">
      <PayoutsScreen />
    </RequireRoles>
  );
}
