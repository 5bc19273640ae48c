// Paying again, on the same checked order, a payout whose payment the gateway did not make (QA
// finding F9): offered to an ops user other than its preparer while the gateway's check holds, on
// the payout's page and in its row; the dialog says what it does, and sends it under one
// Idempotency-Key.
import { act, screen, waitFor, within } from '@testing-library/react';
import type { Payout } from '@paydesk/shared/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makePayout, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const JUDGED = '10000000-0000-4000-8000-000000000001';
const LAPSED = '10000000-0000-4000-8000-000000000002';
const HOUR = 3_600_000;
const VALID_UNTIL = new Date(Date.now() + 20 * HOUR).toISOString();

const judged = (n: number, overrides: Partial<Payout> = {}) =>
  makePayout(n, {
    state: 'failed',
    errorCode: 'NOT_APPLIED',
    errorMessage:
      'The gateway still did not show the payout 1 minute after it was sent, so Paydesk judged it not applied.',
    decidedBy: { id: 'u-ines', email: 'ines@example.com' },
    decidedAt: '2026-11-20T10:00:00.000Z',
    expiresAt: VALID_UNTIL,
    ...overrides,
  });

// Otto prepared both; Ines approved them; payout 2's check lapsed.
function bffAs(email: string, roles: Parameters<typeof makeUser>[0]['roles'] = ['ops']) {
  return new FakeBff({
    signedInAs: email,
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles }),
      makeUser({ email: 'otto@example.com', name: 'Otto Ops', roles: ['ops'] }),
      makeUser({ email: 'ines@example.com', name: 'Ines Ops', roles: ['ops'] }),
    ],
    payouts: [judged(1), judged(2, { expiresAt: new Date(Date.now() - HOUR).toISOString() })],
  });
}

