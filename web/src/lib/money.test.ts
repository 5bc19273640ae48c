import { AmountSchema } from '@paydesk/shared/api';
import { describe, expect, it, vi } from 'vitest';
import {
  AMOUNT_GROUPING_REFUSAL,
  AmountInputSchema,
  amountRule,
  amountTooBigRefusal,
  decimalCommaRefusal,
  formatMoneyInWords,
  isAmountRefusal,
  fromMinor,
  localAmountExample,
  plainAmount,
  readAmount,
  toMinor,
} from './money';

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

describe("amounts as typed in the user's locale", () => {
  const grouped = { refusal: AMOUNT_GROUPING_REFUSAL };

  it('when a German types a decimal comma (or a point), then the plain text and minor units are exact', () => {
    expect(plainAmount('5,55', 'de-DE')).toEqual({ amount: '5.55' });
    expect(plainAmount(' 12,5 ', 'de-DE')).toEqual({ amount: '12.5' });
    expect(plainAmount('5.55', 'de-DE')).toEqual({ amount: '5.55' });
    expect(plainAmount('1234', 'de-DE')).toEqual({ amount: '1234' });
    expect(toMinor(plainAmount('9007199254740993,99', 'de-DE').amount ?? '')).toBe(
      900719925474099399n,
    );
  });

  it('when an American types a point, then it is read; a comma is not their decimal mark', () => {
    expect(plainAmount('5.55', 'en-US')).toEqual({ amount: '5.55' });
    // Not a grouped number either: handed on for the usual rule to refuse.
    expect(plainAmount('5,55', 'en-US')).toEqual({ amount: '5,55' });
    expect(toMinor('5,55')).toBeUndefined();
  });

  it('when thousands separators are typed, then they are refused rather than guessed, in either locale', () => {
    for (const locale of ['de-DE', 'en-US']) {
      expect(plainAmount('1.234,56', locale)).toEqual(grouped);
      expect(plainAmount('1,234.56', locale)).toEqual(grouped);
      expect(plainAmount('1 234', locale)).toEqual(grouped);
      expect(plainAmount('12.345.678', locale)).toEqual(grouped);
    }
    // '1.234' is 1234 to a German: ambiguous there; three decimals (refused later) to an American.
    expect(plainAmount('1.234', 'de-DE')).toEqual(grouped);
    expect(plainAmount('1.234', 'en-US')).toEqual({ amount: '1.234' });
    expect(plainAmount('1,234', 'en-US')).toEqual(grouped);
    // A German's '1,234' is three decimals, which the usual rule refuses.
    expect(plainAmount('1,234', 'de-DE')).toEqual({ amount: '1.234' });
    expect(plainAmount('1\u202f234,5', 'fr-FR')).toEqual(grouped);
    expect(plainAmount('12,5', 'fr-FR')).toEqual({ amount: '12.5' });
  });

  it('when text is not an amount, then it is handed on unchanged for the usual rule', () => {
    for (const text of ['', 'abc', '-5', '1.2.3', '1e3', '1,2,3'])
      expect(plainAmount(text, 'de-DE')).toEqual({ amount: text });
  });

  it("when a form reads its amount field, then the browser's locale decides and a grouped amount is an issue with the clear message", () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    expect(AmountInputSchema.parse('5,55')).toBe('5.55');
    const refused = AmountInputSchema.safeParse('1.234,56');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.message)).toEqual([AMOUNT_GROUPING_REFUSAL]);
    expect(localAmountExample('12.50')).toBe('12,50');
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-US');
    expect(AmountInputSchema.parse('5.55')).toBe('5.55');
    expect(localAmountExample('12.50')).toBe('12.50');
  });

  it('when an amount is spelled with a leading zero or plus, or a point with nothing on one side, then it is read as the one amount it means (QA: "05.00" was refused as not an amount)', () => {
    expect(readAmount('05.00', 'en-US')).toEqual({ amount: '5.00' });
    expect(readAmount('+5', 'en-US')).toEqual({ amount: '5' });
    expect(readAmount('5.', 'en-US')).toEqual({ amount: '5' });
    expect(readAmount('.5', 'en-US')).toEqual({ amount: '0.5' });
    expect(readAmount('0,50', 'de-DE')).toEqual({ amount: '0.50' });
    expect(readAmount('000.25', 'en-US')).toEqual({ amount: '0.25' });
    expect(AmountInputSchema.pipe(AmountSchema).parse('05.00')).toBe('5.00');
    // What is not one amount stays as typed, for the usual rule.
    for (const text of ['.', '+', '', '-5', '5.5.5', '1e3', '0x10', '++5']) {
      expect(readAmount(text, 'en-US'), text).toEqual({ amount: text.trim() });
    }
    expect(readAmount('00', 'en-US')).toEqual({ amount: '0' });
  });

  it('when a well-formed amount is above the largest the API takes (AMOUNT_MAX), then it is refused with the maximum, in the locale’s decimal mark', () => {
    expect(readAmount('9999999999999.99', 'en-US')).toEqual({ amount: '9999999999999.99' });
    expect(readAmount('99999999999999999', 'en-US')).toEqual({
      refusal: 'At most 9999999999999.99.',
    });
    expect(readAmount('99999999999999,5', 'de-DE')).toEqual({
      refusal: 'At most 9999999999999,99.',
    });
    expect(readAmount('1.234,56', 'de-DE')).toEqual({ refusal: AMOUNT_GROUPING_REFUSAL });
    // Not an amount at all: the usual rule. A leading zero is tidied away first.
    expect(readAmount('99999999999999.999', 'en-US')).toEqual({ amount: '99999999999999.999' });
    expect(readAmount('09999999999999', 'en-US')).toEqual({ amount: '9999999999999' });
    expect(readAmount('099999999999999', 'en-US')).toEqual({
      refusal: 'At most 9999999999999.99.',
    });
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    expect(amountRule('99999999999999999', '12.50')).toBe(amountTooBigRefusal());
    expect(amountRule('12,345', '12.50')).toBe(
      'An amount above zero with at most 2 decimals, e.g. 12,50.',
    );
    const refused = AmountInputSchema.safeParse('99999999999999999');
    expect(refused.error?.issues.map((issue) => issue.message)).toEqual([
      'At most 9999999999999,99.',
    ]);
    expect(AmountInputSchema.parse('9999999999999,99')).toBe('9999999999999.99');
  });

  it('when a decimal comma is typed where the locale’s decimal mark is a point, then the refusal says to use a point, with the amount so written', () => {
    expect(readAmount('12,50', 'en-US')).toEqual({ refusal: 'Use a point for decimals: 12.50.' });
    expect(readAmount(' 0,5 ', 'en-US')).toEqual({ refusal: 'Use a point for decimals: 0.5.' });
    expect(decimalCommaRefusal('12.50')).toBe('Use a point for decimals: 12.50.');
    expect(isAmountRefusal('Use a point for decimals: 12.50.')).toBe(true);
    // Where a comma is the decimal mark it is read, as before.
    expect(readAmount('12,50', 'de-DE')).toEqual({ amount: '12.50' });
    // Thousands, or not an amount even with a point: their own refusal, or the usual rule.
    expect(readAmount('1,234', 'en-US')).toEqual({ refusal: AMOUNT_GROUPING_REFUSAL });
    for (const text of ['12,505', '1,2,3', '012,50', ',50', '12,'])
      expect(readAmount(text, 'en-US').refusal ?? '').not.toMatch(/^Use a point/);
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-US');
    expect(amountRule('12,50', '12.50')).toBe('Use a point for decimals: 12.50.');
    expect(AmountInputSchema.safeParse('12,50').error?.issues.map((i) => i.message)).toEqual([
      'Use a point for decimals: 12.50.',
    ]);
  });
});
