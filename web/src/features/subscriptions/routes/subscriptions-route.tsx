import AddCircleOutline from '@mui/icons-material/AddCircleOutlined';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import { useTheme } from '@mui/material/styles';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { SubscriptionListQuerySchema, type SubscriptionSummary } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink, useLocation, useSearchParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { formatMoney } from '../../../lib/format';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { KeysetPager } from '../../transactions/components/keyset-pager';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import { useSubscriptionChargeEvents } from '../api/charge-events';
import { subscriptionListQueryOptions } from '../api/subscriptions';
import {
  chargesText,
  firstChargeWait,
  periodText,
  SubscriptionStateChip,
} from '../components/subscription-labels';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

const CreateSubscriptionDialog = lazy(() => import('../components/create-subscription-dialog'));

const PAGE_SIZES = [25, 50, 100] as const;

/** The cursors of the pages before this one (null = the first page), kept in the history entry. */
function trailOf(state: unknown): (string | null)[] | null {
  if (typeof state !== 'object' || state === null || !('trail' in state)) return null;
  const { trail } = state;
  if (!Array.isArray(trail)) return null;
  const cursors: unknown[] = trail;
  return cursors.every((c): c is string | null => c === null || typeof c === 'string')
    ? cursors
    : null;
}

const TOP = { verticalAlign: 'top' } as const;

const WIDE_HEADERS = ['Plan', 'Amount', 'Schedule', 'Next charge', 'Customer', 'State'];
/**
 * On a phone (below 600 px) the plan takes one column with what is looked for first, its name (the
 * way to its page) and state, then its schedule, next charge and customer beneath; its amount
 * stays beside it. Six columns side by side were 864 px wide, and a 390 px screen scrolled
 * sideways to its schedule and never showed the state. When it was created is on the plan's page.
 */
const PHONE_HEADERS = ['Plan', 'Amount'];

/** 'every month', with '1 of 12 charges' (and a first charge on its way) beneath. */
function Schedule({ plan, asOf }: { plan: SubscriptionSummary; asOf: number }) {
  return (
    <>
      {periodText(plan.schedule.period, plan.schedule.interval)}
      <Typography variant="caption" component="div" color="text.secondary">
        {chargesText(plan.schedule)}
        {firstChargeWait(plan, asOf) === 'being_made' ? ' · first charge being made' : ''}
      </Typography>
    </>
  );
}

function PlanLink({ plan }: { plan: SubscriptionSummary }) {
  return (
    <Link component={RouterLink} to={`/subscriptions/${encodeURIComponent(plan.id)}`}>
      {plan.orderDesc}
    </Link>
  );
}

