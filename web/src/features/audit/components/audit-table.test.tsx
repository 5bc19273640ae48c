import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makeAuditRow } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { screenWidth } from '../../../test/screen-width';

const headers = () =>
  within(screen.getByRole('table', { name: 'Audit log' }))
    .getAllByRole('columnheader')
    .map((h) => h.textContent);

describe('the audit log table', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('when the screen is a phone’s (390 px), then the action with its outcome and the time come first, then the target, then the actor and details; from 600 px the laptop’s columns return', async () => {
    const rows = [
      makeAuditRow(7, {
        action: 'payment_link.withdraw',
        outcome: 'refused',
        errorCode: 'FORBIDDEN',
        target: 'user:u-7',
      }),
    ];
    screenWidth(390);
    renderApp('/audit', new FakeBff({ audit: rows }));
    await screen.findByRole('table', { name: 'Audit log' });
    // Led by Row, Time and Actor, a 390 px screen showed no action at all.
    expect(headers()).toEqual(['Action and outcome', 'Time', 'Target', 'Actor', 'Details', 'Row']);
    const cells = within(screen.getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells[0]).toHaveTextContent(/^payment_link\.withdrawrefusedFORBIDDEN$/);
    // The name may break after its dot, so the column stays narrow.
    expect(cells[0]!.querySelector('code wbr')).not.toBeNull();
    expect(cells[1]!.querySelector('time')).not.toBeNull();
    expect(cells[3]).toHaveTextContent('admin@example.com');
    expect(cells[4]).toHaveTextContent('row 7');
    expect(cells[5]).toHaveTextContent(/^7$/);
    cleanup();

    screenWidth(600);
    renderApp('/audit', new FakeBff({ audit: rows }));
    await screen.findByRole('table', { name: 'Audit log' });
    expect(headers()).toEqual(['Row', 'Time', 'Actor', 'Action and outcome', 'Target', 'Details']);
  });
});
