import {
  PayoutListSchema,
  StatsResponseSchema,
  type PayoutListQuery,
  type StatsResponse,
} from '@paydesk/shared/api';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { fromMinor, toMinor } from '../../../lib/money';

export const PERIODS = [
  { value: '7d', days: 7, label: '7 days' },
  { value: '30d', days: 30, label: '30 days' },
  { value: '90d', days: 90, label: '90 days' },
] as const;
export type Period = (typeof PERIODS)[number]['value'];
export const DEFAULT_PERIOD: Period = '30d';

/** `?period=` from the URL (shareable like every other screen state); unknown values fall back. */
export function readPeriod(params: URLSearchParams): Period {
  const raw = params.get('period');
  return PERIODS.find((p) => p.value === raw)?.value ?? DEFAULT_PERIOD;
}

/**
 * Start of a window, at UTC midnight, so that the cards count the same whole UTC days as the
 * charts' bars (today's card is today's bar) and the query key stays the same all day: `days` = 1
 * is today (UTC), 7 is today and the six UTC days before it.
 */
export function windowStart(days: number, now: Date = new Date()): string {
  return new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)),
  ).toISOString();
}

/**
 * Which days a window of `windowStart` covers, in words, with when it began on the user's clock:
 * 'UTC day Nov 25 (from 7:00 PM on Nov 24 your time)'; for several days
 * 'UTC days Nov 19 – Nov 25 (…)'. The local date is left out only when it is the UTC date, both
 * then and now ('from 9:00 AM your time' in Tokyo before its midnight); nothing about the user's
 * clock when it is on UTC.
 */
export function windowCaption(
  from: string,
  days: number,
  now: Date = new Date(),
  timeZone?: string,
): string {
  const start = new Date(from);
  const utcDay = (d: Date) =>
    new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
      d,
    );
  const localDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone });
  const localTime = new Intl.DateTimeFormat(undefined, {
    hour: 'numeric',
    minute: '2-digit',
    timeZone,
  });
  const utcTime = new Intl.DateTimeFormat(undefined, {
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
  });
  const span =
    days === 1 ? `UTC day ${utcDay(start)}` : `UTC days ${utcDay(start)} – ${utcDay(now)}`;
  const sameClock =
    localTime.format(start) === utcTime.format(start) && localDay.format(start) === utcDay(start);
  if (sameClock) return span;
  // The local date is named unless it is the UTC date both when the window began and now: far
  // east of UTC, a window that began this UTC day may have begun on the user's yesterday.
  const sameDates =
    localDay.format(start) === utcDay(start) && localDay.format(now) === utcDay(now);
  const on = sameDates ? '' : ` on ${localDay.format(start)}`;
  return `${span} (from ${localTime.format(start)}${on} your time)`;
}

export const homeKeys = {
  stats: ['stats'] as const,
  window: (from: string) => ['stats', from] as const,
  pendingPayouts: (query: PayoutListQuery) => ['payouts', 'list', query] as const,
};

/** `GET /api/stats` from `from` until now (the server's clock ends the window). */
export function statsQueryOptions(from: string) {
  return queryOptions({
    queryKey: homeKeys.window(from),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/stats', StatsResponseSchema, { query: { from }, signal }),
  });
}

/** The list answers at most this many; the count shows "at least" beyond it. */
export const PENDING_LIMIT = 200;

/**
 * Payouts waiting for a second ops user: for ops, their approval queue as the payouts screen shows
 * it (those another user prepared, to approve, or to pay again after the gateway did not pay them);
 * for others, every payout waiting for approval.
 */
export function pendingPayoutsQuery(isOps: boolean): PayoutListQuery {
  return isOps
    ? { view: 'awaiting-my-approval', limit: PENDING_LIMIT }
    : { view: 'all', state: 'pending_approval', limit: PENDING_LIMIT };
}

/**
 * How far back the paid-late card counts: the payouts decided (approved) in the last 30 whole UTC
 * days (`windowStart`, so the query key stays the same all day).
 */
export const PAID_LATE_DAYS = 30;

/** The list answers at most this many; the count shows "at least" while more remain. */
export const PAID_LATE_LIMIT = 50;

/**
 * The payouts list filtered to the payouts paid after a not-applied verdict (every view's; an ops
 * user's default queue never holds one) and decided since `from`, as the card counts them: the
 * card links to what it counted.
 */
export function paidLateListHref(from: string): string {
  return `/payouts?${new URLSearchParams({ view: 'all', paidLate: 'true', decidedFrom: from }).toString()}`;
}

/**
 * Payouts the gateway paid after Paydesk had judged them not applied (`paidLate=true`), decided
 * since `from`: the list's own filter, a small page, no count endpoint.
 */
