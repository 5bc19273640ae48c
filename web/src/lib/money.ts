// Amounts as integer minor units (bigint), for comparing and checking caps in the browser. The API
// sends decimal text with two decimals; nothing here ever turns an amount into a float.
import { AMOUNT_MAX, AmountSchema } from '@paydesk/shared/api';
import { z } from 'zod';
import { userLocale } from './format';

const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/;

/** '12.5' → 1250n; undefined when the text is not a non-negative amount with at most 2 decimals. */
export function toMinor(amount: string): bigint | undefined {
  const match = AMOUNT.exec(amount.trim());
  if (!match) return undefined;
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(2, '0');
  return BigInt(whole) * 100n + BigInt(fraction);
}

/** 1250n → '12.50' (the API's reply format). */
export function fromMinor(minor: bigint): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  return `${sign}${String(abs / 100n)}.${String(abs % 100n).padStart(2, '0')}`;
}

/** Amount with the currency spelled out, for confirmations: ('12.50', 'EUR') → '12.50 euros'. */
export function formatMoneyInWords(
  amount: string,
  currency: string,
  locale: string = userLocale(),
): string {
  const digits = amount.includes('.') ? amount.length - amount.indexOf('.') - 1 : 0;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    currencyDisplay: 'name',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amount as `${number}`);
}

/** Said when an amount is typed with thousands separators ('1.234,56', '1,234.56', '1 234'). */
export const AMOUNT_GROUPING_REFUSAL = 'Enter the amount without thousands separators.';

/** The decimal and grouping marks of `locale`: de-DE → ',' and '.', en-US → '.' and ','. */
function numberMarks(locale: string): { decimal: string; group: string } {
  // Seven digits: some locales (es) only group from five.
  const parts = new Intl.NumberFormat(locale).formatToParts(1234567.5);
  return {
    decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.',
    group: parts.find((part) => part.type === 'group')?.value ?? ',',
  };
}

const inCharClass = (mark: string) => mark.replace(/[\\\]^-]/g, '\\$&');

/**
 * An amount as the user typed it, in the API's plain form: the locale's decimal mark or a point
 * ('5,55' in de-DE → '5.55'). Thousands separators are refused rather than guessed: '1.234' means
 * 1234 to a German and 1.234 to an American. Text that is not an amount at all is handed on as it
 * is, for the form's usual rule (digits, at most 2 decimals) to refuse; only text changes here, so
 * the amount never passes through a float.
 */
export function plainAmount(
  typed: string,
  locale: string = userLocale(),
): { amount: string; refusal?: never } | { amount?: never; refusal: string } {
  const text = typed.trim();
  const { decimal, group } = numberMarks(locale);
  const marks = text.replace(/\d/g, '');
  if (marks.length === 1 && (marks === '.' || marks === decimal)) {
    // A point before exactly three digits is a German's thousands, so neither reading is safe.
    const ambiguous = marks === group && text.length - text.indexOf(marks) - 1 === 3;
    return ambiguous ? { refusal: AMOUNT_GROUPING_REFUSAL } : { amount: text.replace(marks, '.') };
  }
  const groupMarks = `[.,'’\\s${inCharClass(group)}]`;
  const grouped = new RegExp(
    `^\\d{1,3}(?:${groupMarks}\\d{3})+(?:[.,${inCharClass(decimal)}]\\d*)?$`,
  );
  return grouped.test(text) ? { refusal: AMOUNT_GROUPING_REFUSAL } : { amount: text };
}

/**
 * Said when a well-formed amount is above the largest the API takes (the shared AmountSchema's
 * `too_big` rule, AMOUNT_MAX), with the locale's decimal mark: 'At most 9999999999999.99.'
 */
export function amountTooBigRefusal(locale: string = userLocale()): string {
  return `At most ${localAmount(AMOUNT_MAX, locale)}.`;
}

/** Whether plain amount text breaks the shared rule on size (and is well-formed otherwise). */
function isTooBig(amount: string): boolean {
  const parsed = AmountSchema.safeParse(amount);
  return (
    !parsed.success &&
    parsed.error.issues.some((issue) => issue.code === 'custom' && issue.params?.rule === 'too_big')
  );
}

const DECIMAL_COMMA_HINT = 'Use a point for decimals: ';

