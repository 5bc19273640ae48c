import { describe, expect, it } from 'vitest';
import {
  endSentence,
  formatCount,
  formatDateAndTime,
  formatDateTime,
  formatDuration,
  formatMoney,
  formatMoneyCompact,
  formatUtc,
} from './format';

// Intl output uses narrow no-break spaces in some locales; compare with plain spaces.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('formatMoney', () => {
  it('when the amount is EUR in German, then it uses comma decimals, dot grouping and a trailing symbol', () => {
    expect(plain(formatMoney('1234.5', 'EUR', 'de-DE'))).toBe('1.234,50 €');
  });

  it('when the amount is USD in US English, then it shows the dollar sign and two decimals', () => {
    expect(formatMoney('19.99', 'USD', 'en-US')).toBe('$19.99');
    expect(formatMoney('7', 'USD', 'en-US')).toBe('$7.00');
  });

  it('when the currency has no minor unit, then no decimals are shown', () => {
    expect(formatMoney('1500', 'JPY', 'en-US')).toBe('¥1,500');
  });

  it('when the amount is larger than a float can hold exactly, then every digit is kept', () => {
    expect(formatMoney('90071992547409931.13', 'USD', 'en-US')).toBe('$90,071,992,547,409,931.13');
  });

  it('when the text has more decimals than the currency shows, then they are kept rather than rounded', () => {
    expect(formatMoney('0.005', 'EUR', 'en-US')).toBe('€0.005');
  });

  it('when the amount is negative, then the sign is shown', () => {
    expect(formatMoney('-10.00', 'USD', 'en-US')).toBe('-$10.00');
  });

  it('when the text is not a decimal, then it throws instead of showing a wrong amount', () => {
    expect(() => formatMoney('1e3', 'USD', 'en-US')).toThrow(RangeError);
    expect(() => formatMoney('12,50', 'EUR', 'de-DE')).toThrow(RangeError);
    expect(() => formatMoney('', 'EUR', 'en-US')).toThrow(RangeError);
  });
});

describe('formatMoneyCompact', () => {
  it('when an axis tick is large, then it is short, with its currency: thousands and millions abbreviated', () => {
    expect(formatMoneyCompact('15000.00', 'EUR', 'en-US')).toBe('€15K');
    expect(formatMoneyCompact('12500', 'EUR', 'en-US')).toBe('€12.5K');
    expect(formatMoneyCompact('1250000', 'USD', 'en-US')).toBe('$1.25M');
    expect(plain(formatMoneyCompact('15000', 'EUR', 'de-DE'))).toBe('15.000 €');
    expect(plain(formatMoneyCompact('1500000', 'EUR', 'de-DE'))).toBe('1,5 Mio. €');
  });

  it('when an axis tick is small, then it keeps the digits that tell ticks apart', () => {
    expect(formatMoneyCompact('0', 'EUR', 'en-US')).toBe('€0');
    expect(formatMoneyCompact('0.5', 'EUR', 'en-US')).toBe('€0.5');
    expect(formatMoneyCompact('250', 'EUR', 'en-US')).toBe('€250');
    expect(formatMoneyCompact('1050', 'EUR', 'en-US')).toBe('€1.05K');
  });

  it('when the text is not a decimal, then it throws', () => {
    expect(() => formatMoneyCompact('1e3', 'EUR', 'en-US')).toThrow(RangeError);
  });
});

describe('formatDateTime', () => {
  const instant = '2026-11-21T05:20:00.000Z';

  it('when a time zone is given, then the local wall-clock time of that zone is shown', () => {
    expect(plain(formatDateTime(instant, { locale: 'en-GB', timeZone: 'Europe/Berlin' }))).toBe(
      '21 Nov 2026, 06:20:00',
    );
    expect(plain(formatDateTime(instant, { locale: 'en-US', timeZone: 'America/New_York' }))).toBe(
      'Nov 21, 2026, 12:20:00 AM',
    );
  });

  it('when the value is not a date, then it throws', () => {
    expect(() => formatDateTime('yesterday', { locale: 'en-GB', timeZone: 'UTC' })).toThrow(
      RangeError,
    );
  });
});

describe('formatDateAndTime', () => {
  it('when asked apart, then the date and the time are those formatDateTime shows together', () => {
    const instant = '2026-11-21T23:20:00.000Z';
    const parts = formatDateAndTime(instant, { locale: 'en-GB', timeZone: 'Europe/Berlin' });
    expect({ date: plain(parts.date), time: plain(parts.time), zone: parts.zone }).toEqual({
      date: '22 Nov 2026',
      time: '00:20:00',
      zone: 'CET',
    });
    expect(plain(formatDateTime(instant, { locale: 'en-GB', timeZone: 'Europe/Berlin' }))).toBe(
      `${plain(parts.date)}, ${plain(parts.time)}`,
    );
  });
});

describe('formatUtc', () => {
  it('when given an instant with an offset, then it shows the same instant in UTC', () => {
    expect(formatUtc('2026-11-21T06:20:00+01:00')).toBe('2026-11-21 05:20:00 UTC');
  });
});

describe('formatCount', () => {
  it('when counting rows, then the locale grouping is used', () => {
    expect(formatCount(1234567, 'en-US')).toBe('1,234,567');
  });
});

describe('the time zone shown with a date', () => {
  it('when the zone is UTC or has no common abbreviation, then its short name is given', () => {
    const instant = '2026-11-21T23:20:00.000Z';
    expect(formatDateAndTime(instant, { locale: 'en-US', timeZone: 'UTC' }).zone).toBe('UTC');
    expect(formatDateAndTime(instant, { locale: 'en-US', timeZone: 'America/New_York' }).zone).toBe(
      'EST',
    );
  });
});

describe('formatDuration', () => {
  it('when the time is whole days, then it says days; one is singular', () => {
    expect(formatDuration(3 * 86_400_000)).toBe('3 days');
    expect(formatDuration(86_400_000)).toBe('1 day');
    expect(formatDuration(30 * 86_400_000)).toBe('30 days');
  });

  it('when the time is not whole days, then the hours, minutes and seconds follow, zero ones left out', () => {
    expect(formatDuration(36 * 3_600_000)).toBe('1 day and 12 hours');
    expect(formatDuration(90 * 60_000)).toBe('1 hour and 30 minutes');
    expect(formatDuration(86_400_000 + 60_000)).toBe('1 day and 1 minute');
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000 + 4 * 60_000 + 5_000)).toBe(
      '2 days, 3 hours, 4 minutes and 5 seconds',
    );
    expect(formatDuration(60_000)).toBe('1 minute');
  });
});

describe('endSentence', () => {
  it('when the text ends without a closing mark, then a full stop ends it; with one, it is kept and no second is added', () => {
    expect(endSentence('Payee wallet id does not match')).toBe('Payee wallet id does not match.');
    expect(endSentence('does not match the contract. ')).toBe('does not match the contract.');
    expect(endSentence('Wrong payee!')).toBe('Wrong payee!');
    expect(endSentence('Whose account is it?')).toBe('Whose account is it?');
    expect(endSentence('Asked the seller…')).toBe('Asked the seller…');
  });
});
