// Amounts as integer minor units (bigint), for comparing and checking caps in the browser. The API
// sends decimal text with two decimals; nothing here ever turns an amount into a float.
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
