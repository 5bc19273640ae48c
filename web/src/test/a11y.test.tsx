import { screen } from '@testing-library/react';
import axe from 'axe-core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBff } from './fake-bff';
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

  it('when My account is shown, then axe finds no serious violations', async () => {
    renderApp('/account', new FakeBff());
    await screen.findByRole('form', { name: 'Change password' });
    expect(await seriousViolations()).toEqual([]);
  });
});