export function paidLatePayoutsQuery(from: string): PayoutListQuery {
  return { view: 'all', paidLate: 'true', decidedFrom: from, limit: PAID_LATE_LIMIT };
}

/** The list answers at most this many; the count shows "at least" while more remain. */
export const UNKNOWN_PAYOUTS_LIMIT = 50;

/** The payouts list filtered to the payouts the unknown-outcome card counts. */
export const UNKNOWN_PAYOUTS_HREF = '/payouts?view=all&state=unknown';

/**
 * Payouts whose outcome is unknown (the gateway did not answer their payment): every view's, a
 * small page of the list's own state filter, no count endpoint.
 */
export function unknownPayoutsQuery(): PayoutListQuery {
  return { view: 'all', state: 'unknown', limit: UNKNOWN_PAYOUTS_LIMIT };
}

/**
 * A page of `GET /api/payouts` for a card (the approval queue, the payouts paid late or with an
 * unknown outcome).
 */
export function pendingPayoutsQueryOptions(query: PayoutListQuery) {
  return queryOptions({
    queryKey: homeKeys.pendingPayouts(query),
    queryFn: ({ signal }) => apiRequest('GET', '/api/payouts', PayoutListSchema, { query, signal }),
  });
}

export interface CurrencyTotal {
  currency: string;
  count: number;
  /** decimal text, summed in minor units */
  amount: string;
}

/** Returns in the window per currency (sum of the days), largest count first. */
export function returnTotals(stats: StatsResponse): CurrencyTotal[] {
  const totals = new Map<string, { count: number; minor: bigint }>();
  for (const day of stats.returnsByDay) {
    const current = totals.get(day.currency) ?? { count: 0, minor: 0n };
    totals.set(day.currency, {
      count: current.count + day.count,
      minor: current.minor + (toMinor(day.amount) ?? 0n),
    });
  }
  return [...totals]
    .map(([currency, t]) => ({ currency, count: t.count, amount: fromMinor(t.minor) }))
    .sort((a, b) => b.count - a.count || a.currency.localeCompare(b.currency));
}

export interface DayPoint {
  day: string;
  count: number;
  approvedCount: number;
  /** integer minor units: chart heights only, never shown as text */
  capturedMinor: number;
  returnedMinor: number;
  /** decimal text for labels and tooltips */
  capturedAmount: string;
  returnedAmount: string;
}

function utcDays(fromIso: string, toIso: string): string[] {
  const days: string[] = [];
  const end = toIso.slice(0, 10);
  const cursor = new Date(`${fromIso.slice(0, 10)}T00:00:00.000Z`);
  while (days.length < 400) {
    const day = cursor.toISOString().slice(0, 10);
    days.push(day);
    if (day >= end) break;
    cursor.setUTCDate(cursor.getUTCDate() + 1);
  }
  return days;
}

/** Days between two labelled days: every day, every other day, or whole weeks. */
const LABEL_STEPS = [1, 2, 7, 14, 28] as const;

/**
 * The days a chart's x axis names: the latest (today) and every `step` days before it, the
 * smallest step that gives at most `fit` labels (what the chart's width holds without crowding).
 * Steps counted back from today read as a calendar ('every week') and keep today's bar named.
 */
export function labelledDays(days: readonly string[], fit: number): Set<string> {
  const step = LABEL_STEPS.find((s) => Math.ceil(days.length / s) <= fit) ?? LABEL_STEPS[4];
  return new Set(days.filter((_day, i) => (days.length - 1 - i) % step === 0));
}

/** One point per UTC day of the window (days without orders included) for one currency. */
export function dailySeries(stats: StatsResponse, currency: string): DayPoint[] {
  return utcDays(stats.from, stats.to).map((day) => {
    const volume = stats.volumeByDay.find((v) => v.day === day && v.currency === currency);
    const returned = stats.returnsByDay.find((r) => r.day === day && r.currency === currency);
    const capturedAmount = volume?.capturedAmount ?? '0.00';
    const returnedAmount = returned?.amount ?? '0.00';
    return {
      day,
      count: volume?.count ?? 0,
      approvedCount: volume?.approvedCount ?? 0,
      capturedMinor: Number(toMinor(capturedAmount) ?? 0n),
      returnedMinor: Number(toMinor(returnedAmount) ?? 0n),
      capturedAmount,
      returnedAmount,
    };
  });
}

/** Currencies of the window, the busiest first (the chart shows one at a time). */
export function currenciesOf(stats: StatsResponse): string[] {
  return [...stats.volumes]
    .sort((a, b) => b.count - a.count || a.currency.localeCompare(b.currency))
    .map((v) => v.currency);
}
