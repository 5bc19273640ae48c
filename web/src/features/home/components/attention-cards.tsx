import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import type { StatsResponse } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { formatCount, formatMoney } from '../../../lib/format';
import { orderName } from '../../../lib/order-number';
import { OPERATION_LABELS } from '../../transactions/components/labels';
import { AWAITING_LINKS_HREF } from '../../payment-links/api/payment-links';
import { MetricCard } from './metric-card';

type NotApplied = NonNullable<StatsResponse['attention']['notApplied']>;

/** The transactions list with the orders the not-made card counts (the list's `notMade=true`). */
const NOT_MADE_LIST_HREF = '/transactions?notMade=true';

/**
 * Follow-ups of the last days the gateway never made (a return, capture, void, card reference or
 * rebill judged not applied) and not made again since (the BFF's `notAppliedOperations`, the
 * order page's rule): nothing moved, and they may still be due. The card names the latest
 * orders to open, and links to the list filtered to all of them (`notMade=true`), as the other
 * cards link to theirs.
 */
function NotAppliedCard({
  notApplied,
  cap,
  mayRedo,
}: {
  notApplied: NotApplied;
  cap: number;
  mayRedo: boolean;
}) {
  const { count, days, orders } = notApplied;
  return (
    <MetricCard
      title={`Not made by the gateway (${String(days)} days)`}
      value={countText(count, cap)}
      tone={count > 0 ? 'attention' : 'normal'}
    >
      <Typography variant="body2" color="text.secondary">
        Returns, captures, voids, card references and rebills staff asked for that the gateway did
        not make, and that no one has made again since: nothing moved.{' '}
        {mayRedo
          ? 'Do them again if they are still due.'
          : 'Ask finance to do them again if they are still due.'}
      </Typography>
      {orders.length === 0 ? null : (
        <Box component="ul" sx={{ m: 0, mt: 0.5, pl: 2.5 }}>
          {orders.map((order) => (
            <li key={`${order.id} ${order.at}`}>
              <Link
                component={RouterLink}
                to={`/transactions/${encodeURIComponent(order.id)}`}
                variant="body2"
              >
                {OPERATION_LABELS[order.kind]}
                {order.amount === null
                  ? ''
                  : ` ${formatMoney(order.amount, order.currency)}`} on {orderName(order)}
              </Link>
            </li>
          ))}
        </Box>
      )}
      {count > orders.length ? (
        <Typography variant="body2" color="text.secondary">
          The latest {formatCount(orders.length)} are listed; each order’s page says what was not
          made.
        </Typography>
      ) : null}
      <Link component={RouterLink} to={NOT_MADE_LIST_HREF} variant="body2">
        Show orders with a follow-up not made
      </Link>
    </MetricCard>
  );
}

function countText(n: number, cap: number): string {
  return n >= cap ? `${formatCount(cap)}+` : formatCount(n);
}

/** The payouts paid after a not-applied verdict that Home counts, and the list of them. */
export interface PaidLateCount {
  count: number;
  /** more remain than the page counted: the count is "at least" */
  capped: boolean;
  /** counted over the payouts decided in the last `days` days */
  days: number;
  href: string;
}

/**
 * Payouts the gateway paid after Paydesk had judged them not applied: ops may have prepared one
 * again as the verdict allowed, and paid the payee twice. Each payout's page names its repeats.
 */
function PaidLateCard({ paidLate }: { paidLate: PaidLateCount }) {
  return (
    <MetricCard
      title="Payouts paid after a not-applied verdict"
      value={`${formatCount(paidLate.count)}${paidLate.capped ? '+' : ''}`}
      tone={paidLate.count > 0 ? 'attention' : 'normal'}
    >
      <Typography variant="body2" color="text.secondary">
        Decided in the last {String(paidLate.days)} days. The gateway paid these after Paydesk
        judged them not applied: check that none was prepared and paid again.
      </Typography>
      <Link component={RouterLink} to={paidLate.href} variant="body2">
        Show payouts paid after a not-applied verdict
      </Link>
    </MetricCard>
  );
}

/** The payouts whose outcome is unknown that Home counts, and the list of them. */
export interface UnknownPayoutsCount {
  count: number;
  /** more remain than the page counted: the count is "at least" */
  capped: boolean;
  href: string;
}

/**
 * Payouts the gateway did not answer (state `unknown`): paid or not is not known yet, and no one
 * should prepare them again until a status check settles it.
 */
