import Typography from '@mui/material/Typography';
import { DateTime } from '../../../components/date-time';
import { userLocale } from '../../../lib/format';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How far `at` is from `now`, in the largest sensible unit and the user's language: 'in 45
 * minutes', 'in 3 hours', 'in 6 days' ('3 hours ago' once past). Hours up to two days, so that a
 * registration lapsing tomorrow reads 'in 26 hours', not 'in 1 day'. Always rounded towards the
 * past: a deadline is never said later than it is (23 h 33 min left reads 'in 23 hours', not 'in
 * 24 hours'; lapsed 90 minutes ago reads '2 hours ago').
 */
export function relativeTime(at: string, now: number = Date.now()): string {
  const ms = Date.parse(at) - now;
  const format = new Intl.RelativeTimeFormat(userLocale(), { numeric: 'always' });
  const size = Math.abs(ms);
  // Under a minute to go: seconds, rather than 'in 0 minutes'.
  if (ms >= 0 && ms < MINUTE) return format.format(Math.floor(ms / SECOND), 'second');
  if (size < HOUR) return format.format(Math.floor(ms / MINUTE), 'minute');
  if (size < 2 * DAY) return format.format(Math.floor(ms / HOUR), 'hour');
  return format.format(Math.floor(ms / DAY), 'day');
}

/**
 * When a payout waiting for approval lapses (`expiresAt`: its registration at the gateway, or its
 * hold), as the queue is ordered by it: 'Lapses at <date and time> (in 3 hours)'; `lead` says
 * what ends then instead ('Can be paid again until').
 */
export function LapsesAt({ value, lead = 'Lapses at' }: { value: string; lead?: string }) {
  return (
    <Typography variant="caption" component="div" color="text.secondary">
      {lead} <DateTime value={value} /> ({relativeTime(value)})
    </Typography>
  );
}
