// Loaded with React.lazy: MUI X Charts (and d3 under it) is the heaviest code of the home screen,
// so the figures above the charts paint first.
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { BarChart } from '@mui/x-charts/BarChart';
import type { StatsResponse } from '@paydesk/shared/api';
import { useState } from 'react';
import { formatCount, formatMoney, formatMoneyCompact } from '../../../lib/format';
import { fromMinor } from '../../../lib/money';
import { currenciesOf, dailySeries, labelledDays, type DayPoint } from '../api/home-stats';

const dayLabel = (day: string) =>
  new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(
    new Date(`${day}T00:00:00.000Z`),
  );

/**
 * How many day labels a chart's axis holds: a phone's (some 210 px of bars), two charts side by
 * side from 1200 px (some 300 to 420 px each), one chart the screen wide between (600 to 830 px).
 */
function useLabelsThatFit(): number {
  const theme = useTheme();
  // noSsr: the first render already has the screen's labels (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const sideBySide = useMediaQuery(theme.breakpoints.up('lg'), { noSsr: true });
  return phone ? 5 : sideBySide ? 6 : 10;
}

/**
 * The x axis of days: a tick and a label under the labelled days' bars only, chosen here rather
 * than by the chart's own overlap check (which let a month's labels crowd edge to edge). The
 * tooltip names every day.
 */
function dayAxis(days: string[], labelled: Set<string>) {
  const shown = (day: string) => labelled.has(day);
  return {
    scaleType: 'band' as const,
    data: days,
    valueFormatter: dayLabel,
    tickInterval: shown,
    tickLabelInterval: shown,
    tickPlacement: 'middle' as const,
  };
}

/**
 * Axis ticks are integer minor units (the chart's scale); the text comes from decimal strings,
 * compact ('€15K') so that it fits the axis. The tooltips show the full amounts.
 */
const tickMoney = (currency: string) => (value: number) =>
  formatMoneyCompact(fromMinor(BigInt(Math.round(value))), currency);

function ChartFrame({
  title,
  summary,
  children,
}: {
  title: string;
  summary: string;
  children: React.ReactNode;
}) {
  const id = `chart-${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;
  return (
    <Paper component="section" variant="outlined" aria-labelledby={id} sx={{ p: 2, minWidth: 0 }}>
      <Typography id={id} variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        {title}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {summary}
      </Typography>
      <Box role="img" aria-label={`${title}: ${summary}`} sx={{ height: 260 }}>
        {children}
      </Box>
    </Paper>
  );
}

/** What each chart draws: one currency's days, and the period they cover in words. */
interface ChartProps {
  points: DayPoint[];
  currency: string;
  periodLabel: string;
  /** the days the x axis names */
  labelled: Set<string>;
}

function VolumeChart({ points, currency, periodLabel, labelled }: ChartProps) {
  const days = points.map((p) => p.day);
  const total = points.reduce((sum, p) => sum + BigInt(p.capturedMinor), 0n);
  return (
    <ChartFrame
      title={`Captured volume and returns per day, ${currency}`}
      summary={`${formatMoney(fromMinor(total), currency)} captured, ${periodLabel}. Days are UTC days: money when it was taken, returns when they were made.`}
    >
      <BarChart
        height={260}
        xAxis={[dayAxis(days, labelled)]}
        yAxis={[{ valueFormatter: tickMoney(currency), width: 80 }]}
        series={[
          {
            label: 'Captured',
            data: points.map((p) => p.capturedMinor),
            valueFormatter: (_v, { dataIndex }) =>
              formatMoney(points[dataIndex]?.capturedAmount ?? '0', currency),
          },
          {
            label: 'Returned',
            data: points.map((p) => p.returnedMinor),
            valueFormatter: (_v, { dataIndex }) =>
              formatMoney(points[dataIndex]?.returnedAmount ?? '0', currency),
          },
        ]}
        margin={{ left: 8, right: 24 }}
      />
    </ChartFrame>
  );
}

/**
 * A count of orders, not money: the currency says which orders are counted (those placed in it),
 * never the unit, so the title does not read as an amount ('Orders per day, EUR' did).
 */
function OrdersChart({ points, currency, periodLabel, labelled }: ChartProps) {
  const days = points.map((p) => p.day);
  const orders = points.reduce((sum, p) => sum + p.count, 0);
  const approved = points.reduce((sum, p) => sum + p.approvedCount, 0);
  return (
    <ChartFrame
      title={`Orders per day (${currency} orders)`}
      summary={`${formatCount(approved)} of ${formatCount(orders)} ${currency} ${orders === 1 ? 'order' : 'orders'} approved, ${periodLabel}. Number of orders placed each UTC day.`}
    >
      <BarChart
        height={260}
        xAxis={[dayAxis(days, labelled)]}
        yAxis={[{ tickMinStep: 1, width: 48 }]}
        series={[
          { label: 'Approved', stack: 'orders', data: points.map((p) => p.approvedCount) },
          {
            label: 'Not approved',
            stack: 'orders',
            data: points.map((p) => p.count - p.approvedCount),
          },
        ]}
        margin={{ left: 8, right: 24 }}
      />
    </ChartFrame>
  );
}

export default function HomeCharts({
  stats,
  periodLabel,
}: {
  stats: StatsResponse;
  /** e.g. 'last 30 days' */
  periodLabel: string;
}) {
  const currencies = currenciesOf(stats);
  const [chosen, setChosen] = useState<string | null>(null);
  const currency = chosen !== null && currencies.includes(chosen) ? chosen : currencies[0];
  const fit = useLabelsThatFit();
  if (currency === undefined) return null;
  const points = dailySeries(stats, currency);
  const labelled = labelledDays(
    points.map((p) => p.day),
    fit,
  );
  return (
    <Stack spacing={2}>
      {currencies.length > 1 ? (
        <ToggleButtonGroup
          exclusive
          size="small"
          value={currency}
          aria-label="Currency of the charts"
          onChange={(_event, next: string | null) => {
            if (next !== null) setChosen(next);
          }}
        >
          {currencies.map((c) => (
            <ToggleButton key={c} value={c}>
              {c}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
      ) : null}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' } }}>
        <VolumeChart
          points={points}
          currency={currency}
          periodLabel={periodLabel}
          labelled={labelled}
        />
        <OrdersChart
          points={points}
          currency={currency}
          periodLabel={periodLabel}
          labelled={labelled}
        />
      </Box>
    </Stack>
  );
}
