import { describe, expect, it } from 'vitest';
import { firstChargeWait, FIRST_CHARGE_WAIT_MS } from './subscription-labels';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const plan = (start: string, paymentsMade = 0) => ({
  state: 'active' as const,
  schedule: { start, paymentsMade } as Parameters<typeof firstChargeWait>[0]['schedule'],
});

describe('firstChargeWait', () => {
  it('when the plan started now by a BFF clock a little ahead of the browser’s, then its first charge is being made', () => {
    expect(firstChargeWait(plan('2026-11-25T12:02:00.000Z'), NOW)).toBe('being_made');
  });

  it('when the plan starts on a later day, then no charge is due yet', () => {
    expect(firstChargeWait(plan('2026-11-26T00:00:00.000Z'), NOW)).toBeNull();
  });

  it('when the first charge was due longer ago than the wait, then it is late; a known charge ends the wait', () => {
    const longAgo = new Date(NOW - FIRST_CHARGE_WAIT_MS - 1).toISOString();
    expect(firstChargeWait(plan(longAgo), NOW)).toBe('late');
    expect(firstChargeWait(plan(longAgo, 1), NOW)).toBeNull();
  });
});
