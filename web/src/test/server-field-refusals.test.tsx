import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeUser } from './fake-bff';
import { renderApp } from './render-app';

// The money forms that put a server's field refusal under its field (react-hook-form's setError,
// or the payout's own state): the words go as soon as that field is edited, and only that one's.

function bffAs(roles: Parameters<typeof makeUser>[0]['roles'], route: string, path: string) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
  }).on(route, () => ({
    status: 400,
    body: {
      error: {
        code: 'VALIDATION_FAILED',
        message: 'invalid',
        requestId: 'r-400',
        details: { fields: [{ path, rule: 'custom', message: 'is not accepted here' }] },
      },
    },
  }));
}

const REFUSED = 'This is not accepted here.';

describe('a server refusal under a field of a money form', () => {
  it('subscription: the form comes back with the keyboard on the refused field, whose words go once it is edited', async () => {
    const app = renderApp(
      '/subscriptions?ref=card-ref-7',
      bffAs(['finance'], 'POST /api/subscriptions', 'email'),
    );
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    await app.user.type(dialog.getByLabelText(/Amount per charge/), '9.90');
    await app.user.type(dialog.getByLabelText(/Description/), 'Coffee');
    await app.user.type(dialog.getByLabelText(/Customer e-mail/), 'ann@example.com');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create/ }));
    dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    const email = dialog.getByLabelText(/Customer e-mail/);
    await waitFor(() => {
      expect(email).toHaveAccessibleDescription(REFUSED);
    });
    await waitFor(() => {
      expect(email).toHaveFocus();
    });
    await app.user.type(dialog.getByLabelText(/Description/), ' beans');
    expect(email).toHaveAccessibleDescription(REFUSED);
    await app.user.type(email, 'm');
    expect(email).not.toHaveAccessibleDescription(REFUSED);
    expect(email).toHaveAttribute('aria-invalid', 'false');
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('payment link: the refused field’s words go once it is edited, not before', async () => {
    const app = renderApp(
      '/payment-links',
      bffAs(['finance'], 'POST /api/payment-links', 'orderDesc'),
    );
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    await app.user.type(dialog.getByLabelText(/^Amount/), '49.90');
    await app.user.type(dialog.getByLabelText(/Description/), 'Invoice 118');
    await app.user.type(dialog.getByLabelText(/^E-mail/), 'payer@example.com');
    await app.user.type(dialog.getByLabelText(/^Phone/), '+49 30 1234567');
    await app.user.type(dialog.getByLabelText(/^Address/), '1 Main St');
    await app.user.type(dialog.getByLabelText(/^City/), 'Berlin');
    await app.user.type(dialog.getByLabelText(/Postal code/), '10115');
    await app.user.type(dialog.getByLabelText(/Country/), 'DE');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    const description = dialog.getByLabelText(/Description/);
    await waitFor(() => {
      expect(description).toHaveAccessibleDescription(REFUSED);
    });
    await app.user.type(dialog.getByLabelText(/^City/), ' Mitte');
    expect(description).toHaveAccessibleDescription(REFUSED);
    await app.user.type(description, '-b');
    expect(description).not.toHaveAccessibleDescription(REFUSED);
    expect(description).toHaveAttribute('aria-invalid', 'false');
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('payout: the refused field’s words go once it is edited, not before', async () => {
    const app = renderApp('/payouts', bffAs(['ops'], 'POST /api/payouts', 'amount'));
    await app.user.click(await screen.findByRole('button', { name: 'Prepare payout' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Prepare a payout' }));
    await app.user.type(dialog.getByLabelText(/Card number/), '4111 1111 1111 1111');
    await app.user.type(dialog.getByLabelText(/Cardholder name/), 'JANE DOE');
    await app.user.type(dialog.getByLabelText(/Expiry month/), '09');
    await app.user.type(dialog.getByLabelText(/Expiry year/), '2035');
    await app.user.type(dialog.getByLabelText(/^Amount/), '250.00');
    await app.user.type(dialog.getByLabelText(/Description/), 'Prize');
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    const amount = dialog.getByLabelText(/^Amount/);
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription(REFUSED);
    });
    await app.user.type(dialog.getByLabelText(/Description/), ' money');
    expect(amount).toHaveAccessibleDescription(REFUSED);
    await app.user.clear(amount);
    await app.user.type(amount, '260.00');
    expect(amount).not.toHaveAccessibleDescription(REFUSED);
    expect(amount).toHaveAttribute('aria-invalid', 'false');
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();
  });
});