/**
 * Said when a decimal comma is typed where the locale's decimal mark is a point ('12,50' in en-US):
 * the usual rule ("at most 2 decimals") would not say what is wrong. `pointed`: the amount as it
 * is to be typed ('12.50').
 */
export function decimalCommaRefusal(pointed: string): string {
  return `${DECIMAL_COMMA_HINT}${pointed}.`;
}

/**
 * The amount a plain text means with its comma as a decimal point ('12,50' → '12.50'), when that is
 * the only thing wrong with it. `plainAmount` already turned the locale's own decimal comma into a
 * point, so a comma left here is one the locale does not read as decimals.
 */
function withDecimalPoint(plain: string): string | undefined {
  const match = /^(0|[1-9]\d*),(\d{1,2})$/.exec(plain);
  return match === null ? undefined : `${match[1] ?? ''}.${match[2] ?? ''}`;
}

/**
 * Spellings of an amount that mean one amount only, in the API's plain form: a leading zero or
 * plus ('05.00', '+5' → '5.00', '5'), a point with nothing after it ('5.' → '5') or before it
 * ('.5' → '0.5'). The shared rule refuses them; refusing "05.00" as not "an amount above zero with
 * at most 2 decimals" said nothing true (QA). Anything else is left for the rule as typed.
 */
function tidyAmount(plain: string): string {
  const match = /^\+?(\d*)(?:\.(\d*))?$/.exec(plain);
  if (match === null) return plain;
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  if (whole === '' && fraction === '') return plain;
  const units = whole.replace(/^0+(?=\d)/, '') || '0';
  return fraction === '' ? units : `${units}.${fraction}`;
}

/**
 * An amount field's text read for a form (see `plainAmount`), tidied (`tidyAmount`), refusing
 * what the shared rules refuse for a reason the usual rule does not say: thousands separators, a decimal comma the
 * locale does not use (`decimalCommaRefusal`), or a size above AMOUNT_MAX (`amountTooBigRefusal`).
 * Any other text is handed on for the usual rule. The API itself still takes a point only.
 */
export function readAmount(
  typed: string,
  locale: string = userLocale(),
): { amount: string; refusal?: never } | { amount?: never; refusal: string } {
  const read = plainAmount(typed, locale);
  if (read.amount === undefined) return read;
  const pointed = withDecimalPoint(read.amount);
  if (pointed !== undefined) return { refusal: decimalCommaRefusal(pointed) };
  const amount = tidyAmount(read.amount);
  if (isTooBig(amount)) return { refusal: amountTooBigRefusal(locale) };
  return { amount };
}

/** Whether `message` is one of `readAmount`'s refusals, shown instead of the field's usual rule. */
export function isAmountRefusal(message: string | undefined): boolean {
  return (
    message === AMOUNT_GROUPING_REFUSAL ||
    message === amountTooBigRefusal() ||
    (message?.startsWith(DECIMAL_COMMA_HINT) ?? false)
  );
}

/**
 * The rule an amount field says when the amount is refused: `readAmount`'s refusal, else the
 * usual rule with an example in the user's locale ('12.50' → '12,50' in de-DE).
 */
export function amountRule(typed: string, example: string): string {
  return (
    readAmount(typed).refusal ??
    `An amount above zero with at most 2 decimals, e.g. ${localAmountExample(example)}.`
  );
}

/**
 * A form's amount field (see `readAmount`): the typed text becomes plain decimal text for the
 * shared schema it is piped into; thousands separators, a decimal comma the locale does not use and
 * a size above AMOUNT_MAX are issues whose message says so (`isAmountRefusal`).
 */
export const AmountInputSchema = z.string().transform((typed, ctx) => {
  const read = readAmount(typed);
  if (read.refusal === undefined) return read.amount;
  ctx.addIssue({ code: 'custom', message: read.refusal });
  return z.NEVER;
});

/**
 * An amount in the API's plain form ('12.50') with the locale's decimal mark ('12,50' in de-DE),
 * as a field shows it to be edited: `plainAmount` reads it back to the same text.
 */
export function localAmount(amount: string, locale: string = userLocale()): string {
  return amount.replace('.', numberMarks(locale).decimal);
}

/** An example amount ('12.50') with the locale's decimal mark ('12,50' in de-DE), for hints. */
export function localAmountExample(example: string, locale: string = userLocale()): string {
  return localAmount(example, locale);
}
