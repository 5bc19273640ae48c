// How the answer to a payout form's approval or rejection is announced, as a payout's is: green only
// for a released page or a rejection as asked; a warning, in words that invite no second approval,
// when the outcome is not known; an error, with the reason, when the gateway refused it.
import { PaymentLinkResultSchema, type PaymentLink, type Unanswered } from '@paydesk/shared/api';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeUser } from '../../../test/fake-bff';
import { sendWithReason } from '../../../test/decision-dialog';
import { heldPayoutForm } from '../../../test/fake-links';
import { renderApp } from '../../../test/render-app';

const HELD = heldPayoutForm(2);

// Otto (ops) created payout form 2; Olga (ops, signed in) decides it.
function bff() {
  return new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga', roles: ['ops'] }),
      makeUser({ email: 'otto@example.com', name: 'Otto', roles: ['ops'] }),
    ],
    links: [HELD],
  });
}

/** The approve route answers 200 with payout form 2 as the BFF left it, saying `message`. */
function approvalEnds(server: FakeBff, link: Partial<PaymentLink>, message: string) {
  return server.on('POST /api/payment-links/:id/approve', () => ({
    status: 200,
    body: PaymentLinkResultSchema.parse({
      link: {
        ...HELD,
        decidedBy: { id: 'u-olga', email: 'olga@example.com' },
        expiresAt: null,
        ...link,
      },
      message,
    }),
  }));
}

const COLOUR = {
  success: 'MuiAlert-colorSuccess',
  info: 'MuiAlert-colorInfo',
  warning: 'MuiAlert-colorWarning',
  error: 'MuiAlert-colorError',
} as const;

/** `alert` is `severity` and no other colour. */
function expectColour(alert: HTMLElement, severity: keyof typeof COLOUR) {
  expect(alert).toHaveClass(COLOUR[severity]);
  for (const other of Object.values(COLOUR))
    if (other !== COLOUR[severity]) expect(alert).not.toHaveClass(other);
}

/** The snackbar's alert, whatever it says: its colour is checked before its words. */
async function snackbar(): Promise<HTMLElement> {
  return waitFor(() => {
    const alert = document.querySelector<HTMLElement>('.MuiSnackbar-root .MuiAlert-root');
    if (alert === null) throw new Error('no snackbar yet');
    expect(alert).toHaveClass('MuiAlert-filled');
    return alert;
  });
}

/** Opens the list, approves payout form 2 in its dialog; returns the dialog. */
async function approveFromTheList(server: FakeBff) {
  const app = renderApp('/payment-links', server);
  await app.user.click(
    await screen.findByRole('button', { name: 'Approve payout form of €75.00: Seller payout 2' }),
  );
  const dialog = await screen.findByRole('dialog', { name: 'Approve the payout form' });
  await app.user.click(within(dialog).getByRole('button', { name: 'Approve €75.00' }));
  return dialog;
}

