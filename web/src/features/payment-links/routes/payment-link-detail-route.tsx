import ArrowBack from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import type { PaymentLinkDetail, PaymentLinkRefreshResult } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { DetailStates } from '../../../components/detail-states';
import type { Decision } from '../../../components/decision-buttons';
import { PageHeader } from '../../../components/page-header';
import { endSentence, formatMoney } from '../../../lib/format';
import { shortErrorText } from '../../payouts/api/unanswered-words';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { useRefetchOnLiveEvents } from '../../transactions/api/live-events';
import { Facts, Panel, type FactRow } from '../../transactions/components/amounts-panel';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import { StatusChip } from '../../transactions/components/status-chip';
import { Timeline } from '../../transactions/components/timeline';
import { useLinkOrderEvents } from '../api/order-events';
import {
  linkDetailQueryOptions,
  linkKeys,
  mayCheckPayment,
  refreshLink,
} from '../api/payment-links';
import { LinkDecision } from '../components/link-decision';
import { PageAddress } from '../components/page-address';
import {
  KIND_LABELS,
  linkOrderStageWords,
  linkOrderStateWords,
  LinkStateChip,
  pageHolders,
  pageLost,
  pageUsedUp,
  pageWithheld,
} from '../components/link-labels';
import { useStatusCheck } from '../../../components/refresh-button';

const LinkDecisionDialog = lazy(() => import('../components/link-decision-dialog'));

/** What the state means for whoever looks at it now, and what (if anything) to do. */
function StateNote({ link }: { link: PaymentLinkDetail }) {
  const error = shortErrorText(link);
  const who = link.kind === 'payout-form' ? 'payee' : 'customer';
  const paidTo = paidOutTo(link);
  switch (link.state) {
    case 'pending_approval':
      return (
        <Alert severity="info">
          Waits for an ops user other than {link.createdBy.email} to approve it; its page address is
          released then.
          {link.expiresAt ? (
            <>
              {' '}
              Not approved by <DateTime value={link.expiresAt} />, it lapses.
            </>
          ) : null}
        </Alert>
      );
    case 'sending':
      return <Alert severity="info">On its way to the gateway; this page updates by itself.</Alert>;
    case 'sent':
      if (pageLost(link)) {
        return (
          <Alert severity="warning">
            {link.errorMessage ??
              `The order exists at the gateway, but its page address was lost: create the link again for the ${who}.`}
          </Alert>
        );
      }
      if (link.order !== null) {
        return (
          <Alert severity={link.order.status === 'approved' ? 'success' : 'info'}>
            The {who} used the page: its order is {linkOrderStateWords(link.kind, link.order)}.
            {paidTo === null ? '' : ` The money went to the card ${paidTo}.`}
            {pageUsedUp(link) ? ' The page cannot be used again.' : ''}
          </Alert>
        );
      }
      if (pageWithheld(link)) {
        // A payout form's page pays whoever fills it in: not shown to every reader.
        return (
          <Alert severity="info">
            Its page address pays whoever fills it in, so only {pageHolders(link)} see it and send
            it to the payee; ask them if the payee needs it again. Paydesk learns the order’s
            outcome from the gateway automatically and shows it here and among the transactions.
          </Alert>
        );
      }
      return (
        <Alert severity="success">
          Send the page address to the {who}. Paydesk learns the order’s outcome from the gateway
          automatically when the {who} finishes, and shows it here and among the transactions.
        </Alert>
      );
    case 'unknown':
      return (
        <Alert severity="warning">
          {error ? `${error}.` : 'The gateway’s reply was lost.'} The order may exist, but its page
          address is not known. It is never sent again: Paydesk asks the gateway’s status by itself
          and shows here whether the order was created (check payment status to ask now). If it was
          not, the link may be made again.
        </Alert>
      );
    case 'rejected':
      return (
        <Alert severity="info">
          {link.withdrawn ? 'Withdrawn by its creator' : 'Rejected by'}{' '}
          {link.decidedBy?.email ?? 'ops'}: {endSentence(link.rejectReason ?? '')} Nothing was sent.
        </Alert>
      );
    case 'failed':
      return <Alert severity="error">{error || 'The gateway refused the link.'}</Alert>;
    case 'expired':
      return (
        <Alert severity="info">
          It lapsed
          {link.expiresAt ? (
            <>
              {' '}
              <DateTime value={link.expiresAt} />
            </>
          ) : null}{' '}
          before anyone approved it; nothing was sent. Create it again if the payee is still due the
          payout.
        </Alert>
      );
  }
}

