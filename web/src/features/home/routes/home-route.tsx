import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { NOT_MADE_KINDS } from '@paydesk/shared/domain';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useId, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { describeError } from '../../../lib/api-client';
import { useSession } from '../../auth/components/session-context';
import { usePayoutEvents } from '../../payouts/api/live-payouts';
import { allows, SCREENS } from '../../shell/navigation';
import { awaitingLinksQueryOptions, linkKeys } from '../../payment-links/api/payment-links';
import { useRefetchOnLiveEvents, useTransactionEvents } from '../../transactions/api/live-events';
import { canRedo } from '../../transactions/api/permissions';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import {
  homeKeys,
  PAID_LATE_DAYS,
  paidLateListHref,
  paidLatePayoutsQuery,
  PENDING_LIMIT,
  pendingPayoutsQuery,
  pendingPayoutsQueryOptions,
  PERIODS,
  readPeriod,
  returnTotals,
  statsQueryOptions,
  UNKNOWN_PAYOUTS_HREF,
  unknownPayoutsQuery,
  windowCaption,
  windowStart,
  type Period,
} from '../api/home-stats';
import { AttentionCards } from '../components/attention-cards';
import { Shortcuts } from '../components/shortcuts';
import { CAPTURED_NOTE, ReturnsCard, VolumeCard } from '../components/volume-card';

