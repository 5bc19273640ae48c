import { screen, waitFor, within } from '@testing-library/react';
import type { Operation, TransactionDetail } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { formatDateAndTime } from '../../../lib/format';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

// A Capture dialog left open while the hold is captured or released elsewhere (another tab, a
// colleague, the gateway): it says plainly that nothing is left, and offers only Close.

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;
const CAPTURE = `/api/transactions/${ID}/capture`;
const AT = '2026-11-20T22:44:00.000Z';
const COLLEAGUE = 'colleague@example.com';

function financeWithPreauth() {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    transactions: [makeTransaction(1, { type: 'preauth', amount: '20.00' })],
  });
}

function operation(kind: Operation['kind'], amount: string | null): Operation {
  return {
    id: `op-elsewhere-${kind}`,
    kind,
    origin: 'paydesk',
    state: 'approved',
    amount,
    gatewaySerial: 'serial-elsewhere',
    requestedBy: COLLEAGUE,
    reasonCode: null,
    comment: null,
    errorCode: null,
    errorMessage: null,
    unanswered: null,
    createdAt: AT,
    updatedAt: AT,
  };
}

/** The order as it is once someone else captured €15.00 of its €20.00 hold. */
function capturedElsewhere(current: TransactionDetail): Partial<TransactionDetail> {
  return {
    stage: 'captured',
    amounts: {
      ...current.amounts,
      captured: '15.00',
      remainingCapturable: '0.00',
      remainingReturnable: '15.00',
    },
    allowedActions: ['return', 'card-ref'],
    operations: [...current.operations, operation('capture', '15.00')],
  };
}

const time = () => {
  const { time: clock, zone } = formatDateAndTime(AT);
  return `${clock} ${zone}`;
};

async function openConfirm(bff: FakeBff) {
  const app = renderApp(PATH, bff);
  await screen.findByRole('heading', { name: 'Order 900001' });
  await screen.findByText('Live');
  await app.user.click(screen.getByRole('button', { name: 'Capture' }));
  const field = await screen.findByLabelText(/Amount to capture/);
  await app.user.clear(field);
  await app.user.type(field, '10');
  await app.user.click(screen.getByRole('button', { name: 'Continue' }));
  await screen.findByRole('dialog', { name: 'Confirm the capture' });
  return app;
}

const buttonsOf = (dialog: HTMLElement) =>
  within(dialog)
    .getAllByRole('button')
    .map((button) => button.textContent);

describe('a Capture dialog left open while the hold is taken elsewhere', () => {
  it('when someone else captures the hold while the confirmation is open, then the dialog says what was captured, when and by whom, and what was released, and offers only Close', async () => {
    const bff = financeWithPreauth();
    await openConfirm(bff);
    bff.payments.change(ID, capturedElsewhere(bff.payments.byId(ID)!));
    const dialog = await screen.findByRole('dialog', { name: 'Capture' });
    expect(
      await within(dialog).findByText(
        `Nothing left to capture: €15.00 was captured at ${time()} by ${COLLEAGUE}. €5.00 of the hold was released to the customer. A preauth is captured once.`,
      ),
    ).toBeInTheDocument();
    expect(dialog).not.toHaveTextContent('Held on the card');
    expect(dialog).not.toHaveTextContent('€0.00');
    expect(buttonsOf(dialog)).toEqual(['Close']);
    expect(within(dialog).getByRole('button', { name: 'Close' })).toHaveFocus();
    expect(bff.requestsTo('POST', CAPTURE)).toHaveLength(0);
  });

  it('when the hold is voided while the form is open, then the dialog says the hold was released by the void, and offers only Close', async () => {
    const bff = financeWithPreauth();
    const app = renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });
    await screen.findByText('Live');
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const dialog = await screen.findByRole('dialog', { name: 'Capture' });
    const current = bff.payments.byId(ID)!;
    bff.payments.change(ID, {
      stage: 'voided',
      amounts: { ...current.amounts, remainingCapturable: '0.00' },
      allowedActions: [],
      operations: [...current.operations, operation('void', '20.00')],
    });
    expect(
      await within(dialog).findByText(
        `Nothing left to capture: the hold was released (voided at ${time()} by ${COLLEAGUE}).`,
      ),
    ).toBeInTheDocument();
    expect(buttonsOf(dialog)).toEqual(['Close']);
  });

  it('when the server refuses the capture (409: already captured), then the dialog says in one message what happened and that this capture was not sent, and offers only Close (QA: a stale refusal beside it read as contradictory)', async () => {
    const bff = financeWithPreauth();
    bff.on('POST /api/transactions/:id/capture', () => {
      // Captured in another tab a moment before this one's request arrived.
      bff.payments.change(ID, capturedElsewhere(bff.payments.byId(ID)!));
      return {
        status: 409,
        body: {
          error: {
            code: 'INVALID_STATE',
            message: 'Capture refused: the preauth was already captured (one capture per preauth).',
            requestId: 'r-409',
            details: {
              reason: 'the preauth was already captured (one capture per preauth)',
              remaining: '0.00',
              currency: 'EUR',
            },
          },
        },
      };
    });
    const app = await openConfirm(bff);
    await app.user.click(screen.getByRole('button', { name: 'Capture €10.00' }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', CAPTURE)).toHaveLength(1);
    });
    const dialog = await screen.findByRole('dialog', { name: 'Capture' });
    expect(
      await within(dialog).findByText(
        `Nothing left to capture: €15.00 was captured at ${time()} by ${COLLEAGUE}. €5.00 of the hold was released to the customer. A preauth is captured once. Your capture of €10.00 was not sent: Paydesk refused it before it reached the gateway.`,
      ),
    ).toBeInTheDocument();
    expect(dialog).not.toHaveTextContent('Refused');
    expect(within(dialog).getAllByRole('alert')).toHaveLength(1);
    expect(dialog).not.toHaveTextContent('Held on the card');
    expect(buttonsOf(dialog)).toEqual(['Close']);
  });
});

