import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { lookupAttempts } from './lookup-dialog';

function bffAs(roles: Parameters<typeof makeUser>[0]['roles']) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
  });
}

describe('status lookup', () => {
  it('when the text is digits, then it is tried as an orderid first, then as a client_orderid', () => {
    expect(lookupAttempts(' 900003 ')).toEqual([
      { orderid: '900003' },
      { client_orderid: '900003' },
    ]);
    expect(lookupAttempts('shop-4')).toEqual([{ client_orderid: 'shop-4' }]);
    expect(lookupAttempts('has space')).toEqual([]);
  });

  it('when support presses Ctrl+K anywhere and types an orderid, then the gateway is asked and the order opens', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/account', bff);
    await screen.findByRole('heading', { name: 'My account' });
    await app.user.keyboard('{Control>}k{/Control}');
    const field = await screen.findByLabelText(/Orderid or client_orderid/);
    await app.user.type(field, '900003{Enter}');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000003');
    });
    expect(await screen.findByRole('heading', { name: 'Order 900003' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '900003' },
    ]);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('when the app-bar button is used with a client_orderid, then the order opens', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp('/transactions', bff);
    await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
    await app.user.type(await screen.findByLabelText(/Orderid or client_orderid/), 'shop-4');
    await app.user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(await screen.findByRole('heading', { name: 'Order 900004' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { client_orderid: 'shop-4' },
    ]);
  });

  it('when no order matches either way, then the dialog says so and stays open', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions', bff);
    await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
    await app.user.type(await screen.findByLabelText(/Orderid or client_orderid/), '123{Enter}');
    expect(
      await screen.findByText(
        'The gateway knows no order “123” as an orderid or a client_orderid.',
      ),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '123' },
      { client_orderid: '123' },
    ]);
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('when no order matches after clicking “Look up”, then the keyboard focus is back in the field, not on the dialog', async () => {
    const app = renderApp('/transactions', bffAs(['support']));
    await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
    const field = await screen.findByLabelText(/Orderid or client_orderid/);
    await app.user.type(field, 'nope-1');
    await app.user.click(screen.getByRole('button', { name: 'Look up' }));
    await screen.findByText(/knows no order “nope-1”/);
    await waitFor(() => {
      expect(field).toHaveFocus();
    });
    expect(field).not.toBeDisabled();
  });

  it('when Enter starts a look-up, then the field keeps the focus while it runs', async () => {
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => 'hang');
    const app = renderApp('/transactions', bff);
    await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
    const field = await screen.findByLabelText(/Orderid or client_orderid/);
    await app.user.type(field, '123{Enter}');
    await waitFor(() => {
      expect(field).toHaveAttribute('readonly');
    });
    expect(field).toHaveFocus();
  });

  it('when the gateway cannot be reached, then the error is shown', async () => {
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => ({
      status: 503,
      body: {
        error: {
          code: 'GATEWAY_UNAVAILABLE',
          message: 'The gateway did not answer the status request. Nothing changed; try again.',
          requestId: 'r',
        },
      },
    }));
    const app = renderApp('/transactions', bff);
    await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
    await app.user.type(await screen.findByLabelText(/Orderid or client_orderid/), 'shop-1{Enter}');
    expect(await screen.findByText(/The gateway did not answer/)).toBeInTheDocument();
  });

  it('when an auditor (no lookup role) presses Ctrl+K, then nothing opens and no button is offered', async () => {
    const app = renderApp('/transactions', bffAs(['auditor']));
    await screen.findByRole('table', { name: 'Transactions' });
    expect(screen.queryByRole('button', { name: /Look up order/ })).not.toBeInTheDocument();
    await app.user.keyboard('{Control>}k{/Control}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