describe('paying a payout again', () => {
  it('when an ops user other than its preparer opens a payout judged not applied, then the page offers “Pay again” and says so instead of preparing it again; not when its check lapsed', async () => {
    renderApp(`/payouts/${JUDGED}`, bffAs('olga@example.com'));
    const button = await screen.findByRole('button', { name: 'Pay again' });
    expect(button).toBeInTheDocument();
    const note = screen.getByText(
      /use “Pay again” to have the gateway pay this same checked payout/,
    );
    // Until when, in the reader's words (not the gateway's ISO time).
    expect(note.textContent).toMatch(/Until .+ \(in 19 hours\), use “Pay again”/);
    expect(note.textContent).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(note.textContent).toMatch(/do not prepare it again/);
    expect(note.textContent).not.toMatch(/before preparing it again/);
  });

  it('when its check lapsed, then paying again is not offered', async () => {
    renderApp(`/payouts/${LAPSED}`, bffAs('olga@example.com'));
    await screen.findByText(/before preparing it again/);
    expect(screen.queryByRole('button', { name: 'Pay again' })).not.toBeInTheDocument();
  });

  it('when its preparer opens it, then “Pay again” is not offered, and the page says another ops user can pay it again', async () => {
    renderApp(`/payouts/${JUDGED}`, bffAs('otto@example.com'));
    // Told as its preparer: "you", not their own address in the third person (QA).
    await screen.findByText(/An ops user other than you can pay it again/);
    expect(screen.queryByText(/other than otto@example.com/)).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Pay again' })).not.toBeInTheDocument();
  });

  it('when a support user opens it, then “Pay again” is not offered', async () => {
    renderApp(`/payouts/${JUDGED}`, bffAs('olga@example.com', ['support']));
    await screen.findByRole('heading', { name: 'Payout of €101.00' });
    expect(screen.queryByRole('button', { name: 'Pay again' })).not.toBeInTheDocument();
  });

  it('when ops pays it again, then the dialog says the first payment was not made, until when the check holds, that the gateway pays it at most once and is asked first; one request with an Idempotency-Key, and the payout is being paid', async () => {
    const bff = bffAs('olga@example.com');
    const app = renderApp(`/payouts/${JUDGED}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Pay again' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pay the payout again' });
    const words = dialog.textContent;
    expect(words).toContain('The gateway did not make the first payment.');
    expect(words).toContain('Its check of the payee is valid until');
    expect(dialog.querySelector('time')?.getAttribute('datetime')).toBe(VALID_UNTIL);
    expect(words).toContain(
      'Paying again asks the gateway to pay this same checked payout, which it pays at most once, so the payee cannot be paid twice.',
    );
    expect(words).toContain(
      'Paydesk first asks the gateway whether the first payment went through after all',
    );
    expect(words).not.toMatch(/payout-pay|payout-check|client_orderid/);

    await app.user.click(within(dialog).getByRole('button', { name: 'Pay €101.00 again' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    const sent = bff.requestsTo('POST', `/api/payouts/${JUDGED}/pay-again`);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({});
    expect(sent[0]?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await screen.findByText(/^Paid again on the same checked payout\./)).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByRole('button', { name: 'Pay again' })).not.toBeInTheDocument();
    });
    expect(
      screen.getByText(
        'Paid again by olga@example.com: the gateway had not made the first payment',
      ),
    ).toBeInTheDocument();
    // The Four eyes panel says both approvals, each with its time, not only the last.
    const first = screen.getByText('First approved by').nextElementSibling;
    expect(first).toHaveTextContent(
      /^ines@example\.com at .+ — the gateway did not make that payment$/,
    );
    expect(first?.querySelector('time')?.getAttribute('datetime')).toBe('2026-11-20T10:00:00.000Z');
    const again = screen.getByText('Paid again by').nextElementSibling;
    expect(again).toHaveTextContent(/^olga@example\.com at /);
    expect(screen.queryByText('Approved by')).not.toBeInTheDocument();
  });

  it('when a payout was paid again, then its row in the list says who paid it again and who approved it first', async () => {
    const paid = judged(3, {
      state: 'approved',
      errorCode: null,
      errorMessage: null,
      decidedBy: { id: 'u-olga', email: 'olga@example.com' },
      decidedAt: '2026-11-20T11:00:00.000Z',
      paidAgain: {
        firstApprovedBy: { email: 'ines@example.com' },
        firstApprovedAt: '2026-11-20T10:00:00.000Z',
      },
    });
    const bff = bffAs('otto@example.com');
    bff.payouts.payouts = [paid];
    renderApp('/payouts?view=all', bff);
    const row = (await screen.findByText('Seller settlement 3')).closest('tr');
    expect(row).toHaveTextContent(
      'Paid again by olga@example.com · first approved by ines@example.com',
    );
    expect(row).not.toHaveTextContent('Approved by');
  });

  it('when the gateway made the first payment after all, then the dialog says so and offers only Close', async () => {
    const bff = bffAs('olga@example.com');
    bff.payouts.gatewayShows.set(JUDGED, 'approved');
    const app = renderApp(`/payouts/${JUDGED}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Pay again' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pay the payout again' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Pay €101.00 again' }));
    expect(await within(dialog).findByText(/made the first payment after all/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Close' })).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('button', { name: 'Pay €101.00 again' }),
    ).not.toBeInTheDocument();
  });

  it('when the payouts list shows a payout the viewer may pay again, then its row offers “Pay again”, which opens the same dialog', async () => {
    const app = renderApp('/payouts?view=all', bffAs('olga@example.com'));
    const button = await screen.findByRole('button', {
      name: 'Pay again payout of €101.00 to 411111******1111',
    });
    expect(
      screen.queryByRole('button', { name: 'Pay again payout of €102.00 to 411111******1111' }),
    ).not.toBeInTheDocument();
    await app.user.click(button);
    expect(await screen.findByRole('dialog', { name: 'Pay the payout again' })).toBeInTheDocument();
  });

  it('when an ops user opens their approval queue, then a payout they may pay again waits there with until when, and one whose check lapsed does not', async () => {
    renderApp('/payouts', bffAs('olga@example.com'));
    const button = await screen.findByRole('button', {
      name: 'Pay again payout of €101.00 to 411111******1111',
    });
    const row = button.closest('tr');
    expect(row).toHaveTextContent(/Can be paid again until .* \(in 1\d hours\)/);
    expect(screen.queryByText('Seller settlement 2')).not.toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Awaiting my approval', selected: true })).toBeVisible();
  });

  it('when its preparer opens their approval queue, then the payout does not wait there', async () => {
    renderApp('/payouts', bffAs('otto@example.com'));
    expect(await screen.findByText('Nothing waits for your approval.')).toBeInTheDocument();
  });
});

describe('paying again while the gateway is slow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when the answer takes more than 2 seconds, then the dialog says it waits for the gateway, and drops the note when the answer comes', async () => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
    const pass = (ms: number) =>
      act(async () => {
        await vi.advanceTimersByTimeAsync(ms);
      });
    const note =
      'Waiting for the gateway’s answer… Paydesk waits up to 15 s for it; do not close this window or send it again.';
    const bff = bffAs('olga@example.com');
    const { promise: held, resolve: release } = Promise.withResolvers<undefined>();
    bff.on('POST /api/payouts/:id/pay-again', async (request) => {
      await held;
      return bff.ownReply(request);
    });
    const app = renderApp(`/payouts/${JUDGED}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Pay again' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pay the payout again' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Pay €101.00 again' }));
    await pass(1_500);
    expect(within(dialog).queryByText(note)).not.toBeInTheDocument();
    await pass(600);
    expect(within(dialog).getByText(note).closest('[aria-live]')).toHaveAttribute(
      'aria-live',
      'polite',
    );
    release(undefined);
    expect(await screen.findByText(/^Paid again on the same checked payout\./)).toBeInTheDocument();
    expect(screen.queryByText(note)).not.toBeInTheDocument();
  });
});
