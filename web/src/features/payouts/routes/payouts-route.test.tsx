import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { IDEMPOTENCY_KEY_HEADER, PHONE_MESSAGE } from '@paydesk/shared/api';
import { describe, expect, it, vi } from 'vitest';
import { formatDateAndTime, formatDateTime } from '../../../lib/format';
import { FakeBff, makeLink, makePayout, makeUser } from '../../../test/fake-bff';
import { sendWithReason } from '../../../test/decision-dialog';
import { itShowsTheListStates } from '../../../test/list-states';
import { openPrepareDialog, typeCardPayout } from '../../../test/prepare-payout';
import { renderApp } from '../../../test/render-app';
import { seenAs } from '../../../test/seen-text';
import { screenWidth } from '../../../test/screen-width';

function headersOf(table: HTMLElement) {
  return within(table)
    .getAllByRole('columnheader')
    .map((header) => header.textContent);
}

// Otto prepared payout 1; Olga (signed in, ops) prepared payout 2.
function bffAs(roles: Parameters<typeof makeUser>[0]['roles']) {
  return new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles }),
      makeUser({ email: 'otto@example.com', name: 'Otto Ops', roles: ['ops'] }),
    ],
    payouts: [
      makePayout(1),
      makePayout(2, { preparedBy: { id: 'u-olga', email: 'olga@example.com' } }),
      makePayout(3, { state: 'approved', decidedBy: { id: 'u-olga', email: 'olga@example.com' } }),
    ],
  });
}

