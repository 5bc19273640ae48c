// Money and time for people to read. Amounts arrive as decimal strings and are handed to Intl as
// strings (Intl.NumberFormat formats string decimals exactly), so no amount ever becomes a float.

type DecimalText = `${number}`;

const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** `amount` trimmed, as Intl takes it; a RangeError for anything but decimal text. */
function decimalText(amount: string): DecimalText {
  const trimmed = amount.trim();
  if (!DECIMAL.test(trimmed))
    throw new RangeError(`not a decimal amount: ${JSON.stringify(amount)}`);
  return trimmed as DecimalText;
}

function fractionDigits(amount: string): number {
  const dot = amount.indexOf('.');
  return dot < 0 ? 0 : amount.length - dot - 1;
}

/** Locale of the browser (or the one given), for every formatter below. */
export function userLocale(): string {
  return typeof navigator === 'undefined' ? 'en' : navigator.language || 'en';
}

/** Time zone of the browser, e.g. 'Europe/Berlin'. */
export function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * Formats a decimal-string amount in its currency, e.g. ('1234.5', 'EUR', 'de-DE') → '1.234,50 €'.
 * Never rounds: if the text has more fraction digits than the currency usually shows, they are kept.
 */
export function formatMoney(
  amount: string,
  currency: string,
  locale: string = userLocale(),
): string {
  const trimmed = decimalText(amount);
  const base = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const usual = base.resolvedOptions().maximumFractionDigits ?? 2;
  const digits = Math.max(usual, fractionDigits(trimmed));
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: usual,
    maximumFractionDigits: digits,
  }).format(trimmed);
}

/**
 * A short label for a money axis tick, e.g. ('15000', 'EUR', 'en-US') → '€15K': compact notation
 * with at most 3 significant digits, so it fits beside a chart. Rounded: never for amounts shown
 * as figures (tooltips, tables), which use `formatMoney`.
 */
export function formatMoneyCompact(
  amount: string,
  currency: string,
  locale: string = userLocale(),
): string {
  const trimmed = decimalText(amount);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    notation: 'compact',
    maximumSignificantDigits: 3,
  }).format(trimmed);
}

export interface DateFormatOptions {
  locale?: string;
  timeZone?: string;
}

function toDate(value: string | Date): Date {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) {
    throw new RangeError(`not a date: ${JSON.stringify(value)}`);
  }
  return date;
}

/** Date and time in the user's time zone (or the one given), e.g. '21 Nov 2026, 06:20:00'. */
export function formatDateTime(value: string | Date, options: DateFormatOptions = {}): string {
  return new Intl.DateTimeFormat(options.locale ?? userLocale(), {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone: options.timeZone ?? userTimeZone(),
  }).format(toDate(value));
}

/**
 * An instant in one string, as a sentence says it, with its time zone named as <DateTime> names
 * it: 'Nov 28, 2026, 9:43:04 PM UTC' (a toast or a line of words has no separate zone to show).
 */
export function formatDateTimeWithZone(
  value: string | Date,
  options: DateFormatOptions = {},
): string {
  return `${formatDateTime(value, options)} ${formatDateAndTime(value, options).zone}`;
}

/**
 * The date and the time of `formatDateTime` apart, for a cell that shows them on two lines (or
 * lets them wrap between), and the time zone's short name ('UTC', 'CET', 'GMT+1') they are in.
 */
export function formatDateAndTime(
  value: string | Date,
  options: DateFormatOptions = {},
): { date: string; time: string; zone: string } {
  const instant = toDate(value);
  const locale = options.locale ?? userLocale();
  const timeZone = options.timeZone ?? userTimeZone();
  const part = (style: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(locale, { ...style, timeZone }).format(instant);
  const zone =
    new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' })
      .formatToParts(instant)
      .find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  return { date: part({ dateStyle: 'medium' }), time: part({ timeStyle: 'medium' }), zone };
}

/** The same instant in UTC, unambiguous for tooltips and support tickets: '2026-11-21 05:20:00 UTC'. */
export function formatUtc(value: string | Date): string {
  const iso = toDate(value).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** Whole numbers with grouping, e.g. row counts. */
export function formatCount(value: number, locale: string = userLocale()): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);
}

/**
 * A length of time in words, largest units first, e.g. 259200000 → '3 days', 129600000 →
 * '1 day and 12 hours', 5400000 → '1 hour and 30 minutes' (to the second; a zero unit is left out).
 */
export function formatDuration(ms: number): string {
  let seconds = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
    ['second', 1],
  ] as const) {
    const n = Math.floor(seconds / size);
    seconds -= n * size;
    if (n > 0) parts.push(`${String(n)} ${unit}${n === 1 ? '' : 's'}`);
  }
  const last = parts.pop();
  if (last === undefined) return 'less than a second';
  return parts.length === 0 ? last : `${parts.join(', ')} and ${last}`;
}

/**
 * `text` (staff's own words, a reason say) ending a sentence that the screen goes on after: its
 * own closing mark kept (`.`, `!`, `?`, `…`), else a full stop added. "…the contract." then
 * "Nothing was paid." reads as two sentences, not "contract.. Nothing".
 */
export function endSentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
