import ArrowBack from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
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
import type { SubscriptionDetail, SubscriptionState } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link as RouterLink, useLocation, useParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { DetailStates } from '../../../components/detail-states';
import { PageHeader } from '../../../components/page-header';
import { formatMoney } from '../../../lib/format';
import { errorText } from '../../../lib/gateway-error';
import { RequireRoles } from '../../auth/components/require-roles';
import { SCREENS } from '../../shell/navigation';
import { Facts, Panel } from '../../transactions/components/amounts-panel';
import { StatusChip } from '../../transactions/components/status-chip';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import { useSubscriptionChargeEvents } from '../api/charge-events';
import { subscriptionDetailQueryOptions } from '../api/subscriptions';
import { isCreatedState } from '../components/created-state';
import {
  chargesText,
  firstChargeWait,
  periodText,
  SubscriptionStateChip,
  unknownPlanNote,
} from '../components/subscription-labels';

/** How often a plan whose first charge is on its way is asked for again (events may go by first). */
const FIRST_CHARGE_POLL_MS = 2_000;
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

/**
 * The states in which the gateway may charge the card again: the plan runs, is being created, or
 * its creation's reply was lost (it may exist). A completed plan charges no more, and a refused or
 * unsent one never existed at the gateway.
 */
const MAY_CHARGE_AGAIN: readonly SubscriptionState[] = ['active', 'sending', 'unknown'];

/**
 * How a plan is stopped. The gateway's API offers no operation to cancel or pause a recurring
 * payment (payment-api.md: create-recurring-payment only), so Paydesk cannot; the gateway's own
 * support or merchant portal can, given the plan's id there.
 */
function HowToStop({ detail }: { detail: SubscriptionDetail }) {
  return (
    // A note to read when wanted, not news: not announced as an alert when the page opens.
    <Alert severity="info" role="note" sx={{ mt: 2 }}>
      <AlertTitle>Stopping this plan</AlertTitle>
      Paydesk cannot stop or pause a plan: the payment gateway does not offer a way to do it. To
      stop the charges, contact the gateway’s support or use its merchant portal, giving them{' '}
      {detail.recurringPaymentId === null ? (
        <>
          the client order id <code>{detail.clientOrderId}</code>
        </>
      ) : (
        <>
          the recurring payment id <strong>{detail.recurringPaymentId}</strong>
        </>
      )}
      .
    </Alert>
  );
}

type Charge = SubscriptionDetail['charges'][number];

const TOP = { verticalAlign: 'top' } as const;

/** A charge's order (the way to its page) and, under it, the shop's own id for it. */
function ChargeOrder({ charge }: { charge: Charge }) {
  return (
    <div>
      <Link component={RouterLink} to={`/transactions/${encodeURIComponent(charge.id)}`}>
        Order {charge.orderid}
      </Link>
      <Typography variant="caption" component="div" color="text.secondary">
        {charge.clientOrderId}
      </Typography>
    </div>
  );
}

