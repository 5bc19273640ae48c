// An approval refused for good (another approver got there first, the check lapsed) leaves only
// Close, says what happened from the payout's fresh state, and refreshes its row; a transient
// failure keeps the way to send again.
import type { Payout } from '@paydesk/shared/api';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
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
