import { describe, expect, it } from 'vitest';
import { sessionDeadlines } from './session-deadlines';

const T = Date.parse('2026-11-25T10:00:00.000Z');
const at = (minutes: number) => new Date(T + minutes * 60_000).toISOString();
const ms = (minutes: number) => T + minutes * 60_000;

describe('sessionDeadlines', () => {
  const reply = { idleExpiresAt: at(30), absoluteExpiresAt: at(12 * 60) };

  it('when nothing succeeded since the session reply, then the idle end is the reply’s', () => {
    expect(sessionDeadlines(reply, ms(0), undefined)).toEqual({
      idleEndsAt: ms(30),
      absoluteEndsAt: ms(12 * 60),
    });
    expect(sessionDeadlines(reply, ms(0), ms(0)).idleEndsAt).toBe(ms(30));
  });

  it('when a request succeeded later, then the idle timeout restarts from it, with the length the reply left', () => {
    expect(sessionDeadlines(reply, ms(0), ms(10)).idleEndsAt).toBe(ms(40));
    // A reply that came 1 minute after the BFF last counted activity leaves 29 minutes.
    expect(sessionDeadlines(reply, ms(1), ms(10)).idleEndsAt).toBe(ms(39));
  });

  it('when the absolute end comes first, then the idle end is never after it', () => {
    const short = { idleExpiresAt: at(30), absoluteExpiresAt: at(35) };
    expect(sessionDeadlines(short, ms(0), ms(20))).toEqual({
      idleEndsAt: ms(35),
      absoluteEndsAt: ms(35),
    });
  });

  it('when the reply gives the idle setting, then the timeout runs that long from the last reported input, even if the reply came from a read the BFF did not count as activity', () => {
    // A background read 20 minutes after the last input: the reply's idle end is 10 minutes on.
    const background = { ...reply, settings: { payoutHoldMaxAgeMs: 1, sessionIdleSeconds: 1800 } };
    expect(sessionDeadlines(background, ms(20), undefined).idleEndsAt).toBe(ms(30));
    // The user acted at minute 25 and a request told the BFF: 30 minutes from then.
    expect(sessionDeadlines(background, ms(20), ms(25)).idleEndsAt).toBe(ms(55));
  });
});
