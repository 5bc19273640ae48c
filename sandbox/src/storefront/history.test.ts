import { describe, expect, it } from 'vitest';
import { historyTimes } from './history.js';

const DAY = 86_400_000;
// Monday 2 November 2026, 00:00 UTC: four whole weeks to Monday 30 November.
const START = Date.UTC(2026, 10, 2);
const END = START + 28 * DAY;

describe('historyTimes (the storefront simulator demo history)', () => {
  it('when asked for n times over a span, then it gives n, in order, inside the span, the same each time', () => {
    const times = historyTimes(300, START, END);
    expect(times).toHaveLength(300);
    for (let i = 1; i < times.length; i += 1) {
      expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] ?? 0);
    }
    expect(times[0]).toBeGreaterThanOrEqual(START);
    expect(times.at(-1)).toBeLessThanOrEqual(END);
    expect(historyTimes(300, START, END)).toEqual(times);
    // Every day of the span has orders: the charts show a history, not one bar.
    const days = new Set(times.map((t) => Math.floor((t - START) / DAY)));
    expect(days.size).toBe(28);
  });

  it('when orders are spread, then weekdays get more than Sundays, daytime more than the night, and later weeks a little more than earlier ones', () => {
    const times = historyTimes(5_000, START, END);
    const count = (pick: (d: Date) => boolean) => times.filter((t) => pick(new Date(t))).length;
    const mondays = count((d) => d.getUTCDay() === 1);
    const sundays = count((d) => d.getUTCDay() === 0);
    expect(mondays).toBeGreaterThan(sundays * 1.5);
    const afternoon = count((d) => d.getUTCHours() === 15);
    const night = count((d) => d.getUTCHours() === 3);
    expect(afternoon).toBeGreaterThan(night * 5);
    const firstWeek = times.filter((t) => t < START + 7 * DAY).length;
    const lastWeek = times.filter((t) => t >= END - 7 * DAY).length;
    expect(lastWeek).toBeGreaterThan(firstWeek);
  });

  it('when the span is empty or no order is asked for, then every time is the end, or there is none', () => {
    expect(historyTimes(0, START, END)).toEqual([]);
    expect(historyTimes(3, END, END)).toEqual([END, END, END]);
  });
});
