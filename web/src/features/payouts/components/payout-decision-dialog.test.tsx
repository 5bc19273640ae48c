// An approval refused for good (another approver got there first, the check lapsed) leaves only
// Close, says what happened from the payout's fresh state, and refreshes its row; a transient
// failure keeps the way to send again.
import type { Payout } from '@paydesk/shared/api';
import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makePayout, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { formatDateAndTime } from '../../../lib/format';

// Otto prepared payout 1 (€101.00); Olga (signed in, ops) approves it; Oscar is the other approver.
function bff(overrides: Partial<Payout> = {}) {
  return new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles: ['ops'] }),
      makeUser({ email: 'otto@example.com', name: 'Otto Ops', roles: ['ops'] }),
      makeUser({ email: 'oscar@example.com', name: 'Oscar Ops', roles: ['ops'] }),
    ],
    payouts: [makePayout(1, overrides)],
  });
}

const DECIDED_AT = '2026-11-28T00:55:42.000Z';

const COMPARE_ADVICE = 'The gateway checked that this destination can be paid';

/**
 * The approval is refused with 409 INVALID_STATE naming `state`, as the BFF refuses it once the
 * payout has moved on (`patch`: what it now is, as its detail then says).
 */
function refusedAs(
  server: FakeBff,
  state: Payout['state'],
  message: string,
  patch: Partial<Payout>,
) {
  return server.on('POST /api/payouts/:id/approve', () => {
    const [payout] = server.payouts.payouts;
    if (payout) server.payouts.change(payout.id, { state, ...patch });
    return {
      status: 409,
      body: { error: { code: 'INVALID_STATE', message, details: { state }, requestId: 'req-1' } },
    };
  });
}

async function openApproval(app: ReturnType<typeof renderApp>) {
  await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
  return screen.findByRole('dialog', { name: 'Approve the payout' });
}

async function approve(app: ReturnType<typeof renderApp>, opened?: HTMLElement) {
  const dialog = opened ?? (await openApproval(app));
  await app.user.click(within(dialog).getByRole('button', { name: 'Approve and pay €101.00' }));
  return dialog;
}

/** Holds every approval's reply (the BFF waiting for the gateway) until the returned function. */
function holdApprovals(server: FakeBff): () => void {
  const { promise: held, resolve } = Promise.withResolvers<undefined>();
  server.on('POST /api/payouts/:id/approve', async (request) => {
    await held;
    return server.ownReply(request);
  });
  return () => {
    resolve(undefined);
  };
}

