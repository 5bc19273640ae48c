import { cleanup, render, screen, within } from '@testing-library/react';
import type { TransactionDetail } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { AmountsPanel, Facts } from './amounts-panel';
import { makeTransaction } from '../../../test/fake-payments';

/** The panel's facts as a screen reader pairs them: label → text. */
function amountsOf(detail: TransactionDetail): Record<string, string> {
  render(<AmountsPanel detail={detail} />);
  const panel = screen.getByRole('region', { name: 'Amounts' });
  const terms = within(panel).getAllByRole('term');
  const values = within(panel).getAllByRole('definition');
  return Object.fromEntries(
    terms.map((term, i) => [term.textContent, values[i]?.textContent ?? '']),
  );
}

const ZERO_AMOUNTS = {
  authorized: '0.00',
  captured: '0.00',
  returned: '0.00',
  reserved: '0.00',
  remainingReturnable: '0.00',
  remainingCapturable: '0.00',
};

const STAFF = { preparedBy: 'ops-a@example.com', approvedBy: 'ops-b@example.com' };

/** A payout's order as the BFF sends it: the gateway's zeros of a charge, and what was paid out. */
function payoutOrder(overrides: Partial<TransactionDetail>, paidOut: string): TransactionDetail {
  return makeTransaction(1, {
    type: 'payout',
    stage: 'paid',
    amount: '150.00',
    amounts: { amount: '150.00', ...ZERO_AMOUNTS, paidOut },
    allowedActions: [],
    paydeskPayout: {
      id: '6388fb13-e206-4cf0-be42-d601cef33838',
      state: 'approved',
      ...STAFF,
      destination: { kind: 'card', masked: '400000******0002' },
    },
    ...overrides,
  });
}

