// Who decided a payout, said beside its state: an approval whose money never went out says so,
// rather than a bare "Approved by" that reads as if it was paid.
import type { Payout } from '@paydesk/shared/api';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makePayout } from '../../../test/fake-bff';
import { PayoutDecision } from './payout-decision';

const approvedBy = { id: 'u-oscar', email: 'oscar@example.com' };

function caption(state: Payout['state']): string | null {
  render(
    <PayoutDecision
      payout={makePayout(1, {
        state,
        decidedBy: approvedBy,
        decidedAt: '2026-11-28T00:55:42.000Z',
      })}
      myId="u-olga"
      onDecide={() => undefined}
    />,
  );
  return screen.getByText(/^Approved by/).textContent;
}

describe('the decision caption of an approved payout', () => {
  it.each(['expired', 'failed', 'declined', 'error', 'filtered'] as const)(
    'when it ended %s, then it says the approval was not paid',
    (state) => {
      expect(caption(state)).toBe('Approved by oscar@example.com · not paid');
    },
  );

  it.each(['approved', 'sending', 'processing', 'unknown'] as const)(
    'when it is %s, then it names the approver alone',
    (state) => {
      expect(caption(state)).toBe('Approved by oscar@example.com');
    },
  );
});
