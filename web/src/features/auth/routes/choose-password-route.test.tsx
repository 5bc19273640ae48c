import { screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import { FakeBff, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const TEMPORARY = 'given by the admin 1';

/** A fake BFF with one admin and one auditor whose password an administrator set. */
function withTemporaryUser(signedInAs: string | null = null) {
  const bff = new FakeBff({
    signedInAs,
    users: [
      makeUser({ email: 'admin@example.com', name: 'Ada Admin', roles: ['admin'] }),
      makeUser({
        email: 'new@example.com',
        name: 'Nia New',
        roles: ['auditor'],
        passwordChangeRequired: true,
        lastLoginAt: null,
      }),
    ],
  });
  bff.passwords.set('new@example.com', TEMPORARY);
  return bff;
}

async function signInAsNew(app: ReturnType<typeof renderApp>) {
  await app.user.type(await screen.findByLabelText(/E-mail/), 'new@example.com');
  await app.user.type(screen.getByLabelText(/Password/), TEMPORARY);
  await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
}

async function choosePasswordForm() {
  return screen.findByRole('form', { name: 'Choose your password' });
}

describe('choose your password', () => {
  it('when a user whose password an administrator set signs in on the way to a page, then they land on “Choose your password”: no app navigation, why it is asked, the first field focused', async () => {
    const app = renderApp('/audit?page=2', withTemporaryUser());
    await signInAsNew(app);
    const form = await choosePasswordForm();
    await waitFor(() => {
      expect(app.location()).toBe('/choose-password?next=%2Faudit%3Fpage%3D2');
    });
    expect(screen.getByRole('heading', { level: 1, name: 'Choose your password' })).toBeVisible();
    expect(screen.getByText(/An administrator set the password you signed in with/)).toBeVisible();
    expect(screen.getByText(/Nia New · new@example.com/)).toBeVisible();
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    await waitFor(() => {
      expect(within(form).getByLabelText(/Current \(temporary\) password/)).toHaveFocus();
    });
    // Nothing but the session was asked for: the screen behind it was never opened.
    expect(app.bff.requestsTo('GET', '/api/audit')).toHaveLength(0);
  });

  it('when the new password is the one the administrator set, or the two differ, then the fields say so and nothing is sent', async () => {
    const app = renderApp('/choose-password', withTemporaryUser('new@example.com'));
    const form = await choosePasswordForm();
    await app.user.type(within(form).getByLabelText(/Current/), TEMPORARY);
    await app.user.type(within(form).getByLabelText(/^New password/), TEMPORARY);
    await app.user.type(within(form).getByLabelText(/Repeat new password/), TEMPORARY);
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    const newField = within(form).getByLabelText(/^New password/);
    await waitFor(() => {
      expect(newField).toHaveAccessibleDescription(
        'Choose a new password, not the one the administrator set.',
      );
    });
    expect(newField).toHaveFocus();
    await app.user.clear(newField);
    await app.user.type(newField, 'my very own passphrase');
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    expect(await within(form).findByText('The two new passwords differ.')).toBeInTheDocument();
    expect(app.bff.requestsTo('POST', '/api/session/password')).toHaveLength(0);
  });

  it('when the current password is wrong, then that field says so (announced by focus and description) and the user stays', async () => {
    const app = renderApp('/choose-password', withTemporaryUser('new@example.com'));
    const form = await choosePasswordForm();
    const current = within(form).getByLabelText(/Current/);
    await app.user.type(current, 'not what I was given');
    await app.user.type(within(form).getByLabelText(/^New password/), 'my very own passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'my very own passphrase',
    );
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    await waitFor(() => {
      expect(current).toHaveAccessibleDescription(
        'This is not the password the administrator gave you.',
      );
    });
    expect(current).toHaveFocus();
    expect(app.location()).toBe('/choose-password');
  });

  it('when the server refuses the change for another reason, then the form says so in an alert', async () => {
    const bff = withTemporaryUser('new@example.com').on('POST /api/session/password', () => ({
      status: 429,
      body: {
        error: {
          code: 'RATE_LIMITED',
          message: 'too many',
          requestId: 'req-rl',
          details: { retryAfterSeconds: 60 },
        },
      },
    }));
    const app = renderApp('/choose-password', bff);
    const form = await choosePasswordForm();
    await app.user.type(within(form).getByLabelText(/Current/), TEMPORARY);
    await app.user.type(within(form).getByLabelText(/^New password/), 'my very own passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'my very own passphrase',
    );
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'Too many attempts. Try again in 1 minute.',
    );
  });

  it('when the password is chosen, then only current and new are sent and the user continues to the page they wanted, in the app', async () => {
    const app = renderApp('/audit', withTemporaryUser());
    await signInAsNew(app);
    const form = await choosePasswordForm();
    await app.user.type(within(form).getByLabelText(/Current/), TEMPORARY);
    await app.user.type(within(form).getByLabelText(/^New password/), 'my very own passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'my very own passphrase',
    );
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/audit');
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
    expect(app.bff.requestsTo('POST', '/api/session/password')[0]!.body).toEqual({
      currentPassword: TEMPORARY,
      newPassword: 'my very own passphrase',
    });
    expect(app.bff.passwords.get('new@example.com')).toBe('my very own passphrase');
  });

  it('when a request of a signed-in user is refused with PASSWORD_CHANGE_REQUIRED (an administrator reset the password meanwhile), then they land on “Choose your password” and come back after', async () => {
    let reset = true;
    const bff = new FakeBff();
    const real = bff.fetch;
    bff.fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const path = new URL(url, 'http://paydesk.test').pathname;
      if (reset && path === '/api/audit')
        return Promise.resolve(
          new Response(
            JSON.stringify({
              error: {
                code: 'PASSWORD_CHANGE_REQUIRED',
                message: 'choose your own password first: this one was set by an administrator',
                requestId: 'req-pcr',
              },
            }),
            { status: 403, headers: { 'Content-Type': 'application/json' } },
          ),
        );
      return real(input, init);
    };
    const app = renderApp('/audit', bff);
    const form = await choosePasswordForm();
    expect(app.location()).toBe('/choose-password?next=%2Faudit');
    reset = false;
    await app.user.type(within(form).getByLabelText(/Current/), 'correct horse battery');
    await app.user.type(within(form).getByLabelText(/^New password/), 'my very own passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'my very own passphrase',
    );
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
    expect(app.location()).toBe('/audit');
  });

  it('when the server refuses the new password as too easy to guess, then its reason shows at the new password field and the user stays on the page', async () => {
    const app = renderApp('/audit', withTemporaryUser('new@example.com'));
    const form = await choosePasswordForm();
    await app.user.type(within(form).getByLabelText(/Current/), TEMPORARY);
    await app.user.type(within(form).getByLabelText(/^New password/), 'password1234');
    await app.user.type(within(form).getByLabelText(/Repeat new password/), 'password1234');
    await app.user.click(
      within(form).getByRole('button', { name: 'Save my password and continue' }),
    );
    await waitFor(() => {
      expect(within(form).getByLabelText(/^New password/)).toHaveAccessibleDescription(
        'Too easy to guess: repeated characters like "aaa" are easy to guess; add more words that are less common.',
      );
    });
    expect(app.bff.requestsTo('POST', '/api/session/password')).toHaveLength(1);
    expect(app.location()).toBe('/choose-password?next=%2Faudit');
    expect(app.bff.passwords.get('new@example.com')).toBe(TEMPORARY);
  });

  it('when such a user opens an app page directly, then they are sent to choose a password first; signing out instead leads to sign-in, which says they signed out, as the user menu’s Sign out does', async () => {
    const app = renderApp('/users', withTemporaryUser('new@example.com'));
    await choosePasswordForm();
    expect(app.location()).toBe('/choose-password?next=%2Fusers');
    await app.user.click(screen.getByRole('button', { name: 'Sign out instead' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeVisible();
    // A user who chose to sign out starts afresh: no `next`.
    expect(app.location()).toBe('/sign-in?reason=signed-out');
    expect(screen.getByRole('status')).toHaveTextContent('You signed out.');
    expect(app.bff.requestsTo('DELETE', '/api/session')).toHaveLength(1);
  });

  it('when the password is not temporary, then the page sends the user on to where they were going', async () => {
    const app = renderApp('/choose-password?next=%2Faccount', new FakeBff());
    await waitFor(() => {
      expect(app.location()).toBe('/account');
    });
  });

  it('when the page is shown, then axe finds no serious violations', async () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    renderApp('/choose-password', withTemporaryUser('new@example.com'));
    await choosePasswordForm();
    const result = await axe.run(document.body, {
      resultTypes: ['violations'],
      rules: {
        'color-contrast': { enabled: false },
        'scrollable-region-focusable': { enabled: false },
      },
    });
    expect(
      result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id),
    ).toEqual([]);
  });
});
