import { screen } from '@testing-library/react';
import axe from 'axe-core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makeCharge, makeLink, makePayout, makeSubscription, makeUser } from './fake-bff';
import { makeView } from './fake-views';
import { renderApp } from './render-app';

// jsdom cannot lay out or paint, so contrast and scrolling are checked in the browser run
// (test/e2e/web-screenshots.mjs); everything structural (names, labels, roles, lists) is checked here.
async function seriousViolations(): Promise<string[]> {
  const result = await axe.run(document.body, {
    resultTypes: ['violations'],
    rules: {
      'color-contrast': { enabled: false },
      'scrollable-region-focusable': { enabled: false },
    },
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`);
}

describe('accessibility (axe-core)', () => {
  beforeEach(() => {
    // axe probes icon fonts with a canvas, which jsdom lacks; without one that check is skipped.
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
  });

  it('when the sign-in page is shown, then axe finds no serious violations', async () => {
    renderApp('/sign-in', new FakeBff({ signedInAs: null }));
    await screen.findByRole('button', { name: 'Sign in' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the users screen is shown, then axe finds no serious violations', async () => {
    renderApp('/users', new FakeBff());
    await screen.findByRole('table', { name: 'Users' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the audit log is shown, then axe finds no serious violations', async () => {
    renderApp('/audit', new FakeBff());
    await screen.findByRole('table', { name: 'Audit log' });
    await screen.findByText(/Chain verified/);
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the transactions are shown, then axe finds no serious violations', async () => {
    renderApp('/transactions', new FakeBff());
    await screen.findByRole('table', { name: 'Transactions' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when a transaction with its actions is shown, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['finance', 'auditor'] })],
    });
    // A sale: a preauth with nothing captured offers no return (a void releases its hold).
    const app = renderApp('/transactions/00000000-0000-4000-8000-000000000008', bff);
    await screen.findByRole('heading', { name: 'Order 900008' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByRole('dialog', { name: 'Return' });
    expect(await seriousViolations()).toEqual([]);
    // Continue with nothing chosen: the messages, the scope's on its radio group, are tied in.
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByText('Choose whether to return all of it or part of it.');
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the status lookup dialog is open, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['support'] })],
    });
    const app = renderApp('/transactions', bff);
    await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
    await screen.findByRole('dialog', { name: 'Look up an order' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the payouts approval queue, the prepare dialog and a payout are shown, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['ops'] })],
      payouts: [makePayout(1)],
    });
    const app = renderApp('/payouts', bff);
    await screen.findByRole('table', { name: 'Payouts' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Prepare payout' }));
    await screen.findByRole('dialog', { name: 'Prepare a payout' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Cancel' }));
    await app.user.click(screen.getByRole('link', { name: 'Seller settlement 1' }));
    await screen.findByRole('list', { name: 'Timeline' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when Cards with card info and the rebill dialog are shown, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['finance'] })],
    });
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.type(await screen.findByLabelText(/Reason/), 'dispute');
    await app.user.click(screen.getByRole('button', { name: 'Show card information' }));
    await screen.findByRole('region', { name: 'Card behind the reference' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Rebill a card' }));
    await screen.findByRole('dialog', { name: 'Rebill a stored card' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when subscriptions, a subscription and the create dialog are shown, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['finance'] })],
      subscriptions: [makeSubscription(1, { charges: [makeCharge(41)] })],
    });
    const app = renderApp('/subscriptions', bff);
    await screen.findByRole('table', { name: 'Subscriptions' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'New subscription' }));
    await screen.findByRole('dialog', { name: 'New subscription' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Cancel' }));
    await app.user.click(screen.getByRole('link', { name: 'Monthly plan 1' }));
    await screen.findByRole('table', { name: 'Charges' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when payment links, the create dialog and a link are shown, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['finance', 'ops'] })],
      links: [
        makeLink(1),
        makeLink(2, {
          state: 'pending_approval',
          kind: 'payout-form',
          redirectUrl: null,
          customerEmail: null,
          createdBy: { id: 'u-otto', email: 'otto@example.com' },
        }),
      ],
    });
    const app = renderApp('/payment-links?view=all', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'New payment link' }));
    await screen.findByRole('dialog', { name: 'New payment link' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Cancel' }));
    await app.user.click(screen.getByRole('link', { name: 'Invoice 1' }));
    await screen.findByRole('list', { name: 'Timeline' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when Home with its figures and charts is shown, then axe finds no serious violations', async () => {
    const bff = new FakeBff({ payouts: [makePayout(1)] });
    renderApp('/', bff);
    await screen.findByRole('heading', { name: 'Needs attention' });
    await screen.findByRole('heading', { name: /^Captured volume and returns per day/ });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when Home for an admin (shortcuts) is shown, then axe finds no serious violations', async () => {
    renderApp(
      '/',
      new FakeBff({ users: [makeUser({ email: 'admin@example.com', roles: ['admin'] })] }),
    );
    await screen.findByRole('heading', { name: 'Your screens' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when the saved views menu and the save dialog are open, then axe finds no serious violations', async () => {
    const bff = new FakeBff({
      users: [makeUser({ email: 'admin@example.com', roles: ['support', 'admin'] })],
      views: [makeView(1, { name: 'Declined' })],
    });
    const app = renderApp('/transactions?status=declined', bff);
    await screen.findByRole('table', { name: 'Transactions' });
    await app.user.click(screen.getByRole('button', { name: 'Views' }));
    await screen.findByRole('menuitem', { name: /Declined/ });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('menuitem', { name: 'Save current view…' }));
    await screen.findByRole('dialog', { name: 'Save current view' });
    expect(await seriousViolations()).toEqual([]);
  });

  it('when My account is shown, then axe finds no serious violations', async () => {
    renderApp('/account', new FakeBff());
    await screen.findByRole('form', { name: 'Change password' });
    expect(await seriousViolations()).toEqual([]);
  });
});