describe('the answer to a payout form’s approval', () => {
  it('when the gateway released its page, then the approver sees it in green beside the address', async () => {
    await approveFromTheList(bff());
    const done = within(await screen.findByRole('dialog', { name: 'Payout form ready' }));
    const said = done.getByText(
      'Send this page address to the payee. Paydesk learns the outcome from the gateway automatically when the payee finishes.',
    );
    const alert = said.closest<HTMLElement>('.MuiAlert-root');
    expect(alert).not.toBeNull();
    if (alert) expectColour(alert, 'success');
    expect(done.getByLabelText('Payee page address')).toHaveValue(
      'https://gateway.example/paynet/form/ppl-2',
    );
  });

  it.each<[string, string, string, Unanswered, string]>([
    // as the BFF records it now: `unanswered`, beside its words and the client's reason (or the
    // gateway's) as the code, which are not read
    [
      'no answer in time',
      'TIMEOUT',
      'no answer within 15 s',
      { kind: 'timeout', waitedMs: 15_000 },
      'no answer came from the gateway within 15 s',
    ],
    [
      'a 5xx',
      'INTERNAL',
      'the gateway answered with an error (HTTP 500, INTERNAL)',
      { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
      'the gateway answered 500',
    ],
    [
      'a lost connection',
      'CONNECTION-LOST',
      'the connection closed before the gateway answered',
      { kind: 'connection-closed' },
      'no answer came from the gateway',
    ],
    // as it was recorded before, `unanswered` as migration 0026 filled it
    [
      'a lost connection (recorded before)',
      'CONNECTION-LOST',
      'the reply was lost (connection-lost)',
      { kind: 'connection-closed' },
      'no answer came from the gateway',
    ],
    [
      'a 5xx (recorded before)',
      'INTERNAL',
      'the reply was lost (server-error)',
      { kind: 'error', httpStatus: 502, code: 'INTERNAL', message: null },
      'the gateway answered 502',
    ],
  ])(
    'when the gateway gave %s, then a warning says the outcome is not known in one plain sentence, not to approve it again, and that Paydesk records what comes',
    async (_what, errorCode, errorMessage, unanswered, words) => {
      const server = approvalEnds(
        bff(),
        { state: 'unknown', errorCode, errorMessage, unanswered },
        'The gateway’s answer to the payout form was lost (no answer within 15 s). The order may exist at the gateway but its page address is not known.',
      );
      await approveFromTheList(server);
      const alert = await snackbar();
      expectColour(alert, 'warning');
      expect(alert).toHaveTextContent(
        `Not known yet whether the gateway made the payout form: ${words}. Do not approve it again`,
      );
      // No reason code, no "CODE:" lead (F3); an error answer by its HTTP status alone, as a
      // payout's: the gateway's own code and words stay in the timeline, for engineers.
      expect(alert).not.toHaveTextContent(
        /connection-lost|server-error|payout-form|INTERNAL|\b[A-Z][A-Z_-]{3,}:/,
      );
      expect(alert).toHaveTextContent(
        'Do not approve it again: it was sent once, and Paydesk never sends it twice.',
      );
      expect(alert).toHaveTextContent(
        'Paydesk records whatever its order does when the gateway calls back',
      );
      expect(alert).toHaveTextContent(
        'Create a new payout form only if the payee still needs a page.',
      );
      // not the dialog's: it closed, nothing in it invites approving again
      expect(screen.queryByRole('dialog', { name: 'Approve the payout form' })).toBeNull();
    },
  );

  it('when it is approved on the link’s own page and the outcome is not known, then the same warning shows there', async () => {
    const server = approvalEnds(
      bff(),
      {
        state: 'unknown',
        errorCode: 'TIMEOUT',
        errorMessage: 'no answer within 15 s',
        unanswered: { kind: 'timeout', waitedMs: 15_000 },
      },
      'The gateway’s answer to the payout form was lost (no answer within 15 s). The order may exist at the gateway but its page address is not known.',
    );
    const app = renderApp(`/payment-links/${HELD.id}`, server);
    await app.user.click(await screen.findByRole('button', { name: /^Approve / }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve the payout form' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Approve €75.00' }));
    const alert = await snackbar();
    expectColour(alert, 'warning');
    expect(alert).toHaveTextContent(/^Not known yet whether the gateway made the payout form/);
  });

  it('when the approval comes back with the link failed (the gateway refused it), then an error says so with the reason', async () => {
    const reason =
      'The gateway rejected the payout form request as invalid (300): Invalid amount. Nothing was changed.';
    const server = approvalEnds(
      bff(),
      { state: 'failed', errorCode: '300', errorMessage: reason },
      'The approval was interrupted before Paydesk recorded its outcome; the payout form is failed. It was not sent again.',
    );
    await approveFromTheList(server);
    const alert = await snackbar();
    expectColour(alert, 'error');
    expect(alert).toHaveTextContent(/^The gateway refused the payout form/);
    expect(alert).toHaveTextContent(
      'The gateway refused the payout form: the gateway rejected the payout form request as invalid (300): Invalid amount. Nothing was changed. No page was made',
    );
    expect(alert).toHaveTextContent('No page was made and nothing can be paid with it');
  });

  it('when the server refuses the approval, then the dialog says why in red and no green note appears', async () => {
    const server = bff().on('POST /api/payment-links/:id/approve', () => ({
      status: 502,
      body: {
        error: {
          code: 'GATEWAY_ERROR',
          message:
            'The gateway rejected the payout form request as invalid (300): Invalid amount. Nothing was changed.',
          requestId: 'req-1',
        },
      },
    }));
    const dialog = await approveFromTheList(server);
    const said = await within(dialog).findByText(/The gateway rejected the payout form request/);
    const alert = said.closest<HTMLElement>('.MuiAlert-root');
    expect(alert).not.toBeNull();
    if (alert) expectColour(alert, 'error');
    expect(document.querySelector('.MuiAlert-filled')).toBeNull();
  });

  it('when no reply comes at all, then the dialog warns that sending again is the same request and the form is never sent twice', async () => {
    const server = bff().on('POST /api/payment-links/:id/approve', () => 'network-error');
    const dialog = await approveFromTheList(server);
    const title = await within(dialog).findByText('No answer yet');
    const alert = title.closest<HTMLElement>('.MuiAlert-root');
    expect(alert).not.toBeNull();
    if (alert) {
      expectColour(alert, 'warning');
      expect(alert).toHaveTextContent(
        'Sending again is safe: it is the same request, and Paydesk never sends a payout form twice.',
      );
    }
    expect(within(dialog).getByRole('button', { name: 'Send again' })).toBeInTheDocument();
    expect(document.querySelector('.MuiAlert-filled')).toBeNull();
  });
});

describe('the answer to a payout form’s rejection', () => {
  async function reject(server: FakeBff) {
    const app = renderApp('/payment-links', server);
    await app.user.click(
      await screen.findByRole('button', { name: 'Reject payout form of €75.00: Seller payout 2' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Reject the payout form' });
    await sendWithReason(app.user, dialog, 'Reject', 'not due');
    return dialog;
  }

  it('when it is rejected as asked, then the snackbar is a success, as a payout’s', async () => {
    await reject(bff());
    const alert = await snackbar();
    expectColour(alert, 'success');
    expect(alert).toHaveTextContent('Payout form rejected; nothing was sent.');
  });

  it('when the server refuses the rejection (another approver got there first), then the dialog says why in red', async () => {
    const server = bff().on('POST /api/payment-links/:id/reject', () => ({
      status: 409,
      body: {
        error: {
          code: 'INVALID_STATE',
          message: 'The link is sent, not waiting for approval.',
          requestId: 'req-2',
        },
      },
    }));
    const dialog = await reject(server);
    const said = await within(dialog).findByText('The link is sent, not waiting for approval.');
    const alert = said.closest<HTMLElement>('.MuiAlert-root');
    expect(alert).not.toBeNull();
    if (alert) expectColour(alert, 'error');
    expect(document.querySelector('.MuiAlert-filled')).toBeNull();
  });

  it('when no reply comes to a rejection, then the dialog warns that sending again is safe, promising nothing about sending a form', async () => {
    const server = bff().on('POST /api/payment-links/:id/reject', () => 'network-error');
    const dialog = await reject(server);
    const title = await within(dialog).findByText('No answer yet');
    const alert = title.closest<HTMLElement>('.MuiAlert-root');
    expect(alert).not.toBeNull();
    if (alert) {
      expectColour(alert, 'warning');
      expect(alert).toHaveTextContent('Sending again is safe: it is the same request.');
    }
  });
});
