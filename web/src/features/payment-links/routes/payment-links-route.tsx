import AddCircleOutline from '@mui/icons-material/AddCircleOutlined';
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
import {
  PAYMENT_LINK_KINDS,
  PaymentLinkListQuerySchema,
  type PaymentLink,
  type PaymentLinkKind,
  type PaymentLinkListQuery,
} from '@paydesk/shared/api';
import { useInfiniteQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { StaffEmail } from '../../../components/staff-email';
import type { Decision } from '../../../components/decision-buttons';
import { PageHeader } from '../../../components/page-header';
import { ViewTabsPanel, type ListView } from '../../../components/view-tabs-panel';
import { formatMoney } from '../../../lib/format';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { useRefetchOnLiveEvents } from '../../transactions/api/live-events';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import { useLinkOrderEvents } from '../api/order-events';
import { linkKeys, linkPagesQueryOptions } from '../api/payment-links';
import { LinkDecision } from '../components/link-decision';
import { KIND_LABELS, LinkStateChip } from '../components/link-labels';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

const CreateLinkDialog = lazy(() => import('../components/create-link-dialog'));
const LinkDecisionDialog = lazy(() => import('../components/link-decision-dialog'));

type View = PaymentLinkListQuery['view'];
const AWAITING: ListView<View> = {
  value: 'awaiting-my-approval',
  label: 'Awaiting my approval',
  empty: 'No payout form waits for your approval.',
};
const MINE: ListView<View> = {
  value: 'mine',
  label: 'Created by me',
  empty: 'You have not created a payment link yet.',
};
const ALL: ListView<View> = { value: 'all', label: 'All links', empty: 'No payment links yet.' };
/**
 * An ops user's views, as on Payouts: their approval queue first (it opens on it), then theirs,
 * then every link. Others see every link first (where they open), then theirs if they create any.
 */
const OPS_VIEWS = [AWAITING, MINE, ALL];
const VIEWS = [ALL, MINE, AWAITING];

/** What the user's roles may create: finance the card forms, ops the payout-form. */
function creatableKinds(roles: readonly string[]): PaymentLinkKind[] {
  return PAYMENT_LINK_KINDS.filter((kind) =>
    kind === 'payout-form' ? roles.includes('ops') : roles.includes('finance'),
  );
}

/**
 * The view in the address when it is one of `views` (the user's own); without one, an ops user's
 * approval queue (as on Payouts), else every link. A view the user does not have (an auditor sent
 * to the approval queue) is every link, not an empty list that cannot fill.
 */
function viewOf(params: URLSearchParams, views: readonly ListView<View>[], isOps: boolean): View {
  const parsed = PaymentLinkListQuerySchema.shape.view.safeParse(params.get('view') ?? undefined);
  if (parsed.success && params.has('view'))
    return views.some((v) => v.value === parsed.data) ? parsed.data : 'all';
  return isOps ? 'awaiting-my-approval' : 'all';
}

/** The views `roles` have: every link; theirs when they may create one; ops' approval queue. */
function viewsOf(roles: readonly string[]): ListView<View>[] {
  const isOps = roles.includes('ops');
  return (isOps ? OPS_VIEWS : VIEWS).filter(
    (v) =>
      v.value === 'all' ||
      (v.value === 'mine' && creatableKinds(roles).length > 0) ||
      (v.value === 'awaiting-my-approval' && isOps),
  );
}

const TOP = { verticalAlign: 'top' } as const;

/** When and by whom the link was created. */
function Created({ link }: { link: PaymentLink }) {
  return (
    <>
      <DateTime value={link.createdAt} />
      <Typography variant="caption" component="div" color="text.secondary">
        by <StaffEmail user={link.createdBy} />
      </Typography>
    </>
  );
}

/** The same, as one secondary line under what the link is (a phone's row). */
function CreatedLine({ link }: { link: PaymentLink }) {
  return (
    <Typography variant="caption" component="div" color="text.secondary">
      Created <DateTime value={link.createdAt} /> by <StaffEmail user={link.createdBy} />
    </Typography>
  );
}

/** The customer (or payee) the link is for, when it names one. */
function Customer({ link }: { link: PaymentLink }) {
  return link.customerEmail !== null ? (
    <Typography variant="caption" component="div" color="text.secondary">
      <EmailText value={link.customerEmail} />
    </Typography>
  ) : null;
}

/** The description, which leads to the link's page. */
function Description({ link }: { link: PaymentLink }) {
  return (
    <Link component={RouterLink} to={`/payment-links/${encodeURIComponent(link.id)}`}>
      {link.orderDesc}
    </Link>
  );
}

function amountOf(link: PaymentLink): string {
  return link.amount !== null && link.currency !== null
    ? formatMoney(link.amount, link.currency)
    : '—';
}

const WIDE_HEADERS = [
  'Created',
  'Form',
  'Amount',
  'Description',
  'State',
  'Page address or decision',
];
/**
 * On a phone (below 600 px), what a reader looks for first comes first: which form it is, for what
 * (the way to its page) and in what state, in one column, its amount beside it, as the
 * subscriptions and users lists do. Side by side, the creation time and the form filled a 390 px
 * screen and the amount, state and page address were off its edge. The page address (one short
 * line with its copy button) or the decision follows in that column too: as a column of its own it
 * was squeezed to 'htt' and its copy button was off the screen. When and by whom it was created is
 * a secondary line in that column as well: as a third column it still pushed the table past a
 * 390 px screen's edge, to be scrolled sideways.
 */
const PHONE_HEADERS = ['Link', 'Amount'];
/**
 * On a tablet (600–900 px), the phone's first column and amount, with the page address (and its
 * copy button) or the decision in a column of its own beside them. The six wide columns needed
 * some 820 px: at 800 px the table scrolled sideways and the copy button was off the screen's
 * edge. A fourth column for the creation time, as the transactions list leads with, still pushed
 * the table past a 600 px screen's edge: when and by whom stays a secondary line, as on a phone.
 */
const TABLET_HEADERS = ['Link', 'Amount', 'Page address or decision'];

type Layout = 'phone' | 'tablet' | 'wide';

/** A phone's or tablet's first column: the form, what it is for, its state and its creation. */
function LinkSummary({ link, children }: { link: PaymentLink; children?: ReactNode }) {
  return (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
      <div>
        {KIND_LABELS[link.kind]}
        <div>
          <Description link={link} />
        </div>
        <Customer link={link} />
      </div>
      <LinkStateChip link={link} />
      <CreatedLine link={link} />
      {children}
    </Stack>
  );
}

/** A long description or address breaks rather than widening the screen. */
const SUMMARY_CELL = { ...TOP, minWidth: 120, overflowWrap: 'anywhere' } as const;

function LinksTable({
  items,
  myId,
  isOps,
  onDecide,
}: {
  items: PaymentLink[];
  myId: string;
  isOps: boolean;
  onDecide: (link: PaymentLink, decision: Decision) => void;
}) {
  const theme = useTheme();
  // noSsr: the first render already has the phone's (tablet's) columns (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const tablet = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const layout: Layout = phone ? 'phone' : tablet ? 'tablet' : 'wide';
  const headers =
    layout === 'phone' ? PHONE_HEADERS : layout === 'tablet' ? TABLET_HEADERS : WIDE_HEADERS;
  const decide = (link: PaymentLink) => (
    <LinkDecision
      link={link}
      myId={myId}
      isOps={isOps}
      onDecide={(chosen) => {
        onDecide(link, chosen);
      }}
    />
  );
  const decision = (link: PaymentLink) => <TableCell sx={TOP}>{decide(link)}</TableCell>;
  const amount = (link: PaymentLink) => (
    <TableCell align="right" sx={{ ...TOP, whiteSpace: 'nowrap' }}>
      {amountOf(link)}
    </TableCell>
  );
  const row = (link: PaymentLink) => {
    switch (layout) {
      case 'phone':
        return (
          <>
            <TableCell sx={SUMMARY_CELL}>
              <LinkSummary link={link}>{decide(link)}</LinkSummary>
            </TableCell>
            {amount(link)}
          </>
        );
      case 'tablet':
        return (
          <>
            <TableCell sx={SUMMARY_CELL}>
              <LinkSummary link={link} />
            </TableCell>
            {amount(link)}
            {decision(link)}
          </>
        );
      case 'wide':
        return (
          <>
            <TableCell sx={TOP}>
              <Created link={link} />
            </TableCell>
            <TableCell sx={TOP}>
              {KIND_LABELS[link.kind]}
              <Customer link={link} />
            </TableCell>
            {amount(link)}
            <TableCell sx={{ ...TOP, minWidth: 120, maxWidth: 200 }}>
              <Description link={link} />
            </TableCell>
            <TableCell sx={TOP}>
              <LinkStateChip link={link} />
            </TableCell>
            {decision(link)}
          </>
        );
    }
  };
  return (
    <SidewaysTableContainer label="Payment links">
      <Table size="small" aria-label="Payment links">
        <TableHead>
          <TableRow>
            {headers.map((header) => (
              <TableCell key={header} scope="col" align={header === 'Amount' ? 'right' : 'left'}>
                {header}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((link) => (
            <TableRow key={link.id} hover>
              {row(link)}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}

function PaymentLinksScreen() {
  const { user } = useSession();
  const isOps = user.roles.includes('ops');
  const [params, setParams] = useSearchParams();
  const views = viewsOf(user.roles);
  const view = viewOf(params, views, isOps);
  const list = useInfiniteQuery(linkPagesQueryOptions({ view, limit: 100 }));
  const live = useRefetchOnLiveEvents('payment_link', linkKeys.all);
  useLinkOrderEvents(list.data?.pages.flatMap((p) => p.items.map((l) => l.orderid)) ?? []);
  const [creating, setCreating] = useState(false);
  const [deciding, setDeciding] = useState<{
    link: PaymentLink;
    decision: Decision;
  } | null>(null);
  const kinds = creatableKinds(user.roles);
  const current = VIEWS.find((v) => v.value === view) ?? ALL;

  return (
    <>
      <PageHeader
        title="Payment links"
        actions={
          <>
            <LiveIndicator state={live} />
            {kinds.length > 0 ? (
              <Button
                variant="contained"
                startIcon={<AddCircleOutline />}
                sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
                onClick={() => {
                  setCreating(true);
                }}
              >
                New payment link
              </Button>
            ) : null}
          </>
        }
      >
        Pages on the gateway where a customer pays (sale, preauthorization, payment, account
        verification) or a payee enters where money goes (payout form, after a second ops approval).
        Copy the page address and send it.
      </PageHeader>
      <ViewTabsPanel
        label="Which payment links"
        views={views}
        value={view}
        onChange={(next) => {
          setParams(new URLSearchParams({ view: next }));
        }}
        list={list}
        loading="Loading payment links…"
        what="the payment links"
        empty={current.empty}
        count={(n) =>
          view === 'awaiting-my-approval'
            ? `${n} waiting for your approval, oldest first`
            : `${n} payment links shown`
        }
      >
        {(items) => (
          <LinksTable
            items={items}
            myId={user.id}
            isOps={isOps}
            onDecide={(link, decision) => {
              setDeciding({ link, decision });
            }}
          />
        )}
      </ViewTabsPanel>
      <Suspense fallback={null}>
        {creating ? (
          <CreateLinkDialog
            kinds={kinds}
            onClose={() => {
              setCreating(false);
            }}
            onCreated={() => {
              // The new link is one's own: it never shows in "Awaiting my approval" (as on Payouts).
              if (view === 'awaiting-my-approval') setParams(new URLSearchParams({ view: 'mine' }));
            }}
          />
        ) : null}
        {deciding ? (
          <LinkDecisionDialog
            key={`${deciding.link.id}-${deciding.decision}`}
            link={deciding.link}
            decision={deciding.decision}
            own={deciding.link.createdBy.id === user.id}
            onClose={() => {
              setDeciding(null);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

export default function PaymentLinksRoute() {
  return (
    <RequireRoles roles={SCREENS.paymentLinks.roles} what="the payment links">
      <PaymentLinksScreen />
    </RequireRoles>
  );
}
