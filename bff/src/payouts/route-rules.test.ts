// Who may call the payouts routes (the table-wide checks are in http/route-table.test.ts).
import { describe, expect, it } from 'vitest';
import { PAYOUT_ROUTES } from './route-rules.js';

describe('payouts route rules', () => {
  it('when a route changes state, then it is audited on success too, and only ops decides payouts', () => {
    for (const [key, rule] of Object.entries(PAYOUT_ROUTES)) {
      if (key.startsWith('POST ')) expect(rule.auditSuccess, key).toBe(true);
      if (key.endsWith('/approve') || key.endsWith('/reject') || key === 'POST /api/payouts')
        expect(rule.access, key).toEqual(['ops']);
    }
  });
});
