// How the answer to a payout's preparation or decision is announced: a green success only for a
// real success; a warning when the outcome is not known; an error for what the gateway refused or
// what failed.
import { PayoutResultSchema, type Payout, type Unanswered } from '@paydesk/shared/api';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makePayout, makeUser } from '../../../test/fake-bff';
import { sendWithReason } from '../../../test/decision-dialog';
import { openPrepareDialog, SELLER_SETTLEMENT, typeCardPayout } from '../../../test/prepare-payout';
import { renderApp } from '../../../test/render-app';

// Otto prepared payout 1; Olga (signed in, ops) decides it or prepares her own.
function bff() {
  return new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles: ['ops'] }),
      makeUser({ email: 'otto@example.com', name: 'Otto Ops', roles: ['ops'] }),
    ],
    payouts: [makePayout(1)],
  });
}

/** The route answers with payout 1 (or a new one) in `state`, saying `message`. */
function answering(
  server: FakeBff,
  route: string,
  state: Payout['state'],
  message: string,
  overrides: Partial<Payout> = {},
) {
  return server.on(route, () => ({
    status: 200,
    body: PayoutResultSchema.parse({ payout: makePayout(1, { state, ...overrides }), message }),
  }));
}

/** The snackbar's alert saying `text`. */
async function snackbar(text: string | RegExp) {
  const said = await screen.findByText(text);
  const alert = said.closest('.MuiAlert-root');
  expect(alert).not.toBeNull();
  expect(alert).toHaveClass('MuiAlert-filled');
  return alert as HTMLElement;
}

const COLOUR = {
  success: 'MuiAlert-colorSuccess',
  info: 'MuiAlert-colorInfo',
  warning: 'MuiAlert-colorWarning',
  error: 'MuiAlert-colorError',
} as const;

describe('the answer to an approval', () => {
  it.each([
    ['approved', 'success'],
    ['processing', 'info'],
    ['unknown', 'warning'],
    ['declined', 'error'],
    ['error', 'error'],
    ['filtered', 'error'],
    ['failed', 'error'],
  ] as const)('when the payout ends %s, then the snackbar is a %s', async (state, severity) => {
    const server = answering(
      bff(),
      'POST /api/payouts/:id/approve',
      state,
      `The payout ended ${state}.`,
    );
    const app = renderApp('/payouts', server);
    await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve the payout' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Approve and pay €101.00' }));
    const alert = await snackbar(`The payout ended ${state}.`);
    expect(alert).toHaveClass(COLOUR[severity]);
    for (const other of Object.values(COLOUR))
      if (other !== COLOUR[severity]) expect(alert).not.toHaveClass(other);
  });

  it('when a payout is rejected as asked, then the snackbar is a success', async () => {
    const server = answering(bff(), 'POST /api/payouts/:id/reject', 'rejected', 'Payout rejected.');
    const app = renderApp('/payouts', server);
    await app.user.click(await screen.findByRole('button', { name: /^Reject / }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject the payout' });
    await sendWithReason(app.user, dialog, 'Reject', 'wrong destination');
    expect(await snackbar('Payout rejected.')).toHaveClass(COLOUR.success);
  });
});

/** Prepares a card payout of €31.41 in the dialog. */
async function prepare(app: ReturnType<typeof renderApp>) {
  const dialog = await openPrepareDialog(app.user);
  await typeCardPayout(app.user, dialog, SELLER_SETTLEMENT);
  await app.user.click(dialog.getByRole('button', { name: 'Check and submit for approval' }));
}

