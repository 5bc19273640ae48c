import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

// What the order's page says when its status changes: the status once, in the words the page's
// chips use, never the gateway's raw code beside them.

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;

function supportBff() {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['support'] })],
    transactions: [makeTransaction(1, { amount: '20.00' })],
  });
}

describe('the order page’s status messages', () => {
  it('when Refresh status finds the order declined (drift flagged), then the message says the status once, as the page labels it', async () => {
    const bff = supportBff();
    bff.on('POST /api/transactions/:id/refresh', () => {
      bff.payments.change(ID, {
        status: 'declined',
        stage: 'declined',
        drift: true,
        driftDetails: {
          detectedAt: '2026-11-27T22:49:05.235Z',
          reasons: ['Paydesk had the order approved; the gateway says declined'],
        },
      });
      return { status: 200, body: bff.payments.byId(ID) };
    });
    const app = renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Refresh status' }));
    expect(
      await screen.findByText('Status checked: the gateway says Declined (drift flagged).'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/^Status .*: the gateway says declined/)).not.toBeInTheDocument();
    expect(screen.queryByText(/declined, now Declined/)).not.toBeInTheDocument();
  });

  it('when the event stream brings a decline whose stage only repeats the status, then the live region says the status once', async () => {
    const bff = supportBff();
    renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await screen.findByText('Live');
    bff.payments.change(ID, { status: 'declined', stage: 'declined' });
    expect(await screen.findByText('Order updated: now declined.')).toHaveAttribute(
      'role',
      'status',
    );
  });
});
