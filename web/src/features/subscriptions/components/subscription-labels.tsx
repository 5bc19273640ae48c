import Chip from '@mui/material/Chip';
import type {
  SubscriptionDetail,
  SubscriptionPeriod,
  SubscriptionSchedule,
  SubscriptionState,
  SubscriptionSummary,
} from '@paydesk/shared/api';
import { formatDateAndTime, formatMoney } from '../../../lib/format';
import { gatewayAnswerOf } from '../../transactions/api/gateway-answer';

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

/**
 * What Paydesk heard back for a plan whose creation's outcome it does not know, from how the BFF
 * recorded it went unlearned (`unanswered`): the gateway answered with an error, did not answer in
 * time, or its answer was lost.
 */
function unlearnedText(
  plan: Partial<Pick<SubscriptionDetail, 'unanswered'>>,
  what: string,
): string {
  const answer = gatewayAnswerOf({ unanswered: plan.unanswered ?? null });
  switch (answer.kind) {
    case 'error':
      return `The gateway answered the subscription (${what}) with an error${answer.words === '' ? '' : ` (${answer.words})`}: the plan may exist.`;
    case 'timeout':
      return `The gateway did not answer the subscription (${what}) within ${String(answer.seconds)} s: the plan may exist.`;
    case 'none':
      return `The gateway’s answer to the subscription (${what}) was lost.`;
  }
}

/**
 * The note on a plan whose creation's outcome is not known, and whether it says the recorded error
 * itself (then the error is not shown again beside it): the gateway answered with an error (its
 * HTTP status, code and message), did not answer in time, or its reply was lost.
 */
export function unknownPlanNote(plan: Pick<SubscriptionDetail, 'unanswered'>): {
  text: string;
  saysError: boolean;
} {
  const answer = gatewayAnswerOf(plan);
  const next = 'the plan may exist. Paydesk does not send it again; its first charge names it.';
  switch (answer.kind) {
    case 'error':
      return {
        text: `The gateway answered with an error${answer.words === '' ? '' : ` (${answer.words})`}: ${next}`,
        saysError: true,
      };
    case 'timeout':
      return {
        text: `The gateway did not answer within ${String(answer.seconds)} s: ${next}`,
        saysError: true,
      };
    case 'none':
      return { text: `The gateway’s reply was lost: ${next}`, saysError: false };
  }
}

/**
 * What creating `plan` came to, said from the plan itself (amount in the user's locale), not from
 * the server's English: 'Subscription 7001 created: €9.90 every 2 weeks. …'. A plan whose outcome
 * is not known says what the gateway answered, from its recorded error.
 */
export function createdText(
  plan: Pick<
    SubscriptionSummary,
    'state' | 'recurringPaymentId' | 'amount' | 'currency' | 'schedule'
  > &
    Partial<Pick<SubscriptionDetail, 'unanswered'>>,
  locale?: string,
): string {
  const what = `${formatMoney(plan.amount, plan.currency, locale)} ${periodText(plan.schedule.period, plan.schedule.interval)}`;
  switch (plan.state) {
    case 'active':
      return `Subscription ${plan.recurringPaymentId === null ? '' : `${plan.recurringPaymentId} `}created: ${what}. Paydesk learns each charge automatically from the gateway and lists it as a rebill order.`;
    case 'unknown':
      return `${unlearnedText(plan, what)} Paydesk will not send it again; its first charge will link it.`;
    default:
      return `Subscription (${what}): ${LOOK[plan.state].label.toLowerCase()}.`;
  }
}

/**
 * A calendar day as a date field and the BFF's `start_date` hold it ('2026-11-27'), said the way
 * the rest of the UI says dates ('Nov 27, 2026' in en-US, '27.11.2026' in de-DE): the date of
 * `formatDateAndTime`, read in UTC so that the day never moves with the user's time zone.
 */
export function dayText(day: string, locale?: string): string {
  return formatDateAndTime(`${day}T00:00:00.000Z`, { timeZone: 'UTC', locale }).date;
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

/**
 * How long after its due time a first charge Paydesk has not learned of is still said to be on its
 * way (the gateway charges a plan starting today at once; its callback comes within seconds).
 */
export const FIRST_CHARGE_WAIT_MS = 15 * 60_000;

/** How far the BFF's clock (a plan's start "now") may run ahead of the browser's. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Where a plan's first charge stands while Paydesk knows of none: `being_made` when it was due
 * (today's plan: at once) less than FIRST_CHARGE_WAIT_MS ago, `late` after that, null when a charge
 * is known, none is due yet, or no plan exists.
 */
export function firstChargeWait(
  plan: Pick<SubscriptionSummary, 'state' | 'schedule'>,
  now: number,
): 'being_made' | 'late' | null {
  if (plan.schedule.paymentsMade > 0) return null;
  if (plan.state !== 'active' && plan.state !== 'sending' && plan.state !== 'unknown') return null;
  const due = Date.parse(plan.schedule.start);
  // A start a little ahead of this browser's clock is the BFF's clock running ahead: due already.
  if (Number.isNaN(due) || due > now + CLOCK_SKEW_MS) return null;
  return now - due <= FIRST_CHARGE_WAIT_MS ? 'being_made' : 'late';
}
