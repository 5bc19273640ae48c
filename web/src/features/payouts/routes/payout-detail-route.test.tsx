import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { sendWithReason } from '../../../test/decision-dialog';
import { FakeBff, makePayout, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const FIRST = '10000000-0000-4000-8000-000000000001';
const OWN = '10000000-0000-4000-8000-000000000002';
const LOST = '10000000-0000-4000-8000-000000000003';

// Otto prepared payout 1; Olga (signed in) prepared payout 2; payout 3's payout-pay reply was lost.
function bffAs(roles: Parameters<typeof makeUser>[0]['roles']) {
  const bff = new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles }),
      makeUser({ email: 'otto@example.com', name: 'Otto Ops', roles: ['ops'] }),
    ],
    payouts: [
      makePayout(1),
      makePayout(2, { preparedBy: { id: 'u-olga', email: 'olga@example.com' } }),
      makePayout(3, {
        state: 'unknown',
        decidedBy: { id: 'u-ines', email: 'ines@example.com' },
        decidedAt: '2026-11-20T10:00:00.000Z',
        errorMessage: 'timeout',
      }),
    ],
  });
  bff.payouts.events.set(LOST, [
    {
      at: '2026-11-20T09:03:00.000Z',
      kind: 'staff',
      title: "payout prepared; payee's details sent to the gateway for checking",
      actor: 'otto@example.com',
      data: {},
    },
    {
      at: '2026-11-20T10:00:00.000Z',
      kind: 'gateway',
      title: 'payment of the checked payout',
      actor: 'ines@example.com',
      data: { outcome: 'unknown', reason: 'timeout' },
    },
    {
      at: '2026-11-20T10:00:05.000Z',
      kind: 'reconcile',
      title: 'status check',
      actor: null,
      data: { outcome: 'reply' },
    },
  ]);
  return bff;
}

