import { OperationResultSchema, type Operation, type TransactionDetail } from '@paydesk/shared/api';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeCardInfo, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

/** Finance on Cards, every rebill refused by a 400 that names `path`. */
function refusing(path: string, message: string) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    cards: [makeCardInfo('card-ref-1')],
  }).on('POST /api/rebills', () => ({
    status: 400,
    body: {
      error: {
        code: 'VALIDATION_FAILED',
        message: `${path}: ${message}`,
        requestId: 'r-400',
        details: { fields: [{ path, rule: 'endpoint_currency', message }] },
      },
    },
  }));
}

/** Fills a valid rebill in GBP, confirms it, and returns the form it comes back to. */
async function refusedRebill(app: ReturnType<typeof renderApp>) {
  await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
  const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
  await app.user.type(dialog.getByLabelText(/^Amount/), '5');
  await app.user.clear(dialog.getByLabelText(/Currency/));
  await app.user.type(dialog.getByLabelText(/Currency/), 'GBP');
  await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
  await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
  await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
  const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
  await app.user.click(confirm.getByRole('button', { name: 'Charge £5.00' }));
  return screen.findByRole('dialog', { name: 'Rebill a stored card' });
}

const REFUSED = 'No configured endpoint takes GBP (configured: EUR, USD).';

describe('a rebill refused by the server, naming a field', () => {
  it('when the form comes back, then the keyboard is on the refused field, not the first one', async () => {
    const app = renderApp(
      '/cards?ref=card-ref-1',
      refusing('currency', 'no configured endpoint takes GBP (configured: EUR, USD)'),
    );
    const dialog = within(await refusedRebill(app));
    const currency = dialog.getByLabelText(/Currency/);
    await waitFor(() => {
      expect(currency).toHaveAccessibleDescription(REFUSED);
    });
    await waitFor(() => {
      expect(currency).toHaveFocus();
    });
    expect(dialog.getByLabelText(/Card reference id/)).not.toHaveFocus();
  });

  it('when the refused field is edited, then its message goes at once and is not said again in an alert; editing another field leaves it', async () => {
    const app = renderApp(
      '/cards?ref=card-ref-1',
      refusing('currency', 'no configured endpoint takes GBP (configured: EUR, USD)'),
    );
    const dialog = within(await refusedRebill(app));
    const currency = dialog.getByLabelText(/Currency/);
    await waitFor(() => {
      expect(currency).toHaveAccessibleDescription(REFUSED);
    });
    await app.user.type(dialog.getByLabelText(/Description/), ' for May');
    expect(currency).toHaveAccessibleDescription(REFUSED);
    await app.user.clear(currency);
    await app.user.type(currency, 'USD');
    expect(currency).toHaveAccessibleDescription('ISO code');
    expect(currency).toHaveAttribute('aria-invalid', 'false');
    expect(screen.queryByText(/no configured endpoint/i)).not.toBeInTheDocument();
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();
  });
});

const REBILL_ID = '00000000-0000-4000-8000-000000000777';
const CLIENT_ORDER = 'rb-37d584ff-bfe6-456e-8c00-208e0ce9c333';

/**
 * Finance on Cards; the rebill's reply is as the BFF gives it when the gateway's reply was lost:
 * operation `unknown`, the order under the `pending:` placeholder the gateway has not replaced yet.
 */
function lostReply(
  error: Pick<Operation, 'errorCode' | 'errorMessage' | 'unanswered'> = {
    errorCode: null,
    errorMessage: 'connection lost before a reply (UND_ERR_SOCKET)',
    unanswered: { kind: 'connection-closed' },
  },
) {
  const bff = new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    cards: [makeCardInfo('card-ref-1')],
  });
  const base = makeTransaction(777, {
    id: REBILL_ID,
    type: 'rebill',
    status: 'unknown',
    orderid: `pending:${CLIENT_ORDER}`,
    clientOrderId: CLIENT_ORDER,
    amount: '19.91',
    cardRefId: 'card-ref-1',
  });
  const operation: Operation = {
    id: 'op-rebill-777',
    kind: 'rebill',
    origin: 'paydesk',
    state: 'unknown',
    amount: '19.91',
    gatewaySerial: null,
    requestedBy: 'me@example.com',
    reasonCode: null,
    comment: 'agreed',
    ...error,
    createdAt: base.createdAt,
    updatedAt: base.updatedAt,
  };
  const transaction = { ...base, allowedActions: [], operations: [operation] };
  bff.on('POST /api/rebills', () => {
    bff.payments.transactions = [...bff.payments.transactions, transaction];
    return {
      status: 200,
      body: OperationResultSchema.parse({
        operation,
        transaction,
        message: 'The outcome of the rebill is not known.',
      }),
    };
  });
  /** What the reconciler learns: the order settles as `state` (named by the gateway or not). */
  const settle = (
    state: Operation['state'],
    status: TransactionDetail['status'],
    orderid?: string,
  ) => {
    bff.payments.change(REBILL_ID, {
      status,
      ...(orderid === undefined ? {} : { orderid }),
      ...(state === 'not_applied' ? { stage: 'not_created' } : {}),
      operations: [{ ...operation, state }],
    });
  };
  return { bff, settle };
}