/** `asOf`: when the page was fetched (what it says is true as of then). */
function SubscriptionsTable({ items, asOf }: { items: SubscriptionSummary[]; asOf: number }) {
  const theme = useTheme();
  // noSsr: the first render already has the screen's columns (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const amount = (s: SubscriptionSummary) => (
    // Level with the top of the phone's tall plan cell; centred as before beside the wide row's.
    <TableCell align="right" sx={{ ...(phone ? TOP : {}), whiteSpace: 'nowrap' }}>
      {formatMoney(s.amount, s.currency)}
    </TableCell>
  );
  return (
    <SidewaysTableContainer label="Subscriptions">
      <Table size="small" aria-label="Subscriptions">
        <TableHead>
          <TableRow>
            {(phone ? PHONE_HEADERS : WIDE_HEADERS).map((header) => (
              <TableCell key={header} scope="col" align={header === 'Amount' ? 'right' : 'left'}>
                {header}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((s) =>
            phone ? (
              <TableRow key={s.id} hover>
                {/* A long name or address breaks rather than widening the screen. */}
                <TableCell sx={{ ...TOP, overflowWrap: 'anywhere' }}>
                  <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
                    <PlanLink plan={s} />
                    <SubscriptionStateChip state={s.state} />
                    <div>
                      <Schedule plan={s} asOf={asOf} />
                    </div>
                    {s.schedule.nextChargeAt === null ? null : (
                      <Typography variant="body2" component="div">
                        Next charge <DateTime value={s.schedule.nextChargeAt} />
                      </Typography>
                    )}
                    <Typography variant="body2" component="div" color="text.secondary">
                      <EmailText value={s.email} />
                    </Typography>
                  </Stack>
                </TableCell>
                {amount(s)}
              </TableRow>
            ) : (
              <TableRow key={s.id} hover>
                <TableCell sx={{ minWidth: 160 }}>
                  <PlanLink plan={s} />
                  <Typography variant="caption" component="div" color="text.secondary">
                    created <DateTime value={s.createdAt} />
                  </Typography>
                </TableCell>
                {amount(s)}
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <Schedule plan={s} asOf={asOf} />
                </TableCell>
                <TableCell>
                  {s.schedule.nextChargeAt === null ? (
                    '—'
                  ) : (
                    <DateTime value={s.schedule.nextChargeAt} />
                  )}
                </TableCell>
                <TableCell>{s.email}</TableCell>
                <TableCell>
                  <SubscriptionStateChip state={s.state} />
                </TableCell>
              </TableRow>
            ),
          )}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}

function SubscriptionsScreen() {
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  // the page's own parameters only (`create=1` opens the dialog)
  const parsed = SubscriptionListQuerySchema.safeParse({
    cursor: params.get('cursor') ?? undefined,
    limit: params.get('limit') ?? undefined,
  });
  const query = parsed.success ? parsed.data : { limit: 50 };
  const list = useQuery(subscriptionListQueryOptions(query));
  const live = useSubscriptionChargeEvents();
  const [creating, setCreating] = useState(params.get('create') === '1');
  const canCreate = user.roles.includes('finance');
  const trail = trailOf(location.state) ?? [];
  const pageNumber =
    query.cursor === undefined ? 1 : trailOf(location.state) === null ? null : trail.length + 1;
  const go = (cursor: string | null, limit: number, nextTrail: (string | null)[]) => {
    const next = new URLSearchParams();
    if (cursor !== null) next.set('cursor', cursor);
    if (limit !== 50) next.set('limit', String(limit));
    setParams(next, { state: { trail: nextTrail } });
  };

  return (
    <>
      <PageHeader
        title="Subscriptions"
        actions={
          <>
            <LiveIndicator state={live} />
            {canCreate ? (
              <Button
                variant="contained"
                startIcon={<AddCircleOutline />}
                sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
                onClick={() => {
                  setCreating(true);
                }}
              >
                New subscription
              </Button>
            ) : null}
          </>
        }
      >
        Recurring charges of a stored card. The gateway charges them on schedule; each charge is an
        order of its own, and Paydesk learns each charge automatically from the gateway.
      </PageHeader>
      <Paper variant="outlined">
        {list.isPending ? (
          <LoadingState label="Loading subscriptions…" />
        ) : list.isError ? (
          <ErrorState
            error={list.error}
            what="the subscriptions"
            onRetry={() => void list.refetch()}
          />
        ) : list.data.items.length === 0 && query.cursor === undefined ? (
          <EmptyState title="No subscriptions yet.">
            {canCreate
              ? 'Create one from a card reference with New subscription.'
              : 'Finance creates them from a card reference.'}
          </EmptyState>
        ) : (
          <>
            <SubscriptionsTable items={list.data.items} asOf={list.dataUpdatedAt} />
            <KeysetPager
              pageNumber={pageNumber}
              shown={list.data.items.length}
              pageSize={query.limit}
              pageSizes={PAGE_SIZES}
              hasNext={list.data.nextCursor !== null && !list.isPlaceholderData}
              hasPrevious={trail.length > 0}
              onFirst={() => {
                go(null, query.limit, []);
              }}
              onPrevious={() => {
                go(trail.at(-1) ?? null, query.limit, trail.slice(0, -1));
              }}
              onNext={() => {
                const next = list.data.nextCursor;
                if (next !== null) go(next, query.limit, [...trail, query.cursor ?? null]);
              }}
              onPageSizeChange={(limit) => {
                go(null, limit, []);
              }}
            />
          </>
        )}
      </Paper>
      <Suspense fallback={null}>
        {creating && canCreate ? (
          <CreateSubscriptionDialog
            cardRefId={params.get('ref') ?? ''}
            onClose={() => {
              setCreating(false);
              // Opened from Cards (`?create=1&ref=…`): closing leaves the plain list.
              if (params.has('create')) setParams(new URLSearchParams(), { replace: true });
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

export default function SubscriptionsRoute() {
  return (
    <RequireRoles roles={SCREENS.subscriptions.roles} what="the subscriptions">
      <SubscriptionsScreen />
    </RequireRoles>
  );
}
