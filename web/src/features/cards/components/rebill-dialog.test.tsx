import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeCardInfo, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

/** Finance on Cards, every rebill refused by a 400 that names `path`. */
function refusing(path: string, message: string) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    cards: [makeCardInfo('card-ref-1')],
  }).on('POST /api/rebills', () => ({
    status: 400,
    body: {
      error: {
        code: 'VALIDATION_FAILED',
        message: `${path}: ${message}`,
        requestId: 'r-400',
        details: { fields: [{ path, rule: 'endpoint_currency', message }] },
      },
    },
  }));
}

/** Fills a valid rebill in GBP, confirms it, and returns the form it comes back to. */
async function refusedRebill(app: ReturnType<typeof renderApp>) {
  await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
  const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
  await app.user.type(dialog.getByLabelText(/^Amount/), '5');
  await app.user.clear(dialog.getByLabelText(/Currency/));
  await app.user.type(dialog.getByLabelText(/Currency/), 'GBP');
  await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
  await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
  await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
  const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
  await app.user.click(confirm.getByRole('button', { name: 'Charge £5.00' }));
  return screen.findByRole('dialog', { name: 'Rebill a stored card' });
}

const REFUSED = 'No configured endpoint takes GBP (configured: EUR, USD).';

describe('a rebill refused by the server, naming a field', () => {
  it('when the form comes back, then the keyboard is on the refused field, not the first one', async () => {
    const app = renderApp(
      '/cards?ref=card-ref-1',
      refusing('currency', 'no configured endpoint takes GBP (configured: EUR, USD)'),
    );
    const dialog = within(await refusedRebill(app));
    const currency = dialog.getByLabelText(/Currency/);
    await waitFor(() => {
      expect(currency).toHaveAccessibleDescription(REFUSED);
    });
    await waitFor(() => {
      expect(currency).toHaveFocus();
    });
    expect(dialog.getByLabelText(/Card reference id/)).not.toHaveFocus();
  });

  it('when the refused field is edited, then its message goes at once and is not said again in an alert; editing another field leaves it', async () => {
    const app = renderApp(
      '/cards?ref=card-ref-1',
      refusing('currency', 'no configured endpoint takes GBP (configured: EUR, USD)'),
    );
    const dialog = within(await refusedRebill(app));
    const currency = dialog.getByLabelText(/Currency/);
    await waitFor(() => {
      expect(currency).toHaveAccessibleDescription(REFUSED);
    });
    await app.user.type(dialog.getByLabelText(/Description/), ' for May');
    expect(currency).toHaveAccessibleDescription(REFUSED);
    await app.user.clear(currency);
    await app.user.type(currency, 'USD');
    expect(currency).toHaveAccessibleDescription('ISO code');
    expect(currency).toHaveAttribute('aria-invalid', 'false');
    expect(screen.queryByText(/no configured endpoint/i)).not.toBeInTheDocument();
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();
  });
});
