import { ProtocolError } from './errors.js';

// Plain decimal text: digits, optionally a point and one or two digits. No sign, exponent,
// grouping, whitespace or bare point ("1." and ".5" are refused).
const AMOUNT = /^([0-9]{1,18})(?:\.([0-9]{1,2}))?$/;

/** '19.99' → 1999n. Decimal text in, integer minor units out; never through a float. */
export function toMinorUnits(amount: string): bigint {
  const match = AMOUNT.exec(amount);
  if (!match) {
    const detail = /^[0-9]+\.[0-9]{3,}$/.test(amount)
      ? 'has more than 2 decimals'
      : 'is not a plain decimal number like 19.99';
    throw new ProtocolError('INVALID_AMOUNT', `amount ${detail}`);
  }
  const units = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(2, '0');
  return BigInt(units) * 100n + BigInt(fraction);
}

/** 1999n → '19.99'; always two decimals. Negative values keep their sign. */
export function formatMinorUnits(minor: bigint): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const text = `${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
  return negative ? `-${text}` : text;
}

/** True when the text is an amount the gateway accepts as a positive value. */
export function isPositiveAmount(amount: string): boolean {
  return AMOUNT.test(amount) && toMinorUnits(amount) > 0n;
}