function UnknownPayoutsCard({ unknown }: { unknown: UnknownPayoutsCount }) {
  return (
    <MetricCard
      title="Payouts with an unknown outcome"
      value={`${formatCount(unknown.count)}${unknown.capped ? '+' : ''}`}
      tone={unknown.count > 0 ? 'attention' : 'normal'}
    >
      <Typography variant="body2" color="text.secondary">
        The gateway did not answer their payment: a status check settles it. Do not prepare them
        again until then.
      </Typography>
      <Link component={RouterLink} to={unknown.href} variant="body2">
        Show payouts with an unknown outcome
      </Link>
    </MetricCard>
  );
}

/**
 * What needs a person now: unknown outcomes, drift, follow-ups the gateway did not make (when the
 * BFF counts them), payouts waiting for a second approver, payouts whose outcome is unknown and
 * payouts paid after a not-applied verdict (for those who may see payouts). `mayRedo`: the user may do the follow-ups not made
 * again (finance); the others are told to ask finance.
 */
export function AttentionCards({
  attention,
  pending,
  unknownPayouts = null,
  paidLate = null,
  awaitingLinks = null,
  mayRedo,
}: {
  attention: StatsResponse['attention'];
  /** `mine`: the reader's approval queue (ops); otherwise every payout awaiting approval */
  pending: { count: number; capped: boolean; href: string; mine: boolean } | null;
  unknownPayouts?: UnknownPayoutsCount | null;
  paidLate?: PaidLateCount | null;
  /** an ops user's payout-form links waiting for their approval (their links' approval queue) */
  awaitingLinks?: { count: number; capped: boolean } | null;
  mayRedo: boolean;
}) {
  const cards = [
    {
      title: 'Unknown outcome',
      n: attention.unknown,
      href: '/transactions?status=unknown',
      link: 'Show orders with an unknown outcome',
      // The list's Unknown outcome filter, which counts the orders this card counts.
      hint: 'The gateway’s answer to the order or to a capture, return, void or card reference was lost; a status check settles it.',
    },
    {
      title: 'Drift flagged',
      n: attention.drift,
      href: '/transactions?drift=true',
      link: 'Show orders with drift',
      hint: 'The gateway contradicted Paydesk’s record of these orders: check them at the gateway.',
    },
  ];
  return (
    <>
      {cards.map((card) => (
        <MetricCard
          key={card.title}
          title={card.title}
          value={countText(card.n, attention.cap)}
          tone={card.n > 0 ? 'attention' : 'normal'}
        >
          <Typography
            variant="body2"
            color="text.secondary"
            sx={{ display: { xs: 'none', sm: 'block' } }}
          >
            {card.hint}
          </Typography>
          <Link component={RouterLink} to={card.href} variant="body2">
            {card.link}
          </Link>
        </MetricCard>
      ))}
      {attention.notApplied === undefined ? null : (
        <NotAppliedCard notApplied={attention.notApplied} cap={attention.cap} mayRedo={mayRedo} />
      )}
      {pending === null ? null : (
        <MetricCard
          title={pending.mine ? 'Payouts awaiting your approval' : 'Payouts awaiting approval'}
          value={`${formatCount(pending.count)}${pending.capped ? '+' : ''}`}
          tone={pending.count > 0 && pending.mine ? 'attention' : 'normal'}
        >
          <Typography
            variant="body2"
            color="text.secondary"
            sx={{ display: { xs: 'none', sm: 'block' } }}
          >
            {pending.mine
              ? 'Prepared by another ops user: waiting for you to approve, or to pay again after the gateway did not pay.'
              : 'Prepared by one ops user, waiting for a second.'}
          </Typography>
          <Link component={RouterLink} to={pending.href} variant="body2">
            {/* Only ops have an approval queue; the others' link opens the payouts list. */}
            {pending.mine ? 'Open the approval queue' : 'Open the payouts'}
          </Link>
        </MetricCard>
      )}
      {awaitingLinks === null ? null : (
        <MetricCard
          title="Payout forms awaiting your approval"
          value={`${formatCount(awaitingLinks.count)}${awaitingLinks.capped ? '+' : ''}`}
          tone={awaitingLinks.count > 0 ? 'attention' : 'normal'}
        >
          <Typography
            variant="body2"
            color="text.secondary"
            sx={{ display: { xs: 'none', sm: 'block' } }}
          >
            Payment links for a payout form, prepared by another ops user: the payee gets the form
            once you approve; each lapses if no one does.
          </Typography>
          <Link component={RouterLink} to={AWAITING_LINKS_HREF} variant="body2">
            Open the links awaiting approval
          </Link>
        </MetricCard>
      )}
      {unknownPayouts === null ? null : <UnknownPayoutsCard unknown={unknownPayouts} />}
      {paidLate === null ? null : <PaidLateCard paidLate={paidLate} />}
    </>
  );
}
