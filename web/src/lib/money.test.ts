import { describe, expect, it } from 'vitest';
import { formatMoneyInWords, fromMinor, toMinor } from './money';

describe('money in minor units', () => {
  it('when decimal text is converted, then the minor units are exact (no float on the way)', () => {
    expect(toMinor('12.5')).toBe(1250n);
    expect(toMinor('0.07')).toBe(7n);
    expect(toMinor('9007199254740993.99')).toBe(900719925474099399n);
    expect(toMinor('1.234')).toBeUndefined();
    expect(toMinor('-1')).toBeUndefined();
    expect(toMinor('abc')).toBeUndefined();
  });

  it('when minor units are written back, then two decimals are shown', () => {
    expect(fromMinor(1250n)).toBe('12.50');
    expect(fromMinor(7n)).toBe('0.07');
    expect(fromMinor(0n)).toBe('0.00');
  });

  it('when an amount is put in words, then the currency is spelled out per locale', () => {
    expect(formatMoneyInWords('12.50', 'EUR', 'en')).toBe('12.50 euros');
    expect(formatMoneyInWords('1.00', 'USD', 'en')).toBe('1.00 US dollars');
    expect(formatMoneyInWords('12.50', 'EUR', 'de')).toBe('12,50 Euro');
  });
});
