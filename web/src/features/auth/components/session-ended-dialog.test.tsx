import { screen, waitFor, within } from '@testing-library/react';
import { IDEMPOTENCY_KEY_HEADER } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, FakeBff, makeUser, VALID_TOTP } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const TITLE = 'Your session ended — sign in again to continue';

function financeBff() {
  return new FakeBff({
    signedInAs: 'fay@example.com',
    users: [
      makeUser({ email: 'fay@example.com', name: 'Fay Finance', roles: ['finance'] }),
      makeUser({ email: 'admin@example.com', name: 'Ada Admin', roles: ['admin', 'auditor'] }),
    ],
    links: [],
  });
}

/** Opens "New payment link" and fills all its fields; returns the dialog. */
async function fillNewLink(app: ReturnType<typeof renderApp>) {
  await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
  const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
  await app.user.type(dialog.getByLabelText(/^Amount/), '49.9');
  await app.user.type(dialog.getByLabelText(/Description/), 'Invoice 2026-118');
  await app.user.type(dialog.getByLabelText(/^E-mail/), 'payer@example.com');
  await app.user.type(dialog.getByLabelText(/^Phone/), '+49 30 1234567');
  await app.user.type(dialog.getByLabelText(/^Address/), '1 Main St');
  await app.user.type(dialog.getByLabelText(/^City/), 'Berlin');
  await app.user.type(dialog.getByLabelText(/Postal code/), '10115');
  await app.user.type(dialog.getByLabelText(/Country/), 'DE');
  return dialog;
}

async function sessionEndedDialog() {
  return within(await screen.findByRole('dialog', { name: TITLE }));
}

