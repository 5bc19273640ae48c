// The browser's Back while a dialog holds typed text asks first (QA: it lost the text silently);
// with nothing typed it goes back at once. (`app.back()` is a Back, a POP in the history.)
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../test/fake-bff';
import { renderApp } from '../test/render-app';

const ID = '00000000-0000-4000-8000-000000000001';
const HISTORY = ['/transactions', `/transactions/${ID}`];

function finance() {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    transactions: [makeTransaction(1, { amount: '20.00' })],
  });
}

async function openReturnAndType(app: ReturnType<typeof renderApp>) {
  await screen.findByRole('heading', { name: 'Order 900001' });
  await app.user.click(screen.getByRole('button', { name: 'Return' }));
  const dialog = await screen.findByRole('dialog', { name: 'Return' });
  await app.user.type(within(dialog).getByLabelText(/Comment/), 'Paid twice');
  return dialog;
}

/**
 * Sends the whole return from the dialog (its reply held back by the test's override), then
 * presses Back while it is on its way; answers the question Back asks.
 */
async function sendReturnThenBack(app: ReturnType<typeof renderApp>, bff: FakeBff) {
  const dialog = await openReturnAndType(app);
  await app.user.click(within(dialog).getByRole('radio', { name: /All of it/ }));
  await app.user.selectOptions(within(dialog).getByLabelText(/Reason/), 'duplicate');
  await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
  await app.user.click(await within(dialog).findByRole('button', { name: 'Return €20.00' }));
  await waitFor(() => {
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`)).toHaveLength(1);
  });
  await app.back();
  return screen.findByRole('dialog', { name: 'Leave this page?' });
}

describe('Back with a form open', () => {
  it('when something is typed, then Back asks; Stay keeps the page and the text, Leave goes back', async () => {
    const app = renderApp(HISTORY, finance());
    const dialog = await openReturnAndType(app);
    await app.back();
    const ask = await screen.findByRole('dialog', { name: 'Leave this page?' });
    expect(ask).toHaveTextContent(
      'What you typed in the open form has not been sent; leaving drops it.',
    );
    expect(app.location()).toBe(`/transactions/${ID}`);
    await app.user.click(within(ask).getByRole('button', { name: 'Stay' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Leave this page?' })).not.toBeInTheDocument();
    });
    expect(app.location()).toBe(`/transactions/${ID}`);
    expect(within(dialog).getByLabelText(/Comment/)).toHaveValue('Paid twice');

    await app.back();
    const again = await screen.findByRole('dialog', { name: 'Leave this page?' });
    await app.user.click(within(again).getByRole('button', { name: 'Leave' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
    expect(screen.queryByRole('dialog', { name: 'Return' })).not.toBeInTheDocument();
  });

  it('when nothing is typed, then Back goes back without asking', async () => {
    const app = renderApp(HISTORY, finance());
    await screen.findByRole('heading', { name: 'Order 900001' });
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByRole('dialog', { name: 'Return' });
    await app.back();
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
    expect(screen.queryByRole('dialog', { name: 'Leave this page?' })).not.toBeInTheDocument();
  });

  it('when the dialog with typed text was cancelled, then Back does not ask', async () => {
    const app = renderApp(HISTORY, finance());
    const dialog = await openReturnAndType(app);
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Return' })).not.toBeInTheDocument();
    });
    await app.back();
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
  });

  it('when the request is on its way, then Back asks and says leaving does not stop it', async () => {
    const bff = finance().on('POST /api/transactions/:id/return', () => 'hang');
    const app = renderApp(HISTORY, bff);
    const ask = await sendReturnThenBack(app, bff);
    expect(ask).toHaveTextContent(
      'Your request is still on its way. Leaving does not stop it: its outcome will be on the record’s page, not here.',
    );
    expect(app.location()).toBe(`/transactions/${ID}`);
  });

  it('when the user leaves while the request is on its way, then the outcome said later names the order (QA: it named none on another page)', async () => {
    let answer: () => void = () => undefined;
    const bff = finance();
    bff.on(
      'POST /api/transactions/:id/return',
      (request) =>
        new Promise((resolve) => {
          answer = () => {
            resolve(bff.ownReply(request));
          };
        }),
    );
    const app = renderApp(HISTORY, bff);
    const ask = await sendReturnThenBack(app, bff);
    await app.user.click(within(ask).getByRole('button', { name: 'Leave' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
    answer();
    expect(
      await screen.findByText(/^Order 900001: Return of €20\.00 approved by the gateway\.$/),
    ).toBeInTheDocument();
  });
});