describe('the answer to a preparation', () => {
  // `unanswered` as the BFF records it, beside the client's words, which are not read
  it.each<[string, string | null, string, Unanswered, string]>([
    [
      'a 500',
      'INTERNAL',
      'gateway answered 500',
      { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
      'the gateway answered 500',
    ],
    [
      'a lost reply',
      null,
      'connection lost before a reply (UND_ERR_SOCKET)',
      { kind: 'connection-closed' },
      'no answer came from the gateway',
    ],
    [
      'no reply in time',
      null,
      'no reply within 15000 ms',
      { kind: 'timeout', waitedMs: 15_000 },
      'no answer came from the gateway within 15 s',
    ],
  ])(
    'when the check’s outcome is not known after %s, then the snackbar warns in one plain sentence that promises no approval',
    async (_what, errorCode, errorMessage, unanswered, words) => {
      const server = answering(
        bff(),
        'POST /api/payouts',
        'checking',
        "The gateway answered the check of the payee's details with an error (HTTP 500, INTERNAL). Nothing was paid. Paydesk is asking the gateway whether it checked them; once checked, the payout waits for approval.",
        { errorCode, errorMessage, unanswered },
      );
      const app = renderApp('/payouts', server);
      await prepare(app);
      const alert = await snackbar(
        /^Not known yet whether the gateway checked the payee’s details/,
      );
      expect(alert).toHaveClass(COLOUR.warning);
      expect(alert).toHaveTextContent(
        `Not known yet whether the gateway checked the payee’s details: ${words}. Paydesk is asking the gateway.`,
      );
      // Never the gateway's operation name, the client's reason codes, or a code said twice (F2, F3).
      expect(alert).not.toHaveTextContent(
        /payout-(check|pay)|connection-lost|server-error|UND_ERR|15000 ms/,
      );
      // An error answer is said by its HTTP status alone; the gateway's code stays in the timeline.
      expect(alert).not.toHaveTextContent(/INTERNAL/);
      expect(alert).toHaveTextContent('Nothing was paid.');
      expect(alert).toHaveTextContent(/if it never did, the payout is marked failed/);
      expect(alert).not.toHaveTextContent('waits for approval once checked');
    },
  );

  it('when the payout-check declines the destination, then the snackbar is an error', async () => {
    const server = answering(
      bff(),
      'POST /api/payouts',
      'check_declined',
      'The payout-check declined the destination; nothing can be paid.',
    );
    const app = renderApp('/payouts', server);
    await prepare(app);
    expect(await snackbar(/payout-check declined the destination/)).toHaveClass(COLOUR.error);
  });

  it('when the payout is checked and waits for approval, then the snackbar is a success', async () => {
    const server = answering(
      bff(),
      'POST /api/payouts',
      'pending_approval',
      'Checked by the gateway; the payout waits for a second ops user.',
    );
    const app = renderApp('/payouts', server);
    await prepare(app);
    expect(await snackbar(/waits for a second ops user/)).toHaveClass(COLOUR.success);
  });
});

describe('a prepare whose check was not known', () => {
  const FIRST = '10000000-0000-4000-8000-000000000001';

  /** The prepare's reply leaves payout 1 `checking`: its check's outcome not known. */
  function answeringChecking(server: FakeBff) {
    return server.on('POST /api/payouts', () => {
      const payout = makePayout(1, {
        state: 'checking',
        unanswered: { kind: 'connection-closed' },
        updatedAt: '2026-11-20T10:00:00.000Z',
      });
      server.payouts.payouts = [payout];
      return {
        status: 200,
        body: PayoutResultSchema.parse({ payout, message: 'not known yet' }),
      };
    });
  }

  it.each([
    [
      'pending_approval',
      'The gateway checked the payee’s details of the payout of €101.00 to 411111******1111; it waits for a second ops user’s approval.',
      COLOUR.success,
    ],
    [
      'failed',
      'The gateway did not check the payee’s details of the payout of €101.00 to 411111******1111: nothing was paid, and it must be prepared again if it is still due; its page says why.',
      COLOUR.error,
    ],
  ] as const)(
    'when the check turns out %s, then the outdated warning gives way to one that says so (QA: it stayed)',
    async (state, words, colour) => {
      const server = answeringChecking(bff());
      const app = renderApp('/payouts', server);
      await prepare(app);
      const warning = /^Not known yet whether the gateway checked the payee’s details/;
      expect(await snackbar(warning)).toHaveClass(COLOUR.warning);
      // A status check that learned nothing yet keeps it.
      server.payments.publish(server.payouts.change(FIRST, { state: 'checking' }));
      await waitFor(() => {
        expect(server.requestsTo('GET', `/api/payouts/${FIRST}`).length).toBeGreaterThan(1);
      });
      expect(screen.getByText(warning)).toBeInTheDocument();
      server.payments.publish(server.payouts.change(FIRST, { state, unanswered: null }));
      expect(await snackbar(words)).toHaveClass(colour);
      expect(screen.queryByText(warning)).not.toBeInTheDocument();
    },
  );
});

describe('an approval whose outcome was not known', () => {
  const FIRST = '10000000-0000-4000-8000-000000000001';
  const NOT_KNOWN =
    'Not known yet whether the payout was paid (the connection closed before the gateway answered): Paydesk does not send it again on its own but checks its status, and if the gateway does not show it, an ops user other than otto@example.com can pay it again.';

  /** The approval's reply says the outcome is not known: the payout is left `unknown`. */
  function answeringNotKnown(server: FakeBff) {
    return server.on('POST /api/payouts/:id/approve', () => {
      const payout = makePayout(1, {
        state: 'unknown',
        decidedBy: { id: 'u-olga', email: 'olga@example.com' },
        decidedAt: '2026-11-20T10:00:00.000Z',
        unanswered: { kind: 'connection-closed' },
        updatedAt: '2026-11-20T10:00:00.000Z',
      });
      server.payouts.payouts = [payout];
      return { status: 200, body: PayoutResultSchema.parse({ payout, message: NOT_KNOWN }) };
    });
  }

  /** Approves payout 1 in its dialog, opened with its Approve button on the screen shown. */
  async function approve(app: ReturnType<typeof renderApp>) {
    await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve the payout' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Approve and pay €101.00' }));
  }

  it('when the reconciler learns that the gateway paid it, then the outdated warning gives way to a success that says so', async () => {
    const server = answeringNotKnown(bff());
    const app = renderApp('/payouts', server);
    await approve(app);
    expect(await snackbar(NOT_KNOWN)).toHaveClass(COLOUR.warning);
    // The BFF streams the payout's change once its status check found it paid.
    server.payments.publish(server.payouts.change(FIRST, { state: 'approved' }));
    const alert = await snackbar('The gateway paid the payout of €101.00 to 411111******1111.');
    expect(alert).toHaveClass(COLOUR.success);
    expect(screen.queryByText(NOT_KNOWN)).not.toBeInTheDocument();
  });

  it('when it turns out not paid, on the payout’s page, then the outdated warning gives way to an error that sends to the page', async () => {
    const server = answeringNotKnown(bff());
    const app = renderApp(`/payouts/${FIRST}`, server);
    await approve(app);
    expect(await snackbar(NOT_KNOWN)).toHaveClass(COLOUR.warning);
    server.payments.publish(
      server.payouts.change(FIRST, {
        state: 'failed',
        errorCode: 'NOT_APPLIED',
        errorMessage:
          'The gateway still did not show the payout, so Paydesk judged it not applied.',
        unanswered: null,
      }),
    );
    const alert = await snackbar(
      'The payout of €101.00 to 411111******1111 was not paid (failed); its page says why and what can be done now.',
    );
    expect(alert).toHaveClass(COLOUR.error);
    expect(screen.queryByText(NOT_KNOWN)).not.toBeInTheDocument();
  });

  it('while its outcome is still not known, then the warning stays', async () => {
    const server = answeringNotKnown(bff());
    const app = renderApp('/payouts', server);
    await approve(app);
    await snackbar(NOT_KNOWN);
    // A status check that learned nothing yet.
    server.payments.publish(server.payouts.change(FIRST, { state: 'unknown' }));
    await waitFor(() => {
      expect(server.requestsTo('GET', `/api/payouts/${FIRST}`).length).toBeGreaterThan(1);
    });
    expect(screen.getByText(NOT_KNOWN)).toBeInTheDocument();
  });
});