/** `asOf`: when the detail was fetched (what it says is true as of then). */
function Charges({ detail, asOf }: { detail: SubscriptionDetail; asOf: number }) {
  const { charges } = detail;
  const theme = useTheme();
  // On a phone (below 600 px), the status and when it was charged go under the order, the amount
  // beside it: four columns ran some 480 px wide, and a 390 px screen scrolled sideways to reach
  // the time it was charged. noSsr: the first render already has the phone's columns.
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const wait = charges.length === 0 ? firstChargeWait(detail, asOf) : null;
  if (wait === 'being_made') {
    return (
      <Alert severity="info">
        First charge being made: the gateway charges the card at once, and the charge shows here as
        soon as Paydesk learns it (this page updates by itself). Do not create the plan again.
      </Alert>
    );
  }
  if (wait === 'late') {
    return (
      <Alert severity="warning">
        The first charge was due <DateTime value={detail.schedule.start} />, but Paydesk has not
        learned of it yet: it shows here when the gateway’s callback comes. Do not create the plan
        again: the gateway may have charged the card.
      </Alert>
    );
  }
  if (charges.length === 0) {
    return (
      <Typography color="text.secondary">
        No charge yet: the gateway charges the card when the next charge is due, and Paydesk learns
        it from the gateway’s callback.
      </Typography>
    );
  }
  // On a phone the charge's status and time go under its order, so two columns fit.
  return (
    <SidewaysTableContainer label="Charges">
      <Table size="small" aria-label="Charges">
        <TableHead>
          <TableRow>
            <TableCell scope="col">{phone ? 'Charge' : 'Order'}</TableCell>
            <TableCell scope="col" align="right">
              Amount
            </TableCell>
            {phone ? null : (
              <>
                <TableCell scope="col">Status</TableCell>
                <TableCell scope="col">Charged</TableCell>
              </>
            )}
          </TableRow>
        </TableHead>
        <TableBody>
          {charges.map((charge) => (
            <TableRow key={charge.id}>
              {phone ? (
                // A long client order id breaks rather than widening the screen.
                <TableCell sx={{ ...TOP, minWidth: 120, overflowWrap: 'anywhere' }}>
                  <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
                    <ChargeOrder charge={charge} />
                    <StatusChip status={charge.status} />
                    <Typography variant="caption" component="div" color="text.secondary">
                      Charged <DateTime value={charge.createdAt} />
                    </Typography>
                  </Stack>
                </TableCell>
              ) : (
                <TableCell>
                  <ChargeOrder charge={charge} />
                </TableCell>
              )}
              <TableCell align="right" sx={{ ...(phone ? TOP : {}), whiteSpace: 'nowrap' }}>
                {formatMoney(charge.amount, charge.currency)}
              </TableCell>
              {phone ? null : (
                <>
                  <TableCell>
                    <StatusChip status={charge.status} />
                  </TableCell>
                  <TableCell>
                    <DateTime value={charge.createdAt} />
                  </TableCell>
                </>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}

function DetailView({
  detail,
  asOf,
  justCreated,
}: {
  detail: SubscriptionDetail;
  asOf: number;
  /** reached from the New subscription dialog: the keyboard starts at the heading */
  justCreated: boolean;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  // Once, when the page shows (not again as the plan's data updates).
  useEffect(() => {
    if (justCreated) headingRef.current?.focus();
  }, [justCreated]);
  const { schedule } = detail;
  const live = useSubscriptionChargeEvents();
  // What the gateway answered, in words, when the plan's outcome is not known.
  const unknownNote = detail.state === 'unknown' ? unknownPlanNote(detail) : null;
  const outcomeKnown = detail.state !== 'unknown' && detail.state !== 'sending';
  return (
    <>
      <Button component={RouterLink} to="/subscriptions" startIcon={<ArrowBack />} sx={{ mb: 1 }}>
        All subscriptions
      </Button>
      <PageHeader
        title={detail.orderDesc}
        headingRef={headingRef}
        actions={<LiveIndicator state={live} />}
      >
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <SubscriptionStateChip state={detail.state} />
          <span>
            {formatMoney(detail.amount, detail.currency)}{' '}
            {periodText(schedule.period, schedule.interval)} · {chargesText(schedule)}
          </span>
        </Stack>
      </PageHeader>
      <Stack spacing={2}>
        {detail.errorMessage !== null && unknownNote?.saysError !== true ? (
          <Alert severity="error">{errorText(detail.errorCode, detail.errorMessage)}</Alert>
        ) : null}
        {unknownNote !== null ? <Alert severity="warning">{unknownNote.text}</Alert> : null}
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' },
          }}
        >
          <Panel title="Schedule">
            <Facts
              rows={[
                ['Amount', <strong key="a">{formatMoney(detail.amount, detail.currency)}</strong>],
                ['Charged', periodText(schedule.period, schedule.interval)],
                // While the create's outcome is not known, the schedule is what was asked, not a
                // fact: the plan may not exist (QA: an unknown plan showed its next charge as due).
                [
                  'First charge',
                  <span key="s">
                    <DateTime value={schedule.start} />
                    {outcomeKnown ? null : ' (asked for; the plan may not exist)'}
                  </span>,
                ],
                [
                  'Next charge',
                  schedule.nextChargeAt === null ? (
                    'none'
                  ) : (
                    <span key="n">
                      <DateTime value={schedule.nextChargeAt} />
                      {outcomeKnown ? null : ' if the plan exists'}
                    </span>
                  ),
                ],
                ['Charges', chargesText(schedule)],
              ]}
            />
            {MAY_CHARGE_AGAIN.includes(detail.state) ? <HowToStop detail={detail} /> : null}
          </Panel>
          <Panel title="Plan">
            <Facts
              rows={[
                [
                  'Card reference',
                  <Link
                    key="r"
                    component={RouterLink}
                    to={`/cards?ref=${encodeURIComponent(detail.cardRefId)}`}
                  >
                    {detail.cardRefId}
                  </Link>,
                ],
                ['Customer e-mail', detail.email],
                ['Client order id', <code key="c">{detail.clientOrderId}</code>],
                ['Recurring payment id', detail.recurringPaymentId ?? '—'],
                ['Endpoint', detail.endpointId],
                ['Created by', detail.createdBy],
                ['Created', <DateTime key="cr" value={detail.createdAt} />],
              ]}
            />
          </Panel>
        </Box>
        <Panel title="Charges">
          <Charges detail={detail} asOf={asOf} />
        </Panel>
      </Stack>
    </>
  );
}

function SubscriptionDetailScreen() {
  const { id = '' } = useParams();
  const location = useLocation();
  const detail = useQuery({
    ...subscriptionDetailQueryOptions(id),
    // Its first charge on its way: asked again until it shows, in case its event came before this
    // screen followed the events.
    refetchInterval: (query) => {
      const data = query.state.data;
      return data?.charges.length === 0 && firstChargeWait(data, Date.now()) === 'being_made'
        ? FIRST_CHARGE_POLL_MS
        : false;
    },
  });
  if (!detail.isSuccess) {
    return (
      <DetailStates
        query={detail}
        what="subscription"
        back={{ to: '/subscriptions', label: 'all subscriptions' }}
      />
    );
  }
  return (
    <DetailView
      detail={detail.data}
      asOf={detail.dataUpdatedAt}
      justCreated={isCreatedState(location.state)}
    />
  );
}

export default function SubscriptionDetailRoute() {
  return (
    <RequireRoles roles={SCREENS.subscriptions.roles} what="the subscriptions">
      <SubscriptionDetailScreen />
    </RequireRoles>
  );
}
