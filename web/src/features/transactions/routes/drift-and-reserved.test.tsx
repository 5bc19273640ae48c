import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { screenWidth } from '../../../test/screen-width';

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;

/** An order flagged with drift, seen by finance, who may mark it reviewed. */
function driftForFinance() {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    transactions: [
      makeTransaction(1, {
        amount: '10.00',
        drift: true,
        driftDetails: {
          detectedAt: '2026-01-01T00:00:00.000Z',
          reasons: ['Paydesk had the order approved; the gateway says declined'],
        },
      }),
    ],
  });
}

/** The drift alert's "Mark reviewed" and the alert's slot for it. */
async function markReviewed() {
  const button = await screen.findByRole('button', { name: 'Mark reviewed' });
  const action = button.closest('.MuiAlert-action');
  if (!(action instanceof HTMLElement)) throw new Error('Mark reviewed is not the alert’s action');
  return { button, action };
}

describe('transaction detail: drift reasons and returns awaiting an outcome', () => {
  it('when drift is flagged with reasons, then each reason is shown, its amounts as the page writes money, and returns awaiting an outcome are labelled as returns', async () => {
    const base = makeTransaction(1, { amount: '10.00' });
    renderApp(
      PATH,
      new FakeBff({
        signedInAs: 'me@example.com',
        users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['support'] })],
        transactions: [
          makeTransaction(1, {
            amount: '10.00',
            drift: true,
            driftDetails: {
              detectedAt: '2026-01-01T00:00:00.000Z',
              reasons: [
                'return of 3.00 EUR requested by a@b.test was applied by the gateway after Paydesk had judged it not applied (check for a repeat of it)',
              ],
            },
            amounts: { ...base.amounts, reserved: '2.00', remainingReturnable: '8.00' },
          }),
        ],
      }),
    );
    await screen.findByRole('heading', { name: 'Order 900001' });
    expect(screen.getByText('The gateway contradicted Paydesk’s record')).toBeInTheDocument();
    // Its amount as the page writes money (QA F13: "3.00 EUR" beside the page's "€3.00").
    expect(
      screen.getByText(/return of €3\.00 requested by a@b\.test was applied by the gateway after/),
    ).toBeInTheDocument();
    expect(screen.queryByText(/3\.00 EUR/)).not.toBeInTheDocument();
    expect(screen.queryByText(/detectedAt/)).not.toBeInTheDocument();
    const amounts = within(screen.getByRole('region', { name: 'Amounts' }));
    expect(amounts.getByText('Returns awaiting outcome')).toBeInTheDocument();
  });

  it('when the drift alert offers Mark reviewed on a wide screen, then its label never wraps: the action beside the text does not shrink', async () => {
    screenWidth(1440);
    renderApp(PATH, driftForFinance());
    const { button, action } = await markReviewed();
    // QA: squeezed by the alert's long text, it read "Mark / reviewed" at 1440 px.
    expect(button).toHaveStyle({ whiteSpace: 'nowrap' });
    expect(action).toHaveStyle({ flexShrink: '0' });
    expect(action).not.toHaveStyle({ flexBasis: '100%' });
  });

  it('when the drift alert offers Mark reviewed on a phone (390 px), then it stands on one line under the text, which keeps the alert’s width', async () => {
    screenWidth(390);
    renderApp(PATH, driftForFinance());
    const { button, action } = await markReviewed();
    expect(button).toHaveStyle({ whiteSpace: 'nowrap' });
    expect(action).toHaveStyle({ flexBasis: '100%', flexShrink: '0' });
    expect(action.closest('.MuiAlert-root')).toHaveStyle({ flexWrap: 'wrap' });
  });
});
