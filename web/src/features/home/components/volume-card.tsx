import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { StatsResponse } from '@paydesk/shared/api';
import { FINAL_STATUSES } from '@paydesk/shared/domain';
import { formatCount, formatMoney } from '../../../lib/format';
import type { CurrencyTotal } from '../api/home-stats';
import { MetricCard } from './metric-card';

/**
 * What the captured volume is, in words (the schema's definition): said once under the cards it
 * explains, which name it as their description (`describedBy`); repeated in each card, the same
 * long text stood twice side by side. It names what it defines, as it follows the returns card
 * too (and, on a phone, comes after it).
 */
export const CAPTURED_NOTE =
  'Captured means money taken from customers, counted when it was taken: sales and rebills on approval, preauths on capture (holds authorized earlier included), for the captured part. Voids, uncaptured holds and payouts are not included; returns are not deducted. Orders and the approval rate are of the customers’ orders placed in the period: payouts and payout checks are not counted.';

/** The orders placed in the window of one currency (none: only money taken on earlier orders). */
export function ordersText(count: number, approvedCount: number): string {
  if (count === 0) return 'no orders placed';
  return `${formatCount(count)} ${count === 1 ? 'order' : 'orders'} placed, ${formatCount(approvedCount)} approved`;
}

/**
 * What the approval rate is of: the orders with a final status (approved, declined, error,
 * filtered), as the BFF counts it. While some are still processing, that is fewer than the orders
 * placed, and saying only '14 orders placed' beside 10 approved and 76.9% did not add up. Once all
 * are decided, the basis is the orders placed, which each currency's line already counts: with
 * orders in one currency only it is not said again (QA: the Today card said "12 orders placed"
 * twice); across currencies, their total is new, and is said.
 */
export function approvalBasisText(
  volumes: readonly { count: number }[],
  byStatus: Record<string, number>,
): string {
  const placed = volumes.reduce((sum, v) => sum + v.count, 0);
  const decided = FINAL_STATUSES.reduce((sum, s) => sum + (byStatus[s] ?? 0), 0);
  const open = placed - decided;
  if (open > 0) {
    return ` of the ${formatCount(decided)} decided (${formatCount(open)} still processing)`;
  }
  const currencies = volumes.filter((v) => v.count > 0).length;
  return currencies > 1 ? ` of all ${formatCount(placed)} orders` : '';
}

export function formatRate(rate: number | null): string {
  if (rate === null) return '—';
  return new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 }).format(
    rate,
  );
}

/** The days a card counts ('UTC day Nov 25 (from 7:00 PM on Nov 24 your time)'). */
function WindowLine({ text }: { text: string }) {
  return (
    <Typography variant="caption" component="p" color="text.secondary">
      {text}
    </Typography>
  );
}

/**
 * Captured volume per currency (decimal strings straight into Intl): the money taken from
 * customers in the window (`StatsResponse.volumes[].capturedAmount`, dated by when it was taken),
 * and the counts of the orders placed in it. `covers` says which days those are.
 */
export function VolumeCard({
  title,
  covers,
  stats,
  describedBy,
}: {
  title: string;
  covers: string;
  stats: StatsResponse;
  /** the id of the words that say what is counted (CAPTURED_NOTE, shown once for the cards) */
  describedBy?: string;
}) {
  return (
    <MetricCard title={title} describedBy={describedBy}>
      <WindowLine text={covers} />
      {stats.volumes.length === 0 ? (
        <Typography sx={{ mt: 1 }} color="text.secondary">
          No orders yet.
        </Typography>
      ) : (
        <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, mt: 0.5 }}>
          {stats.volumes.map((v) => (
            <Box
              component="li"
              key={v.currency}
              sx={{ display: 'flex', alignItems: 'baseline', gap: 1, flexWrap: 'wrap' }}
            >
              <Typography component="span" variant="h5" sx={{ fontWeight: 600 }}>
                {formatMoney(v.capturedAmount, v.currency)}
              </Typography>
              <Typography component="span" variant="body2" color="text.secondary">
                captured · {ordersText(v.count, v.approvedCount)}
              </Typography>
            </Box>
          ))}
        </Box>
      )}
      <Typography variant="body2" sx={{ mt: 1 }}>
        Approval rate <strong>{formatRate(stats.approvalRate)}</strong>
        {approvalBasisText(stats.volumes, stats.byStatus)}
      </Typography>
    </MetricCard>
  );
}

export function ReturnsCard({
  title,
  covers,
  totals,
}: {
  title: string;
  covers: string;
  totals: CurrencyTotal[];
}) {
  return (
    <MetricCard title={title}>
      <WindowLine text={covers} />
      {totals.length === 0 ? (
        <Typography sx={{ mt: 1 }} color="text.secondary">
          No returns.
        </Typography>
      ) : (
        <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, mt: 0.5 }}>
          {totals.map((t) => (
            <Box
              component="li"
              key={t.currency}
              sx={{ display: 'flex', alignItems: 'baseline', gap: 1, flexWrap: 'wrap' }}
            >
              <Typography component="span" variant="h5" sx={{ fontWeight: 600 }}>
                {formatMoney(t.amount, t.currency)}
              </Typography>
              <Typography component="span" variant="body2" color="text.secondary">
                {formatCount(t.count)} {t.count === 1 ? 'return' : 'returns'}
              </Typography>
            </Box>
          ))}
        </Box>
      )}
    </MetricCard>
  );
}
