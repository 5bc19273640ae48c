import type { TransactionDetail } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { makeTransaction } from '../../../test/fake-bff';
import { describeLiveChange } from './live-change';

// The live region's sentence when someone else changes the order: each change once, in plain
// words (QA: a capture read "Order updated: captured $60.00, captured.").

const hold = makeTransaction(1, { type: 'preauth', amount: '100.00', stage: 'authorized' });
const sale = makeTransaction(2, { amount: '20.00', stage: 'captured' });

function changed(
  before: TransactionDetail,
  change: Partial<Omit<TransactionDetail, 'amounts'>> & {
    amounts?: Partial<TransactionDetail['amounts']>;
  },
): TransactionDetail {
  const { amounts, ...rest } = change;
  return { ...before, ...rest, amounts: { ...before.amounts, ...amounts } };
}

const partlyCaptured = changed(hold, {
  stage: 'captured',
  amounts: { captured: '60.00', remainingCapturable: '0.00', remainingReturnable: '60.00' },
});

const CASES: [string, TransactionDetail, TransactionDetail, string][] = [
  [
    'part of a hold is captured',
    hold,
    partlyCaptured,
    'Order updated: €60.00 captured, the other €40.00 of the hold released.',
  ],
  [
    'a whole hold is captured',
    hold,
    changed(hold, { stage: 'captured', amounts: { captured: '100.00' } }),
    'Order updated: €100.00 captured.',
  ],
  [
    'part of the captured money is returned',
    sale,
    changed(sale, { stage: 'partially_returned', amounts: { returned: '3.02' } }),
    'Order updated: €3.02 returned.',
  ],
  [
    'the rest of the captured money is returned',
    changed(sale, { stage: 'partially_returned', amounts: { returned: '3.02' } }),
    changed(sale, { stage: 'returned', amounts: { returned: '20.00' } }),
    'Order updated: €16.98 returned, nothing left to return.',
  ],
  ['a sale is voided', sale, changed(sale, { stage: 'voided' }), 'Order updated: €20.00 voided.'],
  [
    'a partly captured hold is voided',
    partlyCaptured,
    changed(partlyCaptured, { stage: 'voided' }),
    'Order updated: €60.00 voided.',
  ],
  [
    'a hold is released by a return',
    hold,
    changed(hold, { stage: 'hold_cancelled' }),
    'Order updated: hold of €100.00 released.',
  ],
  ['a capture settles', sale, changed(sale, { stage: 'settled' }), 'Order updated: settled.'],
  [
    'an order is declined (its stage the status)',
    sale,
    changed(sale, { status: 'declined', stage: 'declined' }),
    'Order updated: now declined.',
  ],
  [
    'a processing sale is approved',
    changed(sale, { status: 'processing', stage: 'processing', amounts: { captured: '0.00' } }),
    sale,
    'Order updated: now approved, €20.00 captured.',
  ],
  [
    'a processing preauth is approved',
    changed(hold, { status: 'processing', stage: 'processing', amounts: { authorized: '0.00' } }),
    hold,
    'Order updated: now approved, €100.00 held.',
  ],
  [
    'the outcome becomes unknown',
    sale,
    changed(sale, { status: 'unknown' }),
    'Order updated: outcome now unknown.',
  ],
  [
    'nothing it describes changed',
    sale,
    changed(sale, { updatedAt: '2030-01-01T00:00:00.000Z' }),
    'Order updated.',
  ],
];

describe('describeLiveChange', () => {
  it.each(CASES)('when %s, then the sentence says so once', (_, before, after, sentence) => {
    expect(describeLiveChange(before, after)).toBe(sentence);
  });

  it('when any change is described, then no word of its money or stage is said twice', () => {
    for (const [, before, after] of CASES) {
      const words = describeLiveChange(before, after).match(/[a-z]+/g) ?? [];
      const said = words.filter((word) =>
        ['captured', 'returned', 'voided', 'released', 'held', 'settled'].includes(word),
      );
      expect(said).toEqual([...new Set(said)]);
    }
  });
});
