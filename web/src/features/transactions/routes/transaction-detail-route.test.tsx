import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  IDEMPOTENCY_KEY_HEADER,
  type OperationResult,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { describe, expect, it, vi } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { seenAs } from '../../../test/seen-text';

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;

function bffAs(
  roles: Parameters<typeof makeUser>[0]['roles'],
  transaction = makeTransaction(1, { amount: '20.00' }),
) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
    transactions: [transaction],
  });
}

function preauth() {
  return makeTransaction(1, { type: 'preauth', amount: '20.00' });
}

/** A refusal naming one field, as the BFF sends it (`details.fields`), with more details if any. */
function fieldRefusal(
  status: number,
  code: string,
  path: string,
  message: string,
  details: Record<string, unknown> = {},
) {
  return {
    status,
    body: {
      error: {
        code,
        message: `${path}: ${message}`,
        requestId: `r-${status}`,
        details: { ...details, fields: [{ path, rule: 'custom', message }] },
      },
    },
  };
}

async function heading() {
  return screen.findByRole('heading', { name: 'Order 900001' });
}

function amounts() {
  return within(screen.getByRole('region', { name: 'Amounts' }));
}

/** A sale of €20.00 (or `amount`) with one more operation: a return Paydesk sent, as `changes` say. */
function saleWithReturn(
  changes: Partial<TransactionDetail['operations'][number]>,
  amount = '20.00',
): TransactionDetail {
  const sale = makeTransaction(1, { amount });
  const operation = {
    ...sale.operations[0]!,
    id: 'op-r',
    kind: 'return' as const,
    origin: 'paydesk' as const,
    ...changes,
  };
  return { ...sale, operations: [...sale.operations, operation] };
}

/** The page's alert that says `text`. */
function alertSaying(text: string) {
  return screen.getAllByRole('alert').find((a) => a.textContent.includes(text));
}

/** The value (`dd`) beside the fact labelled `label` (`dt`). */
function factValue(label: string): HTMLElement {
  const term = screen.getByText(label, { selector: 'dt' });
  const value = term.nextElementSibling;
  if (!(value instanceof HTMLElement)) throw new Error(`no value beside “${label}”`);
  return value;
}

function keysOf(bff: FakeBff, action: string): (string | null)[] {
  return bff
    .requestsTo('POST', `/api/transactions/${ID}/${action}`)
    .map((r) => r.headers.get(IDEMPOTENCY_KEY_HEADER));
}

