import AddCircleOutline from '@mui/icons-material/AddCircleOutlined';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { PayoutListQuerySchema, type Payout, type PayoutListQuery } from '@paydesk/shared/api';
import { useInfiniteQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import type { Decision } from '../../../components/decision-buttons';
import { PageHeader } from '../../../components/page-header';
import { ViewTabsPanel, type ListView } from '../../../components/view-tabs-panel';
import { formatMoney } from '../../../lib/format';
import { errorText } from '../../../lib/gateway-error';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import { usePayoutEvents } from '../api/live-payouts';
import { payoutPagesQueryOptions } from '../api/payouts';
import { DESTINATION_KIND_LABELS, labelSuffix } from '../components/destination-labels';
import { LapsesAt } from '../components/lapse-time';
import { PayoutDecision } from '../components/payout-decision';
import { PayoutStateChip } from '../components/payout-state-chip';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

const PreparePayoutDialog = lazy(() => import('../components/prepare-payout-dialog'));
const PayoutDecisionDialog = lazy(() => import('../components/payout-decision-dialog'));

type View = PayoutListQuery['view'];
const VIEWS: ListView<View>[] = [
  {
    value: 'awaiting-my-approval',
    label: 'Awaiting my approval',
    empty: 'Nothing waits for your approval.',
  },
  { value: 'mine', label: 'Prepared by me', empty: 'You have not prepared a payout yet.' },
  { value: 'all', label: 'History', empty: 'No payouts yet.' },
];

const HISTORY = { value: 'all' as View, label: 'History', empty: 'No payouts yet.' };

function viewOf(params: URLSearchParams, isOps: boolean): View {
  const parsed = PayoutListQuerySchema.shape.view.safeParse(params.get('view') ?? undefined);
  if (parsed.success && params.has('view')) return parsed.data;
  return isOps ? 'awaiting-my-approval' : 'all';
}

function PayoutsTable({
  items,
  myId,
  onDecide,
}: {
  items: Payout[];
  myId: string;
  onDecide: (payout: Payout, decision: Decision) => void;
}) {
  return (
    <SidewaysTableContainer label="Payouts">
      <Table size="small" aria-label="Payouts">
        <TableHead>
          <TableRow>
            <TableCell scope="col">Prepared</TableCell>
            <TableCell scope="col" align="right">
              Amount
            </TableCell>
            <TableCell scope="col">Destination</TableCell>
            <TableCell scope="col">Description</TableCell>
            <TableCell scope="col">Prepared by</TableCell>
            <TableCell scope="col">State</TableCell>
            <TableCell scope="col">Decision</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((payout) => (
            <TableRow key={payout.id} hover>
              <TableCell sx={{ verticalAlign: 'top' }}>
                <DateTime value={payout.createdAt} stacked />
              </TableCell>
              <TableCell align="right" sx={{ verticalAlign: 'top', whiteSpace: 'nowrap' }}>
                {formatMoney(payout.amount, payout.currency)}
              </TableCell>
              <TableCell sx={{ verticalAlign: 'top' }}>
                <Typography
                  variant="body2"
                  sx={{ fontFamily: 'ui-monospace, monospace', whiteSpace: 'nowrap' }}
                >
                  {payout.destination.masked}
                </Typography>
                <Typography variant="caption" color="text.secondary">
                  {DESTINATION_KIND_LABELS[payout.destination.kind]}
                  {labelSuffix(payout.destination)}
                </Typography>
              </TableCell>
              <TableCell sx={{ verticalAlign: 'top', minWidth: 160, maxWidth: 260 }}>
                <Link component={RouterLink} to={`/payouts/${encodeURIComponent(payout.id)}`}>
                  {payout.orderDesc}
                </Link>
              </TableCell>
              <TableCell sx={{ verticalAlign: 'top' }}>
                <EmailText value={payout.preparedBy.email} />
              </TableCell>
              <TableCell sx={{ verticalAlign: 'top' }}>
                <PayoutStateChip state={payout.state} withdrawn={payout.withdrawn} />
                {payout.state === 'pending_approval' && payout.expiresAt ? (
                  <LapsesAt value={payout.expiresAt} />
                ) : null}
                {payout.mode === 'single' ? (
                  <Typography variant="caption" component="div" color="text.secondary">
                    Single: not checked by the gateway
                  </Typography>
                ) : null}
                {payout.errorMessage ? (
                  <Typography variant="caption" component="div" color="text.secondary">
                    {errorText(payout.errorCode, payout.errorMessage)}
                  </Typography>
                ) : null}
              </TableCell>
              <TableCell sx={{ verticalAlign: 'top' }}>
                <PayoutDecision
                  payout={payout}
                  myId={myId}
                  onDecide={(decision) => {
                    onDecide(payout, decision);
                  }}
                />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}

function PayoutsScreen() {
  const { user } = useSession();
  const isOps = user.roles.includes('ops');
  const [params, setParams] = useSearchParams();
  const view = viewOf(params, isOps);
  const list = useInfiniteQuery(payoutPagesQueryOptions({ view, limit: 100 }));
  const live = usePayoutEvents();
  const [preparing, setPreparing] = useState(false);
  const [deciding, setDeciding] = useState<{
    payout: Payout;
    decision: Decision;
  } | null>(null);
  const views = isOps ? VIEWS : VIEWS.filter((v) => v.value === 'all');
  const current = VIEWS.find((v) => v.value === view) ?? HISTORY;

  return (
    <>
      <PageHeader
        title="Payouts"
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
        Every payout needs two people: one ops user prepares it (two-step: checked by payout-check
        at once; single: held unchecked), another approves it.
      </PageHeader>
      <ViewTabsPanel
        label="Which payouts"
        views={views}
        value={view}
        onChange={(next) => {
          setParams(new URLSearchParams({ view: next }));
        }}
        list={list}
        loading="Loading payouts…"
        what="the payouts"
        empty={current.empty}
        count={(n) =>
          view === 'awaiting-my-approval'
            ? `${n} waiting for your approval, soonest to lapse first`
            : `${n} ${n === '1' ? 'payout' : 'payouts'} shown`
        }
      >
        {(items) => (
          <PayoutsTable
            items={items}
            myId={user.id}
            onDecide={(payout, decision) => {
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
        {deciding ? (
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
