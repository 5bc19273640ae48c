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
});
