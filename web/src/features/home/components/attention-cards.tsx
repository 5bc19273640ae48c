import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import type { StatsResponse } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { formatCount } from '../../../lib/format';
import { MetricCard } from './metric-card';

function countText(n: number, cap: number): string {
  return n >= cap ? `${formatCount(cap)}+` : formatCount(n);
}

/** What needs a person now: unknown outcomes, drift, payouts waiting for a second approver. */
export function AttentionCards({
  attention,
  pending,
}: {
  attention: StatsResponse['attention'];
  pending: { count: number; capped: boolean; href: string; mine: boolean } | null;
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
      hint: 'The gateway and Paydesk disagree about these orders.',
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
            Prepared by one ops user, waiting for a second.
          </Typography>
          <Link component={RouterLink} to={pending.href} variant="body2">
            Open the approval queue
          </Link>
        </MetricCard>
      )}
    </>
  );
}
