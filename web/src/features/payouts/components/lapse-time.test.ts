import { describe, expect, it, vi } from 'vitest';
import { relativeTime } from './lapse-time';

describe('relativeTime', () => {
  const now = Date.parse('2026-11-20T09:00:00.000Z');
  const at = (ms: number) => new Date(now + ms).toISOString();

  it('when a payout lapses within the hour, two days or later, then it says minutes, hours or days, as the user’s language does', () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-US');
    expect(relativeTime(at(45 * 60_000), now)).toBe('in 45 minutes');
    expect(relativeTime(at(3 * 3_600_000), now)).toBe('in 3 hours');
    // A registration lapsing tomorrow: hours, not "in 1 day".
    expect(relativeTime(at(26 * 3_600_000), now)).toBe('in 26 hours');
    expect(relativeTime(at(7 * 86_400_000), now)).toBe('in 7 days');
    expect(relativeTime(at(-2 * 3_600_000), now)).toBe('2 hours ago');
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    expect(relativeTime(at(3 * 3_600_000), now)).toBe('in 3 Stunden');
    vi.restoreAllMocks();
  });

  it('when a deadline is between two whole units, then it is rounded down, never said later than it is', () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-US');
    const minutes = (n: number) => n * 60_000;
    // 23 h 33 min left: not 'in 24 hours'.
    expect(relativeTime(at(minutes(23 * 60 + 33)), now)).toBe('in 23 hours');
    expect(relativeTime(at(minutes(24 * 60) - 1), now)).toBe('in 23 hours');
    expect(relativeTime(at(minutes(24 * 60)), now)).toBe('in 24 hours');
    expect(relativeTime(at(minutes(59) + 59_000), now)).toBe('in 59 minutes');
    expect(relativeTime(at(minutes(6.9 * 24 * 60)), now)).toBe('in 6 days');
    expect(relativeTime(at(30_000), now)).toBe('in 30 seconds');
    // Lapsed 90 minutes ago: said as longer ago (it lapsed no later than that), not '1 hour ago'.
    expect(relativeTime(at(-minutes(90)), now)).toBe('2 hours ago');
    expect(relativeTime(at(-30_000), now)).toBe('1 minute ago');
    vi.restoreAllMocks();
  });
});
