import { screen } from '@testing-library/react';
import axe from 'axe-core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makePayout, makeUser } from './fake-bff';
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
    const app = renderApp('/transactions/00000000-0000-4000-8000-000000000007', bff);
    await screen.findByRole('heading', { name: 'Order 900007' });
    expect(await seriousViolations()).toEqual([]);
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByRole('dialog', { name: 'Return' });
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

  it('when the payouts approval queue and the prepare dialog are shown, then axe finds no serious violations', async () => {
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
  });

  it('when My account is shown, then axe finds no serious violations', async () => {
    renderApp('/account', new FakeBff());
    await screen.findByRole('form', { name: 'Change password' });
    expect(await seriousViolations()).toEqual([]);
  });
});
