import { describe, expect, it } from 'vitest';
import { readCookie } from './cookies.js';

describe('readCookie', () => {
  it('when the cookie is there once, or twice with the same value, then its value', () => {
    expect(readCookie('a=1; paydesk_session=tok; b=2', 'paydesk_session')).toBe('tok');
    expect(readCookie('paydesk_session=tok; paydesk_session=tok', 'paydesk_session')).toBe('tok');
  });

  it('when the cookie is absent or the header is missing, then undefined', () => {
    expect(readCookie('a=1; xpaydesk_session=tok', 'paydesk_session')).toBeUndefined();
    expect(readCookie(undefined, 'paydesk_session')).toBeUndefined();
  });

  it('when two different values are sent (a cookie planted beside the real one), then undefined: no side is picked', () => {
    expect(readCookie('paydesk_session=mine; paydesk_session=theirs', 'paydesk_session')).toBe(
      undefined,
    );
    expect(readCookie('paydesk_session=theirs; a=1; paydesk_session=mine', 'paydesk_session')).toBe(
      undefined,
    );
  });
});