describe('AmountsPanel', () => {
  it('when a payout was paid, then it says what was paid out and to where, and nothing of authorized, captured or returnable', () => {
    const facts = amountsOf(payoutOrder({}, '150.00'));
    expect(facts).toEqual({
      'Payout amount': '€150.00',
      'Paid out': '€150.00 to the card 400000******0002',
    });
  });

  it('when a payout Paydesk has no record of was paid, then the order’s card says where the money went', () => {
    const facts = amountsOf(payoutOrder({ paydeskPayout: null }, '150.00'));
    expect(facts['Paid out']).toBe('€150.00 to the card 411111******1111');
  });

  it('when a payout is on its way, then it says so rather than a paid-out zero', () => {
    const facts = amountsOf(payoutOrder({ status: 'processing', stage: 'processing' }, '0.00'));
    expect(facts['Paid out']).toBe(
      'Not yet: €150.00 is on its way to the card 400000******0002; the gateway’s final status follows.',
    );
    expect(Object.keys(facts)).not.toContain('Authorized');
  });

  it('when a payout’s outcome is unknown, then it says Paydesk confirms it, nothing as paid', () => {
    const facts = amountsOf(payoutOrder({ status: 'unknown', stage: null }, '0.00'));
    expect(facts['Paid out']).toMatch(/^Not known yet: /);
  });

  it('when a payout was declined, then it says nothing was paid out', () => {
    const facts = amountsOf(payoutOrder({ status: 'declined', stage: 'declined' }, '0.00'));
    expect(facts).toEqual({
      'Payout amount': '€150.00',
      'Paid out': 'Nothing was paid out: the gateway declined it.',
    });
  });

  it('when a two-step payout was only checked (registered), then it says it is paid once approved', () => {
    const facts = amountsOf(
      payoutOrder({ type: 'payout-check', stage: 'registered', paydeskPayout: null }, '0.00'),
    );
    expect(facts['Paid out']).toBe(
      'Nothing yet: the gateway checked the payee’s details; it is paid once a second ops user approves it.',
    );
  });

  it('when a sale was declined, then it says nothing was charged instead of zeros', () => {
    const facts = amountsOf(makeTransaction(2, { status: 'declined', stage: 'declined' }));
    expect(facts).toEqual({ 'Order amount': '€12.50', Charged: 'Nothing was charged.' });
  });

  it('when a €0.00 account verification was approved, then it says nothing was charged', () => {
    const facts = amountsOf(
      makeTransaction(3, {
        type: 'account-verification',
        stage: 'verified',
        amount: '0.00',
        amounts: { amount: '0.00', ...ZERO_AMOUNTS },
      }),
    );
    expect(facts).toEqual({
      'Order amount': '€0.00',
      Charged: 'Nothing was charged: a check of the card.',
    });
  });

  it('when a sale was captured, then its amounts are shown as before', () => {
    const facts = amountsOf(makeTransaction(4, { stage: 'captured' }));
    expect(facts).toEqual({
      'Order amount': '€14.50',
      Authorized: '€14.50',
      Captured: '€14.50',
      Returned: '€0.00',
      Net: '€14.50',
      'Remaining returnable': '€14.50',
    });
  });

  it('when a sale was voided, then its captured amount stays and its net is nothing: the void gave it back', () => {
    const facts = amountsOf(makeTransaction(6, { amount: '30.00', stage: 'voided' }));
    expect(facts).toMatchObject({ Captured: '€30.00', Voided: '€30.00', Net: '€0.00' });
    const labels = Object.keys(facts);
    expect(labels.indexOf('Net')).toBe(labels.indexOf('Voided') + 1);
  });

  it('when a preauth captured in part, its capture then voided, then the hold’s released rest still shows beside the voided part: the whole hold is accounted for (QA)', () => {
    const order = (stage: 'captured' | 'voided') =>
      makeTransaction(8, {
        type: 'preauth',
        amount: '65.00',
        stage,
        amounts: {
          amount: '65.00',
          ...ZERO_AMOUNTS,
          authorized: '65.00',
          captured: '20.50',
          remainingReturnable: stage === 'captured' ? '20.50' : '0.00',
          net: stage === 'captured' ? '20.50' : '0.00',
        },
      });
    expect(amountsOf(order('captured'))).toMatchObject({ 'Hold released': '€44.50' });
    cleanup();
    expect(amountsOf(order('voided'))).toMatchObject({
      Captured: '€20.50',
      Voided: '€20.50',
      'Hold released': '€44.50',
      Net: '€0.00',
    });
  });

  it('when part of a sale was returned, then its net is what was captured less what was returned', () => {
    const facts = amountsOf(
      makeTransaction(7, {
        amount: '30.00',
        stage: 'partially_returned',
        amounts: {
          amount: '30.00',
          ...ZERO_AMOUNTS,
          authorized: '30.00',
          captured: '30.00',
          returned: '12.50',
          remainingReturnable: '17.50',
        },
      }),
    );
    expect(facts).toEqual({
      'Order amount': '€30.00',
      Authorized: '€30.00',
      Captured: '€30.00',
      Returned: '€12.50',
      Net: '€17.50',
      'Remaining returnable': '€17.50',
    });
  });

  it('when a declined sale still shows money (drift), then the amounts are shown, not hidden', () => {
    const facts = amountsOf(
      makeTransaction(5, {
        status: 'declined',
        stage: 'declined',
        amounts: { amount: '15.50', ...ZERO_AMOUNTS, captured: '15.50' },
      }),
    );
    expect(facts.Captured).toBe('€15.50');
  });
});

describe('facts on a narrow screen', () => {
  it('when a value is an e-mail address, then it may wrap after its “@”, and a long name in it before a “.”, never in the middle of a name', () => {
    render(
      <Facts
        rows={[
          ['Prepared by', 'support.demo@paydesk.local'],
          ['Customer e-mail', 'jeanbaptiste.rousseaudelacroix@paydesk.local'],
          ['Amount', '€1,000.50'],
        ]}
      />,
    );
    const [short, long, amount] = screen.getAllByRole('definition');
    expect(short).toHaveTextContent(/^support\.demo@paydesk\.local$/);
    expect(short?.innerHTML).toBe('support.demo@<wbr>paydesk.local');
    expect(long?.innerHTML).toBe('jeanbaptiste<wbr>.rousseaudelacroix@<wbr>paydesk.local');
    expect(amount?.innerHTML).toBe('€1,000.50');
  });
});