describe('signing in again after the session ended during work', () => {
  it('when the session ends while a new payment link is being filled in, then after signing in again over it the values are still there and Create sends the same Idempotency-Key', async () => {
    const bff = financeBff();
    const app = renderApp('/payment-links', bff);
    const form = await fillNewLink(app);
    bff.expireSession();
    await app.user.click(form.getByRole('button', { name: 'Create link' }));

    const again = await sessionEndedDialog();
    expect(app.location()).toBe('/payment-links');
    // A screen lock too: the page waits behind an opaque backdrop, not shown to whoever comes by.
    const backdrops = document.querySelectorAll('.MuiBackdrop-root');
    expect(getComputedStyle(backdrops[backdrops.length - 1]!).backgroundColor).toBe(
      'rgb(245, 246, 248)',
    );
    const email = again.getByLabelText(/E-mail/);
    expect(email).toHaveValue('fay@example.com');
    expect(email).toHaveAttribute('readonly');
    expect(again.getByLabelText(/Password/)).toHaveFocus();
    await app.user.type(again.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: TITLE })).not.toBeInTheDocument();
    });

    // The dialog is still open with everything typed; nothing was sent again by itself.
    expect(form.getByLabelText(/^Amount/)).toHaveValue('49.9');
    expect(form.getByLabelText(/Description/)).toHaveValue('Invoice 2026-118');
    expect(form.getByLabelText(/^E-mail/)).toHaveValue('payer@example.com');
    expect(form.getByLabelText(/^Phone/)).toHaveValue('+49 30 1234567');
    expect(form.getByLabelText(/^Address/)).toHaveValue('1 Main St');
    expect(form.getByLabelText(/^City/)).toHaveValue('Berlin');
    expect(form.getByLabelText(/Postal code/)).toHaveValue('10115');
    expect(form.getByLabelText(/Country/)).toHaveValue('DE');
    expect(bff.requestsTo('POST', '/api/payment-links')).toHaveLength(1);

    await app.user.click(form.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByRole('dialog', { name: 'Payment link ready' })).toBeInTheDocument();
    const [refused, created] = bff.requestsTo('POST', '/api/payment-links');
    expect(created!.body).toEqual(refused!.body);
    expect(created!.headers.get(IDEMPOTENCY_KEY_HEADER)).toBe(
      refused!.headers.get(IDEMPOTENCY_KEY_HEADER),
    );
    expect(app.location()).toBe('/payment-links');
  });

  it('when the account has TOTP, then signing in again asks for the code and the page carries on; a wrong password is said in the dialog', async () => {
    const bff = new FakeBff({ signedInAs: 'sam@example.com' });
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    bff.expireSession();
    await app.queryClient.invalidateQueries({ queryKey: ['session'], exact: true });
    const again = await sessionEndedDialog();
    await app.user.type(again.getByLabelText(/Password/), 'not the password');
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    expect(await again.findByRole('alert')).toHaveTextContent(
      'The e-mail address or the password is not right.',
    );
    await app.user.clear(again.getByLabelText(/Password/));
    await app.user.type(again.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    await app.user.type(await again.findByLabelText(/Authentication code/), VALID_TOTP);
    // The account is fixed: no way to another one from the code step but "someone else".
    expect(again.queryByRole('button', { name: 'Use another account' })).not.toBeInTheDocument();
    await app.user.click(again.getByRole('button', { name: 'Verify and sign in' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: TITLE })).not.toBeInTheDocument();
    });
    expect(app.location()).toBe('/account');
    expect(bff.requestsTo('POST', '/api/session').map((r) => r.body)).toEqual([
      { email: 'sam@example.com', password: 'not the password' },
      { email: 'sam@example.com', password: DEMO_PASSWORD },
      { email: 'sam@example.com', password: DEMO_PASSWORD, totp: VALID_TOTP },
    ]);
  });

  it('when "Sign in as someone else" is chosen, then the page and what was typed are discarded and the normal sign-in page leads to the other user’s start', async () => {
    const bff = financeBff();
    const app = renderApp('/payment-links', bff);
    const form = await fillNewLink(app);
    bff.expireSession();
    await app.user.click(form.getByRole('button', { name: 'Create link' }));
    const again = await sessionEndedDialog();
    await app.user.click(again.getByRole('button', { name: 'Sign in as someone else' }));
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in');
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.queryByText(/Your session ended/)).not.toBeInTheDocument();
    expect(app.queryClient.getQueryData(['session-lapsed'])).toBeUndefined();
    // Nothing of the previous user's pages stays in the cache.
    expect(
      app.queryClient
        .getQueryCache()
        .findAll({ predicate: (q) => !String(q.queryKey[0]).startsWith('session') }),
    ).toHaveLength(0);
    const email = await screen.findByLabelText(/E-mail/);
    expect(email).toHaveValue('');
    await app.user.type(email, 'admin@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/');
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
  });

  it('when the sign-in answers for another user than the one whose page it is, then that page is not continued', async () => {
    const bff = financeBff();
    const app = renderApp('/payment-links', bff);
    await fillNewLink(app);
    bff.expireSession();
    await app.queryClient.invalidateQueries({ queryKey: ['session'], exact: true });
    const again = await sessionEndedDialog();
    const admin = bff.users.find((u) => u.email === 'admin@example.com')!;
    bff.on('POST /api/session', () => {
      bff.sessionUserId = admin.id;
      return {
        status: 200,
        body: {
          user: admin,
          idleExpiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
          absoluteExpiresAt: new Date(Date.now() + 12 * 60 * 60_000).toISOString(),
          previousSession: null,
        },
      };
    });
    await app.user.type(again.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/');
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
  });

  it('when the account was disabled meanwhile, then signing in again leads to the sign-in page, which says so', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    bff.expireSession();
    bff.users.find((u) => u.email === 'admin@example.com')!.disabled = true;
    await app.queryClient.invalidateQueries({ queryKey: ['session'], exact: true });
    const again = await sessionEndedDialog();
    await app.user.type(again.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in?next=%2Faccount&reason=disabled');
    });
    expect(await screen.findByText(/Your account has been disabled/)).toBeInTheDocument();
  });

  it('when an administrator reset the password meanwhile, then signing in again leads to "Choose your password" first, and back after', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    bff.expireSession();
    bff.users.find((u) => u.email === 'admin@example.com')!.passwordChangeRequired = true;
    await app.queryClient.invalidateQueries({ queryKey: ['session'], exact: true });
    const again = await sessionEndedDialog();
    await app.user.type(again.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/choose-password?next=%2Faccount');
    });
  });
});
