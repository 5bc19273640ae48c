import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelledDays, windowCaption, windowStart } from './home-stats';

describe('home windows', () => {
  // The browser's clock in New York (Node takes a new TZ at once), so that local and UTC days differ.
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'America/New_York';
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
  // 10 AM in New York on Nov 25 is 15:00 UTC: the UTC day began at 7 PM the evening before.
  const now = new Date('2026-11-25T15:00:00.000Z');

  it('when the home screen asks for today or a period, then the window starts at UTC midnight, as the charts count days, whatever the browser’s zone', () => {
    expect(windowStart(1, now)).toBe('2026-11-25T00:00:00.000Z');
    expect(windowStart(7, now)).toBe('2026-11-19T00:00:00.000Z');
    expect(windowStart(30, now)).toBe('2026-10-27T00:00:00.000Z');
    // Just before and at UTC midnight
    expect(windowStart(1, new Date('2026-11-25T23:59:59.999Z'))).toBe('2026-11-25T00:00:00.000Z');
    expect(windowStart(1, new Date('2026-11-26T00:00:00.000Z'))).toBe('2026-11-26T00:00:00.000Z');
  });

  it('when the window is captioned, then it names its UTC days and when they began on the user’s clock', () => {
    const today = windowStart(1, now);
    const week = windowStart(7, now);
    expect(new Date(today).getHours()).toBe(19);
    expect(windowCaption(today, 1, now)).toBe('UTC day Nov 25 (from 7:00 PM on Nov 24 your time)');
    expect(windowCaption(today, 1, now, 'America/New_York')).toBe(
      'UTC day Nov 25 (from 7:00 PM on Nov 24 your time)',
    );
    expect(windowCaption(week, 7, now, 'America/New_York')).toBe(
      'UTC days Nov 19 – Nov 25 (from 7:00 PM on Nov 18 your time)',
    );
    // In Tokyo it is already Nov 26 (midnight): the day began on the date before the user's today.
    expect(windowCaption(today, 1, now, 'Asia/Tokyo')).toBe(
      'UTC day Nov 25 (from 9:00 AM on Nov 25 your time)',
    );
    // Earlier that day, Tokyo's date is the UTC date: the time alone says it.
    expect(windowCaption(today, 1, new Date('2026-11-25T10:00:00.000Z'), 'Asia/Tokyo')).toBe(
      'UTC day Nov 25 (from 9:00 AM your time)',
    );
    // On Kiritimati (UTC+14) it is 5 AM on Nov 26: the day that began at 2 PM was yesterday.
    expect(windowCaption(today, 1, now, 'Pacific/Kiritimati')).toBe(
      'UTC day Nov 25 (from 2:00 PM on Nov 25 your time)',
    );
    expect(windowCaption(week, 7, now, 'Pacific/Kiritimati')).toBe(
      'UTC days Nov 19 – Nov 25 (from 2:00 PM on Nov 19 your time)',
    );
    expect(windowCaption(today, 1, now, 'UTC')).toBe('UTC day Nov 25');
    expect(windowCaption(today, 1, now, 'Europe/London')).toBe('UTC day Nov 25');
  });

  it('when a chart labels its days, then it names today and every day, every other day or whole weeks before it, no more labels than fit', () => {
    const days = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        new Date(Date.UTC(2026, 10, 25 - (n - 1 - i))).toISOString().slice(0, 10),
      );
    const labelled = (n: number, fit: number) => [...labelledDays(days(n), fit)];
    // 30 days: every week back from today, wherever the chart is (5, 6 or 10 labels fit).
    const weekly = ['2026-10-28', '2026-11-04', '2026-11-11', '2026-11-18', '2026-11-25'];
    expect(labelled(30, 5)).toEqual(weekly);
    expect(labelled(30, 6)).toEqual(weekly);
    expect(labelled(30, 10)).toEqual(weekly);
    // 7 days: each day where 7 fit, else every other day.
    expect(labelled(7, 10)).toEqual(days(7));
    expect(labelled(7, 5)).toEqual(['2026-11-19', '2026-11-21', '2026-11-23', '2026-11-25']);
    // 90 days: every two weeks where 10 fit, every four where 5 do.
    expect(labelled(90, 10)).toHaveLength(7);
    expect(labelled(90, 5)).toEqual(['2026-09-02', '2026-09-30', '2026-10-28', '2026-11-25']);
  });
});
