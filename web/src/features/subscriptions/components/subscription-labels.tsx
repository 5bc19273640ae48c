import Chip from '@mui/material/Chip';
import type {
  SubscriptionPeriod,
  SubscriptionSchedule,
  SubscriptionState,
} from '@paydesk/shared/api';

const LOOK: Record<
  SubscriptionState,
  { label: string; color: 'success' | 'error' | 'warning' | 'info' | 'default' }
> = {
  sending: { label: 'Sending', color: 'info' },
  active: { label: 'Active', color: 'success' },
  completed: { label: 'Completed', color: 'default' },
  unknown: { label: 'Unknown outcome', color: 'warning' },
  refused: { label: 'Refused', color: 'error' },
  not_sent: { label: 'Not sent', color: 'error' },
};

export function SubscriptionStateChip({ state }: { state: SubscriptionState }) {
  const look = LOOK[state];
  return <Chip size="small" variant="outlined" color={look.color} label={look.label} />;
}

const UNIT: Record<SubscriptionPeriod, [string, string]> = {
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
};

/** 'every month', 'every 2 weeks' */
export function periodText(period: SubscriptionPeriod, interval: number): string {
  const [one, many] = UNIT[period];
  return interval === 1 ? `every ${one}` : `every ${interval} ${many}`;
}

/** '3 of 12 charges', '1 charge' */
export function chargesText(schedule: SubscriptionSchedule): string {
  const made = schedule.paymentsMade;
  if (schedule.maxPayments === null) return `${made} ${made === 1 ? 'charge' : 'charges'}`;
  return `${made} of ${schedule.maxPayments} charges`;
}

export const PERIOD_LABELS: Record<SubscriptionPeriod, string> = {
  day: 'Days',
  week: 'Weeks',
  month: 'Months',
};