describe('payouts', () => {
  itShowsTheListStates({
    path: '/payouts',
    route: 'GET /api/payouts',
    bffAs,
    reader: ['ops'],
    noAccess: ['admin'],
    loading: 'Loading payouts…',
    what: 'payouts',
  });

  it('when an ops user opens payouts, then the approval queue shows exactly what was checked, without their own', async () => {
    const bff = bffAs(['ops']);
    renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toHaveTextContent('€101.00');
    expect(rows[1]).toHaveTextContent('411111******1111');
    expect(rows[1]).toHaveTextContent('Seller settlement 1');
    expect(rows[1]).toHaveTextContent('otto@example.com');
    expect(bff.requestsTo('GET', '/api/payouts')[0]!.query.get('view')).toBe(
      'awaiting-my-approval',
    );
  });

  it('when payout-form links prepared by another ops user wait too, then the approval queue says how many, under Payment links, with a link to them; every payout view but the queue does not (QA: they lapsed unseen)', async () => {
    const bff = bffAs(['ops']);
    const held = (n: number) =>
      makeLink(n, {
        kind: 'payout-form',
        state: 'pending_approval',
        createdBy: { id: 'u-otto', email: 'otto@example.com' },
        redirectUrl: null,
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
    bff.links.links = [held(1), held(2), makeLink(3)];
    const app = renderApp('/payouts', bff);
    await screen.findByRole('table', { name: 'Payouts' });
    const note = await screen.findByText(/2 payout forms also wait for your approval/);
    expect(note).toHaveTextContent(
      '2 payout forms also wait for your approval, under Payment links: open the links awaiting approval.',
    );
    expect(
      within(note).getByRole('link', { name: 'open the links awaiting approval' }),
    ).toHaveAttribute('href', '/payment-links?view=awaiting-my-approval');
    await app.user.click(screen.getByRole('tab', { name: /All payouts/ }));
    await waitFor(() => {
      expect(screen.queryByText(/payout forms also wait/)).not.toBeInTheDocument();
    });
  });

  it('when no payout-form link waits for the ops user, then the queue says nothing of links', async () => {
    const bff = bffAs(['ops']);
    bff.links.links = [makeLink(3)];
    renderApp('/payouts', bff);
    await screen.findByRole('table', { name: 'Payouts' });
    await waitFor(() => {
      expect(bff.requestsTo('GET', '/api/payment-links')).toHaveLength(1);
    });
    // The count's reply is in: the page says nothing of it.
    await screen.findByRole('table', { name: 'Payouts' });
    expect(screen.queryByText(/also wait.? for your approval/)).not.toBeInTheDocument();
  });

  it('when 106 payouts wait (more than a page), then the queue shows them as the BFF orders them (soonest to lapse first) with the count waiting, and Load more brings the rest, each once', async () => {
    const bff = new FakeBff({
      signedInAs: 'olga@example.com',
      users: [
        makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles: ['ops'] }),
        makeUser({ email: 'otto@example.com', name: 'Otto Ops', roles: ['ops'] }),
      ],
      payouts: Array.from({ length: 106 }, (_, i) =>
        makePayout(i + 1, i === 0 ? { amount: '999.00' } : {}),
      ),
    });
    const app = renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(table).getAllByRole('row')).toHaveLength(101);
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('€999.00');
    expect(
      screen.getByText('100+ waiting for your approval, soonest to lapse first'),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(
      await screen.findByText('106 waiting for your approval, soonest to lapse first'),
    ).toBeInTheDocument();
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(106);
    expect(rows.at(-1)).toHaveTextContent('Seller settlement 106');
    expect(new Set(rows.map((r) => r.textContent)).size).toBe(106);
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    const asked = bff.requestsTo('GET', '/api/payouts');
    expect(asked.map((r) => r.query.get('cursor'))).toEqual([null, expect.any(String)]);
  });

  it('when an ops user presses “Paid after a not-applied verdict”, then the address and the request carry paidLate=true over every payout, only those the gateway paid late are listed, other views keep it, and pressing it again clears it', async () => {
    const bff = bffAs(['ops']);
    const late = makePayout(4, {
      state: 'approved',
      errorCode: 'PAID_AFTER_NOT_APPLIED',
      errorMessage:
        'Paid after Paydesk had judged it not applied: check whether it was paid twice.',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      decidedAt: '2026-11-20T12:00:00.000Z',
    });
    const mineLate = makePayout(5, {
      state: 'approved',
      errorCode: 'PAID_AFTER_NOT_APPLIED',
      preparedBy: { id: 'u-olga', email: 'olga@example.com' },
      decidedBy: { id: 'u-otto', email: 'otto@example.com' },
      decidedAt: '2026-11-20T12:00:00.000Z',
    });
    bff.payouts.payouts = [...bff.payouts.payouts, late, mineLate];
    const app = renderApp('/payouts', bff);
    await screen.findByRole('table', { name: 'Payouts' });
    const chip = screen.getByRole('button', { name: 'Paid after a not-applied verdict' });
    expect(chip).toHaveAttribute('aria-pressed', 'false');
    await app.user.click(chip);
    // The approval queue never holds one: the filter shows every payout.
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=all&paidLate=true');
    });
    expect(
      await screen.findByText('2 payouts paid after a not-applied verdict'),
    ).toBeInTheDocument();
    const last = bff.requestsTo('GET', '/api/payouts').at(-1)!;
    expect(last.query.get('paidLate')).toBe('true');
    expect(last.query.get('view')).toBe('all');
    const table = screen.getByRole('table', { name: 'Payouts' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getByRole('link').getAttribute('href'))).toEqual(
      expect.arrayContaining([`/payouts/${late.id}`, `/payouts/${mineLate.id}`]),
    );
    expect(rows).toHaveLength(2);
    expect(
      screen.getByRole('button', { name: 'Paid after a not-applied verdict' }),
    ).toHaveAttribute('aria-pressed', 'true');
    // Prepared by me keeps the filter.
    await app.user.click(screen.getByRole('tab', { name: 'Prepared by me' }));
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=mine&paidLate=true');
    });
    expect(
      await screen.findByText('1 payout paid after a not-applied verdict'),
    ).toBeInTheDocument();
    // Pressed again: cleared, the view stays.
    await app.user.click(screen.getByRole('button', { name: 'Paid after a not-applied verdict' }));
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=mine');
    });
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.has('paidLate')).toBe(false);
  });

  it('when Home’s card links to the payouts paid late and decided since a date, then only those are asked for and listed, the bound is said, and “Show all dates” drops it', async () => {
    const bff = bffAs(['support']);
    const lateRecent = makePayout(4, {
      state: 'approved',
      errorCode: 'PAID_AFTER_NOT_APPLIED',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      decidedAt: '2026-11-20T12:00:00.000Z',
    });
    const lateOld = makePayout(5, {
      state: 'approved',
      errorCode: 'PAID_AFTER_NOT_APPLIED',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      decidedAt: '2026-10-01T12:00:00.000Z',
    });
    bff.payouts.payouts = [...bff.payouts.payouts, lateRecent, lateOld];
    const from = '2026-11-01T00:00:00.000Z';
    const app = renderApp(`/payouts?view=all&paidLate=true&decidedFrom=${from}`, bff);
    expect(
      await screen.findByText('1 payout paid after a not-applied verdict'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.get('decidedFrom')).toBe(from);
    const table = screen.getByRole('table', { name: 'Payouts' });
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((row) => within(row).getByRole('link').getAttribute('href')),
    ).toEqual([`/payouts/${lateRecent.id}`]);
    expect(screen.getByText(/Only those decided since/)).toHaveTextContent(
      `Only those decided since ${formatDateTime(from)}.`,
    );
    await app.user.click(screen.getByRole('button', { name: 'Show all dates' }));
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=all&paidLate=true');
    });
    expect(
      await screen.findByText('2 payouts paid after a not-applied verdict'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.has('decidedFrom')).toBe(false);
  });

  it('when the address holds a decided-since bound that is not a date-time, then it is ignored', async () => {
    const bff = bffAs(['support']);
    renderApp('/payouts?view=all&paidLate=true&decidedFrom=yesterday', bff);
    expect(
      await screen.findByText('No payout was paid after a not-applied verdict.'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.has('decidedFrom')).toBe(false);
    expect(screen.queryByText(/Only those decided since/)).not.toBeInTheDocument();
  });

  it('when a reader opens the payouts filtered to those paid after a not-applied verdict and none is, then the empty state says so', async () => {
    const bff = bffAs(['support']);
    renderApp('/payouts?paidLate=true', bff);
    expect(
      await screen.findByText('No payout was paid after a not-applied verdict.'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.get('paidLate')).toBe('true');
  });

  it('when the address asks for one state (Home’s link to the payouts whose outcome is unknown), then only those are asked for and listed, a chip says the filter, tabs keep it, and clearing it shows every state', async () => {
    const bff = bffAs(['ops']);
    const unknown = makePayout(4, {
      state: 'unknown',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      decidedAt: '2026-11-20T12:00:00.000Z',
    });
    const mineUnknown = makePayout(5, {
      state: 'unknown',
      preparedBy: { id: 'u-olga', email: 'olga@example.com' },
      decidedBy: { id: 'u-otto', email: 'otto@example.com' },
      decidedAt: '2026-11-20T12:00:00.000Z',
    });
    bff.payouts.payouts = [...bff.payouts.payouts, unknown, mineUnknown];
    const app = renderApp('/payouts?view=all&state=unknown', bff);
    expect(await screen.findByText('2 payouts in the state “Outcome unknown”')).toBeInTheDocument();
    const asked = bff.requestsTo('GET', '/api/payouts').at(-1)!;
    expect(asked.query.get('state')).toBe('unknown');
    expect(asked.query.get('view')).toBe('all');
    const rows = within(screen.getByRole('table', { name: 'Payouts' }))
      .getAllByRole('row')
      .slice(1);
    expect(rows.map((row) => within(row).getByRole('link').getAttribute('href'))).toEqual(
      expect.arrayContaining([`/payouts/${unknown.id}`, `/payouts/${mineUnknown.id}`]),
    );
    expect(rows).toHaveLength(2);
    const chip = screen.getByRole('button', { name: /^Outcome unknown: only the payouts/ });
    expect(chip).toHaveTextContent('Outcome unknown');
    // Prepared by me keeps the filter.
    await app.user.click(screen.getByRole('tab', { name: 'Prepared by me' }));
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=mine&state=unknown');
    });
    expect(await screen.findByText('1 payout in the state “Outcome unknown”')).toBeInTheDocument();
    // Cleared: every state, the view stays.
    await app.user.click(
      screen.getByRole('button', { name: /^Outcome unknown: only the payouts/ }),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=mine');
    });
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.has('state')).toBe(false);
    expect(screen.queryByRole('button', { name: /^Outcome unknown/ })).not.toBeInTheDocument();
  });

  it('when the address asks for another state, then its chip says it as the state chip does; a state that is none is ignored', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/payouts?view=all&state=approved', bff);
    expect(await screen.findByText('1 payout in the state “Paid”')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^Paid: only the payouts/ })).toBeInTheDocument();
    app.unmount();
    renderApp('/payouts?view=all&state=lost', bff);
    expect(await screen.findByText('3 payouts shown')).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/payouts').at(-1)!.query.has('state')).toBe(false);
  });

  it.each([
    ['a wide screen', 1400],
    ['a laptop', 1000],
    ['a phone', 390],
  ])(
    'when a payout has others like it waiting, then on %s its state says “Possible duplicate”; the others without such do not',
    async (_screen, width) => {
      screenWidth(width);
      const bff = bffAs(['ops']);
      bff.payouts.payouts = [
        makePayout(1, { similarPending: ['10000000-0000-4000-8000-000000000007'] }),
        makePayout(7),
      ];
      renderApp('/payouts', bff);
      const table = await screen.findByRole('table', { name: 'Payouts' });
      const [, first, second] = within(table).getAllByRole('row');
      expect(within(first!).getByText('Possible duplicate')).toBeInTheDocument();
      expect(within(second!).queryByText('Possible duplicate')).not.toBeInTheDocument();
      // In the same cell as the state.
      expect(within(first!).getByText('Possible duplicate').closest('td')).toBe(
        within(first!).getByText('Awaiting approval').closest('td'),
      );
    },
  );

  it('when an ops user looks at their own payouts, then the pending one is visibly not approvable by them', async () => {
    const app = renderApp('/payouts', bffAs(['ops']));
    await app.user.click(await screen.findByRole('tab', { name: 'Prepared by me' }));
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=mine');
    });
    expect(await screen.findByText('Yours: another ops user approves')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
    // Their own rows say "by you", not their own address again (QA).
    const table = screen.getByRole('table', { name: 'Payouts' });
    expect(within(table).getByText('by you')).toBeInTheDocument();
    expect(within(table).queryByText(/olga@example\.com/)).not.toBeInTheDocument();
    // Everyone else's rows keep the preparer's address.
    await app.user.click(screen.getByRole('tab', { name: 'All payouts' }));
    expect(await screen.findAllByText(/^by otto@example\.com$/)).not.toHaveLength(0);
  });

  it('when nothing waits for approval, then the empty state says so', async () => {
    const bff = new FakeBff({
      signedInAs: 'olga@example.com',
      users: [makeUser({ email: 'olga@example.com', roles: ['ops'] })],
    });
    renderApp('/payouts', bff);
    expect(await screen.findByText('Nothing waits for your approval.')).toBeInTheDocument();
  });

  it('when a support user opens payouts, then only the history shows and nothing can be prepared or decided', async () => {
    renderApp('/payouts', bffAs(['support']));
    await screen.findByRole('table', { name: 'Payouts' });
    expect(screen.getByRole('tab', { name: 'All payouts' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Prepare payout' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
    expect(screen.getByText('Paid')).toBeInTheDocument();
  });

  it('when an auditor or support user follows an address to the approval queue or to "Prepared by me", then every payout shows under All payouts, not an empty queue', async () => {
    for (const [roles, view] of [
      [['auditor'], 'awaiting-my-approval'],
      [['support'], 'mine'],
    ] as const) {
      const bff = bffAs([...roles]);
      const page = renderApp(`/payouts?view=${view}`, bff);
      const table = await screen.findByRole('table', { name: 'Payouts' });
      expect(screen.getByRole('tab', { name: 'All payouts' })).toHaveAttribute(
        'aria-selected',
        'true',
      );
      expect(bff.requestsTo('GET', '/api/payouts').map((r) => r.query.get('view'))).toEqual([
        'all',
      ]);
      expect(within(table).getAllByRole('row').length).toBeGreaterThan(1);
      expect(screen.queryByText('Nothing waits for your approval.')).toBeNull();
      page.unmount();
    }
  });

  it('when a support or auditor user opens payouts, then a card shows masked alone, without its holder or expiry; an ops user sees the holder', async () => {
    for (const roles of [['support'], ['auditor']] as const) {
      const view = renderApp('/payouts', bffAs([...roles]));
      const table = await screen.findByRole('table', { name: 'Payouts' });
      expect(within(table).getAllByText('411111******1111').length).toBeGreaterThan(0);
      expect(within(table).getAllByText('Card').length).toBeGreaterThan(0);
      expect(within(table).queryByText(/JANE DOE/)).not.toBeInTheDocument();
      view.unmount();
    }
    renderApp('/payouts', bffAs(['ops']));
    const queue = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(queue).getByText(/Card · JANE DOE/)).toBeInTheDocument();
  });

  it('when an ops user approves another’s payout, then the confirmation names the amount in words and the request carries a key', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve the payout' });
    expect(
      within(dialog).getByText(seenAs('Pay €101.00 to 411111******1111?')),
    ).toBeInTheDocument();
    expect(within(dialog).getByText('Seller settlement 1')).toBeInTheDocument();
    await app.user.click(within(dialog).getByRole('button', { name: 'Approve and pay €101.00' }));
    expect(await screen.findByText('Payout approved and paid.')).toBeInTheDocument();
    const [request] = bff.requestsTo(
      'POST',
      '/api/payouts/10000000-0000-4000-8000-000000000001/approve',
    );
    expect(request!.headers.get(IDEMPOTENCY_KEY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    expect(await screen.findByText('Nothing waits for your approval.')).toBeInTheDocument();
  });

  it('when an ops user approves a payout in the queue and its row goes, then the focus moves to the next payout, and to the heading once none is left', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.payouts = [
      makePayout(1),
      makePayout(4, { orderDesc: 'Seller settlement 4' }),
      makePayout(2, { preparedBy: { id: 'u-olga', email: 'olga@example.com' } }),
    ];
    const app = renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    const approve = (desc: string) =>
      within(within(table).getByText(desc).closest('tr')!).getByRole('button', {
        name: /^Approve /,
      });
    await app.user.click(approve('Seller settlement 1'));
    let dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    await app.user.click(dialog.getByRole('button', { name: /^Approve and pay/ }));
    await waitFor(() => {
      expect(within(table).queryByText('Seller settlement 1')).not.toBeInTheDocument();
    });
    // Not the page's body: the payout now in its place.
    await waitFor(() => {
      expect(screen.getByRole('link', { name: 'Seller settlement 4' })).toHaveFocus();
    });

    await app.user.click(approve('Seller settlement 4'));
    dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    await app.user.click(dialog.getByRole('button', { name: /^Approve and pay/ }));
    expect(await screen.findByText('Nothing waits for your approval.')).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByRole('heading', { name: 'Payouts' })).toHaveFocus();
    });
  });

  it('when the tabs are shown, then they read in sentence case like the buttons, and the view of every payout says so rather than "History"', async () => {
    renderApp('/payouts', bffAs(['ops']));
    await screen.findByRole('table', { name: 'Payouts' });
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual([
      'Awaiting my approval',
      'Prepared by me',
      'All payouts',
    ]);
    for (const tab of tabs) expect(tab).toHaveStyle({ textTransform: 'none' });
  });

  it('when an ops user double-clicks Approve and pay, faster than the dialog shows it is sending, then one approval is sent', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    // Sent twice before the screen re-renders its button as busy (a double click on a busy
    // browser, which handles input before the re-render).
    const approve = dialog.getByRole('button', { name: 'Approve and pay €101.00' });
    const form = approve.closest('form')!;
    fireEvent.submit(form);
    fireEvent.submit(form);
    expect(await screen.findByText('Payout approved and paid.')).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(
      bff.requestsTo('POST', '/api/payouts/10000000-0000-4000-8000-000000000001/approve'),
    ).toHaveLength(1);
  });

  it('when the payouts are shown 1440 px wide, then who prepared each shares its Prepared column, so that the six columns fit and end with the decision; an e-mail may wrap after its @ and one’s own decision says you', async () => {
    screenWidth(1440);
    renderApp('/payouts?view=all', bffAs(['ops']));
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(headersOf(table)).toEqual([
      'Prepared',
      'Amount',
      'Destination',
      'Description',
      'State',
      'Decision',
    ]);
    const row = within(table)
      .getAllByRole('row')
      .find((r) => r.textContent.includes('Seller settlement 1'))!;
    const cells = within(row).getAllByRole('cell');
    expect(cells).toHaveLength(6);
    expect(cells[0]).toHaveTextContent(/by otto@example\.com$/);
    expect(cells[4]).toHaveTextContent(/^Awaiting approvalLapses at /);
    expect(within(cells[5]!).getByRole('button', { name: /^Approve / })).toBeInTheDocument();
    expect(within(cells[5]!).getByRole('button', { name: /^Reject / })).toBeInTheDocument();
    // The preparer's e-mail may wrap after its @; one's own decision says "you".
    expect(cells[0]!.querySelector('wbr')).not.toBeNull();
    expect(within(table).getByText('Approved by you')).toBeInTheDocument();
    expect(within(table).queryByText(/olga@example\.com/)).not.toBeInTheDocument();
  });

  it('when the approval queue is shown on a phone, then each payout is one cell with all an approver needs (amount, destination, who prepared it, when it lapses) above Approve and Reject, nothing to the side', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      // 23 h 34 min before the registration lapses.
      vi.setSystemTime(new Date('2026-11-20T09:27:00.000Z'));
      screenWidth(390);
      renderApp('/payouts', bffAs(['ops']));
      const table = await screen.findByRole('table', { name: 'Payouts' });
      expect(headersOf(table)).toEqual(['Payout']);
      const [cell, ...others] = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell');
      expect(others).toHaveLength(0);
      const payout = within(cell!);
      expect(cell).toHaveTextContent(/^€101\.00Seller settlement 1411111\*{6}1111Card · JANE DOE/);
      expect(cell).toHaveTextContent(/Prepared .+ by otto@example\.com/);
      expect(payout.getByText('Awaiting approval')).toBeInTheDocument();
      expect(cell).toHaveTextContent(/Lapses at .+ \(in 23 hours\)/);
      expect(payout.getByRole('link', { name: 'Seller settlement 1' })).toBeInTheDocument();
      expect(payout.getByRole('button', { name: /^Approve / })).toBeInTheDocument();
      expect(payout.getByRole('button', { name: /^Reject / })).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('when the approval queue is shown on a tablet or a small laptop, then the payout takes one column beside its state and the decision', async () => {
    screenWidth(1024);
    renderApp('/payouts', bffAs(['ops']));
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(headersOf(table)).toEqual(['Payout', 'State', 'Decision']);
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells[0]).toHaveTextContent(
      /^€101\.00Seller settlement 1411111\*{6}1111Card · JANE DOE/,
    );
    expect(cells[0]).toHaveTextContent(/by otto@example\.com$/);
    expect(cells[1]).toHaveTextContent(/^Awaiting approvalLapses at /);
    expect(within(cells[2]!).getByRole('button', { name: /^Approve / })).toBeInTheDocument();
    expect(within(cells[2]!).getByRole('button', { name: /^Reject / })).toBeInTheDocument();
  });

  it('when another ops user approves a payout elsewhere, then the live queue drops it and the history shows its outcome without a reload', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(table).getByText('Seller settlement 1')).toBeInTheDocument();
    expect(await screen.findByText('Live')).toBeInTheDocument();
    const first = '10000000-0000-4000-8000-000000000001';
    bff.payments.publish(
      bff.payouts.change(first, {
        state: 'processing',
        decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      }),
    );
    expect(await screen.findByText('Nothing waits for your approval.')).toBeInTheDocument();
    await app.user.click(screen.getByRole('tab', { name: 'All payouts' }));
    const history = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(history).getByText('Approved by ines@example.com')).toBeInTheDocument();
    bff.payments.publish(bff.payouts.change(first, { state: 'approved' }));
    await waitFor(() => {
      expect(within(history).getAllByText('Paid')).toHaveLength(2);
    });
  });

  it('when the event stream drops and comes back, then the queue is fetched again and drops what was decided meanwhile', async () => {
    const bff = bffAs(['ops']);
    renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(table).getByText('Seller settlement 1')).toBeInTheDocument();
    expect(await screen.findByText('Live')).toBeInTheDocument();
    bff.payments.interruptStreams(() => {
      // Decided elsewhere while nothing was streamed (no event reaches this screen).
      bff.payouts.change('10000000-0000-4000-8000-000000000001', {
        state: 'processing',
        decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      });
    });
    expect(await screen.findByText('Nothing waits for your approval.')).toBeInTheDocument();
  });

  it('when an ops user rejects a payout, then a reason is required and sent', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    await app.user.click(await screen.findByRole('button', { name: /^Reject / }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject the payout' });
    await sendWithReason(app.user, dialog, 'Reject', 'wrong account');
    expect(await screen.findByText('Payout rejected; nothing was sent.')).toBeInTheDocument();
    expect(
      bff.requestsTo('POST', '/api/payouts/10000000-0000-4000-8000-000000000001/reject')[0]!.body,
    ).toEqual({ reason: 'wrong account' });
  });

  it('when an ops user withdraws their own payout, then a reason is asked and the rejection is sent; approving stays impossible', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts?view=mine', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(table).queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
    await app.user.click(within(table).getByRole('button', { name: /^Withdraw / }));
    const dialog = await screen.findByRole('dialog', { name: 'Withdraw your payout' });
    await sendWithReason(app.user, dialog, 'Withdraw', 'wrong amount typed');
    expect(
      await screen.findByText('You withdrew the payout; nothing was paid.'),
    ).toBeInTheDocument();
    expect(
      bff.requestsTo('POST', '/api/payouts/10000000-0000-4000-8000-000000000002/reject')[0]!.body,
    ).toEqual({ reason: 'wrong amount typed' });
    // Said as a withdrawal, not as a second person's rejection.
    const row = (await within(table).findByText(/wrong amount typed/)).closest('tr')!;
    expect(row).toHaveTextContent('Withdrawn by you: wrong amount typed');
    expect(row).not.toHaveTextContent(/Rejected/);
  });

  it('when a single payout is rejected or withdrawn, then its dialog says it was not checked but not what to compare "before approving"', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.payouts = [
      makePayout(1, { mode: 'single' }),
      makePayout(2, { mode: 'single', preparedBy: { id: 'u-olga', email: 'olga@example.com' } }),
    ];
    const app = renderApp('/payouts?view=all', bff);
    for (const [button, title] of [
      [/^Reject /, 'Reject the payout'],
      [/^Withdraw /, 'Withdraw your payout'],
    ] as const) {
      await app.user.click(await screen.findByRole('button', { name: button }));
      const dialog = within(await screen.findByRole('dialog', { name: title }));
      expect(dialog.getByText(/the gateway has not checked this destination/)).toBeInTheDocument();
      expect(dialog.queryByText(/Before approving/)).toBeNull();
      await app.user.click(dialog.getByRole('button', { name: 'Cancel' }));
      await waitFor(() => {
        expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      });
    }
  });

  it('when the queue shows a payout, then its row says when it lapses, with how long is left', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      // Payout 1 is checked at 09:01 and its registration lapses 24 hours later: at 09:27 it has
      // 23 h 34 min left, which is not "in 24 hours" (a deadline is never said later than it is).
      vi.setSystemTime(new Date('2026-11-20T09:27:00.000Z'));
      renderApp('/payouts', bffAs(['ops']));
      const table = await screen.findByRole('table', { name: 'Payouts' });
      const row = within(table).getAllByRole('row')[1]!;
      expect(row).toHaveTextContent(/Lapses at .+ \(in 23 hours\)/);
      expect(row.querySelector('time[datetime="2026-11-21T09:01:00.000Z"]')).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('when one payout is shown, then the count says "1 payout", not "1 payouts"', async () => {
    const bff = bffAs(['support']);
    bff.payouts.payouts = [makePayout(3, { state: 'approved' })];
    renderApp('/payouts', bff);
    expect(await screen.findByText('1 payout shown')).toBeInTheDocument();
  });

  it('when an ops user prepares a payout from the approval queue, then the list switches to "Prepared by me", where the new payout is', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    await screen.findByRole('table', { name: 'Payouts' });
    const dialog = await openPrepareDialog(app.user);
    await typeCardPayout(app.user, dialog, {
      cardNumber: '4111 1111 1111 1111',
      cardholderName: 'JANE DOE',
      expiryMonth: '09',
      expiryYear: '2035',
      amount: '61.00',
      description: 'Freshly prepared',
    });
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=mine');
    });
    expect(screen.getByRole('tab', { name: 'Prepared by me' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(await within(table).findByText('Freshly prepared')).toBeInTheDocument();
  });

  it('when an ops user approves a payout above the large-amount threshold, then the dialog says so; below it, it does not', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.payouts = [
      makePayout(1, { amount: '10000.01' }),
      makePayout(2, { amount: '10000.00' }),
    ];
    const app = renderApp('/payouts', bff);
    await app.user.click(
      await screen.findByRole('button', {
        name: 'Approve payout of €10,000.01 to 411111******1111',
      }),
    );
    let dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(
      dialog.getByText(
        /^A large amount: above €10,000\.00\. The ops user who prepared it confirmed it \(in Paydesk by typing it twice\)/,
      ),
    ).toBeInTheDocument();
    await app.user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    await app.user.click(
      screen.getByRole('button', { name: 'Approve payout of €10,000.00 to 411111******1111' }),
    );
    dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(dialog.queryByText(/A large amount/)).not.toBeInTheDocument();
  });

  it('when another payout of the same amount to the same destination waits, then the approve dialog warns of it with a link to it', async () => {
    const bff = bffAs(['ops']);
    const other = '10000000-0000-4000-8000-000000000009';
    bff.payouts.payouts = [
      makePayout(1, { similarPending: [other] }),
      makePayout(9, { amount: '101.00', similarPending: ['10000000-0000-4000-8000-000000000001'] }),
      makePayout(5, { amount: '250.00' }),
    ];
    const app = renderApp('/payouts', bff);
    await app.user.click(
      await screen.findByRole('button', { name: 'Approve payout of €250.00 to 411111******1111' }),
    );
    let dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(dialog.queryByText(/same destination is waiting/)).toBeNull();
    await app.user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });

    const first = screen.getAllByRole('button', {
      name: 'Approve payout of €101.00 to 411111******1111',
    })[0]!;
    await app.user.click(first);
    dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(
      dialog.getByText(/^Another payout of the same amount to the same destination is waiting:/),
    ).toBeInTheDocument();
    const link = dialog.getByRole('link', { name: 'payout 10000000' });
    expect(link).toHaveAttribute('href', `/payouts/${other}`);
    // It opens beside the dialog: the decision in progress stays as it is.
    expect(link).toHaveAttribute('target', '_blank');
  });

  it('when a payout of the same amount to the same destination was approved for payment lately, then the row is marked and the approve dialog warns of it first, as an error, with a link to it (QA: a paid twin went unsaid)', async () => {
    const bff = bffAs(['ops']);
    const paid = '10000000-0000-4000-8000-000000000009';
    bff.payouts.payouts = [
      makePayout(1, { similarSent: [paid] }),
      makePayout(9, { amount: '101.00', state: 'approved' }),
    ];
    const app = renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    const marker = within(table).getByText('Possible duplicate');
    expect(marker.closest('[title]')).toHaveAttribute(
      'title',
      'A payout of the same amount to the same destination was approved for payment in the last 7 days',
    );
    await app.user.click(
      screen.getByRole('button', { name: 'Approve payout of €101.00 to 411111******1111' }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    const alert = dialog
      .getByText(/^A payout of the same amount to the same destination was approved for payment/)
      .closest('.MuiAlert-root');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(alert).toHaveTextContent('Make sure this one is not paying the payee twice.');
    expect(dialog.getByRole('link', { name: 'payout 10000000' })).toHaveAttribute(
      'href',
      `/payouts/${paid}`,
    );
  });

  it('when a payout of the same amount to the same destination was judged not applied and may still be paid late, then the row is marked and the approve dialog warns of it first, as an error, in the words the preparer was cautioned with, with a link to it (QA: only the preparer was warned)', async () => {
    const bff = bffAs(['ops']);
    const late = '10000000-0000-4000-8000-000000000009';
    bff.payouts.payouts = [
      makePayout(1, { similarNotApplied: [late], similarPending: [late] }),
      makePayout(9, { amount: '101.00', state: 'failed', errorCode: 'NOT_APPLIED' }),
    ];
    const app = renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    const marker = within(table).getByText('Possible duplicate');
    expect(marker.closest('.MuiChip-root')).toHaveClass('MuiChip-colorError');
    expect(marker.closest('[title]')).toHaveAttribute(
      'title',
      'A payout of the same amount to the same destination was judged not applied, and the gateway may still pay late',
    );
    await app.user.click(
      screen.getByRole('button', { name: 'Approve payout of €101.00 to 411111******1111' }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    const alert = dialog.getByText(/^Caution:/).closest('.MuiAlert-root');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(alert).toHaveTextContent(
      'Caution: payout 10000000 of the same amount to the same destination was judged not applied, and the gateway may still pay late: check its status before this one is approved, or it may be paid twice.',
    );
    // Said first, before the other twins and the Approve button.
    const alerts = dialog.getAllByRole('alert');
    expect(alerts[0]).toBe(alert);
    expect(
      alert!.compareDocumentPosition(dialog.getByRole('button', { name: /^Approve/ })) &
        Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    const link = within(alert as HTMLElement).getByRole('link', { name: 'payout 10000000' });
    expect(link).toHaveAttribute('href', `/payouts/${late}`);
    expect(link).toHaveAttribute('target', '_blank');
  });

  it('when an ops user prepares a bank payout, then the shared rules run first and the body carries decimal text under a key; a lost reply is retried with the same key', async () => {
    const bff = bffAs(['ops']);
    let first = true;
    bff.on('POST /api/payouts', (request) => {
      const reply = bff.payouts.handle(request, bff.users[0]);
      if (first) {
        first = false;
        return 'network-error';
      }
      return reply!;
    });
    const app = renderApp('/payouts', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Prepare payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Prepare a payout' });
    await app.user.selectOptions(within(dialog).getByLabelText('Destination'), 'bank');
    await app.user.type(
      within(dialog).getByLabelText(/Account number or IBAN/),
      'DE89370400440532013000',
    );
    await app.user.type(within(dialog).getByLabelText(/Bank name/), 'Commerzbank');
    await app.user.type(within(dialog).getByLabelText(/BIC/), 'COBAD');
    await app.user.type(within(dialog).getByLabelText(/^Amount/), '250.5');
    await app.user.type(within(dialog).getByLabelText(/Description/), 'Refund of deposit');
    await app.user.click(
      within(dialog).getByRole('button', { name: 'Check and submit for approval' }),
    );
    expect(
      within(dialog).getByText(
        'This must be an 8 or 11 character BIC: bank code, 2-letter country code, location, optional branch.',
      ),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(0);
    await app.user.type(within(dialog).getByLabelText(/BIC/), 'EFFXXX');
    await app.user.click(
      within(dialog).getByRole('button', { name: 'Check and submit for approval' }),
    );
    expect(await within(dialog).findByText('No answer yet')).toBeInTheDocument();
    await app.user.click(within(dialog).getByRole('button', { name: 'Send again' }));
    expect(await screen.findByText(/waits for a second ops user/)).toBeInTheDocument();
    const requests = bff.requestsTo('POST', '/api/payouts');
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers.get(IDEMPOTENCY_KEY_HEADER)).toBe(
      requests[1]!.headers.get(IDEMPOTENCY_KEY_HEADER),
    );
    expect(requests[0]!.body).toEqual({
      destination: {
        kind: 'bank',
        accountNumber: 'DE89370400440532013000',
        bankName: 'Commerzbank',
        bankBic: 'COBADEFFXXX',
      },
      amount: '250.5',
      currency: 'EUR',
      orderDesc: 'Refund of deposit',
      mode: 'two-step',
    });
    expect(bff.payouts.payouts.filter((p) => p.orderDesc === 'Refund of deposit')).toHaveLength(1);
  });
  it('when an ops user prepares a payout, then two-step is chosen by default, each mode says what it does (single: the BFF’s hold time), and single mode is sent as chosen; once held, it says when it lapses', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const bff = bffAs(['ops']);
    // The BFF's PAYOUT_HOLD_MAX_AGE_MS, said by the session reply: not the default 7 days.
    bff.payoutHoldMaxAgeMs = 3 * 24 * 60 * 60_000;
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    const modes = dialog.getByRole('radiogroup', { name: 'How it is paid' });
    const twoStep = within(modes).getByRole('radio', { name: /^Two-step/ });
    const single = within(modes).getByRole('radio', { name: /^Single/ });
    expect(twoStep).toBeChecked();
    expect(
      within(modes).getByText(
        /^The gateway checks the payee’s details now; approving then pays it\./,
      ),
    ).toBeVisible();
    expect(within(modes).getByText(/sends it as a one-step payout when approved/)).toBeVisible();
    // The gateway's operation names are for engineers, not in what ops read (F2).
    expect(dialog.queryByText(/payout-(check|pay)|v2 payout/)).toBeNull();
    expect(within(modes).getByText(/without any check of the destination/)).toBeVisible();
    expect(within(modes).getByText(/It lapses if not approved within 3 days\.$/)).toBeVisible();
    // The hint is in the locale's form, as the amount is typed.
    expect(dialog.getByText('e.g. 250,00')).toBeVisible();
    expect(dialog.getByRole('button', { name: 'Check and submit for approval' })).toBeVisible();
    await app.user.click(single);
    expect(single).toBeChecked();
    await typeCardPayout(app.user, dialog, {
      cardNumber: '4111 1111 1111 1111',
      cardholderName: 'JANE DOE',
      expiryMonth: '09',
      expiryYear: '2035',
      amount: '250,00',
      description: 'Prize',
    });
    // nothing is checked now, so the button does not say so
    await app.user.click(dialog.getByRole('button', { name: 'Submit for approval' }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(1);
    });
    expect(bff.requestsTo('POST', '/api/payouts')[0]!.body).toMatchObject({
      amount: '250.00',
      mode: 'single',
    });
    const held = bff.payouts.payouts.find((p) => p.orderDesc === 'Prize');
    expect(held?.expiresAt).toBeTruthy();
    // When the hold lapses, in the user's own form and time zone, named (the BFF says it in UTC).
    expect(
      await screen.findByText(
        `The payout is held until a second ops user approves it; it lapses ${formatDateTime(String(held?.expiresAt))} ${formatDateAndTime(String(held?.expiresAt)).zone} if not approved. Nothing was sent yet.`,
      ),
    ).toBeVisible();
  });

  it('when a single-mode payout awaits approval, then its row and the approval call it prepared, not checked, and warn that approving sends it unchecked', async () => {
    const bff = new FakeBff({
      signedInAs: 'olga@example.com',
      users: [
        makeUser({ email: 'olga@example.com', roles: ['ops'] }),
        makeUser({ email: 'otto@example.com', roles: ['ops'] }),
      ],
      payouts: [makePayout(1, { mode: 'single', expiresAt: null })],
    });
    const app = renderApp('/payouts', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(within(table).getByRole('columnheader', { name: 'Prepared' })).toBeInTheDocument();
    expect(within(table).queryByRole('columnheader', { name: 'Checked' })).toBeNull();
    expect(within(table).getByText('Single: not checked by the gateway')).toBeInTheDocument();
    await app.user.click(
      within(table).getByRole('button', { name: 'Approve payout of €101.00 to 411111******1111' }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(dialog.getByText('Prepared')).toBeInTheDocument();
    expect(dialog.queryByText('Checked')).toBeNull();
    expect(dialog.queryByText('Lapses at')).toBeNull();
    expect(dialog.getByText(/the gateway has not checked this destination/)).toBeInTheDocument();
    expect(
      dialog.getByText(/^Approving sends the payout for exactly these details in one step/),
    ).toBeInTheDocument();
    expect(dialog.queryByText(/payout-pay|v2 payout/)).toBeNull();
  });

  it('when a two-step payout awaits approval, then the approval still says when it was checked and that approving pays it, without the gateway’s operation names', async () => {
    const app = renderApp('/payouts', bffAs(['ops']));
    await app.user.click(
      await screen.findByRole('button', { name: 'Approve payout of €101.00 to 411111******1111' }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(dialog.getByText('Checked')).toBeInTheDocument();
    // Said as the list says it.
    expect(dialog.getByText('Lapses at')).toBeInTheDocument();
    expect(dialog.queryByText('Registration lapses')).toBeNull();
    expect(dialog.queryByText('Check expires')).toBeNull();
    expect(dialog.queryByText(/has not checked/)).toBeNull();
    expect(
      dialog.getByText(/^Approving pays the payout the gateway checked, for exactly these details/),
    ).toBeInTheDocument();
    expect(dialog.queryByText(/payout-(check|pay)/)).toBeNull();
  });

  it('when the gateway refused a payout, then its row names the error code once', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.payouts = [
      makePayout(4, {
        state: 'failed',
        errorCode: 'VALIDATION_FAILED',
        errorMessage:
          'The gateway rejected the payout-check (VALIDATION_FAILED): destination not allowed',
      }),
    ];
    renderApp('/payouts?view=all', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    expect(
      within(table).getByText(
        'The gateway rejected the payout-check (VALIDATION_FAILED): destination not allowed',
      ),
    ).toBeInTheDocument();
    expect(table.textContent.match(/VALIDATION_FAILED/g)).toHaveLength(1);
  });

  it.each([
    [
      'the gateway answered 500 (a check whose outcome is not known)',
      {
        state: 'checking',
        errorCode: 'INTERNAL',
        errorMessage: 'gateway answered 500',
        unanswered: { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
      },
      'The gateway answered 500',
    ],
    [
      'the reply to the payout was lost',
      {
        state: 'unknown',
        errorCode: null,
        errorMessage: 'connection lost before a reply (UND_ERR_SOCKET)',
        unanswered: { kind: 'connection-closed' },
      },
      'No answer came from the gateway',
    ],
    [
      'no answer came to the payout in time',
      {
        state: 'unknown',
        errorCode: null,
        errorMessage: 'no reply within 15000 ms',
        unanswered: { kind: 'timeout', waitedMs: 15_000 },
      },
      'No answer came from the gateway within 15 s',
    ],
    [
      'Paydesk judged it not applied',
      {
        state: 'failed',
        errorCode: 'NOT_APPLIED',
        errorMessage:
          'The gateway still did not show the payout 1 minute after it was sent, so Paydesk judged it not applied.',
      },
      'The gateway still did not show the payout 1 minute after it was sent, so Paydesk judged it not applied.',
    ],
  ] as const)(
    'when %s, then its row says so in one plain sentence, with no raw code leading it',
    async (_what, overrides, words) => {
      const bff = bffAs(['ops']);
      bff.payouts.payouts = [makePayout(4, { ...overrides })];
      renderApp('/payouts?view=all', bff);
      const table = await screen.findByRole('table', { name: 'Payouts' });
      expect(within(table).getByText(words)).toBeInTheDocument();
      expect(table.textContent).not.toMatch(
        /NOT_APPLIED|INTERNAL|injected fault|UND_ERR|connection-lost|server-error|15000 ms/,
      );
      expect(table.textContent.match(/INTERNAL/g)?.length ?? 0).toBeLessThanOrEqual(1);
    },
  );

  it('when several payouts wait, then each row’s Approve and Reject name the payout they decide', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.payouts = [
      makePayout(1),
      makePayout(5, {
        amount: '250.00',
        destination: { kind: 'bank', masked: '******3000', label: 'Commerzbank COBADEFFXXX' },
      }),
      makePayout(2, { preparedBy: { id: 'u-olga', email: 'olga@example.com' } }),
    ];
    renderApp('/payouts?view=all', bff);
    const table = await screen.findByRole('table', { name: 'Payouts' });
    const names = within(table)
      .getAllByRole('button')
      .map((button) => button.getAttribute('aria-label'));
    expect(names).toEqual([
      'Approve payout of €250.00 to ******3000',
      'Reject payout of €250.00 to ******3000',
      'Withdraw payout of €102.00 to 411111******1111',
      'Approve payout of €101.00 to 411111******1111',
      'Reject payout of €101.00 to 411111******1111',
    ]);
    // the visible words stay short; the name begins with them
    expect(
      within(table).getByRole('button', { name: 'Approve payout of €250.00 to ******3000' }),
    ).toHaveTextContent(/^Approve$/);
  });

  it('when the screen is narrower than the tabs, then they scroll sideways rather than cut off a tab', async () => {
    renderApp('/payouts', bffAs(['ops']));
    const tabs = await screen.findByRole('tablist', { name: 'Which payouts' });
    expect(
      within(tabs)
        .getAllByRole('tab')
        .map((tab) => tab.textContent),
    ).toEqual(['Awaiting my approval', 'Prepared by me', 'All payouts']);
    // MUI's scrollable tabs: the strip scrolls (with arrows on a phone); fixed tabs clip
    expect(getComputedStyle(tabs.parentElement!).overflowX).toBe('auto');
  });
  it('when an older BFF instance answers the session without settings (during an upgrade), then the single mode says the default hold time as a default, and the dialog works', async () => {
    const bff = bffAs(['ops']);
    bff.payoutHoldMaxAgeMs = null;
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    expect(
      dialog.getByText(
        /It lapses if not approved within a set time \(7 days unless your administrator changed it\)\.$/,
      ),
    ).toBeVisible();
  });

  it('when the server says what is wrong with a field (an expired card) and names a rule for another, then both read as sentences beside their fields, and changing one field clears the server’s words about it alone', async () => {
    // The browser's clock says the card is still valid (the dialog would say it expired itself);
    // the BFF's, a month on, says it is not.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2025-01-15T12:00:00Z') });
    const bff = bffAs(['ops']).on('POST /api/payouts', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'destination.expiryYear: the card expired at the end of 01/2025',
          requestId: 'r-400',
          details: {
            fields: [
              {
                path: 'destination.expiryYear',
                rule: 'card_expired',
                message: 'the card expired at the end of 01/2025',
              },
              {
                path: 'endpointId',
                rule: 'custom',
                message: 'must be a configured endpoint or endpoint group',
              },
            ],
          },
        },
      },
    }));
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    await typeCardPayout(app.user, dialog, {
      cardNumber: '4111111111111111',
      cardholderName: 'JANE DOE',
      expiryMonth: '01',
      expiryYear: '2025',
      amount: '5.00',
      description: 'Prize',
    });
    await app.user.type(dialog.getByLabelText(/Endpoint/), '999999');
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    const year = dialog.getByLabelText(/Expiry year/);
    await waitFor(() => {
      expect(year).toHaveAccessibleDescription('The card expired at the end of 01/2025.');
    });
    const endpointRule = 'This must be a configured endpoint or endpoint group.';
    expect(dialog.getByLabelText(/Endpoint/)).toHaveAccessibleDescription(endpointRule);
    await app.user.clear(year);
    await app.user.type(year, '2035');
    expect(year).toHaveAccessibleDescription('YYYY');
    expect(year).not.toHaveAttribute('aria-invalid', 'true');
    expect(dialog.queryByText(/card expired/)).toBeNull();
    expect(dialog.getByLabelText(/Endpoint/)).toHaveAccessibleDescription(endpointRule);
    // Still said beside its field: no alert above the fields repeats it.
    expect(dialog.queryByRole('alert')).toBeNull();
    expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(1);
    vi.useRealTimers();
  });

  it('when an amount with three decimals or above the maximum is typed in de-DE, then the rule says so with the decimal comma, as in the other dialogs', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    await app.user.type(dialog.getByLabelText(/^Amount/), '12,345');
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    expect(dialog.getByLabelText(/^Amount/)).toHaveAccessibleDescription(
      'An amount above zero with at most 2 decimals, e.g. 19,99.',
    );
    // More than the API takes: its maximum, said with the decimal comma too.
    await app.user.clear(dialog.getByLabelText(/^Amount/));
    await app.user.type(dialog.getByLabelText(/^Amount/), '99999999999999999');
    expect(dialog.getByLabelText(/^Amount/)).toHaveAccessibleDescription(
      'At most 9999999999999,99.',
    );
    expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(0);
  });

  it('when an IBAN is typed as printed, then wrong check digits are refused beside the field before anything is sent, and the right IBAN is sent without its spaces', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    await app.user.selectOptions(dialog.getByLabelText('Destination'), 'bank');
    const account = dialog.getByLabelText(/Account number or IBAN/);
    await app.user.type(account, 'DE00 3704 0044 0532 0130 00');
    await app.user.type(dialog.getByLabelText(/Bank name/), 'Commerzbank');
    await app.user.type(dialog.getByLabelText(/BIC/), 'COBADEFFXXX');
    await app.user.type(dialog.getByLabelText(/^Amount/), '1234.56');
    await app.user.type(dialog.getByLabelText(/Description/), 'Invoice 42');
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    expect(account).toHaveAccessibleDescription(
      'This is not a valid IBAN: its check digits do not match (look for a typing error).',
    );
    expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(0);
    await app.user.clear(account);
    await app.user.type(account, 'DE89 3704 0044 0532 0130 00');
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(1);
    });
    expect(bff.requestsTo('POST', '/api/payouts')[0]!.body).toMatchObject({
      destination: { kind: 'bank', accountNumber: 'DE89370400440532013000' },
      amount: '1234.56',
    });
  });

  it('when a card of a past year has a month that is none, then on the first submit its year says it expired beside every other refusal, and once the month is right the expiry is said in full', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-27T12:00:00Z') });
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    const number = dialog.getByLabelText(/^Card number/);
    const month = dialog.getByLabelText(/^Expiry month/);
    const year = dialog.getByLabelText(/^Expiry year/);
    await typeCardPayout(app.user, dialog, {
      cardNumber: '4111111111111112',
      cardholderName: 'X',
      expiryMonth: '13',
      expiryYear: '2020',
      amount: '25.00',
      description: 'bad',
    });
    const submit = dialog.getByRole('button', { name: 'Check and submit for approval' });
    await app.user.click(submit);
    expect(number).toHaveAccessibleDescription(
      'This is not a valid card number: its check digit does not match (look for a typing error).',
    );
    expect(month).toHaveAccessibleDescription('This must be a month from 1 to 12.');
    expect(year).toHaveAccessibleDescription('The card expired in 2020.');
    expect(year).toHaveAttribute('aria-invalid', 'true');
    await app.user.clear(month);
    await app.user.type(month, '01');
    expect(year).toHaveAccessibleDescription('The card expired at the end of 01/2020.');
    expect(month).not.toHaveAttribute('aria-invalid', 'true');
    // A year no card has (a slip): said at the year, as the BFF says it.
    await app.user.clear(year);
    await app.user.type(year, '9999');
    expect(year).toHaveAccessibleDescription(
      /^This must be at most 20 years ahead \(\d{4} at the latest\)\.$/,
    );
    expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(0);
    vi.useRealTimers();
  });

  it('when a card payout has a mistyped number, an expired card and a currency not 3 letters, then each is said beside its field as the other forms say it, and nothing is sent until they are right', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-27T12:00:00Z') });
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    const number = dialog.getByLabelText(/^Card number/);
    const month = dialog.getByLabelText(/^Expiry month/);
    const year = dialog.getByLabelText(/^Expiry year/);
    const currency = dialog.getByLabelText(/^Currency/);
    await app.user.type(number, '4111111111111112');
    await app.user.type(dialog.getByLabelText(/^Cardholder name/), 'Jane Doe');
    await app.user.type(month, '10');
    await app.user.type(year, '2026');
    await app.user.type(dialog.getByLabelText(/^Amount/), '25.00');
    await app.user.clear(currency);
    await app.user.type(currency, 'EURO');
    await app.user.type(dialog.getByLabelText(/Description/), 'Refund of deposit');
    const submit = dialog.getByRole('button', { name: 'Check and submit for approval' });
    await app.user.click(submit);
    expect(number).toHaveAccessibleDescription(
      'This is not a valid card number: its check digit does not match (look for a typing error).',
    );
    expect(currency).toHaveAccessibleDescription('A 3-letter ISO code, e.g. EUR.');
    // Said on the same submit as the others, not only once they are right.
    expect(month).toHaveAccessibleDescription('The card expired at the end of 10/2026.');
    await app.user.clear(number);
    await app.user.type(number, '4111111111111111');
    await app.user.clear(currency);
    await app.user.type(currency, 'EUR');
    await app.user.click(submit);
    // October 2026 ended before 27 November 2026: the BFF would refuse it by its own clock.
    expect(month).toHaveAccessibleDescription('The card expired at the end of 10/2026.');
    expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(0);
    await app.user.clear(month);
    await app.user.type(month, '11');
    await app.user.click(submit);
    await waitFor(() => {
      expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(1);
    });
    expect(bff.requestsTo('POST', '/api/payouts')[0]!.body).toMatchObject({
      destination: { kind: 'card', expiryMonth: '11', expiryYear: '2026' },
      currency: 'EUR',
    });
    vi.useRealTimers();
  });

  it('when destination fields are left empty, then each says what to enter rather than a bare "Required."; a phone number’s rule is said in words', async () => {
    const app = renderApp('/payouts', bffAs(['ops']));
    const dialog = await openPrepareDialog(app.user);
    const submit = () =>
      app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    await app.user.selectOptions(dialog.getByLabelText('Destination'), 'bank');
    await submit();
    expect(dialog.getByLabelText(/^Bank name/)).toHaveAccessibleDescription(
      'Enter the name of the payee’s bank.',
    );
    expect(dialog.getByLabelText(/^Description/)).toHaveAccessibleDescription(
      'Say what the payout is for (up to 1024 characters); the approver sees it.',
    );
    await app.user.selectOptions(dialog.getByLabelText('Destination'), 'ewallet');
    expect(dialog.getByLabelText(/^E-wallet id/)).toHaveAccessibleDescription(
      'Enter the payee’s id in that e-wallet (an e-mail address or account id).',
    );
    await app.user.selectOptions(dialog.getByLabelText('Destination'), 'phone');
    expect(dialog.getByLabelText(/^FPS bank id/)).toHaveAccessibleDescription(
      'Enter the payee’s FPS bank id.',
    );
    await app.user.type(dialog.getByLabelText(/^Phone number/), '12#45');
    expect(dialog.getByLabelText(/^Phone number/)).toHaveAccessibleDescription(
      'Enter the phone number, e.g. +44 7700 900123: 6 to 15 digits and a leading +; spaces, dashes and brackets are fine.',
    );
    expect(dialog.queryByText('Required.')).not.toBeInTheDocument();
    expect(dialog.queryByText(PHONE_MESSAGE)).not.toBeInTheDocument();
  });

  it('when a card’s expiry month is typed without its leading zero ("9"), then it is taken and sent as two digits ("09")', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-27T12:00:00Z') });
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    const month = dialog.getByLabelText(/^Expiry month/);
    expect(month).toHaveAccessibleDescription('1 to 12, e.g. 9 or 09');
    await typeCardPayout(app.user, dialog, {
      cardNumber: '4111111111111111',
      cardholderName: 'Jane Doe',
      expiryMonth: '13',
      expiryYear: '2027',
      amount: '25.00',
      description: 'Refund of deposit',
    });
    const submit = dialog.getByRole('button', { name: 'Check and submit for approval' });
    await app.user.click(submit);
    expect(month).toHaveAccessibleDescription('This must be a month from 1 to 12.');
    await app.user.clear(month);
    await app.user.type(month, '9');
    await app.user.click(submit);
    await waitFor(() => {
      expect(bff.requestsTo('POST', '/api/payouts')).toHaveLength(1);
    });
    expect(bff.requestsTo('POST', '/api/payouts')[0]!.body).toMatchObject({
      destination: { kind: 'card', expiryMonth: '09', expiryYear: '2027' },
    });
    vi.useRealTimers();
  });

  it('when a bank payout to an IBAN awaits approval, then the approver is told to compare the characters shown, the bank name and the BIC with the payee’s details, unchecked (single) or checked (two-step)', async () => {
    const iban = {
      kind: 'bank',
      masked: 'DE89 **** **** **** **30 00',
      label: 'Commerzbank (COBADEFFXXX)',
    } as const;
    const bff = new FakeBff({
      signedInAs: 'olga@example.com',
      users: [
        makeUser({ email: 'olga@example.com', roles: ['ops'] }),
        makeUser({ email: 'otto@example.com', roles: ['ops'] }),
      ],
      payouts: [
        makePayout(1, { mode: 'single', expiresAt: null, destination: iban }),
        makePayout(2, { destination: iban }),
      ],
    });
    const app = renderApp('/payouts', bff);
    const compare =
      'compare the account number’s characters shown, the bank name and the BIC with the payee’s details.';
    await app.user.click(
      await screen.findByRole('button', {
        name: 'Approve payout of €101.00 to DE89 **** **** **** **30 00',
      }),
    );
    const single = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(single.getByText(seenAs('Pay €101.00 to DE89 **** **** **** **30 00?'))).toBeVisible();
    expect(
      single.getByText(
        `Single payout: the gateway has not checked this destination. Before approving, ${compare}`,
      ),
    ).toBeVisible();
    expect(
      single.getByText('Bank account DE89 **** **** **** **30 00 · Commerzbank (COBADEFFXXX)'),
    ).toBeVisible();
    await app.user.click(single.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull();
    });
    await app.user.click(
      screen.getByRole('button', {
        name: 'Approve payout of €102.00 to DE89 **** **** **** **30 00',
      }),
    );
    const twoStep = within(await screen.findByRole('dialog', { name: 'Approve the payout' }));
    expect(
      twoStep.getByText(
        `The gateway checked that this destination can be paid, not that it is the payee’s: ${compare}`,
      ),
    ).toBeVisible();
    expect(twoStep.queryByText(/has not checked/)).toBeNull();
  });

  it('when the server refuses a field of a prepared payout, then its rule is said beside that field as a sentence, and nowhere else', async () => {
    const bff = bffAs(['ops']).on('POST /api/payouts', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'invalid',
          requestId: 'r-400',
          details: {
            fields: [
              {
                path: 'endpointId',
                rule: 'custom',
                message: 'must be a configured endpoint or endpoint group',
              },
            ],
          },
        },
      },
    }));
    const app = renderApp('/payouts', bff);
    const dialog = await openPrepareDialog(app.user);
    await typeCardPayout(app.user, dialog, {
      cardNumber: '4111111111111111',
      cardholderName: 'JANE DOE',
      expiryMonth: '09',
      expiryYear: '2035',
      amount: '5.00',
      description: 'Prize',
    });
    await app.user.type(dialog.getByLabelText(/Endpoint/), '999999');
    await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
    const rule = 'This must be a configured endpoint or endpoint group.';
    await waitFor(() => {
      expect(dialog.getByLabelText(/Endpoint/)).toHaveAccessibleDescription(rule);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.getAllByText(rule)).toHaveLength(1);
    expect(screen.queryByText('Some fields need attention.')).toBeNull();
  });
});
