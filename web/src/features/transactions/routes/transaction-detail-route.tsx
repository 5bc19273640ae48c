import ArrowBack from '@mui/icons-material/ArrowBack';
import Refresh from '@mui/icons-material/Refresh';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import type { FollowUpAction, TransactionDetail } from '@paydesk/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { useNotify } from '../../../components/notifier';
import { ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { describeError, isApiError, isNoSuchRecord } from '../../../lib/api-client';
import { RequireRoles } from '../../auth/components/require-roles';
import { CardRefLink } from '../../cards/components/card-ref-link';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { useTransactionEvents } from '../api/live-events';
import { canRefresh, offeredActions } from '../api/permissions';
import {
  refreshTransaction,
  transactionDetailQueryOptions,
  transactionKeys,
} from '../api/transactions';
import { AmountsPanel, Facts, Panel } from '../components/amounts-panel';
import { orderOriginRows } from '../components/order-origin';
import { EmailText } from '../../../components/email-text';
import { TYPE_LABELS } from '../components/labels';
import { LiveIndicator } from '../components/live-indicator';
import { OperationsList } from '../components/operations-list';
import { TransactionStatusChips } from '../components/status-chip';
import { Timeline } from '../components/timeline';

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

function Attention({ detail }: { detail: TransactionDetail }) {
  return (
    <>
      {detail.status === 'unknown' ? (
        <Alert severity="warning">
          <AlertTitle>Outcome unknown</AlertTitle>
          Paydesk sent a request but the gateway’s answer was lost. It is asking the gateway for the
          status and will not send anything again on its own. Refresh the status to ask now.
        </Alert>
      ) : null}
      {detail.drift ? (
        <Alert severity="warning">
          <AlertTitle>The gateway and Paydesk disagree</AlertTitle>
          The gateway’s status does not match Paydesk’s record; the difference is in the timeline
          {detail.driftDetails
            ? `: ${Object.entries(detail.driftDetails)
                .map(
                  ([key, value]) =>
                    `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
                )
                .join(', ')}`
            : ''}
          .
        </Alert>
      ) : null}
    </>
  );
}

function DetailView({ detail }: { detail: TransactionDetail }) {
  const { user } = useSession();
  const client = useQueryClient();
  const notify = useNotify();
  const [open, setOpen] = useState<FollowUpAction | null>(null);
  const actions = offeredActions(detail, user.roles);
  const live = useTransactionEvents();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const afterDialog = useRef(false);
  const actionsKey = actions.join(' ');
  // An action done is often no longer offered: its button, where the dialog gives the focus back,
  // goes away (before or just after the dialog closes), which would leave the keyboard focus on
  // the page's body. The heading takes it then.
  useEffect(() => {
    if (open !== null) {
      afterDialog.current = true;
      return;
    }
    const active = document.activeElement;
    if (afterDialog.current && (active === null || active === document.body)) {
      afterDialog.current = false;
      headingRef.current?.focus();
    }
  }, [open, actionsKey]);

  const refresh = useMutation({
    mutationFn: () => refreshTransaction(detail.id),
    onSuccess: async (fresh) => {
      client.setQueryData(transactionKeys.detail(detail.id), fresh);
      notify(
        `Status asked: the gateway says ${fresh.status}${fresh.drift ? ' (drift flagged)' : ''}.`,
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
        title={`Order ${detail.orderid}`}
        headingRef={headingRef}
        actions={
          <>
            <LiveIndicator state={live} />
            {canRefresh(user.roles) ? (
              // Busy, not disabled, while asking: a disabled button would drop the keyboard focus.
              <Button
                variant="outlined"
                startIcon={
                  refresh.isPending ? (
                    <CircularProgress size={18} color="inherit" aria-hidden />
                  ) : (
                    <Refresh />
                  )
                }
                aria-disabled={refresh.isPending}
                aria-busy={refresh.isPending}
                sx={{ '&[aria-disabled="true"]': { cursor: 'progress', opacity: 0.7 } }}
                onClick={() => {
                  if (!refresh.isPending) refresh.mutate();
                }}
              >
                Refresh status
              </Button>
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
          <TransactionStatusChips
            status={detail.status}
            stage={detail.stage}
            drift={detail.drift}
          />
          <span>
            {TYPE_LABELS[detail.type]}
            {detail.stage ? ` · ${detail.stage.replace(/_/g, ' ')}` : ''} · client order{' '}
            {detail.clientOrderId}
          </span>
        </Stack>
      </PageHeader>
      <Stack spacing={2}>
        <Attention detail={detail} />
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', md: '1fr 1fr', lg: '1fr 1fr 1fr' },
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
                    <CardRefLink key="ref" cardRefId={detail.cardRefId} />
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
                ['Orderid', <code key="o">{detail.orderid}</code>],
                ['Client order id', <code key="c">{detail.clientOrderId}</code>],
                ...orderOriginRows(detail.clientOrderId),
                ['Endpoint', detail.endpointId],
                ['Created', <DateTime key="cr" value={detail.createdAt} />],
                ['Updated', <DateTime key="u" value={detail.updatedAt} />],
                [
                  'Last asked the gateway',
                  detail.lastCheckedAt ? (
                    <DateTime key="l" value={detail.lastCheckedAt} />
                  ) : (
                    'never'
                  ),
                ],
              ]}
            />
          </Panel>
        </Box>
        <Panel title="Operations">
          <OperationsList operations={detail.operations} currency={detail.currency} />
        </Panel>
        <Panel title="Timeline">
          <Timeline entries={detail.timeline} />
        </Panel>
      </Stack>
      <Suspense fallback={null}>
        {Dialog ? (
          <Dialog
            detail={detail}
            onClose={() => {
              setOpen(null);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

function TransactionDetailScreen() {
  const { id = '' } = useParams();
  const detail = useQuery(transactionDetailQueryOptions(id));
  if (detail.isPending) return <LoadingState label="Loading the order…" />;
  if (detail.isError) {
    if (isNoSuchRecord(detail.error)) {
      return (
        <>
          <PageHeader title="Order not found" />
          <Alert severity="info">
            Paydesk knows no transaction with this address. Look the order up by its orderid or
            client_orderid (Ctrl+K), or go back to{' '}
            <RouterLink to="/transactions">all transactions</RouterLink>.
          </Alert>
        </>
      );
    }
    return (
      <ErrorState error={detail.error} what="the order" onRetry={() => void detail.refetch()} />
    );
  }
  return <DetailView detail={detail.data} />;
}

export default function TransactionDetailRoute() {
  return (
    <RequireRoles roles={SCREENS.transactions.roles} what="the transactions">
      <TransactionDetailScreen />
    </RequireRoles>
  );
}