function DetailView({
  link,
  myId,
  isOps,
  canCheck,
}: {
  link: PaymentLinkDetail;
  myId: string;
  isOps: boolean;
  /** support, finance and ops may ask the gateway (auditors read only) */
  canCheck: boolean;
}) {
  const live = useRefetchOnLiveEvents('payment_link', linkKeys.all);
  useLinkOrderEvents([link.orderid]);
  const [deciding, setDeciding] = useState<Decision | null>(null);
  const { button: checkButton, result: checkResult } = useStatusCheck(
    () => refreshLink(link.id),
    (r: PaymentLinkRefreshResult) => r.outcome === 'order_found',
    linkKeys.all,
  );
  const own = link.createdBy.id === myId;
  const amount =
    link.amount !== null && link.currency !== null ? formatMoney(link.amount, link.currency) : null;
  const held = link.kind === 'payout-form';
  const decidedAt = link.decidedAt ?? null;
  const decided: FactRow[] = !held
    ? []
    : link.decidedBy === null
      ? [['Decided', link.state === 'pending_approval' ? 'not yet' : '—']]
      : [
          [
            link.rejectReason === null
              ? 'Approved by'
              : link.withdrawn
                ? 'Withdrawn by'
                : 'Rejected by',
            link.decidedBy.email,
          ],
          // when, as a payout's page says it (absent from an older instance's reply)
          ...(decidedAt === null
            ? []
            : ([['Decided', <DateTime key="d" value={decidedAt} />]] as FactRow[])),
        ];
  // A lost reply never named the orderid; the order's callback may have since.
  const known = link.orderid ?? link.order?.orderid ?? null;
  // Once the order is known, its id leads to the order's page.
  const orderid: React.ReactNode =
    known === null ? (
      'not known'
    ) : link.order === null ? (
      <code>{known}</code>
    ) : (
      <Link
        component={RouterLink}
        to={`/transactions/${encodeURIComponent(link.order.transactionId)}`}
      >
        <code>{known}</code>
      </Link>
    );
  // Whether the customer has paid: the order as the gateway's callbacks told Paydesk.
  const order: React.ReactNode =
    link.order === null ? (
      known === null ? (
        '—'
      ) : (
        `not yet: the ${link.kind === 'payout-form' ? 'payee' : 'customer'} has not finished the form`
      )
    ) : (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <StatusChip status={link.order.status} />
        {link.order.stage ? <span>{linkOrderStageWords(link.kind, link.order)}</span> : null}
        <Link
          component={RouterLink}
          to={`/transactions/${encodeURIComponent(link.order.transactionId)}`}
        >
          its order’s page
        </Link>
      </Stack>
    );
  return (
    <>
      <Button component={RouterLink} to="/payment-links" startIcon={<ArrowBack />} sx={{ mb: 1 }}>
        All payment links
      </Button>
      <PageHeader
        title={`${KIND_LABELS[link.kind]} link${amount === null ? '' : ` of ${amount}`}`}
        actions={
          <>
            <LiveIndicator state={live} />
            {mayCheckPayment(link) && canCheck ? checkButton : null}
            {(link.canDecide && isOps) || (link.state === 'pending_approval' && own) ? (
              <LinkDecision link={link} myId={myId} isOps={isOps} onDecide={setDeciding} />
            ) : null}
          </>
        }
      >
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <LinkStateChip link={link} />
          <span>{link.orderDesc}</span>
        </Stack>
      </PageHeader>
      <Stack spacing={2}>
        <StateNote link={link} />
        {checkResult}
        {link.redirectUrl !== null && !pageUsedUp(link) ? (
          <Box sx={{ maxWidth: 720 }}>
            <PageAddress value={link.redirectUrl} />
          </Box>
        ) : null}
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Panel title="Link">
            <Facts
              rows={[
                ['Form', KIND_LABELS[link.kind]],
                [
                  'Amount',
                  amount ??
                    (link.kind === 'account-verification-form'
                      ? 'none: the card is verified, not charged'
                      : '—'),
                ],
                ['Description', link.orderDesc],
                // a payout-form's person is paid, not charged: the payee
                [
                  link.kind === 'payout-form' ? 'Payee e-mail' : 'Customer e-mail',
                  link.customerEmail ?? '—',
                ],
                ...customerRows(link),
                ['Return address', link.returnUrl ?? '—'],
                ['Endpoint', link.endpointId],
              ]}
            />
          </Panel>
          {/* A card form has no second person: the panel says who created it and when. */}
          <Panel title={held ? 'Four eyes' : 'Creation'}>
            <Facts
              rows={[
                ['Created by', link.createdBy.email],
                ['Created at', <DateTime key="c" value={link.createdAt} />],
                ...decided,
                ...(link.expiresAt === null
                  ? []
                  : ([
                      [
                        link.state === 'pending_approval' ? 'Lapses at' : 'Lapsed at',
                        <DateTime key="e" value={link.expiresAt} />,
                      ],
                    ] as FactRow[])),
                ...(link.rejectReason === null
                  ? []
                  : ([['Reason', link.rejectReason]] as FactRow[])),
              ]}
            />
          </Panel>
          <Panel title="Gateway order">
            <Facts
              rows={[
                ['Client order id', <code key="c">{link.clientOrderId}</code>],
                ['Gateway order id', orderid],
                ['Order status', order],
                // the card the page was used with: a payout-form's destination, where the money went
                [held ? 'Destination' : 'Card', <OrderCard key="card" order={link.order} />],
                // what the page took or held, and what has since been captured and returned
                ...orderMoneyRows(link),
                ['Last change', <DateTime key="u" value={lastChangeOf(link)} />],
              ]}
            />
          </Panel>
        </Box>
        <Panel title="Timeline">
          <Timeline entries={link.events.map((event, id) => ({ ...event, id }))} />
        </Panel>
      </Stack>
      <Suspense fallback={null}>
        {deciding ? (
          <LinkDecisionDialog
            key={deciding}
            link={link}
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

function PaymentLinkDetailScreen() {
  const { id = '' } = useParams();
  const { user } = useSession();
  const detail = useQuery(linkDetailQueryOptions(id));
  if (!detail.isSuccess) {
    return (
      <DetailStates
        query={detail}
        what="payment link"
        back={{ to: '/payment-links', label: 'all payment links' }}
      />
    );
  }
  return (
    <DetailView
      link={detail.data}
      myId={user.id}
      isOps={user.roles.includes('ops')}
      canCheck={user.roles.some((r) => r === 'support' || r === 'finance' || r === 'ops')}
    />
  );
}

export default function PaymentLinkDetailRoute() {
  return (
    <RequireRoles roles={SCREENS.paymentLinks.roles} what="the payment links">
      <PaymentLinkDetailScreen />
    </RequireRoles>
  );
}

/**
 * When the link last changed, as a payout's page says it: the latest of its own last change
 * (created, decided, sent), its timeline's entries (a status check leaves the link itself as it
 * was) and its order's last change (a callback, a capture, a refund).
 */
function lastChangeOf(link: PaymentLinkDetail): string {
  let latest = link.updatedAt;
  for (const at of [...link.events.map((event) => event.at), link.order?.updatedAt]) {
    if (at !== undefined && Date.parse(at) > Date.parse(latest)) latest = at;
  }
  return latest;
}

/**
 * Where an approved payout-form's money went: the card the payee typed on the gateway's page,
 * masked as the order has it; null for any other link, or before the order says so.
 */
function paidOutTo(link: PaymentLinkDetail): string | null {
  if (link.kind !== 'payout-form' || link.order?.status !== 'approved') return null;
  return link.order.card?.masked ?? null;
}

/** The order's card, masked, with its brand: none until the order is known (or named no card). */
function OrderCard({ order }: { order: PaymentLinkDetail['order'] }) {
  const card = order?.card ?? null;
  if (card === null) return <>—</>;
  return (
    <span>
      <code>{card.masked}</code>
      {card.brand === null ? null : ` ${card.brand}`}
    </span>
  );
}

/**
 * The order's money as Paydesk knows it: none until the order is known (or from an older BFF). A
 * payout-form's order took no money in: what went to the payee (QA: it read "€0.00 authorized ·
 * €0.00 captured · €0.00 returned" under "Paid out"). An account verification has no amount nor
 * currency: its card is verified, not charged, so it has no money line (QA: it read "€0.00
 * authorized · €0.00 captured · €0.00 returned").
 */
function orderMoneyRows(link: Pick<PaymentLinkDetail, 'kind' | 'order'>): FactRow[] {
  const money = link.order?.money;
  if (money === undefined || link.kind === 'account-verification-form') return [];
  const part = (amount: string, what: string) => `${formatMoney(amount, money.currency)} ${what}`;
  if (money.paidOut !== undefined) return [['Money', part(money.paidOut, 'paid out')]];
  return [
    [
      'Money',
      [
        part(money.authorized, 'authorized'),
        part(money.captured, 'captured'),
        part(money.returned, 'returned'),
      ].join(' · '),
    ],
  ];
}

/** The fields of a gateway request as a link's timeline keeps them (redacted by the BFF). */
const SentRequestSchema = z.object({ request: z.record(z.string(), z.string()) });

/**
 * The customer as entered when the link was created (name, phone, address), as the request sent to
 * the gateway has them in the link's timeline: the link itself keeps only the e-mail. The phone
 * comes masked, as the BFF keeps it. None for a payout-form (its payee fills the page in), nor
 * before the request was sent.
 */
function customerRows(link: PaymentLinkDetail): FactRow[] {
  if (link.kind === 'payout-form') return [];
  let fields: Record<string, string> | undefined;
  for (const event of link.events) {
    if (event.kind !== 'gateway') continue;
    const parsed = SentRequestSchema.safeParse(event.data);
    if (parsed.success && parsed.data.request.address1 !== undefined) {
      fields = parsed.data.request;
      break;
    }
  }
  if (fields === undefined) return [];
  const joined = (...parts: (string | undefined)[]) =>
    parts.filter((part) => part !== undefined && part.trim() !== '').join(' ');
  const name = joined(fields.first_name, fields.last_name);
  const place = joined(fields.zip_code, fields.city);
  const address = [fields.address1, place, fields.country]
    .filter((part) => part !== undefined && part !== '')
    .join(', ');
  return [
    ['Customer name', name === '' ? '—' : name],
    ['Customer phone', fields.phone ?? '—'],
    ['Customer address', address === '' ? '—' : address],
  ];
}
