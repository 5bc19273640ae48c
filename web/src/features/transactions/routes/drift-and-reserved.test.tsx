import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;

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
});