describe('an approval refused for good', () => {
  it('when another approver got there first, then it says who approved it and when, that it is being paid, and only Close is left, which takes the focus', async () => {
    const server = refusedAs(
      bff(),
      'sending',
      'The payout is sending: another approver got there first.',
      {
        decidedBy: { id: 'u-oscar', email: 'oscar@example.com' },
        decidedAt: DECIDED_AT,
      },
    );
    const app = renderApp('/payouts', server);
    // what the approver is to compare before deciding (gone once nothing is left to decide)
    const opened = await openApproval(app);
    expect(opened).toHaveTextContent(COMPARE_ADVICE);
    const dialog = await approve(app, opened);
    const said = await within(dialog).findByText(/approved it at/);
    const alert = said.closest<HTMLElement>('.MuiAlert-root');
    await waitFor(() => {
      expect(alert).toHaveTextContent(
        /^oscar@example\.com approved it at .+; it is being paid\. Nothing more to do\.$/,
      );
    });
    expect(alert).toHaveTextContent(formatDateAndTime(DECIDED_AT).zone);
    expect(alert).toHaveClass('MuiAlert-colorInfo');
    expect(within(dialog).queryByRole('button', { name: /Approve and pay/ })).toBeNull();
    expect(
      within(dialog)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Close']);
    expect(within(dialog).getByRole('button', { name: 'Close' })).toHaveFocus();
    expect(dialog).not.toHaveTextContent('money leaves the account');
    // The payout's facts stay; the advice for deciding goes.
    expect(within(dialog).getByText('Prepared by')).toBeInTheDocument();
    expect(dialog).not.toHaveTextContent(COMPARE_ADVICE);
    // The row was refreshed: it no longer waits for this approver.
    await app.user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => {
      expect(screen.queryByRole('button', { name: /^Approve / })).toBeNull();
    });
  });

  it('when the check lapsed, then it says nothing was paid and to ask ops to prepare it again, with only Close', async () => {
    const server = refusedAs(
      bff(),
      'expired',
      'The registered payout expired (24 h after its payout-check) and cannot be approved; prepare it again.',
      {},
    );
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    const said = await within(dialog).findByText(
      'Nothing was paid: the gateway’s check lapsed. Ask ops to prepare it again.',
    );
    expect(said.closest('.MuiAlert-root')).toHaveClass('MuiAlert-colorWarning');
    expect(dialog).not.toHaveTextContent('payout-check');
    expect(
      within(dialog)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Close']);
  });

  it('when a held single payout lapsed, then it says the hold lapsed and nothing was paid', async () => {
    const server = refusedAs(
      bff({ mode: 'single' }),
      'expired',
      'The held payout lapsed (not approved in time; its destination was erased) and cannot be approved; prepare it again.',
      {},
    );
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    expect(
      await within(dialog).findByText(
        'Nothing was paid: the held payout lapsed before it was approved. Ask ops to prepare it again.',
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Close']);
  });

  it('when someone rejected it meanwhile, then it says who, with the reason, and that nothing was paid', async () => {
    const server = refusedAs(
      bff(),
      'rejected',
      'The payout is rejected, not waiting for approval.',
      {
        decidedBy: { id: 'u-oscar', email: 'oscar@example.com' },
        decidedAt: DECIDED_AT,
        rejectReason: 'wrong account',
      },
    );
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    const said = await within(dialog).findByText(/rejected it at/);
    await waitFor(() => {
      expect(said.closest('.MuiAlert-root')).toHaveTextContent(
        /^oscar@example\.com rejected it at .+ \(“wrong account”\); nothing was paid\. Nothing more to do\.$/,
      );
    });
  });
});

describe('an approval that failed for a while', () => {
  it('when the gateway is unavailable (503), then the button stays, to send the same request again', async () => {
    const server = bff().on('POST /api/payouts/:id/approve', () => ({
      status: 503,
      body: {
        error: {
          code: 'GATEWAY_UNAVAILABLE',
          message:
            'The gateway could not confirm the registered payout; nothing was sent. Try again.',
          requestId: 'req-2',
        },
      },
    }));
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    expect(await within(dialog).findByText('No answer yet')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Send again' })).toBeEnabled();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Close' })).toBeNull();
  });

  it('when the network drops, then the button stays too', async () => {
    const server = bff().on('POST /api/payouts/:id/approve', () => 'network-error');
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    expect(await within(dialog).findByRole('button', { name: 'Send again' })).toBeEnabled();
    expect(within(dialog).queryByRole('button', { name: 'Close' })).toBeNull();
  });
});

/** The one payout's id. */
const FIRST = '10000000-0000-4000-8000-000000000001';

/** What the dialog offers: the words of its buttons. */
function buttonsOf(dialog: HTMLElement): (string | null)[] {
  return within(dialog)
    .getAllByRole('button')
    .map((b) => b.textContent);
}

describe('a payout decided elsewhere while its approve dialog is open', () => {
  it('when its preparer withdraws it, then the dialog says so at once, in the words a refusal uses, offers only Close, which takes the focus, and sends nothing', async () => {
    const server = bff();
    const app = renderApp('/payouts', server);
    const opened = await openApproval(app);
    expect(within(opened).getByRole('button', { name: 'Approve and pay €101.00' })).toBeVisible();
    // Otto withdraws it; the BFF streams the change.
    server.payments.publish(
      server.payouts.change(FIRST, {
        state: 'rejected',
        withdrawn: true,
        rejectReason: 'prepared twice',
        decidedBy: { id: 'u-otto', email: 'otto@example.com' },
        decidedAt: DECIDED_AT,
      }),
    );
    const said = await screen.findByText(/withdrew it at/);
    const dialog = screen.getByRole('dialog', { name: 'Approve the payout' });
    expect(dialog).toContainElement(said);
    expect(said.closest('.MuiAlert-root')).toHaveTextContent(
      /^otto@example\.com withdrew it at .+; nothing was paid\. Nothing more to do\.$/,
    );
    expect(buttonsOf(dialog)).toEqual(['Close']);
    await waitFor(() => {
      expect(within(dialog).getByRole('button', { name: 'Close' })).toHaveFocus();
    });
    expect(dialog).not.toHaveTextContent('money leaves the account');
    expect(within(dialog).getByText('Prepared by')).toBeInTheDocument();
    expect(server.requestsTo('POST', `/api/payouts/${FIRST}/approve`)).toHaveLength(0);
    await app.user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });

  it('when another approver approves it while the dialog is open on its page, then the dialog says who did and that it was paid, with only Close', async () => {
    const server = bff();
    const app = renderApp(`/payouts/${FIRST}`, server);
    await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
    await screen.findByRole('dialog', { name: 'Approve the payout' });
    server.payments.publish(
      server.payouts.change(FIRST, {
        state: 'approved',
        decidedBy: { id: 'u-oscar', email: 'oscar@example.com' },
        decidedAt: DECIDED_AT,
      }),
    );
    const said = await screen.findByText(/approved it at/);
    const dialog = screen.getByRole('dialog', { name: 'Approve the payout' });
    expect(said.closest('.MuiAlert-root')).toHaveTextContent(
      /^oscar@example\.com approved it at .+; it was paid\. Nothing more to do\.$/,
    );
    expect(buttonsOf(dialog)).toEqual(['Close']);
  });

  it('when its check lapses while the dialog is open, then the dialog says nothing was paid and to ask ops to prepare it again', async () => {
    const server = bff();
    const app = renderApp('/payouts', server);
    await openApproval(app);
    server.payments.publish(server.payouts.change(FIRST, { state: 'expired' }));
    const said = await screen.findByText(
      'Nothing was paid: the gateway’s check lapsed. Ask ops to prepare it again.',
    );
    const dialog = screen.getByRole('dialog', { name: 'Approve the payout' });
    expect(dialog).toContainElement(said);
    expect(buttonsOf(dialog)).toEqual(['Close']);
  });

  it('when the change is the approver’s own approval on its way, then the dialog keeps waiting for its answer, which closes it', async () => {
    const server = bff();
    const release = holdApprovals(server);
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    // The BFF streams the payout's change to sending before the gateway answers.
    server.payments.publish(
      server.payouts.change(FIRST, {
        state: 'sending',
        decidedBy: { id: 'u-olga', email: 'olga@example.com' },
        decidedAt: DECIDED_AT,
      }),
    );
    await waitFor(() => {
      expect(server.requestsTo('GET', `/api/payouts/${FIRST}`).length).toBeGreaterThan(1);
    });
    expect(screen.getByRole('dialog', { name: 'Approve the payout' })).toBe(dialog);
    expect(within(dialog).queryByText(/approved it/)).not.toBeInTheDocument();
    server.payouts.change(FIRST, { state: 'pending_approval' });
    release();
    expect(await screen.findByText('Payout approved and paid.')).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });
});

describe('an approval that waits on a slow gateway', () => {
  /** The note with the wait the session's settings say (the fake BFF's: GATEWAY_TIMEOUT_MS 15 s). */
  const NOTE =
    'Waiting for the gateway’s answer… Paydesk waits up to 15 s for it; do not close this window or send it again.';

  afterEach(() => {
    vi.useRealTimers();
  });

  /** Lets `ms` of the fake clock go by, timers firing on the way. */
  async function pass(ms: number) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
    });
  }

  it('when the approval’s answer takes more than 2 seconds, then the dialog says it waits for the gateway, in a polite live region, and drops the note when the answer comes', async () => {
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
      shouldAdvanceTime: true,
    });
    const server = bff();
    const release = holdApprovals(server);
    const app = renderApp('/payouts', server);
    const dialog = await approve(app);
    await pass(1_500);
    expect(within(dialog).queryByText(NOTE)).not.toBeInTheDocument();
    await pass(600);
    const note = within(dialog).getByText(NOTE);
    expect(note.closest('[aria-live]')).toHaveAttribute('aria-live', 'polite');
    release();
    expect(await screen.findByText('Payout approved and paid.')).toBeInTheDocument();
    expect(screen.queryByText(NOTE)).not.toBeInTheDocument();
  });
});