describe('a Capture on its way to the gateway', () => {
  it('when the BFF reserves the hold for this capture while it is sent, then the confirmation stays as it was sent: no €0.00 hold, no amount error, until the answer closes it (QA)', async () => {
    const bff = financeWithPreauth();
    let answer: (() => void) | undefined;
    bff.on('POST /api/transactions/:id/capture', (request) => {
      // As the BFF: the amount is reserved before the gateway is asked, and live screens told.
      const current = bff.payments.byId(ID)!;
      bff.payments.change(ID, {
        amounts: { ...current.amounts, remainingCapturable: '0.00' },
        allowedActions: ['card-ref'],
        operations: [
          ...current.operations,
          { ...operation('capture', '10.00'), state: 'sending', requestedBy: 'me@example.com' },
        ],
      });
      return new Promise((resolve) => {
        answer = () => {
          // (the fake's own capture then applies it to the order as it was)
          bff.payments.change(ID, current);
          resolve(bff.ownReply(request));
        };
      });
    });
    const app = await openConfirm(bff);
    await app.user.click(screen.getByRole('button', { name: 'Capture €10.00' }));
    // The page behind has learned of the capture on its way.
    expect(await screen.findByText('Capture on its way to the gateway')).toBeInTheDocument();
    const dialog = screen.getByRole('dialog', { name: 'Confirm the capture' });
    expect(dialog).toHaveTextContent(/Capture €10\.00.* from the customer’s card\?/);
    expect(dialog).toHaveTextContent('€10.00 of the hold is released to the customer.');
    expect(dialog).not.toHaveTextContent('€0.00');
    expect(dialog).not.toHaveTextContent('At most the remaining hold');
    expect(dialog).not.toHaveTextContent('While this was open');
    answer?.();
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(bff.requestsTo('POST', CAPTURE)).toHaveLength(1);
  });
});

describe('a Capture refused because Finance was taken away meanwhile', () => {
  it('when the capture is refused FORBIDDEN, then the session is read again and the page stops offering Capture', async () => {
    const bff = financeWithPreauth();
    const app = await openConfirm(bff);
    const sessionReads = bff.requestsTo('GET', '/api/session').length;
    // An administrator takes Finance while the dialog is open.
    bff.users[0] = { ...bff.users[0]!, roles: ['support'] };
    await app.user.click(screen.getByRole('button', { name: 'Capture €10.00' }));
    await waitFor(() => {
      expect(bff.requestsTo('GET', '/api/session').length).toBeGreaterThan(sessionReads);
    });
    await waitFor(() => {
      expect(
        screen.queryByRole('button', { name: 'Capture', hidden: true }),
      ).not.toBeInTheDocument();
    });
    expect(bff.requestsTo('POST', CAPTURE)).toHaveLength(1);
  });
});
