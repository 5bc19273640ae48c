import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { DEMO_PASSWORD, FakeBff, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { screenWidth } from '../../../test/screen-width';

function bffWith(roles: Parameters<typeof makeUser>[0]['roles']) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [
      makeUser({ email: 'me@example.com', name: 'Me', roles }),
      makeUser({ email: 'admin@example.com', roles: ['admin'] }),
    ],
  });
}

async function navLinks() {
  const nav = (await screen.findAllByRole('navigation', { name: 'Main' }))[0]!;
  return within(nav)
    .getAllByRole('link')
    .map((link) => link.textContent);
}

describe('shell', () => {
  it('when an auditor-admin opens /, then Home shows the figures and the navigation starts with Home', async () => {
    const app = renderApp('/', bffWith(['admin', 'auditor']));
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
    expect(app.location()).toBe('/');
    const links = await navLinks();
    expect(links[0]).toBe('Home');
    expect(links).toEqual(
      expect.arrayContaining(['Transactions', 'Payouts', 'Audit log', 'Users']),
    );
    expect(await screen.findByRole('heading', { name: 'Needs attention' })).toBeInTheDocument();
  });

  it('when an admin (not auditor) opens /, then Home offers their screens and the audit log is not offered', async () => {
    const app = renderApp('/', bffWith(['admin']));
    expect(await screen.findByRole('heading', { name: 'Your screens' })).toBeInTheDocument();
    expect(app.location()).toBe('/');
    expect(await navLinks()).toEqual(['Home', 'Users', 'My account']);
  });

  it('when a support user opens /, then Home is the current page of the navigation, and only Home', async () => {
    renderApp('/', bffWith(['support', 'finance']));
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
    const nav = (await screen.findAllByRole('navigation', { name: 'Main' }))[0]!;
    expect(within(nav).getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Transactions' })).not.toHaveAttribute(
      'aria-current',
    );
    expect((await navLinks()).slice(0, 3)).toEqual(['Home', 'Transactions', 'Payouts']);
  });

  it('when the screen is narrower than 1200 px, then the navigation opens from the menu button and closes on choosing a screen; from 1200 px it stays open', async () => {
    screenWidth(1024);
    const narrow = renderApp('/', bffWith(['support', 'finance']));
    const menu = await screen.findByRole('button', { name: 'Open navigation' });
    // A permanent drawer took 232 px of a 1024 px screen, and the tables scrolled sideways.
    expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
    await narrow.user.click(menu);
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await narrow.user.click(within(nav).getByRole('link', { name: 'Transactions' }));
    await waitFor(() => {
      expect(narrow.location()).toBe('/transactions');
    });
    await waitFor(() => {
      expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
    });
    narrow.unmount();
    screenWidth(1200);
    renderApp('/', bffWith(['support', 'finance']));
    expect(await screen.findByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Open navigation' })).toBeNull();
    vi.restoreAllMocks();
  });

  it('when there is no session, then a protected page sends to sign-in with next, and back after signing in', async () => {
    const app = renderApp('/users', new FakeBff({ signedInAs: null }));
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in?next=%2Fusers');
    });
    await app.user.type(await screen.findByLabelText(/E-mail/), 'admin@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/users');
    });
    expect(await screen.findByRole('heading', { name: 'Users' })).toBeInTheDocument();
  });

  it('when the session expires and a query gets 401, then the user signs in again over the page and carries on there', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit?outcome=success', bff);
    expect(await screen.findByRole('heading', { name: 'Audit log' })).toBeInTheDocument();
    bff.expireSession();
    await app.user.click(screen.getAllByRole('link', { name: 'Users' })[0]!);
    const dialog = within(
      await screen.findByRole('dialog', {
        name: 'Your session ended — sign in again to continue',
      }),
    );
    expect(app.location()).toBe('/users');
    expect(dialog.getByLabelText(/E-mail/)).toHaveValue('admin@example.com');
    await app.user.type(dialog.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(dialog.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(app.location()).toBe('/users');
    // What the page could not load meanwhile is asked for again.
    expect(await screen.findByRole('table', { name: 'Users' })).toBeInTheDocument();
  });

  it('when a session re-check (e.g. on window focus) finds the session gone, then the page stays and asks to sign in again', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    bff.expireSession();
    await app.queryClient.invalidateQueries({ queryKey: ['session'], exact: true });
    expect(
      await screen.findByRole('dialog', { name: 'Your session ended — sign in again to continue' }),
    ).toBeInTheDocument();
    expect(app.location()).toBe('/account');
    expect(screen.getByRole('heading', { name: 'My account', hidden: true })).toBeInTheDocument();
  });

  it('when a session re-check fails with a server error, then the page stays as it is', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    bff.on('GET /api/session', () => ({
      status: 500,
      body: { error: { code: 'INTERNAL', message: 'boom', requestId: 'req-7' } },
    }));
    await app.queryClient.refetchQueries({ queryKey: ['session'], exact: true });
    expect(app.queryClient.getQueryState(['session'])?.status).toBe('error');
    expect(screen.getByRole('heading', { name: 'My account' })).toBeInTheDocument();
    expect(screen.queryByText(/request req-7/)).not.toBeInTheDocument();
  });

  it('when an administrator disables the signed-in user, then the next request sends them to sign-in, which says the account is disabled', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    expect(await screen.findByRole('heading', { name: 'Audit log' })).toBeInTheDocument();
    bff.disableSignedInUser();
    await app.user.click(screen.getAllByRole('link', { name: 'Users' })[0]!);
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in?next=%2Fusers&reason=disabled');
    });
    expect(await screen.findByText(/Your account has been disabled/)).toBeInTheDocument();
    expect(screen.queryByText(/Your session ended/)).not.toBeInTheDocument();
  });

  it('when the user signs out, then the server session is deleted and sign-in says so, without a next', async () => {
    const app = renderApp('/account', new FakeBff());
    await app.user.click(await screen.findByRole('button', { name: /Account menu for Ada Admin/ }));
    await app.user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in?reason=signed-out');
    });
    expect(await screen.findByRole('status')).toHaveTextContent('You signed out.');
    expect(app.bff.requestsTo('DELETE', '/api/session')).toHaveLength(1);
    expect(app.bff.requestsTo('DELETE', '/api/session')[0]!.headers.get('X-Requested-With')).toBe(
      'paydesk',
    );
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('when the theme toggle is used, then the scheme switches and the choice is remembered', async () => {
    const app = renderApp('/account', new FakeBff());
    await app.user.click(await screen.findByRole('button', { name: 'Switch to dark theme' }));
    await waitFor(() => {
      expect(document.documentElement).toHaveAttribute('data-mui-color-scheme', 'dark');
    });
    expect(window.localStorage.getItem('paydesk-color-mode')).toBe('dark');
    expect(screen.getByRole('button', { name: 'Switch to light theme' })).toBeInTheDocument();
  });

  it('when the address matches no screen, then a not-found page offers the way home', async () => {
    renderApp('/no-such-screen', new FakeBff());
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to your start screen' })).toHaveAttribute(
      'href',
      '/',
    );
  });

  it('when the keyboard starts on a signed-in page, then the first stop is “Skip to content”, which moves the focus to the main content', async () => {
    const app = renderApp('/', bffWith(['support']));
    await screen.findByRole('heading', { level: 1, name: 'Home' });
    (document.activeElement as HTMLElement | null)?.blur();
    await app.user.tab();
    const skip = screen.getByRole('link', { name: 'Skip to content' });
    expect(skip).toHaveFocus();
    await app.user.keyboard('{Enter}');
    const main = screen.getByRole('main');
    expect(main).toHaveFocus();
    expect(main).toHaveAttribute('tabindex', '-1');
    expect(app.location()).toBe('/');
  });
});
