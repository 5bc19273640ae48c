import { screen, within } from '@testing-library/react';
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

  it('when the screen is a phone’s (390 px), then each row is one cell: the action with its outcome, the row and time, the actor, the target, then the details, nothing to the side', async () => {
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
    // Five columns and more side by side scrolled sideways, cutting the Target header to "Tar".
    expect(headers()).toEqual(['Entry']);
    const cells = within(screen.getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells).toHaveLength(1);
    const cell = cells[0]!;
    expect(cell).toHaveTextContent(
      /^Tried to withdraw own payout formpayment_link\.withdrawRefusedFORBIDDENRow #7 · /,
    );
    // The name may break after its dot.
    expect(cell.querySelector('code wbr')).not.toBeNull();
    expect(cell.querySelector('time')).not.toBeNull();
    expect(cell).toHaveTextContent('admin@example.com');
    expect(cell).toHaveTextContent('user:u-7');
    expect(cell).toHaveTextContent('row 7');
  });

  it('when the screen is a tablet’s (800 px), then four columns: row over time, outcome under action, target under actor, and the details beside them; from 1200 px the laptop’s columns return', async () => {
    const rows = [
      makeAuditRow(7, {
        action: 'audit.verify',
        target: 'user:u-7',
        summary: { anchor: null, ok: true, headSeq: 6 },
      }),
    ];
    screenWidth(800);
    const tablet = renderApp('/audit', new FakeBff({ audit: rows }));
    await screen.findByRole('table', { name: 'Audit log' });
    // Six columns cut the details at 800 px ("Chain head ro…").
    expect(headers()).toEqual([
      'Row and time',
      'Action and outcome',
      'Actor and target',
      'Details',
    ]);
    const cells = within(screen.getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells[0]).toHaveTextContent(/^#7/);
    expect(cells[0]!.querySelector('time')).not.toBeNull();
    expect(cells[1]).toHaveTextContent(/^Checked the audit log’s chainaudit\.verifySuccess$/);
    expect(cells[2]).toHaveTextContent(/^admin@example\.com.*user:u-7/);
    expect(cells[3]).toHaveTextContent('Chain head row: 6');
    expect(cells[3]).toHaveTextContent('Chain intact: Yes');
    tablet.unmount();

    screenWidth(1200);
    renderApp('/audit', new FakeBff({ audit: rows }));
    await screen.findByRole('table', { name: 'Audit log' });
    expect(headers()).toEqual(['Row', 'Time', 'Actor', 'Action and outcome', 'Target', 'Details']);
  });

  it('when an auditor reads a row, then its action is in words with its name under it for the Action filter, and its details say Yes/No and the screens’ state labels (QA F6)', async () => {
    const rows = [
      makeAuditRow(9, {
        action: 'payout.prepare',
        summary: { result: 'pending_approval', replayed: false },
      }),
      makeAuditRow(8, { action: 'card.info', summary: { reason: 'ticket 9912' } }),
      makeAuditRow(7, { action: 'session.login', summary: { secondFactorGiven: false } }),
      makeAuditRow(6, {
        action: 'payout.approve',
        outcome: 'refused',
        errorCode: 'FOUR_EYES_REQUIRED',
      }),
    ];
    screenWidth(1600);
    renderApp('/audit', new FakeBff({ audit: rows }));
    const table = await screen.findByRole('table', { name: 'Audit log' });
    expect(within(table).getByText('Prepared a payout')).toBeInTheDocument();
    expect(within(table).getByText('Looked up card details')).toBeInTheDocument();
    expect(within(table).getByText('Signed in')).toBeInTheDocument();
    // A refusal says what was tried, not what was done (QA).
    expect(within(table).getByText('Tried to approve a payout')).toBeInTheDocument();
    expect(within(table).queryByText('Approved a payout')).toBeNull();
    const name = within(table).getByTitle('Action name (for the Action filter): payout.prepare');
    expect(name).toHaveTextContent('payout.prepare');
    expect(
      within(table).getByText('Result: Awaiting approval · Replayed (stored reply): No'),
    ).toBeInTheDocument();
    expect(within(table).getByText('Second factor given: No')).toBeInTheDocument();
    expect(within(table).queryByText(/pending_approval|: false|: true/)).not.toBeInTheDocument();
    // A first request is not said to be repeated.
    expect(within(table).queryByText(/A repeated request/)).toBeNull();
  });

  it('when a request was repeated with its Idempotency-Key, then its row says under the action that the stored reply answered it and nothing was done again (QA: a double Enter read as a second capture)', async () => {
    const rows = [
      makeAuditRow(2, { action: 'transaction.capture', summary: { replayed: true } }),
      makeAuditRow(1, { action: 'transaction.capture', summary: { replayed: false } }),
    ];
    screenWidth(1600);
    renderApp('/audit', new FakeBff({ audit: rows }));
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const [, again, first] = within(table).getAllByRole('row');
    expect(again).toHaveTextContent(
      /Captured a payment\s*A repeated request: answered with the stored reply, nothing done again\./,
    );
    expect(first).not.toHaveTextContent('A repeated request');
  });
});