/** Fills a rebill of €19.91, confirms it, and returns the result dialog. */
async function chargedRebill(app: ReturnType<typeof renderApp>) {
  await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
  const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
  await app.user.type(dialog.getByLabelText(/^Amount/), '19.91');
  await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
  await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
  await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
  const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
  await app.user.click(confirm.getByRole('button', { name: 'Charge €19.91' }));
  return screen.findByRole('dialog', { name: /outcome not known yet/ });
}

describe('a rebill whose reply was lost', () => {
  it('when its outcome is not known, then the dialog warns not to rebill again (no error) and never shows the pending: placeholder', async () => {
    const { bff } = lostReply();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = within(await chargedRebill(app));
    const alert = dialog.getByRole('alert');
    expect(alert).toHaveClass('MuiAlert-colorWarning');
    expect(alert).not.toHaveClass('MuiAlert-colorError');
    expect(alert).toHaveTextContent('Outcome not known yet — do not rebill again');
    expect(alert).toHaveTextContent(/Paydesk is asking the gateway/);
    expect(alert).toHaveTextContent('(connection lost before a reply)');
    expect(alert).not.toHaveTextContent('UND_ERR');
    expect(dialog.getByText(/order number not known yet/)).toHaveTextContent(CLIENT_ORDER);
    expect(dialog.getByRole('link', { name: 'Open the order' })).toHaveAttribute(
      'href',
      `/transactions/${REBILL_ID}`,
    );
    expect(screen.getByRole('dialog')).not.toHaveTextContent('pending:');
  });

  it('when the gateway answered the rebill with a 5xx or not in time, then the warning says so in words with its HTTP status and code, never the recorded form', async () => {
    const { bff } = lostReply({
      errorCode: 'INTERNAL',
      errorMessage:
        'gateway answered 500: injected fault: the gateway failed before applying the operation',
      unanswered: {
        kind: 'error',
        httpStatus: 500,
        code: 'INTERNAL',
        message: 'injected fault: the gateway failed before applying the operation',
      },
    });
    const alert = within(await chargedRebill(renderApp('/cards?ref=card-ref-1', bff))).getByRole(
      'alert',
    );
    expect(alert).toHaveClass('MuiAlert-colorWarning');
    expect(alert).toHaveTextContent(
      'charged the card (the gateway answered with an error: HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation).',
    );
    expect(alert).not.toHaveTextContent(/gateway answered 500|server-error/);
    cleanup();

    const slow = lostReply({
      errorCode: null,
      errorMessage: 'no answer within 15 s',
      unanswered: { kind: 'timeout', waitedMs: 15_000 },
    });
    const warning = within(
      await chargedRebill(renderApp('/cards?ref=card-ref-1', slow.bff)),
    ).getByRole('alert');
    expect(warning).toHaveTextContent('charged the card (no answer within 15 s).');
    expect(warning).not.toHaveTextContent('timeout');
  });

  it('when the gateway confirms it approved, then the dialog turns into the success with the order number', async () => {
    const { bff, settle } = lostReply();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await chargedRebill(app);
    settle('approved', 'approved', '1000350');
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill approved' }));
    const alert = dialog.getByRole('alert');
    expect(alert).toHaveClass('MuiAlert-colorSuccess');
    expect(alert).toHaveTextContent('Rebill of €19.91 approved by the gateway.');
    expect(dialog.getByText('New order 1000350 for €19.91.')).toBeInTheDocument();
    expect(dialog.getByRole('link', { name: 'Open order 1000350' })).toBeInTheDocument();
    expect(dialog.queryByText(/do not rebill again/)).not.toBeInTheDocument();
  });

  it('when the gateway declined it, then the dialog says so as an error', async () => {
    const { bff, settle } = lostReply();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await chargedRebill(app);
    settle('declined', 'declined', '1000351');
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill declined' }));
    const alert = dialog.getByRole('alert');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(alert).toHaveTextContent('The card was not charged.');
  });

  it('when the gateway never created it, then the dialog says "Not charged", without a placeholder order number', async () => {
    const { bff, settle } = lostReply();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await chargedRebill(app);
    settle('not_applied', 'error');
    const dialog = within(await screen.findByRole('dialog', { name: 'Not charged' }));
    const alert = dialog.getByRole('alert');
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(alert).toHaveTextContent(
      /the card was not charged\. Rebill again if the charge is still due/,
    );
    expect(dialog.getByText(/No order was created for €19\.91/)).toHaveTextContent(CLIENT_ORDER);
    expect(screen.getByRole('dialog')).not.toHaveTextContent('pending:');
  });
});
