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
});
