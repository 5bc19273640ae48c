import { describe, expect, it } from 'vitest';
import { PAYMENT_ROUTES } from '../payments/route-rules.js';
import { PAYOUT_ROUTES } from '../payouts/route-rules.js';
import { VIEW_ROUTES } from '../views/route-rules.js';
import { allowsTemporaryPassword, PLATFORM_ROUTES, ROUTES } from './route-table.js';

describe('the route table', () => {
  it('when the platform, payments and payouts parts are joined, then no key is overwritten', () => {
    const parts = [PLATFORM_ROUTES, PAYMENT_ROUTES, PAYOUT_ROUTES, VIEW_ROUTES].map((p) =>
      Object.keys(p),
    );
    const all = parts.flat();
    expect(all.filter((key, i) => all.indexOf(key) !== i)).toEqual([]);
    expect(Object.keys(ROUTES).sort()).toEqual([...all].sort());
  });

  it('when a session’s password is temporary, then only reading the session, signing out and changing the password allow it (and signing in, which needs no session)', () => {
    const allowed = Object.entries(ROUTES)
      .filter(([, rule]) => allowsTemporaryPassword(rule))
      .map(([key]) => key)
      .sort();
    expect(allowed).toEqual([
      'DELETE /api/session',
      'GET /api/session',
      'POST /api/session',
      'POST /api/session/password',
    ]);
  });

  it('when a route changes state, then its successful calls are audited too', () => {
    for (const [key, rule] of Object.entries(ROUTES)) {
      if (!key.startsWith('GET ')) expect(rule.auditSuccess, key).toBe(true);
    }
  });
});