const HomeCharts = lazy(() => import('../components/home-charts'));

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `home-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <Box component="section" aria-labelledby={id}>
      <Typography id={id} variant="h2" component="h2" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

const grid = {
  display: 'grid',
  gap: 2,
  gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: 'repeat(3, 1fr)' },
} as const;

function Dashboard() {
  const { user } = useSession();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const period = readPeriod(params);
  const days = PERIODS.find((p) => p.value === period)?.days ?? 30;
  const periodLabel = `Last ${days} days`;
  // Whole UTC days, as the charts count them: the Today card is today's bar.
  const todayFrom = windowStart(1);
  const periodFrom = windowStart(days);
  const today = useQuery(statsQueryOptions(todayFrom));
  const periodStats = useQuery(statsQueryOptions(periodFrom));
  const isOps = user.roles.includes('ops');
  const pending = useQuery(pendingPayoutsQueryOptions(pendingPayoutsQuery(isOps)));
  // An ops user's payout-form links to approve: their other approval queue.
  const awaitingLinks = useQuery({ ...awaitingLinksQueryOptions(), enabled: isOps });
  // Payouts the gateway paid after a not-applied verdict: for whoever may see payouts.
  const seesPayouts = allows(SCREENS.payouts, user.roles);
  const paidLateFrom = windowStart(PAID_LATE_DAYS);
  const paidLate = useQuery({
    ...pendingPayoutsQueryOptions(paidLatePayoutsQuery(paidLateFrom)),
    enabled: seesPayouts,
  });
  // Payouts the gateway did not answer (outcome unknown): for whoever may see payouts too.
  const unknownPayouts = useQuery({
    ...pendingPayoutsQueryOptions(unknownPayoutsQuery()),
    enabled: seesPayouts,
  });
  // A status change anywhere moves the figures: refetch them (a running refetch is reused).
  const refresh = useCallback(() => {
    void client.invalidateQueries({ queryKey: homeKeys.stats }, { cancelRefetch: false });
  }, [client]);
  const live = useTransactionEvents(refresh);
  const capturedNoteId = useId();
  // Payouts prepared or decided elsewhere move the approval count, and links the links' count.
  usePayoutEvents();
  useRefetchOnLiveEvents('payment_link', linkKeys.all);

  const header = (
    <PageHeader
      title="Home"
      actions={
        <>
          <LiveIndicator state={live} />
          <ToggleButtonGroup
            exclusive
            size="small"
            value={period}
            aria-label="Period"
            onChange={(_event, next: Period | null) => {
              if (next !== null) setParams(new URLSearchParams({ period: next }));
            }}
          >
            {PERIODS.map((p) => (
              <ToggleButton key={p.value} value={p.value}>
                {p.label}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
        </>
      }
    >
      Today and the {periodLabel.toLowerCase()} at a glance, {user.name}.
    </PageHeader>
  );

  if (today.isPending || periodStats.isPending) {
    return (
      <>
        {header}
        <LoadingState label="Loading the figures…" />
      </>
    );
  }
  if (today.isError || periodStats.isError) {
    return (
      <>
        {header}
        <ErrorState
          error={today.error ?? periodStats.error}
          what="the figures"
          onRetry={() => {
            void today.refetch();
            void periodStats.refetch();
          }}
        />
      </>
    );
  }

  const stats = periodStats.data;
  const capturedNote = stats.volumes.length > 0 || today.data.volumes.length > 0;
  const pendingCard = pending.isSuccess
    ? {
        count: pending.data.items.length,
        capped: pending.data.items.length >= PENDING_LIMIT,
        // Others see every payout waiting: the list filtered to them, as counted.
        href: isOps
          ? '/payouts?view=awaiting-my-approval'
          : '/payouts?view=all&state=pending_approval',
        mine: isOps,
      }
    : null;
  const awaitingLinksCard =
    isOps && awaitingLinks.isSuccess
      ? {
          count: awaitingLinks.data.items.length,
          capped: awaitingLinks.data.nextCursor !== null,
        }
      : null;
  const unknownPayoutsCard =
    seesPayouts && unknownPayouts.isSuccess
      ? {
          count: unknownPayouts.data.items.length,
          capped: unknownPayouts.data.nextCursor !== null,
          href: UNKNOWN_PAYOUTS_HREF,
        }
      : null;
  const paidLateCard =
    seesPayouts && paidLate.isSuccess
      ? {
          count: paidLate.data.items.length,
          capped: paidLate.data.nextCursor !== null,
          days: PAID_LATE_DAYS,
          href: paidLateListHref(paidLateFrom),
        }
      : null;

  return (
    <>
      {header}
      <Stack spacing={3}>
        <Section title="Needs attention">
          <Box sx={grid}>
            <AttentionCards
              attention={stats.attention}
              pending={pendingCard}
              unknownPayouts={unknownPayoutsCard}
              paidLate={paidLateCard}
              awaitingLinks={awaitingLinksCard}
              mayRedo={NOT_MADE_KINDS.every((kind) => canRedo(kind, user.roles))}
            />
          </Box>
          {pending.isError ? (
            <Alert severity="warning" sx={{ mt: 2 }}>
              Could not count the payouts awaiting approval: {describeError(pending.error)}
            </Alert>
          ) : null}
          {isOps && awaitingLinks.isError ? (
            <Alert severity="warning" sx={{ mt: 2 }}>
              Could not count the payout forms awaiting your approval:{' '}
              {describeError(awaitingLinks.error)}
            </Alert>
          ) : null}
          {seesPayouts && unknownPayouts.isError ? (
            <Alert severity="warning" sx={{ mt: 2 }}>
              Could not count the payouts with an unknown outcome:{' '}
              {describeError(unknownPayouts.error)}
            </Alert>
          ) : null}
          {seesPayouts && paidLate.isError ? (
            <Alert severity="warning" sx={{ mt: 2 }}>
              Could not count the payouts paid after a not-applied verdict:{' '}
              {describeError(paidLate.error)}
            </Alert>
          ) : null}
        </Section>
        <Section title="Captured volume">
          <Box sx={grid}>
            <VolumeCard
              title="Today"
              covers={windowCaption(todayFrom, 1)}
              stats={today.data}
              describedBy={capturedNote ? capturedNoteId : undefined}
            />
            <VolumeCard
              title={periodLabel}
              covers={windowCaption(periodFrom, days)}
              stats={stats}
              describedBy={capturedNote ? capturedNoteId : undefined}
            />
            <ReturnsCard
              title={`Returns, ${periodLabel.toLowerCase()}`}
              covers={windowCaption(periodFrom, days)}
              totals={returnTotals(stats)}
            />
          </Box>
          {/* Once for both captured cards (the period's has money whenever today's has). */}
          {capturedNote ? (
            <Typography
              id={capturedNoteId}
              variant="caption"
              component="p"
              color="text.secondary"
              sx={{ mt: 1.5, maxWidth: '100ch' }}
            >
              {CAPTURED_NOTE}
            </Typography>
          ) : null}
        </Section>
        <Section title="Trends">
          {stats.volumes.length === 0 ? (
            <EmptyState title={`No orders in the ${periodLabel.toLowerCase()}`}>
              Orders appear as the storefront sends them; choose a longer period to look further
              back.
            </EmptyState>
          ) : (
            <Suspense fallback={<LoadingState label="Loading the charts…" />}>
              <HomeCharts stats={stats} periodLabel={periodLabel.toLowerCase()} />
            </Suspense>
          )}
        </Section>
      </Stack>
    </>
  );
}

/** Admins read no statistics: their home is the way to their screens, with no forbidden calls. */
function ShortcutHome() {
  const { user } = useSession();
  return (
    <>
      <PageHeader title="Home">Welcome, {user.name}. Where to today?</PageHeader>
      <Shortcuts roles={user.roles} />
    </>
  );
}

export default function HomeRoute() {
  const { user } = useSession();
  return allows(SCREENS.transactions, user.roles) ? <Dashboard /> : <ShortcutHome />;
}
