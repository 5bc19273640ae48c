import { OperationResultSchema, type Operation, type TransactionDetail } from '@paydesk/shared/api';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeCardInfo, makeTransaction, makeUser } from '../../../test/fake-bff';
import {
  expectCurrencyCheckedWithEndpoint,
  expectRefusedBeforeConfirm,
  knownCardRefsBff,
  refuseEurBeforeConfirm,
  REBILL,
} from '../../../test/known-card-refs';
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

/** Opens the rebill on Cards (its list loaded) and fills all but the currency and endpoint. */
async function openRebill(app: ReturnType<typeof renderApp>) {
  await screen.findByRole('table', { name: 'Card references' });
  await app.user.click(screen.getByRole('button', { name: 'Rebill a card' }));
  const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
  await app.user.type(dialog.getByLabelText(/^Amount/), '5');
  await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
  await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
  return dialog;
}

/** The refusal of a rebill of card-ref-1 (made on endpoint 1002, USD) in EUR there. */
const CURRENCY_REFUSED =
  'Card reference card-ref-1 was made on endpoint 1002, which takes USD: rebill it in USD.';

describe('a rebill of a card reference Paydesk knows', () => {
  it('when the reference is given or typed, then the currency is its own and the field says where it was made, until the user types a currency', async () => {
    const app = renderApp('/cards?ref=card-ref-1', knownCardRefsBff());
    const dialog = await openRebill(app);
    const ref = dialog.getByLabelText(/Card reference id/);
    const currency = dialog.getByLabelText(/Currency/);
    expect(ref).toHaveAccessibleDescription('Made on endpoint 1002 · USD');
    expect(currency).toHaveValue('USD');
    // Typed: the currency follows the reference.
    await app.user.clear(ref);
    await app.user.type(ref, 'card-ref-2');
    expect(ref).toHaveAccessibleDescription('Made on endpoint 1001 · EUR');
    expect(currency).toHaveValue('EUR');
    // A reference the (whole) list does not hold is said to be unseen, nothing of an endpoint, and
    // leaves the currency.
    await app.user.type(ref, 'x');
    expect(ref).toHaveAccessibleDescription(
      'No order Paydesk knows carries card reference card-ref-2x: check it. The gateway refuses it if it stores no card under it.',
    );
    expect(currency).toHaveValue('EUR');
    // Once the user chose the currency, another reference leaves it.
    await app.user.clear(currency);
    await app.user.type(currency, 'USD');
    await app.user.clear(ref);
    await app.user.type(ref, 'card-ref-2');
    expect(currency).toHaveValue('USD');
  });

  it('when the reference typed is one no known order carries, then the confirm step warns again before the charge is sent; a known one gets no warning (QA)', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = await openRebill(app);
    const ref = dialog.getByLabelText(/Card reference id/);
    await app.user.clear(ref);
    await app.user.type(ref, 'card-ref-404');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(confirm.getByRole('alert')).toHaveTextContent(
      'No order Paydesk knows carries card reference card-ref-404: check it.',
    );
    expect(bff.requestsTo('POST', '/api/rebills')).toHaveLength(0);
    await app.user.click(confirm.getByRole('button', { name: 'Back' }));
    const form = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    await app.user.clear(form.getByLabelText(/Card reference id/));
    await app.user.type(form.getByLabelText(/Card reference id/), 'card-ref-1');
    await app.user.click(form.getByRole('button', { name: 'Continue' }));
    const known = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(known.queryByText(/No order Paydesk knows/)).not.toBeInTheDocument();
  });

  it('when the endpoint is left empty, then the confirm step names the reference’s endpoint and the rebill is sent in its currency without one', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = await openRebill(app);
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    expect(within(endpoint).getByRole('option', { selected: true })).toHaveTextContent(
      'The card reference’s endpoint (1002)',
    );
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(confirm.getByText(/A new order “Top-up” on endpoint 1002 · reason/)).toBeInTheDocument();
    await app.user.click(confirm.getByRole('button', { name: 'Charge $5.00' }));
    await screen.findByRole('dialog', { name: 'Rebill approved' });
    expect(bff.requestsTo('POST', '/api/rebills')[0]!.body).toEqual({
      cardRefId: 'card-ref-1',
      amount: '5.00',
      currency: 'USD',
      orderDesc: 'Top-up',
      reason: 'agreed',
    });
  });

  it('when another plain endpoint is chosen, then the endpoint field says where the reference was made and what to do, before the confirm step, and nothing is sent', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = await openRebill(app);
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    await app.user.selectOptions(endpoint, '1001');
    await expectRefusedBeforeConfirm(
      app,
      bff,
      dialog,
      REBILL,
      endpoint,
      'Card reference card-ref-1 was made on endpoint 1002, which takes USD, and the gateway charges it only there: choose the card reference’s endpoint and rebill it in USD.',
    );
    // Its own endpoint, chosen, is taken; so is a group (the gateway decides).
    await app.user.selectOptions(endpoint, '1002');
    await waitFor(() => {
      expect(endpoint).toHaveAttribute('aria-invalid', 'false');
    });
    await app.user.selectOptions(endpoint, '2001');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(
      confirm.getByText(/A new order “Top-up” through endpoint group 2001 · reason/),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/rebills')).toHaveLength(0);
  });

  it('when the currency is one the reference’s endpoint does not take, then the currency field says which it takes, before the confirm step, and nothing is sent', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = await openRebill(app);
    // The endpoint choices that do not take it are marked.
    const currency = await refuseEurBeforeConfirm(app, bff, dialog, REBILL, CURRENCY_REFUSED);
    // In its currency the rebill goes on.
    await app.user.clear(currency);
    await app.user.type(currency, 'usd');
    expect(currency).toHaveAccessibleDescription('ISO code');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('dialog', { name: 'Confirm the rebill' })).toBeInTheDocument();
  });

  it('when the currency was refused and only the endpoint is changed to one that may take it, then the currency’s refusal goes at once, and comes back with the reference’s endpoint', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = await openRebill(app);
    await refuseEurBeforeConfirm(app, bff, dialog, REBILL, CURRENCY_REFUSED);
    await expectCurrencyCheckedWithEndpoint(app, dialog, CURRENCY_REFUSED);
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('dialog', { name: 'Confirm the rebill' })).toHaveTextContent(
      'through endpoint group 2001',
    );
  });

  it('when the session does not say the endpoints (an older BFF), then the endpoint is typed, nothing is refused before sending, and the BFF’s refusal comes back beside the field', async () => {
    const message =
      'card reference card-ref-1 was made on endpoint 1002, not on endpoint 1001: rebill it on endpoint 1002 in USD';
    const bff = knownCardRefsBff(null).on('POST /api/rebills', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: `cardRefId: ${message}`,
          requestId: 'r-400',
          details: { fields: [{ path: 'cardRefId', rule: 'card_ref_endpoint', message }] },
        },
      },
    }));
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const dialog = await openRebill(app);
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    expect(endpoint.tagName).toBe('INPUT');
    expect(endpoint).toHaveAccessibleDescription(
      'Leave empty for the card reference’s endpoint (1002).',
    );
    expect(dialog.getByLabelText(/Card reference id/)).toHaveAccessibleDescription(
      'Made on endpoint 1002 · USD',
    );
    await app.user.type(endpoint, '1001');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(confirm.getByText(/on endpoint 1001 · reason/)).toBeInTheDocument();
    await app.user.click(confirm.getByRole('button', { name: 'Charge $5.00' }));
    const back = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    await waitFor(() => {
      expect(back.getByLabelText(/Card reference id/)).toHaveAccessibleDescription(
        'Card reference card-ref-1 was made on endpoint 1002, not on endpoint 1001: rebill it on endpoint 1002 in USD.',
      );
    });
  });
});