describe('transaction detail', () => {
  it('when the order is a payout Paydesk prepared, then its page leads to the payout’s approvals', async () => {
    const payoutId = '10000000-0000-4000-8000-000000000001';
    renderApp(
      PATH,
      bffAs(
        ['support'],
        makeTransaction(1, { type: 'payout', clientOrderId: `pd-payout-${payoutId}` }),
      ),
    );
    await heading();
    expect(
      screen.getByRole('link', { name: 'the payout, its approvals and timeline' }),
    ).toHaveAttribute('href', `/payouts/${payoutId}`);
  });

  it('when the order came through a payment link, or is a subscription’s charge, then a row leads to the link or the plan (QA: neither led back)', async () => {
    const linkId = '30000000-0000-4000-8000-000000000007';
    const viaLink = renderApp(
      PATH,
      bffAs(['support'], makeTransaction(1, { clientOrderId: `pd-link-${linkId}` })),
    );
    await heading();
    expect(screen.getByRole('link', { name: 'the payment link it came through' })).toHaveAttribute(
      'href',
      `/payment-links/${linkId}`,
    );
    viaLink.unmount();
    renderApp(
      PATH,
      bffAs(['support'], {
        ...makeTransaction(1, { type: 'rebill', clientOrderId: 'rp-0c2cb06e-1' }),
        subscription: { id: 'sub-1', orderDesc: 'Demo monthly membership' },
      }),
    );
    await heading();
    expect(
      screen.getByRole('link', { name: 'a charge of “Demo monthly membership”' }),
    ).toHaveAttribute('href', '/subscriptions/sub-1');
  });

  it('when the order is a shop’s, then no Paydesk origin is shown', async () => {
    renderApp(PATH, bffAs(['support']));
    await heading();
    expect(screen.queryByText('Prepared in Paydesk')).not.toBeInTheDocument();
    expect(screen.queryByText('Created in Paydesk')).not.toBeInTheDocument();
    expect(screen.queryByText('Subscription')).not.toBeInTheDocument();
  });

  it('when the order is on its way, then a loading state is shown', async () => {
    renderApp(
      PATH,
      bffAs(['support']).on('GET /api/transactions/:id', () => 'hang'),
    );
    expect(await screen.findByText('Loading the order…')).toBeInTheDocument();
  });

  it('when the order does not exist, then it says so and points to the lookup', async () => {
    renderApp('/transactions/00000000-0000-4000-8000-000000000999', bffAs(['support']));
    expect(await screen.findByRole('heading', { name: 'Order not found' })).toBeInTheDocument();
  });

  it('when the address holds a malformed id, then the BFF’s 400 on params.id reads as not found', async () => {
    renderApp(
      '/transactions/not-a-uuid',
      bffAs(['support']).on('GET /api/transactions/:id', () => ({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_FAILED',
            message: 'params.id: must be a transaction id',
            details: {
              fields: [{ path: 'params.id', rule: 'format', message: 'must be a transaction id' }],
            },
            requestId: 'req-bad-id',
          },
        },
      })),
    );
    expect(await screen.findByRole('heading', { name: 'Order not found' })).toBeInTheDocument();
  });

  it('when the address holds the gateway’s orderid or the shop’s client_orderid, then the order is found among those Paydesk learned and the address becomes its own, without asking the gateway', async () => {
    // The client_orderid in any case, as the list's search finds it (copied from an e-mail).
    for (const id of ['900001', 'shop-1', 'SHOP-1']) {
      const bff = bffAs(['support']);
      const app = renderApp(`/transactions/${id}`, bff);
      expect(await heading()).toBeInTheDocument();
      expect(app.location()).toBe(PATH);
      expect(bff.requestsTo('GET', '/api/transactions').map((r) => r.query.get('q'))).toEqual([id]);
      expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
      // Replaced, not pushed: Back does not return to the address that only pointed here.
      app.unmount();
    }
  });

  it('when no order Paydesk learned has that orderid or client_orderid, then the page says what was looked for and offers the gateway lookup, asking nothing yet', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions/1000321', bff);
    expect(await screen.findByRole('heading', { name: 'Order not found' })).toBeInTheDocument();
    expect(
      screen.getByText(
        /Paydesk has learned no order with the orderid or client order id “1000321”/,
      ),
    ).toBeInTheDocument();
    expect(app.location()).toBe('/transactions/1000321');
    expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
    expect(bff.requestsTo('GET', '/api/transactions/1000321')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Look up “1000321” at the gateway' }));
    expect(await screen.findByLabelText(/^Orderid or client order id/)).toHaveValue('1000321');
  });

  it('when one client_orderid names orders on two endpoints, then both are listed to choose from, neither opened', async () => {
    const bff = bffAs(['support'], makeTransaction(1, { clientOrderId: 'shared-7' }));
    bff.payments.transactions.push(
      makeTransaction(2, { clientOrderId: 'shared-7', endpointId: '1002' }),
    );
    const app = renderApp('/transactions/shared-7', bff);
    const list = await screen.findByRole('list', { name: 'Orders “shared-7”' });
    expect(within(list).getByRole('link', { name: 'Order 900001' })).toHaveAttribute('href', PATH);
    expect(within(list).getByRole('link', { name: 'Order 900002' })).toBeInTheDocument();
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toContainEqual(
      expect.stringMatching(/^Order 900002Client order id shared-7 · endpoint 1002 · /),
    );
    expect(
      screen.getByText(/orders Paydesk has learned have “shared-7” as their orderid or/),
    ).toHaveTextContent(
      '2 orders Paydesk has learned have “shared-7” as their orderid or client order id (one client order id may be used on several endpoints). Choose one:',
    );
    expect(app.location()).toBe('/transactions/shared-7');
  });

  it('when loading fails, then an error with a retry is shown', async () => {
    renderApp(
      PATH,
      bffAs(['support']).on('GET /api/transactions/:id', () => ({
        status: 503,
        body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'db down', requestId: 'r-9' } },
      })),
    );
    expect(await screen.findByText('Could not load the order')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('when the roles do not allow transactions, then the forbidden state is shown', async () => {
    const bff = bffAs(['admin']);
    renderApp(PATH, bff);
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
    expect(bff.requestsTo('GET', `/api/transactions/${ID}`)).toHaveLength(0);
  });

  it('when a support user opens an order, then amounts, card, customer and timeline show, with refresh but no money actions', async () => {
    const app = renderApp(PATH, bffAs(['support']));
    await heading();
    expect(amounts().getByText('Captured').nextSibling).toHaveTextContent('€20.00');
    expect(amounts().getByText('Remaining returnable').nextSibling).toHaveTextContent('€20.00');
    expect(screen.getByText('411111******1111')).toBeInTheDocument();
    expect(screen.getByText('customer1@example.com')).toBeInTheDocument();
    expect(
      within(screen.getByRole('list', { name: 'Timeline' })).getByText('Callback: sale approved'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Return' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Void' })).not.toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Refresh status' }));
    expect(
      await screen.findByText('Status checked: the gateway says Approved.'),
    ).toBeInTheDocument();
    expect(
      app.bff
        .requestsTo('POST', `/api/transactions/${ID}/refresh`)[0]!
        .headers.get('X-Requested-With'),
    ).toBe('paydesk');
  });

  it('when a sale was voided, then the page says so next to its approved status, and the amounts and the void’s row show what the void released', async () => {
    const voided = makeTransaction(1, { amount: '30.00', stage: 'voided' });
    const at = '2026-11-20T10:00:00.000Z';
    const voidOp = {
      ...voided.operations[0]!,
      id: 'op-v',
      kind: 'void' as const,
      origin: 'paydesk' as const,
      amount: null,
      createdAt: at,
      updatedAt: at,
    };
    const view = renderApp(
      PATH,
      bffAs(['finance'], {
        ...voided,
        amounts: { ...voided.amounts, remainingReturnable: '0.00' },
        operations: [...voided.operations, voidOp],
      }),
    );
    await heading();
    const chip = screen.getByTitle('Voided before settlement: no money moved.');
    expect(chip).toHaveTextContent('Voided');
    expect(amounts().getByText('Voided').nextSibling).toHaveTextContent('€30.00');
    // the captured amount stays what the gateway captured; the order kept nothing
    expect(amounts().getByText('Captured').nextSibling).toHaveTextContent('€30.00');
    expect(amounts().getByText('Net').nextSibling).toHaveTextContent('€0.00');
    expect(amounts().getByText('Remaining returnable').nextSibling).toHaveTextContent('€0.00');
    // The void names no amount of its own: its row says what it took back, as the amounts do.
    const voidRow = () =>
      within(
        within(screen.getByRole('table', { name: 'Operations' }))
          .getByText('Void')
          .closest('tr')!,
      );
    expect(voidRow().getByText('€30.00')).toBeInTheDocument();
    view.unmount();

    // A void still on its way: the whole order, not a dash.
    renderApp(
      PATH,
      bffAs(['finance'], {
        ...voided,
        stage: 'captured',
        operations: [...voided.operations, { ...voidOp, state: 'processing' as const }],
      }),
    );
    await heading();
    expect(voidRow().getByText('Whole order')).toBeInTheDocument();
  });

  it('when finance opens a preauth with nothing captured, then nothing shows as returnable and Return is not offered, Void is', async () => {
    renderApp(PATH, bffAs(['finance'], preauth()));
    await heading();
    expect(amounts().getByText('Remaining returnable').nextSibling).toHaveTextContent('€0.00');
    expect(screen.getByRole('button', { name: 'Void' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Return' })).not.toBeInTheDocument();
  });

  it('when an uncaptured preauth’s hold was cancelled by a return (an older order), then its operations and timeline call it a hold cancellation, not a return, and the amounts show the hold released', async () => {
    const held = preauth();
    const at = '2026-11-20T10:00:00.000Z';
    const cancelled = {
      ...held,
      stage: 'hold_cancelled',
      allowedActions: ['card-ref' as const],
      amounts: { ...held.amounts, remainingCapturable: '0.00' },
      operations: [
        ...held.operations,
        {
          ...held.operations[0]!,
          id: 'op-return',
          kind: 'return' as const,
          origin: 'paydesk' as const,
          requestedBy: 'finance@example.com',
          reasonCode: 'customer_request',
          comment: 'release the hold',
          createdAt: at,
          updatedAt: at,
        },
      ],
      timeline: [
        {
          id: 1,
          at,
          kind: 'staff' as const,
          title: 'return 20.00 EUR requested',
          actor: 'finance@example.com',
          data: {},
        },
        {
          id: 2,
          at,
          kind: 'gateway' as const,
          title: 'return: accepted',
          actor: 'finance@example.com',
          data: {},
        },
        {
          id: 3,
          at,
          kind: 'callback' as const,
          title: 'callback: return approved 20.00 EUR (confirmed by status)',
          actor: null,
          data: {},
        },
      ],
    };
    renderApp(PATH, bffAs(['finance'], cancelled));
    await heading();
    const operations = within(screen.getByRole('table', { name: 'Operations' }));
    expect(operations.getByText('Hold cancellation')).toBeInTheDocument();
    expect(operations.queryByText('Return')).not.toBeInTheDocument();
    const timeline = within(screen.getByRole('list', { name: 'Timeline' }));
    expect(timeline.getByText('Hold cancellation (return) €20.00 requested')).toBeInTheDocument();
    expect(timeline.getByText('Hold cancellation (return): accepted')).toBeInTheDocument();
    expect(
      timeline.getByText(
        'Callback: hold cancellation (return) approved €20.00 (confirmed by status)',
      ),
    ).toBeInTheDocument();
    expect(amounts().getByText('Returned').nextSibling).toHaveTextContent('€0.00');
    expect(amounts().getByText('Hold released').nextSibling).toHaveTextContent('€20.00');
    expect(screen.queryByRole('button', { name: 'Return' })).not.toBeInTheDocument();
  });

  it('when a capture’s reply was lost and status then confirmed it, then its row says so rather than showing the transport error as a failure', async () => {
    const held = preauth();
    const at = '2026-11-20T10:00:00.000Z';
    const lost = {
      errorCode: null,
      errorMessage: 'connection lost before a reply (UND_ERR_SOCKET)',
    };
    renderApp(
      PATH,
      bffAs(['finance'], {
        ...held,
        operations: [
          ...held.operations,
          {
            ...held.operations[0]!,
            id: 'op-c',
            kind: 'capture' as const,
            origin: 'paydesk' as const,
            state: 'approved' as const,
            ...lost,
            createdAt: at,
            updatedAt: at,
          },
          {
            ...held.operations[0]!,
            id: 'op-v',
            kind: 'void' as const,
            origin: 'paydesk' as const,
            state: 'unknown' as const,
            ...lost,
            createdAt: at,
            updatedAt: at,
          },
        ],
      }),
    );
    await heading();
    const operations = within(screen.getByRole('table', { name: 'Operations' }));
    expect(
      operations.getByText(
        'The reply was lost (connection lost before a reply (UND_ERR_SOCKET)); the gateway’s status confirmed it.',
      ),
    ).toBeInTheDocument();
    // still unknown: the transport error is the news
    expect(
      operations.getByText('connection lost before a reply (UND_ERR_SOCKET)', { exact: true }),
    ).toBeInTheDocument();
  });

  it('when a follow-up’s outcome is unknown on an order whose own status is known, then the page says so at the top', async () => {
    const at = '2026-11-20T10:00:00.000Z';
    renderApp(
      PATH,
      bffAs(
        ['finance'],
        saleWithReturn({ state: 'unknown', amount: '2.50', createdAt: at, updatedAt: at }),
      ),
    );
    await heading();
    const alert = alertSaying('Return: outcome unknown');
    expect(alert).toBeDefined();
    expect(alert).toHaveTextContent(
      'Paydesk sent a return of €2.50 but no answer came from the gateway. Paydesk cannot tell yet whether the return was made, and is asking the gateway for the status; it will not send anything again on its own. Until then, the return is held against what can still be returned. Refresh the status to ask now.',
    );
  });

  it('when Paydesk’s status checks of an unknown follow-up keep bringing no status, then the banner says how many it made and what went wrong; once they stopped, that it no longer asks by itself (QA)', async () => {
    const at = '2026-11-20T10:00:00.000Z';
    const unknownReturn = saleWithReturn({
      state: 'unknown',
      amount: '2.50',
      createdAt: at,
      updatedAt: at,
    });
    const failing = renderApp(
      PATH,
      bffAs(['finance'], {
        ...unknownReturn,
        statusChecks: { state: 'checking', attempts: 7, lastProblem: 'no answer (timeout)' },
      }),
    );
    await heading();
    expect(alertSaying('Return: outcome unknown')).toHaveTextContent(
      'Paydesk cannot tell yet whether the return was made, and is asking the gateway for the status; it will not send anything again on its own. So far it has made 7 status checks; the last brought no status: no answer (timeout). Until then, the return is held against what can still be returned. Refresh the status to ask now.',
    );
    failing.unmount();
    renderApp(PATH, bffAs(['finance'], { ...unknownReturn, statusChecks: { state: 'stopped' } }));
    await heading();
    const stopped = alertSaying('Return: outcome unknown');
    expect(stopped).toHaveTextContent(
      'Paydesk cannot tell yet whether the return was made, and has stopped asking the gateway for the status by itself; it will not send anything again on its own.',
    );
    expect(stopped).not.toHaveTextContent(/is asking/);
  });

  it('when the order’s own outcome is unknown and Paydesk stopped checking, then the banner says only Refresh status asks now', async () => {
    renderApp(
      PATH,
      bffAs(['support'], {
        ...makeTransaction(1, { status: 'unknown' }),
        statusChecks: { state: 'stopped' },
      }),
    );
    expect(await screen.findByText('Outcome unknown')).toBeInTheDocument();
    expect(alertSaying('Outcome unknown')).toHaveTextContent(
      /and has stopped asking the gateway for the status by itself; it will not send anything again on its own\. Refresh the status to ask now\.$/,
    );
  });

  it('when the gateway answered a follow-up with an error (HTTP 500 and a code), then the page says so, not that the answer was lost', async () => {
    const at = '2026-11-20T10:00:00.000Z';
    renderApp(
      PATH,
      bffAs(
        ['finance'],
        saleWithReturn({
          state: 'unknown',
          amount: '10.01',
          errorCode: 'INTERNAL',
          errorMessage: 'gateway answered 500',
          unanswered: { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
          createdAt: at,
          updatedAt: at,
        }),
      ),
    );
    await heading();
    const alert = alertSaying('Return: outcome unknown');
    expect(alert).toHaveTextContent(
      'Paydesk sent a return of €10.01 and the gateway answered with an error (HTTP 500, INTERNAL). Paydesk cannot tell yet whether the return was made, and is asking the gateway for the status',
    );
    expect(alert).not.toHaveTextContent(/lost/);
  });

  it('when a return is on its way to the gateway (a colleague’s, or after a reload), then the page says who sent it, when, and that it waits for the answer, never sending it again', async () => {
    const at = new Date(Date.now() - 5_000).toISOString();
    const order = saleWithReturn(
      {
        state: 'sending',
        amount: '10.01',
        requestedBy: 'finance.demo@paydesk.local',
        createdAt: at,
        updatedAt: at,
      },
      '100.10',
    );
    renderApp(PATH, bffAs(['support'], order));
    await heading();
    const alert = alertSaying('Return on its way to the gateway');
    expect(alert).toHaveTextContent(
      /Paydesk sent a return of €10\.01 requested by finance\.demo@paydesk\.local at .+ and is waiting for the gateway’s answer\.\s*The page shows the outcome as soon as it comes\. Should no answer come, Paydesk asks the gateway for the order’s status; it never sends the request again on its own\./,
    );
    expect(within(alert!).getByText((_, el) => el?.tagName === 'TIME')).toHaveAttribute(
      'datetime',
      at,
    );
  });

  it('when a return of the last days was judged not applied, then the page says it was not made, by whom and when, and to return again if still due', async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const order = saleWithReturn(
      {
        state: 'not_applied',
        amount: '10.01',
        requestedBy: 'finance.demo@paydesk.local',
        errorMessage: 'gateway answered 500',
        createdAt: at,
        updatedAt: at,
      },
      '100.10',
    );
    renderApp(PATH, bffAs(['finance'], order));
    await heading();
    const alert = alertSaying('Return not made');
    expect(alert).toBeDefined();
    expect(alert).toHaveTextContent(
      /The return of €10\.01 requested by finance\.demo@paydesk\.local at .+ was not made by the gateway: nothing was returned to the customer\. Return again if it is still due\./,
    );
    expect(alert).toHaveTextContent('Paydesk records it and flags the order with drift');
    expect(within(alert!).getByText((_, el) => el?.tagName === 'TIME')).toHaveAttribute(
      'datetime',
      at,
    );
  });

  it('when finance returns again after a return not made, then the confirm step says the first could still be applied late and the customer would get both', async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const order = saleWithReturn(
      { state: 'not_applied', amount: '10.01', createdAt: at, updatedAt: at },
      '100.10',
    );
    const app = renderApp(PATH, bffAs(['finance'], order));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Return' }));
    await app.user.click(dialog.getByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(dialog.getByLabelText(/Reason/), 'other');
    await app.user.type(dialog.getByLabelText(/Comment/), 'Again, as advised');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the return' }));
    expect(confirm.getByRole('alert')).toHaveTextContent(
      /A return of €10\.01 requested at .+ was judged not made: no clear answer came and the gateway’s status did not show it\.\s*Should the gateway still apply it late, the customer gets this return as well; Paydesk would then flag the order\./,
    );
  });

  it('when a user who may not return (support, ops) sees a return not made, then the page says to ask finance, not to return again', async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const order = saleWithReturn(
      { state: 'not_applied', amount: '10.01', createdAt: at, updatedAt: at },
      '100.10',
    );
    for (const roles of [['support'], ['ops']] as const) {
      const { unmount } = renderApp(PATH, bffAs([...roles], order));
      await heading();
      const alert = alertSaying('Return not made');
      expect(alert).toHaveTextContent(
        /nothing was returned to the customer\. Ask finance to return it again if it is still due\./,
      );
      expect(alert).not.toHaveTextContent('Return again');
      unmount();
    }
  });

  it('when the not-applied return is old, or was made again since, then no banner is shown for it', async () => {
    const sale = makeTransaction(1, { amount: '100.10' });
    const base = {
      ...sale.operations[0]!,
      kind: 'return' as const,
      origin: 'paydesk' as const,
      amount: '10.01',
    };
    const old = new Date(Date.now() - 8 * 86_400_000).toISOString();
    const recent = new Date(Date.now() - 3_600_000).toISOString();
    const later = new Date(Date.now() - 1_800_000).toISOString();
    renderApp(
      PATH,
      bffAs(['finance'], {
        ...sale,
        operations: [
          ...sale.operations,
          { ...base, id: 'op-old', state: 'not_applied' as const, createdAt: old, updatedAt: old },
          {
            ...base,
            id: 'op-new',
            state: 'not_applied' as const,
            createdAt: recent,
            updatedAt: recent,
          },
          {
            ...base,
            id: 'op-redo',
            state: 'approved' as const,
            createdAt: later,
            updatedAt: later,
          },
        ],
      }),
    );
    await heading();
    expect(screen.queryByText(/not made/)).not.toBeInTheDocument();
  });

  it('when a rebill’s order number is not known yet, then the page never shows the placeholder as its number', async () => {
    const rebill = makeTransaction(1, {
      type: 'rebill',
      amount: '19.91',
      orderid: 'pending:rb-1acfeed6-0000-4000-8000-000000000001',
      clientOrderId: 'rb-1acfeed6-0000-4000-8000-000000000001',
    });
    renderApp(PATH, bffAs(['finance'], rebill));
    expect(
      await screen.findByRole('heading', { name: 'Order number not known yet' }),
    ).toBeInTheDocument();
    expect(screen.queryByText(/pending:/)).not.toBeInTheDocument();
    expect(screen.getAllByText(/rb-1acfeed6-0000-4000-8000-000000000001/).length).toBeGreaterThan(
      0,
    );
  });

  it('when the gateway never made a rebill’s order, then the page says so and promises no number (QA B6)', async () => {
    const never = makeTransaction(1, {
      type: 'rebill',
      status: 'error',
      stage: 'not_created',
      amount: '19.91',
      orderid: 'pending:rb-1acfeed6-0000-4000-8000-000000000001',
      clientOrderId: 'rb-1acfeed6-0000-4000-8000-000000000001',
    });
    renderApp(PATH, bffAs(['finance'], never));
    expect(await screen.findByRole('heading', { name: 'Order not made' })).toBeInTheDocument();
    expect(factValue('Orderid')).toHaveTextContent('none: the gateway did not make the order');
    expect(screen.queryByText(/not known yet/)).not.toBeInTheDocument();
    expect(screen.queryByText(/pending:/)).not.toBeInTheDocument();
  });

  it('when no status check has brought a status yet, then the order says “Gateway status as of: no answer yet”, not that it never asked (QA B6)', async () => {
    const at = '2026-11-20T10:00:00.000Z';
    renderApp(
      PATH,
      bffAs(['finance'], {
        ...saleWithReturn({ state: 'unknown', amount: '2.50', createdAt: at, updatedAt: at }),
        lastCheckedAt: null,
        statusChecks: { state: 'checking', attempts: 11, lastProblem: 'no answer (timeout)' },
      }),
    );
    await heading();
    expect(factValue('Gateway status as of')).toHaveTextContent('no answer yet');
    expect(screen.queryByText('Last asked the gateway')).not.toBeInTheDocument();
    expect(screen.queryByText('never')).not.toBeInTheDocument();
  });

  it('when a void is refused because a capture awaits its outcome, then the server’s advice is said in full and only Close is offered', async () => {
    const bff = bffAs(['finance'], preauth());
    bff.on('POST /api/transactions/:id/void', () => ({
      status: 409,
      body: {
        error: {
          code: 'INVALID_STATE',
          message:
            'Void refused: a capture is still awaiting its outcome; refresh the order first.',
          requestId: 'r-409',
          details: { reason: 'capture outcome not known yet' },
        },
      },
    }));
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    await screen.findByRole('dialog', { name: 'Void the order' });
    await app.user.type(screen.getByLabelText(/Comment/), 'customer cancelled');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Void €20.00' }));
    const dialog = screen.getByRole('dialog');
    expect(
      await within(dialog).findByText(
        'Void refused: a capture is still awaiting its outcome; refresh the order first.',
      ),
    ).toBeInTheDocument();
    expect(within(dialog).queryByText(/capture outcome not known yet/)).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Void €20.00' })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Back' })).not.toBeInTheDocument();
    expect(within(dialog).queryByText(/Press Tab to reach/)).not.toBeInTheDocument();
    const close = within(dialog).getByRole('button', { name: 'Close' });
    await waitFor(() => {
      expect(close).toHaveFocus();
    });
    expect(keysOf(bff, 'void')).toHaveLength(1);
    await app.user.click(close);
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });

  it('when a captured preauth was returned in part, then the return is called a return', async () => {
    const held = preauth();
    const at = '2026-11-20T10:00:00.000Z';
    renderApp(
      PATH,
      bffAs(['finance'], {
        ...held,
        stage: 'partially_returned',
        amounts: { ...held.amounts, captured: '12.00', returned: '2.00' },
        operations: [
          ...held.operations,
          { ...held.operations[0]!, id: 'op-r', kind: 'return', createdAt: at, updatedAt: at },
        ],
        timeline: [
          { id: 1, at, kind: 'gateway', title: 'return: accepted', actor: null, data: {} },
        ],
      }),
    );
    await heading();
    expect(
      within(screen.getByRole('table', { name: 'Operations' })).getByText('Return'),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole('list', { name: 'Timeline' })).getByText('Return: accepted'),
    ).toBeInTheDocument();
  });

  it('when a preauth was captured in part, then the amounts say how much of the hold was released; a whole capture releases nothing', async () => {
    const held = preauth();
    const partly = {
      ...held,
      stage: 'captured',
      amounts: {
        ...held.amounts,
        captured: '12.50',
        remainingCapturable: '0.00',
        remainingReturnable: '12.50',
      },
    };
    const view = renderApp(PATH, bffAs(['finance'], partly));
    await heading();
    expect(amounts().getByText('Captured').nextSibling).toHaveTextContent('€12.50');
    expect(amounts().getByText('Hold released').nextSibling).toHaveTextContent('€7.50');
    view.unmount();

    renderApp(
      PATH,
      bffAs(['finance'], { ...partly, amounts: { ...partly.amounts, captured: '20.00' } }),
    );
    await heading();
    expect(amounts().getByText('Captured').nextSibling).toHaveTextContent('€20.00');
    expect(amounts().queryByText('Hold released')).toBeNull();
  });

  it('when a preauth is held, captured in part or captured in full, then its header says so in the list’s words', async () => {
    const held = preauth();
    const header = async () => within((await heading()).parentElement!);
    let view = renderApp(PATH, bffAs(['support'], { ...held, stage: 'authorized' }));
    expect((await header()).getByText('Held')).toBeInTheDocument();
    expect((await header()).queryByText(/captured/i)).toBeNull();
    view.unmount();

    const captured = (amount: string) => ({
      ...held,
      stage: 'captured',
      amounts: { ...held.amounts, captured: amount, remainingCapturable: '0.00' },
    });
    view = renderApp(PATH, bffAs(['support'], captured('12.50')));
    expect((await header()).getByText('Partly captured').closest('[title]')).toHaveAttribute(
      'title',
      'Part of the hold was captured; the rest was released to the customer.',
    );
    expect((await header()).queryByText('Held')).toBeNull();
    view.unmount();

    renderApp(PATH, bffAs(['support'], captured('20.00')));
    expect((await header()).getByText('Captured')).toBeInTheDocument();
    expect((await header()).queryByText('Partly captured')).toBeNull();
  });

  it('when an order’s money went back, was voided, held or captured in part, then its header shows the same status chips as its list row', async () => {
    const sale = makeTransaction(1, { amount: '20.00' });
    const held = preauth();
    const partly = (stage: string, returned = '0.00') => ({
      ...held,
      stage,
      amounts: { ...held.amounts, captured: '12.50', returned, remainingCapturable: '0.00' },
    });
    const cases: [TransactionDetail, string[]][] = [
      [{ ...sale, stage: 'partially_returned' }, ['Approved', 'Partly returned']],
      [{ ...sale, stage: 'returned' }, ['Approved', 'Returned']],
      [{ ...sale, stage: 'voided' }, ['Approved', 'Voided']],
      [{ ...held, stage: 'authorized' }, ['Approved', 'Held']],
      [{ ...held, stage: 'hold_cancelled' }, ['Approved', 'Hold released']],
      [partly('captured'), ['Approved', 'Partly captured']],
      [partly('partially_returned', '2.50'), ['Approved', 'Partly captured', 'Partly returned']],
      [partly('returned', '12.50'), ['Approved', 'Partly captured', 'Returned']],
      // QA: "Partly captured" beside "Voided"; the void took the captured part back, the rest
      // of the hold was released at the capture: no money moved, as Voided alone says.
      [partly('voided'), ['Approved', 'Voided']],
    ];
    /** The status chips (a stack of them, led by the status) in the list's row or the page's header. */
    const chipsIn = (scope: HTMLElement) =>
      Array.from(
        within(scope)
          .getByText('Approved', { selector: '.MuiChip-label' })
          .closest('.MuiStack-root')!
          .querySelectorAll('.MuiChip-label'),
        (chip) => chip.textContent,
      );
    for (const [order, expected] of cases) {
      const list = renderApp('/transactions', bffAs(['support'], order));
      const link = await screen.findByRole('link', { name: 'Order 900001' });
      const rowChips = chipsIn(link.closest('tr')!);
      list.unmount();
      const page = renderApp(PATH, bffAs(['support'], order));
      const headerChips = chipsIn((await heading()).parentElement!);
      page.unmount();
      expect(headerChips, order.stage ?? '').toEqual(expected);
      // A list row learns a part capture from the BFF (`partlyCaptured`), which this fake
      // does not give: the rest must agree as they are.
      if (!expected.includes('Partly captured')) expect(rowChips).toEqual(expected);
    }
  });

  it('when the header’s line under the chips names the order’s stage, then it uses the chip’s words, not the gateway’s code', async () => {
    const sale = makeTransaction(1, { amount: '20.00' });
    const cases: [TransactionDetail, string][] = [
      // the chip said 'Partly returned', the line 'partially returned'
      [{ ...sale, stage: 'partially_returned' }, 'Sale · partly returned · client order'],
      [{ ...sale, stage: 'returned' }, 'Sale · returned · client order'],
      [{ ...sale, stage: 'voided' }, 'Sale · voided · client order'],
      [{ ...preauth(), stage: 'hold_cancelled' }, 'Preauth · hold released · client order'],
      [{ ...sale, stage: 'captured' }, 'Sale · captured · client order'],
      // the chip said 'Partly captured', the line 'captured' (QA)
      [
        {
          ...preauth(),
          stage: 'captured',
          amounts: { ...preauth().amounts, captured: '12.50', remainingCapturable: '0.00' },
        },
        'Preauth · partly captured · client order',
      ],
    ];
    for (const [order, expected] of cases) {
      const page = renderApp(PATH, bffAs(['support'], order));
      const header = within((await heading()).parentElement!);
      expect(header.getByText(/· client order/).textContent, order.stage ?? '').toMatch(
        new RegExp(`^${expected} `),
      );
      page.unmount();
    }
  });

  it('when the gateway failed the order, then the header says why, from its latest status reply, as text', async () => {
    const statusReply = (id: number, message: string, code: string) => ({
      id,
      at: '2026-11-20T09:02:00.000Z',
      kind: 'gateway' as const,
      title: 'status: error (error)',
      actor: 'support@example.com',
      data: {
        operation: 'status',
        request: { orderid: '900001', client_orderid: 'shop-1' },
        httpStatus: 200,
        reply: {
          type: 'status-response',
          status: 'error',
          'error-message': message,
          'error-code': code,
        },
      },
    });
    const failed = makeTransaction(1, {
      status: 'error',
      stage: 'error',
      timeline: [
        statusReply(1, 'An older reason', 'OLD'),
        statusReply(2, '<i>Processing error at the issuer</i>', 'PROCESSING_ERROR'),
      ],
    });
    renderApp(PATH, bffAs(['support'], failed));
    const header = within((await heading()).parentElement!);
    const reason = header.getByText(
      'Error: <i>Processing error at the issuer</i> (code PROCESSING_ERROR)',
    );
    expect(reason.querySelector('i')).toBeNull();
    expect(header.queryByText(/An older reason/)).toBeNull();
  });

  it('when an approved order is shown, then no failure reason is', async () => {
    renderApp(PATH, bffAs(['support']));
    const header = within((await heading()).parentElement!);
    expect(header.queryByText(/\(code /)).toBeNull();
  });

  it('when finance opens an order, then only the actions its lifecycle allows are offered', async () => {
    renderApp(
      PATH,
      bffAs(['finance'], makeTransaction(1, { amount: '20.00', allowedActions: ['return'] })),
    );
    await heading();
    expect(screen.getByRole('button', { name: 'Return' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Void' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Capture' })).not.toBeInTheDocument();
  });

  it('when the outcome is unknown and drift is flagged, then both are explained', async () => {
    renderApp(
      PATH,
      bffAs(
        ['support'],
        makeTransaction(1, {
          status: 'unknown',
          drift: true,
          driftDetails: { gateway: 'approved', paydesk: 'declined' },
        }),
      ),
    );
    expect(await screen.findByText('Outcome unknown')).toBeInTheDocument();
    expect(screen.getByText('The gateway contradicted Paydesk’s record')).toBeInTheDocument();
    expect(
      screen.getByText(
        'The gateway’s status differed from what Paydesk had recorded: gateway approved, paydesk declined.',
      ),
    ).toBeInTheDocument();
  });

  it('when finance captures part of a preauth, then the amount defaults to the hold, is sent as decimal text under a key, and the order updates', async () => {
    const bff = bffAs(['finance'], preauth());
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const field = await screen.findByLabelText(/Amount to capture/);
    expect(field).toHaveValue('20.00');
    expect(screen.getByText('The whole hold.')).toBeInTheDocument();
    // Typed but not an amount that can be captured: the hint says the cap, not "the whole hold".
    for (const typed of ['25', 'abc', '0']) {
      await app.user.clear(field);
      await app.user.type(field, typed);
      expect(screen.getByText('Up to the remaining hold, €20.00.')).toBeInTheDocument();
      expect(screen.queryByText('The whole hold.')).toBeNull();
    }
    await app.user.clear(field);
    await app.user.type(field, '25');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('At most the remaining hold, €20.00.')).toBeInTheDocument();
    expect(keysOf(bff, 'capture')).toHaveLength(0);
    await app.user.clear(field);
    await app.user.type(field, '12.5');
    expect(screen.getByText('€7.50 of the hold will be released.')).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByText(seenAs('Capture €12.50 from the customer’s card?')),
    ).toBeInTheDocument();
    expect(keysOf(bff, 'capture')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Capture €12.50' }));
    expect(
      await screen.findByText('Capture of €12.50 approved by the gateway.'),
    ).toBeInTheDocument();
    const [request] = bff.requestsTo('POST', `/api/transactions/${ID}/capture`);
    expect(request!.body).toEqual({ amount: '12.50' });
    expect(request!.headers.get(IDEMPOTENCY_KEY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => {
      expect(amounts().getByText('Captured').nextSibling).toHaveTextContent('€12.50');
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('when a German captures with a decimal comma, then the hold and release are read from it and the plain amount is sent; a grouped amount is refused by name', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const bff = bffAs(['finance'], preauth());
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const field = await screen.findByLabelText(/Amount to capture/);
    // Prefilled with the hold in the locale's form, as the page and the hint show amounts.
    expect(field).toHaveValue('20,00');
    await app.user.clear(field);
    await app.user.type(field, '1.234,5');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Enter the amount without thousands separators.')).toBeInTheDocument();
    await app.user.clear(field);
    await app.user.type(field, '12,5');
    expect(screen.getByText('7,50 € of the hold will be released.')).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByText(seenAs('Capture 12,50 € from the customer’s card?')),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: /^Capture 12,50/ }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', `/api/transactions/${ID}/capture`)).toHaveLength(1);
    });
    const [request] = bff.requestsTo('POST', `/api/transactions/${ID}/capture`);
    expect(request!.body).toEqual({ amount: '12.50' });
  });

  it('when finance returns part of an order, then the cap is enforced, the confirmation states the amount in words, and the body carries decimal text', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByRole('dialog', { name: 'Return' });
    await app.user.click(screen.getByRole('radio', { name: 'Part' }));
    await app.user.type(screen.getByLabelText(/Amount to return/), '20.01');
    expect(
      screen.getByText('At most the remaining returnable amount, €20.00.'),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Choose why the money goes back.')).toBeInTheDocument();
    await app.user.clear(screen.getByLabelText(/Amount to return/));
    await app.user.type(screen.getByLabelText(/Amount to return/), '12.50');
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'customer_request');
    await app.user.type(screen.getByLabelText(/Comment/), 'changed mind');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(seenAs('Return €12.50 to the customer?'))).toBeInTheDocument();
    expect(keysOf(bff, 'return')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Return €12.50' }));
    expect(
      await screen.findByText('Return of €12.50 approved by the gateway.'),
    ).toBeInTheDocument();
    const [request] = bff.requestsTo('POST', `/api/transactions/${ID}/return`);
    expect(request!.body).toEqual({
      amount: '12.50',
      reasonCode: 'customer_request',
      comment: 'changed mind',
    });
    await waitFor(() => {
      expect(amounts().getByText('Remaining returnable').nextSibling).toHaveTextContent('€7.50');
    });
  });

  it('when a capture is above the hold and the largest amount the API takes, then the field says the hold (the cap that helps), not the maximum nor the decimals rule', async () => {
    const bff = bffAs(['finance'], preauth());
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const capture = await screen.findByLabelText(/Amount to capture/);
    await app.user.clear(capture);
    await app.user.type(capture, '99999999999999999');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(capture).toHaveAccessibleDescription('At most the remaining hold, €20.00.');
    // Text that is no amount still gets the usual rule.
    await app.user.type(capture, '.999');
    expect(capture).toHaveAccessibleDescription(
      'An amount above zero with at most 2 decimals, e.g. 19.99.',
    );
    expect(keysOf(bff, 'capture')).toHaveLength(0);
  });

  it('when a German returns part of an order with a huge amount, then the maximum is said with a decimal comma', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const app = renderApp(PATH, bffAs(['finance']));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByRole('dialog', { name: 'Return' });
    await app.user.click(screen.getByRole('radio', { name: 'Part' }));
    const field = screen.getByLabelText(/Amount to return/);
    await app.user.type(field, '99999999999999999');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(field).toHaveAccessibleDescription('At most 9999999999999,99.');
    await app.user.clear(field);
    await app.user.type(field, '12,345');
    expect(field).toHaveAccessibleDescription(
      'An amount above zero with at most 2 decimals, e.g. 12,50.',
    );
  });

  it('when a return’s comment holds a card number written in groups, then the field says so and nothing is sent', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'card 4111 1111 1111 1111 charged twice');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(
      screen.getByText('Must not contain a card number; give the last four digits only.'),
    ).toBeInTheDocument();
    expect(screen.queryByText(seenAs('Return €20.00 to the customer?'))).not.toBeInTheDocument();
    await app.user.clear(screen.getByLabelText(/Comment/));
    await app.user.type(screen.getByLabelText(/Comment/), 'card ending 1111 charged twice');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(seenAs('Return €20.00 to the customer?'))).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Return €20.00' }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`).map((r) => r.body)).toEqual([
        { amount: '20.00', reasonCode: 'duplicate', comment: 'card ending 1111 charged twice' },
      ]);
    });
  });

  it('when the server refuses a return with 409, then the refusal and the remaining amount are shown', async () => {
    const bff = bffAs(['finance']);
    bff.on('POST /api/transactions/:id/return', () => ({
      status: 409,
      body: {
        error: {
          code: 'CAP_EXCEEDED',
          message: 'return refused',
          requestId: 'r-409',
          details: {
            reason: 'exceeds the captured amount not yet returned',
            remaining: '3.00',
            currency: 'EUR',
          },
        },
      },
    }));
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'double charge');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(seenAs('Return €20.00 to the customer?'))).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Return €20.00' }));
    const message = 'Refused: exceeds the captured amount not yet returned. Remaining: €3.00.';
    expect(await within(screen.getByRole('dialog')).findByText(message)).toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`)[0]!.body).toEqual({
      amount: '20.00',
      reasonCode: 'duplicate',
      comment: 'double charge',
    });
  });

  it('when the server refuses a return that was confirmed, naming the comment, then the form comes back with the message under the comment, the focus on it and the typed values kept', async () => {
    const bff = bffAs(['finance']);
    bff.on('POST /api/transactions/:id/return', () =>
      fieldRefusal(400, 'VALIDATION_FAILED', 'comment', 'must not name the customer'),
    );
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: 'Part' }));
    await app.user.type(screen.getByLabelText(/Amount to return/), '12.5');
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'Ann Smith paid twice');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Return €12.50' }));
    const dialog = await screen.findByRole('dialog', { name: 'Return' });
    const comment = await within(dialog).findByLabelText(/Comment/);
    expect(comment).toHaveAccessibleDescription('This must not name the customer. 20 / 255');
    expect(comment).toHaveAttribute('aria-invalid', 'true');
    await waitFor(() => {
      expect(comment).toHaveFocus();
    });
    // said once, under the field: not also in an alert
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(dialog).getByRole('radio', { name: 'Part' })).toBeChecked();
    expect(within(dialog).getByLabelText(/Amount to return/)).toHaveValue('12.5');
    expect(within(dialog).getByLabelText(/Reason/)).toHaveValue('duplicate');
    expect(comment).toHaveValue('Ann Smith paid twice');
    // Continue asks again, without the old refusal
    await app.user.clear(comment);
    await app.user.type(comment, 'paid twice');
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm the return' });
    expect(within(confirm).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when a cap refusal names the amount of a partial return, then the form comes back and the amount field still says what remains', async () => {
    const bff = bffAs(['finance']);
    bff.on('POST /api/transactions/:id/return', () =>
      fieldRefusal(409, 'CAP_EXCEEDED', 'amount', 'exceeds the captured amount not yet returned', {
        reason: 'exceeds the captured amount not yet returned',
        remaining: '3.00',
        currency: 'EUR',
      }),
    );
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: 'Part' }));
    await app.user.type(screen.getByLabelText(/Amount to return/), '12.50');
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'double charge');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Return €12.50' }));
    const dialog = await screen.findByRole('dialog', { name: 'Return' });
    const amount = await within(dialog).findByLabelText(/Amount to return/);
    expect(amount).toHaveAccessibleDescription(
      'Refused: exceeds the captured amount not yet returned. Remaining: €3.00.',
    );
    await waitFor(() => {
      expect(amount).toHaveFocus();
    });
    expect(amount).toHaveValue('12.50');
  });

  it('when a refusal names the amount of a full return, which the form does not show, then it stays an alert on the confirmation', async () => {
    const bff = bffAs(['finance']);
    bff.on('POST /api/transactions/:id/return', () =>
      fieldRefusal(400, 'VALIDATION_FAILED', 'amount', 'must be greater than zero'),
    );
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'double charge');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Return €20.00' }));
    const confirm = screen.getByRole('dialog', { name: 'Confirm the return' });
    expect(await within(confirm).findByRole('alert')).toHaveTextContent(
      'Amount: must be greater than zero.',
    );
    expect(screen.getByText(seenAs('Return €20.00 to the customer?'))).toBeInTheDocument();
  });

  it('when the server refuses a confirmed capture, naming the amount, then the form comes back with the message under the amount, the focus on it and the amount kept', async () => {
    const bff = bffAs(['finance'], preauth());
    bff.on('POST /api/transactions/:id/capture', () =>
      fieldRefusal(400, 'VALIDATION_FAILED', 'amount', 'must be at most the authorized amount'),
    );
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const field = await screen.findByLabelText(/Amount to capture/);
    await app.user.clear(field);
    await app.user.type(field, '12.5');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €12.50' }));
    const dialog = await screen.findByRole('dialog', { name: 'Capture' });
    const amount = await within(dialog).findByLabelText(/Amount to capture/);
    expect(amount).toHaveAccessibleDescription('This must be at most the authorized amount.');
    expect(amount).toHaveAttribute('aria-invalid', 'true');
    expect(amount).toHaveFocus();
    expect(amount).toHaveValue('12.5');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when a capture is refused over the cap as the BFF refuses it (no field named), then the confirmation says the refusal and the remaining hold', async () => {
    const bff = bffAs(['finance'], preauth());
    bff.on('POST /api/transactions/:id/capture', () => ({
      status: 409,
      body: {
        error: {
          code: 'CAP_EXCEEDED',
          message: 'Capture refused: exceeds the authorized amount (remaining 5.00 EUR).',
          requestId: 'r-409',
          details: { reason: 'exceeds the authorized amount', remaining: '5.00', currency: 'EUR' },
        },
      },
    }));
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €20.00' }));
    const confirm = screen.getByRole('dialog', { name: 'Confirm the capture' });
    expect(await within(confirm).findByRole('alert')).toHaveTextContent(
      'Refused: exceeds the authorized amount. Remaining: €5.00.',
    );
  });

  it('when the server refuses a confirmed void, naming the comment, then the form comes back with the message under the comment and the comment kept', async () => {
    const bff = bffAs(['finance'], preauth());
    bff.on('POST /api/transactions/:id/void', () =>
      fieldRefusal(409, 'INVALID_STATE', 'comment', 'the gateway refused this comment'),
    );
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    await app.user.type(await screen.findByLabelText(/Comment/), 'customer cancelled');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Void €20.00' }));
    const dialog = await screen.findByRole('dialog', { name: 'Void the order' });
    const comment = await within(dialog).findByLabelText(/Comment/);
    expect(comment).toHaveAccessibleDescription('The gateway refused this comment. 18 / 255');
    expect(comment).toHaveFocus();
    expect(comment).toHaveValue('customer cancelled');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when the reply to a return is lost, then the form locks, "Send again" reuses the same Idempotency-Key, and the money moves once', async () => {
    const bff = bffAs(['finance']);
    let dropped = 0;
    bff.on('POST /api/transactions/:id/return', (request) => {
      // The server did the return, but its reply never arrived.
      bff.on('POST /api/transactions/:id/return', () => 'hang');
      dropped += 1;
      bff.payments.handle(request, bff.users[0]);
      return 'network-error';
    });
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: 'Part' }));
    await app.user.type(screen.getByLabelText(/Amount to return/), '5');
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'other');
    await app.user.type(screen.getByLabelText(/Comment/), 'goodwill');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Return €5.00' }));
    expect(await screen.findByText('No answer yet')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Back' })).not.toBeInTheDocument();
    expect(dropped).toBe(1);
    // The retry reaches the real fake handler, which answers from the stored reply.
    bff.on('POST /api/transactions/:id/return', (request) =>
      bff.payments.handle(request, bff.users[0])!,
    );
    await app.user.click(screen.getByRole('button', { name: 'Send again' }));
    expect(await screen.findByText('Return of €5.00 approved by the gateway.')).toBeInTheDocument();
    const keys = keysOf(bff, 'return');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`).map((r) => r.body)).toEqual([
      { amount: '5.00', reasonCode: 'other', comment: 'goodwill' },
      { amount: '5.00', reasonCode: 'other', comment: 'goodwill' },
    ]);
    const stored = bff.payments.byId(ID)!;
    expect(stored.amounts.returned).toBe('5.00');
    expect(stored.operations.filter((o) => o.kind === 'return')).toHaveLength(1);
  });

  it('when a new dialog is opened for a second return, then it sends a new Idempotency-Key', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    for (const comment of ['first', 'second']) {
      await app.user.click(screen.getByRole('button', { name: 'Return' }));
      await app.user.click(await screen.findByRole('radio', { name: 'Part' }));
      await app.user.type(screen.getByLabelText(/Amount to return/), '1');
      await app.user.selectOptions(screen.getByLabelText(/Reason/), 'other');
      await app.user.type(screen.getByLabelText(/Comment/), comment);
      await app.user.click(screen.getByRole('button', { name: 'Continue' }));
      await app.user.click(await screen.findByRole('button', { name: 'Return €1.00' }));
      await waitFor(() => {
        expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      });
    }
    const keys = keysOf(bff, 'return');
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
    expect(bff.payments.byId(ID)!.amounts.returned).toBe('2.00');
    // what the order kept: €20.00 captured less the €2.00 returned
    await waitFor(() => {
      expect(amounts().getByText('Net').nextSibling).toHaveTextContent('€18.00');
    });
  });

  it('when finance voids an order, then a comment is required and the void is sent under a key', async () => {
    const bff = bffAs(['finance'], preauth());
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    await screen.findByRole('dialog', { name: 'Void the order' });
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Say in a few words why (up to 255 characters).')).toBeInTheDocument();
    expect(keysOf(bff, 'void')).toHaveLength(0);
    expect(screen.getByText(/hold on the customer’s card is released/)).toBeInTheDocument();
    await app.user.type(screen.getByLabelText(/Comment/), 'customer cancelled');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByText(seenAs('Void order 900001 for its whole amount, €20.00?')),
    ).toBeInTheDocument();
    expect(keysOf(bff, 'void')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Void €20.00' }));
    expect(await screen.findByText('Void of €20.00 approved by the gateway.')).toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/void`)[0]!.body).toEqual({
      comment: 'customer cancelled',
    });
    expect(keysOf(bff, 'void')[0]).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => {
      expect(screen.queryByRole('button', { name: 'Capture' })).not.toBeInTheDocument();
    });
  });

  it('when finance voids a partly captured preauth, then the dialog says the captured part is cancelled and the rest of the hold was already released, not “its whole amount”', async () => {
    const partly = makeTransaction(1, { type: 'preauth', amount: '100.00' });
    partly.amounts = {
      ...partly.amounts,
      captured: '60.50',
      remainingCapturable: '0.00',
      remainingReturnable: '60.50',
    };
    partly.allowedActions = ['void', 'return'];
    const app = renderApp(PATH, bffAs(['finance'], partly));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Void the order' }));
    expect(dialog.getByText('€60.50')).toBeInTheDocument();
    expect(dialog.queryByText(/whole amount/)).not.toBeInTheDocument();
    expect(
      dialog.getByText(
        /The captured €60\.50 is cancelled before it settles\. The rest of the hold, €39\.50 of the €100\.00 authorized, was already released at the capture and is not affected\./,
      ),
    ).toBeInTheDocument();
    await app.user.type(dialog.getByLabelText(/Comment/), 'duplicate order');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByText(seenAs('Void the €60.50 captured on order 900001?')),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Void €60.50' })).toBeInTheDocument();
  });

  it('when finance creates a card reference, then it is sent with an empty body and the reference shows', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Create card reference' }));
    await app.user.click(
      within(await screen.findByRole('dialog')).getByRole('button', {
        name: 'Create card reference',
      }),
    );
    expect(await screen.findByText('Card reference card-ref-0001 created.')).toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/card-ref`)[0]!.body).toEqual({});
    expect(await screen.findByText('card-ref-0001')).toBeInTheDocument();
  });

  it('when Enter is pressed twice on Continue of a return, then the second Enter sends nothing and the question has the focus', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'double charge');
    screen.getByRole('button', { name: 'Continue' }).focus();
    await app.user.keyboard('{Enter}{Enter}');
    const question = await screen.findByText(seenAs('Return €20.00 to the customer?'));
    expect(document.activeElement).toBe(question);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(keysOf(bff, 'return')).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Return €20.00' })).not.toHaveFocus();
    // a double click's second click lands on the new button: it sends nothing either
    const send = screen.getByRole('button', { name: 'Return €20.00' });
    fireEvent.click(send, { detail: 2 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(keysOf(bff, 'return')).toHaveLength(0);
    await app.user.click(send);
    await waitFor(() => {
      expect(keysOf(bff, 'return')).toHaveLength(1);
    });
  });

  it('when a full capture is sent with Enter, then it first asks to confirm the amount, with the focus on the question', async () => {
    const bff = bffAs(['finance'], preauth());
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    expect(await screen.findByLabelText(/Amount to capture/)).toHaveFocus();
    await app.user.keyboard('{Enter}');
    const question = await screen.findByText(seenAs('Capture €20.00 from the customer’s card?'));
    expect(question).toHaveFocus();
    await app.user.keyboard('{Enter}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(keysOf(bff, 'capture')).toHaveLength(0);
    await app.user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByLabelText(/Amount to capture/)).toHaveFocus();
  });

  it('when Continue finds fields that need attention, then the focus goes to the first of them', async () => {
    const app = renderApp(PATH, bffAs(['finance'], preauth()));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Void' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    expect(screen.getByLabelText(/Comment/)).toHaveFocus();
    await app.user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    const amount = await screen.findByLabelText(/Amount to capture/);
    await app.user.clear(amount);
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(amount).toHaveFocus();
  });

  it('when the return dialog opens, then neither “All of it” nor “Part” is chosen, and Continue without a choice sends nothing, says so on the choice and puts the focus there', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    const dialog = await screen.findByRole('dialog', { name: 'Return' });
    const scope = within(dialog).getByRole('radiogroup', { name: 'How much' });
    const all = within(scope).getByRole('radio', { name: 'All of it (€20.00)' });
    const part = within(scope).getByRole('radio', { name: 'Part' });
    expect(all).not.toBeChecked();
    expect(part).not.toBeChecked();
    expect(scope).not.toHaveAccessibleDescription();
    // Everything else filled in: only the choice is missing.
    await app.user.selectOptions(within(dialog).getByLabelText(/Reason/), 'duplicate');
    await app.user.type(within(dialog).getByLabelText(/Comment/), 'double charge');
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    const message = 'Choose whether to return all of it or part of it.';
    expect(scope).toHaveAccessibleDescription(message);
    expect(scope).toHaveAttribute('aria-invalid', 'true');
    expect(all).toHaveAccessibleDescription(message);
    expect(all).toHaveFocus();
    expect(screen.queryByRole('dialog', { name: 'Confirm the return' })).not.toBeInTheDocument();
    expect(screen.queryByText(seenAs('Return €20.00 to the customer?'))).not.toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`)).toHaveLength(0);
    // Chosen, the message goes and Continue leads to the confirmation.
    await app.user.click(all);
    expect(scope).not.toHaveAccessibleDescription();
    expect(within(dialog).queryByText(message)).not.toBeInTheDocument();
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(seenAs('Return €20.00 to the customer?'))).toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`)).toHaveLength(0);
  });

  it('when Continue of a return finds the choice, the reason and the comment missing, then the focus goes to the choice, then the reason, then the comment', async () => {
    const app = renderApp(PATH, bffAs(['finance']));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('radio', { name: /All of it/ })).toHaveFocus();
    await app.user.click(screen.getByRole('radio', { name: /All of it/ }));
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByLabelText(/Reason/)).toHaveFocus();
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByLabelText(/Comment/)).toHaveFocus();
  });

  it('when the return’s scope is changed with the arrow keys, then the focus stays in the radio group', async () => {
    const app = renderApp(PATH, bffAs(['finance']));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    const all = await screen.findByRole('radio', { name: /All of it/ });
    all.focus();
    await app.user.keyboard('{ArrowRight}');
    const part = screen.getByRole('radio', { name: 'Part' });
    expect(part).toBeChecked();
    expect(part).toHaveFocus();
    await app.user.keyboard('{ArrowLeft}');
    expect(all).toBeChecked();
  });

  const FOCUS_CASES: {
    action: string;
    transaction: () => ReturnType<typeof makeTransaction>;
    send: (app: ReturnType<typeof renderApp>) => Promise<void>;
  }[] = [
    {
      action: 'Capture',
      transaction: preauth,
      send: async (app) => {
        await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
        await app.user.click(await screen.findByRole('button', { name: 'Capture €20.00' }));
      },
    },
    {
      action: 'Void',
      transaction: preauth,
      send: async (app) => {
        await app.user.type(await screen.findByLabelText(/Comment/), 'customer cancelled');
        await app.user.click(screen.getByRole('button', { name: 'Continue' }));
        await app.user.click(await screen.findByRole('button', { name: 'Void €20.00' }));
      },
    },
    {
      action: 'Create card reference',
      transaction: () => makeTransaction(1, { amount: '20.00' }),
      send: async (app) => {
        await app.user.click(
          within(await screen.findByRole('dialog')).getByRole('button', {
            name: 'Create card reference',
          }),
        );
      },
    },
    {
      action: 'Return',
      transaction: () => makeTransaction(1, { amount: '20.00' }),
      send: async (app) => {
        await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
        await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
        await app.user.type(screen.getByLabelText(/Comment/), 'double charge');
        await app.user.click(screen.getByRole('button', { name: 'Continue' }));
        await app.user.click(await screen.findByRole('button', { name: 'Return €20.00' }));
      },
    },
  ];

  for (const { action, transaction, send } of FOCUS_CASES) {
    it(`when ${action} succeeds and is no longer offered, then the keyboard focus goes to the page heading, not the body`, async () => {
      const app = renderApp(PATH, bffAs(['finance'], transaction()));
      const title = await heading();
      const opener = screen.getByRole('button', { name: action });
      opener.focus();
      await app.user.keyboard('{Enter}');
      await send(app);
      await waitFor(() => {
        expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      });
      await waitFor(() => {
        expect(screen.queryByRole('button', { name: action })).not.toBeInTheDocument();
      });
      await waitFor(() => {
        expect(document.activeElement).toBe(title);
      });
    });
  }

  it('when a dialog is cancelled, then the focus goes back to the button that opened it', async () => {
    const app = renderApp(PATH, bffAs(['finance'], preauth()));
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    await app.user.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Capture' }));
    });
  });

  it('when the gateway takes more than 2 seconds to answer Refresh status, then the page says it is asking it and how long it waits (QA: a spinner alone for up to 15 s)', async () => {
    const bff = bffAs(['support']).on('POST /api/transactions/:id/refresh', () => 'hang');
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Refresh status' }));
    expect(
      await screen.findByText(
        'Asking the gateway for the order’s status… Paydesk waits up to 15 s for its answer.',
        {},
        { timeout: 4_000 },
      ),
    ).toBeInTheDocument();
  });

  it('when Refresh status is double-clicked, faster than the button re-renders as busy, then the gateway is asked once (QA)', async () => {
    const bff = bffAs(['support']);
    const app = renderApp(PATH, bff);
    await heading();
    const button = screen.getByRole('button', { name: 'Refresh status' });
    // Both clicks land before React re-renders the button as busy.
    fireEvent.click(button);
    fireEvent.click(button);
    await waitFor(() => {
      expect(button).toHaveAttribute('aria-busy', 'false');
    });
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/refresh`)).toHaveLength(1);
    // Once answered, it asks again.
    await app.user.click(button);
    await waitFor(() => {
      expect(bff.requestsTo('POST', `/api/transactions/${ID}/refresh`)).toHaveLength(2);
    });
  });

  it('when Refresh status is pressed with Enter, then it stays focused and busy (not disabled) until the answer, and a second press sends nothing', async () => {
    const bff = bffAs(['support']);
    bff.on('POST /api/transactions/:id/refresh', () => 'hang');
    const app = renderApp(PATH, bff);
    await heading();
    const button = screen.getByRole('button', { name: 'Refresh status' });
    button.focus();
    await app.user.keyboard('{Enter}');
    await waitFor(() => {
      expect(button).toHaveAttribute('aria-disabled', 'true');
    });
    expect(button).not.toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
    expect(document.activeElement).toBe(button);
    await app.user.keyboard('{Enter}');
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/refresh`)).toHaveLength(1);
  });

  /**
   * A capture the gateway accepted and has not finished, as the BFF answers it (the operation
   * `processing`, the order recorded so); its final status comes later, by `finish`.
   */
  function acceptedCapture(bff: FakeBff) {
    bff.on('POST /api/transactions/:id/capture', (request) => {
      const reply = bff.payments.handle(request, bff.users[0])!;
      const result = reply.body as OperationResult;
      const operation = { ...result.operation, state: 'processing' as const };
      const transaction = {
        ...result.transaction,
        operations: result.transaction.operations.map((o) =>
          o.id === operation.id ? operation : o,
        ),
      };
      bff.payments.transactions = bff.payments.transactions.map((t) =>
        t.id === ID ? transaction : t,
      );
      return {
        status: 200,
        body: {
          ...result,
          operation,
          transaction,
          message:
            'The gateway accepted the capture of 20.00 and is processing it; Paydesk updates the order as soon as the gateway reports its final status.',
        },
      };
    });
    /** The gateway's callback: the capture ends `state`, as its status reply says. */
    return (state: 'approved' | 'declined') => {
      const current = bff.payments.byId(ID)!;
      bff.payments.change(ID, {
        operations: current.operations.map((o) =>
          o.kind === 'capture' ? { ...o, state, updatedAt: '2026-11-20T18:00:00.000Z' } : o,
        ),
      });
    };
  }

  it('when an accepted operation comes back, then the message shows its amount as money, whatever the BFF’s sentence says', async () => {
    const bff = bffAs(['finance'], preauth());
    acceptedCapture(bff);
    const app = renderApp(PATH, bff);
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €20.00' }));
    expect(
      await screen.findByText(
        'The gateway accepted the capture of €20.00 and is processing it; Paydesk updates the order as soon as the gateway reports its final status.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/capture of 20\.00/)).not.toBeInTheDocument();
  });

  it('when the final status of an accepted capture arrives (the callback), then the message says the outcome instead of “is processing it”', async () => {
    const bff = bffAs(['finance'], preauth());
    const finish = acceptedCapture(bff);
    const app = renderApp(PATH, bff);
    await heading();
    await screen.findByText('Live');
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €20.00' }));
    const accepted =
      'The gateway accepted the capture of €20.00 and is processing it; Paydesk updates the order as soon as the gateway reports its final status.';
    expect(await screen.findByText(accepted)).toBeInTheDocument();
    finish('approved');
    expect(
      await screen.findByText('Capture of €20.00 approved by the gateway.'),
    ).toBeInTheDocument();
    expect(screen.queryByText(accepted)).not.toBeInTheDocument();
  });

  it('when an accepted capture ends declined, then the message says so', async () => {
    const bff = bffAs(['finance'], preauth());
    const finish = acceptedCapture(bff);
    const app = renderApp(PATH, bff);
    await heading();
    await screen.findByText('Live');
    await app.user.click(screen.getByRole('button', { name: 'Capture' }));
    await app.user.click(await screen.findByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Capture €20.00' }));
    await screen.findByText(/and is processing it/);
    finish('declined');
    expect(
      await screen.findByText('The gateway declined the capture of €20.00.'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/and is processing it/)).not.toBeInTheDocument();
  });

  it('when the order has operations, then their table scrolls sideways in a focusable region that says so', async () => {
    renderApp(PATH, bffAs(['support']));
    await heading();
    const region = screen.getByRole('region', {
      name: 'Operations (scrolls sideways when wider than the screen)',
    });
    expect(region).toHaveAttribute('tabindex', '0');
    expect(within(region).getByRole('table', { name: 'Operations' })).toBeInTheDocument();
  });

  it('when the event stream reports a change to this order, then it is fetched again', async () => {
    const bff = bffAs(['support']);
    renderApp(PATH, bff);
    await heading();
    await screen.findByText('Live');
    bff.payments.change(ID, { status: 'declined' });
    expect(await screen.findByText('Declined')).toBeInTheDocument();
  });

  it('when the event stream brings someone else’s return on this order, then a polite live region says what changed', async () => {
    const bff = bffAs(['support']);
    renderApp(PATH, bff);
    await heading();
    await screen.findByText('Live');
    const current = bff.payments.byId(ID)!;
    bff.payments.change(ID, {
      stage: 'partially_returned',
      amounts: { ...current.amounts, returned: '3.02', remainingReturnable: '16.98' },
    });
    const note = await screen.findByText('Order updated: €3.02 returned.');
    expect(note).toHaveAttribute('role', 'status');
    expect(note).toHaveAttribute('aria-live', 'polite');
  });

  it('when the event stream brings someone else’s capture of part of a hold, then the live region says the capture once, in plain words', async () => {
    const bff = bffAs(['support'], preauth());
    renderApp(PATH, bff);
    await heading();
    await screen.findByText('Live');
    const current = bff.payments.byId(ID)!;
    bff.payments.change(ID, {
      stage: 'captured',
      amounts: {
        ...current.amounts,
        captured: '12.00',
        remainingCapturable: '0.00',
        remainingReturnable: '12.00',
      },
    });
    expect(
      await screen.findByText(
        'Order updated: €12.00 captured, the other €8.00 of the hold released.',
      ),
    ).toHaveAttribute('role', 'status');
    expect(screen.queryByText(/captured.*captured/)).not.toBeInTheDocument();
  });

  it('when what can be returned changes while finance is confirming “All of it”, then the dialog goes back to the form and says from what to what, so another amount is never confirmed unseen', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(PATH, bff);
    await heading();
    await screen.findByText('Live');
    await app.user.click(screen.getByRole('button', { name: 'Return' }));
    await app.user.click(await screen.findByRole('radio', { name: /All of it/ }));
    await app.user.selectOptions(screen.getByLabelText(/Reason/), 'duplicate');
    await app.user.type(screen.getByLabelText(/Comment/), 'charged twice');
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(seenAs('Return €20.00 to the customer?'))).toBeInTheDocument();
    const current = bff.payments.byId(ID)!;
    bff.payments.change(ID, {
      stage: 'partially_returned',
      amounts: { ...current.amounts, returned: '15.00', remainingReturnable: '5.00' },
    });
    expect(
      await screen.findByText(
        'While this was open, what can be returned changed from €20.00 to €5.00 (another return, or a status from the gateway). Check the amount before you go on.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(seenAs('Return €20.00 to the customer?'))).toBeNull();
    expect(screen.queryByText(seenAs('Return €5.00 to the customer?'))).toBeNull();
    expect(screen.getByLabelText('All of it (€5.00)')).toBeChecked();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`)).toHaveLength(0);
    // Read and confirmed again: the new amount is sent.
    await app.user.click(screen.getByRole('button', { name: 'Continue' }));
    await app.user.click(await screen.findByRole('button', { name: 'Return €5.00' }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', `/api/transactions/${ID}/return`).map((r) => r.body)).toEqual([
        { amount: '5.00', reasonCode: 'duplicate', comment: 'charged twice' },
      ]);
    });
  });

  it('when the order shows its ids, then each has a copy button', async () => {
    const app = renderApp(
      PATH,
      bffAs(['support'], makeTransaction(1, { amount: '20.00', cardRefId: 'card-ref-7' })),
    );
    await heading();
    await app.user.click(screen.getByRole('button', { name: 'Copy Orderid' }));
    expect(await navigator.clipboard.readText()).toBe('900001');
    expect(screen.getByRole('button', { name: 'Orderid copied' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy Client order id' })).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Copy Card reference' }));
    expect(await navigator.clipboard.readText()).toBe('card-ref-7');
  });
});