describe('payout detail', () => {
  it('when a payout’s timeline was written with the gateway’s operation names, then its titles are said in staff’s words; the raw exchange keeps the name', async () => {
    const bff = bffAs(['ops']);
    const old = [
      'payout prepared; payout-check sent',
      'payout-check',
      'status after payout-check',
      'status before payout-pay',
      'payout-pay',
      'expired at the gateway before payout-pay',
    ];
    bff.payouts.events.set(
      LOST,
      old.map((title, i) => ({
        at: `2026-11-20T09:0${String(i)}:00.000Z`,
        kind: title.startsWith('payout prepared') ? ('staff' as const) : ('gateway' as const),
        title,
        actor: null,
        data: { operation: 'payout-pay' },
      })),
    );
    renderApp(`/payouts/${LOST}`, bff);
    const timeline = await screen.findByRole('list', { name: 'Timeline' });
    const titles = within(timeline)
      .getAllByRole('listitem')
      .map((i) => i.textContent);
    expect(titles).toEqual([
      expect.stringContaining("Payout prepared; payee's details sent to the gateway for checking"),
      expect.stringContaining("Check of the payee's details"),
      expect.stringContaining('Status after the check'),
      expect.stringContaining('Status before paying'),
      expect.stringContaining('Payment of the checked payout'),
      expect.stringContaining('Expired at the gateway before it was paid'),
    ]);
    for (const t of titles) {
      // the title line says it in words; the raw exchange under Details keeps the name
      expect(t.split('Details')[0]).not.toMatch(/payout-(check|pay)/);
      expect(t).toContain('"operation": "payout-pay"');
    }
  });

  it('when an ops user opens a payout from the queue, then they see what was checked, the gateway order and its timeline, and can decide it there', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payouts', bff);
    await app.user.click(await screen.findByRole('link', { name: 'Seller settlement 1' }));
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${FIRST}`);
    });
    expect(await screen.findByRole('heading', { name: 'Payout of €101.00' })).toBeInTheDocument();
    expect(screen.getByText('Awaiting approval')).toBeInTheDocument();
    expect(
      screen.getByText(/Waits for an ops user other than otto@example.com/),
    ).toBeInTheDocument();
    expect(screen.getByText('Card 411111******1111 · JANE DOE')).toBeInTheDocument();
    expect(screen.getByText('payout-1')).toBeInTheDocument();
    // registered, not sent: no order of it reaches Transactions yet
    expect(screen.getByText('700001')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /in Transactions/ })).not.toBeInTheDocument();
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(
      within(timeline).getByText(
        "Payout prepared; payee's details sent to the gateway for checking",
      ),
    ).toBeInTheDocument();

    await app.user.click(screen.getByRole('button', { name: /^Reject / }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject the payout' });
    await sendWithReason(app.user, dialog, 'Reject', 'wrong account');
    expect(await within(timeline).findByText('Payout rejected')).toBeInTheDocument();
    expect(screen.getByText(/Rejected by olga@example.com: wrong account/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
    // The Reject button went with the decision: the heading has the focus, not the page's body.
    await waitFor(() => {
      expect(screen.getByRole('heading', { name: 'Payout of €101.00' })).toHaveFocus();
    });
  });

  it('when the preparer withdraws their own payout, then its page says it was withdrawn by its preparer, not rejected', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp(`/payouts/${OWN}`, bff);
    await app.user.click(await screen.findByRole('button', { name: /^Withdraw / }));
    const dialog = await screen.findByRole('dialog', { name: 'Withdraw your payout' });
    await sendWithReason(app.user, dialog, 'Withdraw', 'typed it twice');
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(
      await within(timeline).findByText('Payout withdrawn by its preparer'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Withdrawn by its preparer olga@example.com: typed it twice/),
    ).toBeInTheDocument();
    const panel = screen.getByRole('region', { name: 'Four eyes' });
    expect(within(panel).getByText('Withdrawn by')).toBeInTheDocument();
    expect(within(panel).queryByText('Rejected by')).toBeNull();
    expect(screen.getByText('Withdrawn')).toBeInTheDocument();
    expect(screen.queryByText(/Rejected/)).toBeNull();
  });

  it('when the rejection’s reason ends with its own full stop, then the banner does not add a second (QA)', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.change(FIRST, {
      state: 'rejected',
      rejectReason: 'Payee wallet id does not match the contract.',
      decidedBy: { id: 'u-olga', email: 'olga@example.com' },
    });
    renderApp(`/payouts/${FIRST}`, bff);
    expect(
      await screen.findByText(
        'Rejected by olga@example.com: Payee wallet id does not match the contract. Nothing was paid.',
      ),
    ).toBeInTheDocument();
  });

  it('when a single payout was rejected or lapsed, then its gateway order id is "none (never sent)", not "not known yet"', async () => {
    for (const state of ['rejected', 'expired'] as const) {
      const bff = bffAs(['ops']);
      bff.payouts.change(FIRST, {
        mode: 'single',
        state,
        orderid: null,
        ...(state === 'rejected'
          ? { rejectReason: 'no', decidedBy: { id: 'u-olga', email: 'olga@example.com' } }
          : {}),
      });
      const view = renderApp(`/payouts/${FIRST}`, bff);
      const order = await screen.findByRole('region', { name: 'Gateway order' });
      expect(within(order).getByText('none (never sent)')).toBeInTheDocument();
      expect(within(order).queryByText('not known yet')).toBeNull();
      view.unmount();
    }
    // Waiting for approval: not sent yet.
    const waiting = bffAs(['ops']);
    waiting.payouts.change(FIRST, { mode: 'single', orderid: null });
    renderApp(`/payouts/${FIRST}`, waiting);
    const order = await screen.findByRole('region', { name: 'Gateway order' });
    expect(within(order).getByText('not known yet')).toBeInTheDocument();
  });

  it('when another payout of the same amount to the same destination waits, then the page warns of it and its link opens that payout', async () => {
    const bff = bffAs(['ops']);
    const other = '10000000-0000-4000-8000-000000000009';
    bff.payouts.payouts.push(makePayout(9, { amount: '101.00', orderDesc: 'The other one' }));
    bff.payouts.change(FIRST, { similarPending: [other] });
    const app = renderApp(`/payouts/${FIRST}`, bff);
    expect(
      await screen.findByText(
        /^Another payout of the same amount to the same destination is waiting:/,
      ),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('link', { name: 'payout 10000000' }));
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${other}`);
    });
    expect(await screen.findAllByText(/The other one/)).not.toHaveLength(0);
    expect(screen.queryByText(/same destination is waiting/)).toBeNull();
  });

  it('when a payout of the same amount to the same destination was judged not applied and may still be paid late, then the page cautions of it, as an error, and its link opens that payout (QA: only the preparer was warned)', async () => {
    const bff = bffAs(['ops']);
    const late = '10000000-0000-4000-8000-000000000009';
    bff.payouts.payouts.push(
      makePayout(9, {
        amount: '101.00',
        orderDesc: 'The one judged not applied',
        state: 'failed',
        errorCode: 'NOT_APPLIED',
      }),
    );
    bff.payouts.change(FIRST, { similarNotApplied: [late] });
    const app = renderApp(`/payouts/${FIRST}`, bff);
    const said = await screen.findByText(/^Caution:/);
    expect(said.closest('.MuiAlert-root')).toHaveClass('MuiAlert-colorError');
    expect(said.closest('.MuiAlert-root')).toHaveTextContent(
      'Caution: payout 10000000 of the same amount to the same destination was judged not applied, and the gateway may still pay late: check its status before this one is approved, or it may be paid twice.',
    );
    await app.user.click(screen.getByRole('link', { name: 'payout 10000000' }));
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${late}`);
    });
    expect(await screen.findAllByText(/The one judged not applied/)).not.toHaveLength(0);
  });

  it('when the preparer opens their own pending payout, then they may withdraw it but not approve it', async () => {
    renderApp(`/payouts/${OWN}`, bffAs(['ops']));
    expect(await screen.findByRole('heading', { name: 'Payout of €102.00' })).toBeInTheDocument();
    expect(screen.getByText('Yours: another ops user approves')).toBeInTheDocument();
    // Told as its preparer, not by their own address in the third person (QA).
    expect(
      screen.getByText(/Waits for an ops user other than you to approve it/),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^Withdraw / })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });

  it('when a payout’s reply was lost, then a support reader sees that its outcome is followed and that it is never sent again, with each status check', async () => {
    renderApp(`/payouts/${LOST}`, bffAs(['support']));
    expect(await screen.findByText('Unknown outcome')).toBeInTheDocument();
    // What happens next, truthfully: not sent again on its own, but it may be paid again.
    expect(
      screen.getByText(
        /Paydesk does not send the payout again on its own: it checks its status .+, and if the gateway does not show it, an ops user other than otto@example\.com can pay it again\. Do not prepare it again meanwhile\./,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/never sends/)).toBeNull();
    expect(screen.getByText('Approved by')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'its order in Transactions' })).toHaveAttribute(
      'href',
      '/transactions?q=700003',
    );
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(
      within(timeline)
        .getAllByRole('listitem')
        .map((i) => i.textContent),
    ).toEqual([
      expect.stringContaining("Payout prepared; payee's details sent to the gateway for checking"),
      expect.stringContaining('Payment of the checked payout'),
      expect.stringContaining('Status check'),
    ]);
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });

  it('when a support user opens a card payout, then its destination is the masked card alone, without the holder or expiry', async () => {
    renderApp(`/payouts/${FIRST}`, bffAs(['support']));
    const payout = await screen.findByRole('region', { name: 'Payout' });
    expect(within(payout).getByText('Card 411111******1111')).toBeInTheDocument();
    expect(screen.queryByText(/JANE DOE/)).not.toBeInTheDocument();
  });

  it('when the address names no payout, then the page says so and leads back', async () => {
    renderApp('/payouts/no-such-payout', bffAs(['ops']));
    expect(await screen.findByRole('heading', { name: 'Payout not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'all payouts' })).toHaveAttribute('href', '/payouts');
  });
  it('when a single-mode payout awaits approval, then its page warns that the gateway has not checked it and that approving sends it', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.change(FIRST, { mode: 'single', expiresAt: null });
    renderApp(`/payouts/${FIRST}`, bff);
    expect(await screen.findByRole('heading', { name: 'Payout of €101.00' })).toBeInTheDocument();
    expect(screen.getByText(/the gateway has not checked this destination/)).toBeInTheDocument();
    expect(screen.getByText(/Approving sends the payout itself/)).toBeInTheDocument();
    expect(
      screen.getByText(/^Single: held unchecked, and sent as a one-step payout/),
    ).toBeInTheDocument();
    expect(document.body.textContent).not.toMatch(/payout-(check|pay)|v2 payout/);
    expect(screen.getByText(/^Single: held unchecked/)).toBeInTheDocument();
    expect(screen.queryByText('Registration lapses')).toBeNull();
  });

  it('when a single-mode payout is held, then its page says when it lapses; once it lapsed, that it expired and its held destination was erased', async () => {
    const lapses = '2026-11-27T09:01:00.000Z';
    const held = bffAs(['ops']);
    held.payouts.change(FIRST, { mode: 'single', expiresAt: lapses });
    const view = renderApp(`/payouts/${FIRST}`, held);
    const order = await screen.findByRole('region', { name: 'Gateway order' });
    expect(within(order).getByText('Lapses at')).toBeInTheDocument();
    expect(order.querySelector(`time[datetime="${lapses}"]`)).not.toBeNull();
    const notes = () => screen.getAllByRole('alert').map((a) => a.textContent);
    expect(notes()).toContainEqual(
      expect.stringMatching(/it lapses .+ and its held destination is erased/),
    );
    expect(screen.queryByText('Registration lapses')).toBeNull();
    view.unmount();

    const lapsed = bffAs(['ops']);
    lapsed.payouts.change(FIRST, { mode: 'single', state: 'expired', expiresAt: lapses });
    renderApp(`/payouts/${FIRST}`, lapsed);
    const after = await screen.findByRole('region', { name: 'Gateway order' });
    expect(within(after).getByText('Lapsed at')).toBeInTheDocument();
    expect(notes()).toContainEqual(
      expect.stringMatching(
        /^It lapsed .+ before anyone approved it and its held destination was erased/,
      ),
    );
    expect(screen.getByText('Expired')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve/ })).not.toBeInTheDocument();
  });

  it.each([
    [
      {
        kind: 'error',
        httpStatus: 500,
        code: 'INTERNAL',
        message: 'injected fault: the gateway failed before applying the operation',
      },
      // its status once; the gateway's own code and words stay in the timeline
      'the gateway answered 500',
    ],
    [{ kind: 'timeout', waitedMs: 15_000 }, 'no answer came from the gateway within 15 s'],
    [{ kind: 'connection-closed' }, 'no answer came from the gateway'],
  ] as const)(
    'when a payout’s outcome went unlearned (%j), then its page says how in the words an order’s operations use, not its recorded words',
    async (unanswered, words) => {
      const bff = bffAs(['support']);
      // the words recorded beside it are for the timeline: never read, whatever they say
      bff.payouts.change(LOST, {
        errorCode: 'CONNECTION-LOST',
        errorMessage: 'connection lost before a reply (UND_ERR_SOCKET)',
        unanswered,
      });
      renderApp(`/payouts/${LOST}`, bff);
      const note = await screen.findByText(/^The outcome is not known yet/);
      expect(note.textContent).toMatch(
        new RegExp(
          `^The outcome is not known yet: ${words.replace(/[()]/g, '\\$&')}\\. Paydesk does not send`,
        ),
      );
      expect(document.body.textContent).not.toMatch(
        /UND_ERR|connection lost before|CONNECTION-LOST|injected fault|INTERNAL/,
      );
    },
  );

  it('when an unknown payout’s scheduled status checks have stopped, then its page says only “Check payment status” asks now, not that Paydesk checks (QA)', async () => {
    const bff = bffAs(['ops']);
    const first = renderApp(`/payouts/${LOST}`, bff);
    const checking = await screen.findByText(/^The outcome is not known yet/);
    expect(checking).toHaveTextContent(
      'it checks its status (“Check payment status” asks now), and',
    );
    first.unmount();
    bff.payouts.change(LOST, { checksStopped: true });
    renderApp(`/payouts/${LOST}`, bff);
    const stopped = await screen.findByText(/^The outcome is not known yet/);
    expect(stopped).toHaveTextContent(
      'its scheduled status checks have stopped without an answer, so only “Check payment status” asks now, and',
    );
    expect(stopped).not.toHaveTextContent('it checks its status');
  });

  it('when the gateway refused a payout, then its page names the error code once', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.change(FIRST, {
      state: 'failed',
      errorCode: 'VALIDATION_FAILED',
      errorMessage: 'The gateway rejected the payout-pay (VALIDATION_FAILED): card expired',
    });
    renderApp(`/payouts/${FIRST}`, bff);
    const note = await screen.findByText(
      'The gateway rejected the payout-pay (VALIDATION_FAILED): card expired',
    );
    expect(note.textContent).toBe(
      'The gateway rejected the payout-pay (VALIDATION_FAILED): card expired',
    );
    expect(document.body.textContent.match(/VALIDATION_FAILED/g)).toHaveLength(1);
  });

  it('when a payout expired while it was being approved, then the four-eyes panel says approval was attempted, not approved', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.change(LOST, { state: 'expired', errorMessage: null });
    renderApp(`/payouts/${LOST}`, bff);
    const panel = await screen.findByRole('region', { name: 'Four eyes' });
    expect(within(panel).getByText('Approval attempted by')).toBeInTheDocument();
    expect(within(panel).getByText('ines@example.com')).toBeInTheDocument();
    expect(within(panel).queryByText('Approved by')).not.toBeInTheDocument();
  });

  it('when Paydesk judged an approved payout not applied, then its page warns the gateway may still pay it, offers "Check payment status" and its order, and names the approver as having approved it', async () => {
    const bff = bffAs(['ops']);
    const judged =
      'The gateway still did not show the payout 1 minute after it was sent, so Paydesk judged it not applied.';
    bff.payouts.change(LOST, { state: 'failed', errorCode: 'NOT_APPLIED', errorMessage: judged });
    bff.payouts.gatewayShows.set(LOST, 'approved');
    const app = renderApp(`/payouts/${LOST}`, bff);
    const note = await screen.findByText(/Use “Check payment status” before preparing it again/);
    expect(note.closest('[role="alert"]')?.className).toMatch(/Warning/);
    expect(note.textContent).toContain(judged);
    // Paydesk's own code is not said to staff: the sentence says what it means (F3).
    expect(note.textContent).not.toContain('NOT_APPLIED');
    const panel = await screen.findByRole('region', { name: 'Four eyes' });
    expect(within(panel).getByText('Approved by')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'its order in Transactions' })).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Check payment status' }));
    expect(await screen.findByText('The gateway shows the payout approved.')).toBeInTheDocument();
  });

  it('when the gateway paid a payout after Paydesk had judged it not applied, then its page says so as a warning, not "The gateway paid it."', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.change(LOST, {
      state: 'approved',
      errorCode: 'PAID_AFTER_NOT_APPLIED',
      errorMessage:
        'The payout of 33.00 EUR to 400000******0002 approved by ines@example.com was applied by the gateway after Paydesk had judged it not applied (approved): check whether it was prepared again and paid twice.',
    });
    renderApp(`/payouts/${LOST}`, bff);
    // The BFF's sentence, said once: not led by its code, nor by a second "after Paydesk had judged".
    const note = await screen.findByText(
      'The payout of 33.00 EUR to 400000******0002 approved by ines@example.com was applied by the gateway after Paydesk had judged it not applied (approved): check whether it was prepared again and paid twice.',
    );
    expect(note.textContent.match(/judged it not applied/g)).toHaveLength(1);
    expect(note.textContent).not.toContain('PAID_AFTER_NOT_APPLIED');
    expect(note.closest('[role="alert"]')?.className).toMatch(/Warning/);
    expect(screen.queryByText('The gateway paid it.')).not.toBeInTheDocument();
  });

  it('when the gateway paid a payout after Paydesk had judged it not applied, then its page lists the payouts of the same amount to the same destination prepared within 7 days after it, each linked with its state and who prepared it; another payout lists none', async () => {
    const bff = bffAs(['auditor']);
    bff.payouts.change(LOST, {
      state: 'approved',
      errorCode: 'PAID_AFTER_NOT_APPLIED',
      errorMessage: 'check whether it was prepared again and paid twice',
    });
    const same = { amount: '103.00', currency: 'EUR' };
    const paidTwice = makePayout(4, {
      ...same,
      state: 'approved',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
      decidedAt: '2026-11-21T10:00:00.000Z',
      createdAt: '2026-11-21T09:00:00.000Z',
    });
    const waiting = makePayout(5, {
      ...same,
      preparedBy: { id: 'u-olga', email: 'olga@example.com' },
      createdAt: '2026-11-22T09:00:00.000Z',
    });
    const elsewhere = makePayout(6, {
      ...same,
      destination: { kind: 'card', masked: '555555******4444', label: 'JOHN ROE' },
      createdAt: '2026-11-21T09:00:00.000Z',
    });
    const weeksLater = makePayout(7, { ...same, createdAt: '2026-12-01T09:00:00.000Z' });
    bff.payouts.payouts = [...bff.payouts.payouts, paidTwice, waiting, elsewhere, weeksLater];
    const app = renderApp(`/payouts/${LOST}`, bff);
    const panel = await screen.findByRole('region', { name: 'Possible repeats of this payout' });
    expect(panel).toHaveTextContent(
      'Other payouts of the same amount to the same destination were prepared within 7 days after this one; any that was paid too paid the payee twice',
    );
    const items = within(panel).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(within(items[0]!).getByRole('link')).toHaveAttribute('href', `/payouts/${paidTwice.id}`);
    expect(items[0]).toHaveTextContent('Paid');
    expect(items[0]).toHaveTextContent('otto@example.com');
    expect(items[0]).toHaveTextContent('decided by ines@example.com');
    expect(within(items[1]!).getByRole('link')).toHaveAttribute('href', `/payouts/${waiting.id}`);
    expect(items[1]).toHaveTextContent('olga@example.com');
    // Its link opens the repeat's own page, which names no repeats of its own.
    await app.user.click(within(items[0]!).getByRole('link'));
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${paidTwice.id}`);
    });
    expect(await screen.findByRole('heading', { name: 'Payout of €103.00' })).toBeInTheDocument();
    expect(
      screen.queryByRole('region', { name: 'Possible repeats of this payout' }),
    ).not.toBeInTheDocument();
  });

  it('when a payout paid after the not-applied verdict has no repeat, then its page says none was prepared', async () => {
    const bff = bffAs(['ops']);
    bff.payouts.change(LOST, { state: 'approved', errorCode: 'PAID_AFTER_NOT_APPLIED' });
    renderApp(`/payouts/${LOST}`, bff);
    const panel = await screen.findByRole('region', { name: 'Possible repeats of this payout' });
    expect(panel).toHaveTextContent(
      'No other payout of the same amount to the same destination was prepared within 7 days after this one.',
    );
  });

  it('when the status checks of an unknown payout stopped, then the page says to use "Check payment status", and checking shows the outcome the gateway gives; the button goes once it is settled', async () => {
    const bff = bffAs(['support']);
    bff.payouts.events.set(LOST, [
      ...(bff.payouts.events.get(LOST) ?? []),
      {
        at: '2026-11-20T11:00:05.000Z',
        kind: 'reconcile',
        title:
          'status checks stopped after the last scheduled attempt; check the order at the gateway',
        actor: null,
        data: { attempts: 14 },
      },
    ]);
    bff.payouts.gatewayShows.set(LOST, 'approved');
    const app = renderApp(`/payouts/${LOST}`, bff);
    expect(
      await screen.findByText(/use “Check payment status” to ask the gateway now/),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Check payment status' }));
    expect(await screen.findByText('The gateway shows the payout approved.')).toBeInTheDocument();
    expect(await screen.findByText('The gateway paid it.')).toBeInTheDocument();
    await waitFor(() => {
      expect(
        screen.queryByRole('button', { name: 'Check payment status' }),
      ).not.toBeInTheDocument();
    });
  });

  it('when the viewer is an auditor (read only) or the payout is settled, then no status check is offered', async () => {
    const auditor = bffAs(['auditor']);
    const first = renderApp(`/payouts/${LOST}`, auditor);
    expect(await screen.findByText(/The outcome is not known yet/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Check payment status' })).not.toBeInTheDocument();
    first.unmount();
    const ops = bffAs(['ops']);
    ops.payouts.change(LOST, { state: 'approved' });
    renderApp(`/payouts/${LOST}`, ops);
    expect(await screen.findByText('The gateway paid it.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Check payment status' })).not.toBeInTheDocument();
  });

  it('when a value is long and unbroken (an e-mail), then the facts wrap it instead of widening the page', async () => {
    const bff = bffAs(['ops']);
    const email = 'a.very.long.mailbox.name.for.settlements@subsidiary.example-merchant.com';
    bff.payouts.change(FIRST, { preparedBy: { id: 'u-long', email } });
    renderApp(`/payouts/${FIRST}`, bff);
    const panel = await screen.findByRole('region', { name: 'Four eyes' });
    const value = within(panel).getByText(email);
    const list = value.closest('dl');
    if (list === null) throw new Error('the facts are not a description list');
    // the value column may shrink below its longest word (a plain 1fr never does) ...
    expect(getComputedStyle(list).gridTemplateColumns).toMatch(/minmax\(0(px)?, 1fr\)$/);
    // ... and the value breaks anywhere, even inside an e-mail
    expect(getComputedStyle(value).overflowWrap).toBe('anywhere');
  });
});
