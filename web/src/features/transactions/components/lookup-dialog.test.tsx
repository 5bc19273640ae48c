import { TransactionDetailSchema, type LookupBody } from '@paydesk/shared/api';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FakeBff, makePayout, makeTransaction, makeUser } from '../../../test/fake-bff';
import { makeLink } from '../../../test/fake-links';
import { makeSubscription } from '../../../test/fake-subscriptions';
import { renderApp } from '../../../test/render-app';
import { screenWidth } from '../../../test/screen-width';
import { ApiError } from '../../../lib/api-client';
import { lookupAttempts, serverProblem } from './lookup-dialog';

function bffAs(
  roles: Parameters<typeof makeUser>[0]['roles'],
  options: ConstructorParameters<typeof FakeBff>[0] = {},
) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
    ...options,
  });
}

const typed = (term: string, clientOrderId = '', endpointId = '') =>
  lookupAttempts({ term, clientOrderId, endpointId });

/** The first field (its label also names the other two ways). */
const termField = () => screen.findByLabelText(/^Orderid or client order id/);

async function openDialog(app: ReturnType<typeof renderApp>) {
  await app.user.click(await screen.findByRole('button', { name: /Look up order/ }));
  return termField();
}

/** Opens the transactions screen for `bff`, then the dialog, and looks `text` up with Enter. */
async function lookUpOnList(bff: FakeBff, text: string) {
  const app = renderApp('/transactions', bff);
  await app.user.type(await openDialog(app), `${text}{Enter}`);
  return app;
}

describe('status lookup', () => {
  it('when the text is digits, then it is asked as an orderid and as a client_orderid (both may match)', () => {
    expect(typed(' 900003 ')).toEqual({
      attempts: [
        { kind: 'gateway', body: { orderid: '900003' } },
        { kind: 'gateway', body: { client_orderid: '900003' } },
      ],
    });
    expect(typed('shop-4')).toEqual({
      attempts: [{ kind: 'gateway', body: { client_orderid: 'shop-4' } }],
    });
    expect(typed('has space')).toMatchObject({ field: 'term' });
    expect(typed('')).toMatchObject({ field: 'term' });
  });

  it('when the text is an e-mail address or a masked card, then it is the transactions search, not a gateway lookup; four digits are still asked as an orderid and a client_orderid', () => {
    expect(typed(' shopper@example.com ')).toEqual({ search: 'shopper@example.com' });
    expect(typed('411111******1111')).toEqual({ search: '411111******1111' });
    expect(typed('**** 1111')).toEqual({ search: '**** 1111' });
    expect(typed('1111')).toEqual({
      attempts: [
        { kind: 'gateway', body: { orderid: '1111' } },
        { kind: 'gateway', body: { client_orderid: '1111' } },
      ],
    });
    // A client_orderid that holds an @ (no domain) is asked at the gateway; so is any text typed
    // as the client_orderid (the second field).
    expect(typed('order@shop')).toEqual({
      attempts: [{ kind: 'gateway', body: { client_orderid: 'order@shop' } }],
    });
    expect(typed('', 'shopper@example.com')).toEqual({
      attempts: [{ kind: 'gateway', body: { client_orderid: 'shopper@example.com' } }],
    });
  });

  it('when the text is a Paydesk id (a UUID), then Paydesk’s own record is tried first, then a client_orderid', () => {
    expect(typed('00000000-0000-4000-8000-00000000000A')).toEqual({
      attempts: [
        { kind: 'id', id: '00000000-0000-4000-8000-00000000000a' },
        { kind: 'gateway', body: { client_orderid: '00000000-0000-4000-8000-00000000000A' } },
      ],
    });
  });

  it('when a client_orderid or an endpoint is given too, then they go with the orderid; a wrong one is named', () => {
    expect(typed('1000337', 'shop-77', '1002')).toEqual({
      attempts: [
        {
          kind: 'gateway',
          body: { orderid: '1000337', client_orderid: 'shop-77', endpointId: '1002' },
        },
      ],
    });
    expect(typed('', 'shop-77')).toEqual({
      attempts: [{ kind: 'gateway', body: { client_orderid: 'shop-77' } }],
    });
    expect(typed('shop-1', 'shop-77')).toMatchObject({ field: 'term' });
    expect(typed('1000337', 'has space')).toEqual({
      field: 'clientOrderId',
      problem: 'A client order id is printable, without spaces.',
    });
    expect(typed('1000337', '', 'EU')).toMatchObject({ field: 'endpointId' });
  });

  it('when a whole card number is typed (digits, spaces or dashes; either field), then no look-up is planned and the field names the rule', () => {
    for (const [term, clientOrderId, field] of [
      ['4111111111111111', '', 'term'],
      ['4111 1111 1111 1111', '', 'term'],
      ['5555-5555-5555-4444', '', 'term'],
      ['1000337', '4111111111111111', 'clientOrderId'],
      ['', '4111 1111 1111 1111', 'clientOrderId'],
    ] as const) {
      expect(typed(term, clientOrderId)).toEqual({
        field,
        problem: 'Looks like a card number: it is not sent. Search by its last four digits.',
        lastFour: term === '5555-5555-5555-4444' ? '4444' : '1111',
      });
    }
    // Digits that fail the Luhn check, or too few, are still ids.
    expect(typed('4111111111111112')).toHaveProperty('attempts');
    expect(typed('1000337')).toHaveProperty('attempts');
  });

  it('when a whole card number is typed with spaces, then the dialog says at once it is never sent, shows only its last four, sends nothing on Look up, and offers the last-four search', async () => {
    const bff = bffAs(['support'], {
      transactions: [
        makeTransaction(1, {
          card: { bin: '411111', lastFour: '1111', brand: 'VISA', masked: '411111******1111' },
        }),
      ],
    });
    const app = renderApp('/account', bff);
    const field = await openDialog(app);
    await app.user.type(field, '4111 1111 1111 1111');
    const dialog = screen.getByRole('dialog', { name: 'Look up an order' });
    expect(
      within(dialog).getByText(
        /^That looks like a whole card number \(ending 1111\)\. Paydesk never sends a card number to the gateway nor searches by it: search the transactions by its last four digits\./,
      ),
    ).toBeInTheDocument();
    expect(field).toHaveAccessibleDescription(
      'Looks like a card number: it is not sent. Search by its last four digits.',
    );
    expect(field).toHaveAttribute('aria-invalid', 'true');
    await app.user.click(within(dialog).getByRole('button', { name: 'Look up' }));
    await app.user.keyboard('{Enter}');
    expect(screen.getByRole('dialog', { name: 'Look up an order' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
    // Never shown back, whole or in its groups, except in the field it was typed in.
    const shown = dialog.textContent.replace(/\s+/g, '');
    expect(shown).not.toContain('4111111111111111');
    expect(shown).not.toContain('411111');
    await app.user.click(
      within(dialog).getByRole('button', { name: 'Search the transactions for “1111”' }),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=1111');
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Order 900001' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
  });

  it('when the gateway takes more than 2 seconds to answer a look-up, then the dialog says it is asking it and how long it waits per endpoint (QA: a spinner alone for 15 s)', async () => {
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => 'hang');
    const app = renderApp('/account', bff);
    const field = await openDialog(app);
    await app.user.type(field, '1000333{Enter}');
    expect(
      await screen.findByText(
        'Asking the gateway… Paydesk waits up to 15 s for each endpoint it asks.',
        {},
        { timeout: 4_000 },
      ),
    ).toBeInTheDocument();
  });

  it('when a look-up on a chosen endpoint finds nothing, then the dialog says only that endpoint was asked, not that the gateway knows no order, and offers to ask every endpoint, which finds it', async () => {
    const bff = bffAs(['support'], {
      transactions: [
        makeTransaction(1, { endpointId: '1002', currency: 'USD', orderid: '1000333' }),
      ],
    });
    const app = renderApp('/account', bff);
    const field = await openDialog(app);
    await app.user.type(field, '1000333');
    await app.user.type(screen.getByLabelText(/^Client order id/), 'shop-1');
    await app.user.type(screen.getByLabelText(/^Endpoint/), '1001{Enter}');
    const message = await screen.findByText(/^Endpoint 1001 has no order/);
    expect(message).toHaveTextContent(
      /^Endpoint 1001 has no order “1000333” with client order id “shop-1”\. Only endpoint 1001 was asked: the order may be on another endpoint\. Leave the Endpoint empty to ask every endpoint\./,
    );
    expect(screen.queryByText(/The gateway knows no/)).not.toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Look up on every endpoint' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000001');
    });
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '1000333', client_orderid: 'shop-1', endpointId: '1001' },
      { orderid: '1000333', client_orderid: 'shop-1' },
    ]);
  });

  it('when support presses Ctrl+K anywhere and types an orderid, then the gateway is asked and the order opens', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/account', bff);
    await screen.findByRole('heading', { name: 'My account' });
    await app.user.keyboard('{Control>}k{/Control}');
    await app.user.type(await termField(), '900003{Enter}');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000003');
    });
    expect(await screen.findByRole('heading', { name: 'Order 900003' })).toBeInTheDocument();
    // Found as an orderid: another order with it as its client_orderid is looked for among the
    // orders Paydesk knows, not at the gateway (no second status request, no refused audit row).
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '900003' },
    ]);
    expect(bff.requestsTo('GET', '/api/transactions').length).toBeGreaterThan(0);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('when the app-bar button is used with a client_orderid, then the order opens', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp('/transactions', bff);
    await app.user.type(await openDialog(app), 'shop-4');
    await app.user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(await screen.findByRole('heading', { name: 'Order 900004' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { client_orderid: 'shop-4' },
    ]);
  });

  it('when Paydesk has not learned an orderid, then the dialog says plainly it has no such order and that the gateway needs its client_orderid too, and with it the order opens', async () => {
    const bff = bffAs(['support']);
    // As the BFF answers for an order only the gateway knows: the orderid alone is not enough.
    bff.on('POST /api/transactions/lookup', (request) => {
      const body = request.body as LookupBody;
      if (body.client_orderid === undefined)
        return {
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_FAILED',
              message: 'client_orderid: Paydesk has not learned order 900003 yet',
              details: {
                fields: [{ path: 'client_orderid', rule: 'required', message: 'required' }],
              },
              requestId: 'r',
            },
          },
        };
      if (body.orderid === undefined)
        return {
          status: 404,
          body: { error: { code: 'NOT_FOUND', message: 'none', requestId: 'r' } },
        };
      return {
        status: 200,
        body: TransactionDetailSchema.parse(
          bff.payments.byId('00000000-0000-4000-8000-000000000003'),
        ),
      };
    });
    const app = await lookUpOnList(bff, '900003');
    expect(
      await screen.findByText(
        'Paydesk has no order “900003”, and the gateway has none with the client order id “900003”. To ask the gateway for order “900003”, add its client order id below: the gateway finds an order by its orderid only together with its client order id.',
      ),
    ).toBeInTheDocument();
    // Its labels, hints and message name the shop's id as the order pages do, not as the API does.
    expect(screen.getByRole('dialog')).not.toHaveTextContent(/client_orderid/);
    const second = screen.getByLabelText(/^Client order id/);
    await waitFor(() => {
      expect(second).toHaveFocus();
    });
    await app.user.type(second, 'shop-3{Enter}');
    expect(await screen.findByRole('heading', { name: 'Order 900003' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '900003' },
      { client_orderid: '900003' },
      { orderid: '900003', client_orderid: 'shop-3' },
    ]);
  });

  it('when an id is one order’s orderid and another’s client_orderid, then neither is opened silently: support chooses', async () => {
    const bff = bffAs(['support'], {
      transactions: [
        makeTransaction(1),
        makeTransaction(2, { clientOrderId: '900001', amount: '99.00' }),
      ],
    });
    const app = await lookUpOnList(bff, '900001');
    const choices = await screen.findByRole('list', { name: /2 orders match/ });
    expect(app.location()).toBe('/transactions');
    expect(within(choices).getAllByRole('button')).toHaveLength(2);
    expect(within(choices).getByRole('button', { name: /Order 900002/ })).toHaveTextContent(
      /Client order id 900001 · /,
    );
    expect(screen.getByRole('dialog')).not.toHaveTextContent(/client_orderid/);
    await app.user.click(within(choices).getByRole('button', { name: /Order 900002/ }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000002');
    });
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '900001' },
      { orderid: '900002', client_orderid: '900001', endpointId: '1001' },
    ]);
  });

  it('when one client_orderid is on two endpoints (the BFF’s 409), then both are offered and the chosen one opens', async () => {
    const bff = bffAs(['support'], {
      transactions: [
        makeTransaction(1, { clientOrderId: 'dup-1' }),
        makeTransaction(2, { clientOrderId: 'dup-1', endpointId: '1002', currency: 'USD' }),
      ],
    });
    const app = await lookUpOnList(bff, 'dup-1');
    const choices = await screen.findByRole('list', { name: /2 orders match/ });
    expect(within(choices).getByRole('button', { name: /endpoint 1001/ })).toHaveTextContent(
      '€11.50',
    );
    await app.user.click(within(choices).getByRole('button', { name: /endpoint 1002/ }));
    expect(await screen.findByRole('heading', { name: 'Order 900002' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').at(-1)?.body).toEqual({
      orderid: '900002',
      client_orderid: 'dup-1',
      endpointId: '1002',
    });
  });

  it('when the text is a Paydesk id it knows (the CSV’s first column), then that order opens without asking the gateway', async () => {
    const bff = bffAs(['support']);
    const app = await lookUpOnList(bff, '00000000-0000-4000-8000-000000000007');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000007');
    });
    expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
  });

  it.each<[string, string, ConstructorParameters<typeof FakeBff>[0], string]>([
    ['payout', '/payouts', { payouts: [makePayout(4)] }, '10000000-0000-4000-8000-000000000004'],
    [
      'payment link',
      '/payment-links',
      { links: [makeLink(5)] },
      '30000000-0000-4000-8000-000000000005',
    ],
    [
      'subscription',
      '/subscriptions',
      { subscriptions: [makeSubscription(6)] },
      '20000000-0000-4000-8000-000000000006',
    ],
  ])(
    'when the text is a %s’s Paydesk id, then its page opens without asking the gateway',
    async (_kind, page, records, id) => {
      const bff = bffAs(['support'], records);
      const app = await lookUpOnList(bff, id.toUpperCase());
      await waitFor(() => {
        expect(app.location()).toBe(`${page}/${id}`);
      });
      expect(screen.queryByRole('dialog', { name: 'Look up an order' })).not.toBeInTheDocument();
      expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
    },
  );

  it.each([
    ['recurring payment id', '3006'],
    ['client order id', 'rp-6'],
  ])(
    'when the text is a plan’s %s that names no order, then the gateway is asked first and the plan’s page opens',
    async (_kind, term) => {
      const bff = bffAs(['support'], { subscriptions: [makeSubscription(6)] });
      const app = await lookUpOnList(bff, term);
      await waitFor(() => {
        expect(app.location()).toBe('/subscriptions/20000000-0000-4000-8000-000000000006');
      });
      expect(bff.requestsTo('POST', '/api/transactions/lookup').length).toBeGreaterThan(0);
    },
  );

  it('when a Paydesk id names nothing, then it is tried as a client_orderid and the dialog says neither matched', async () => {
    const bff = bffAs(['support']);
    await lookUpOnList(bff, '00000000-0000-4000-8000-000000000099');
    expect(
      await screen.findByText(
        'Paydesk knows no order, payout, payment link or subscription with the id “00000000-0000-4000-8000-000000000099”, and the gateway knows no order with that client order id.',
      ),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { client_orderid: '00000000-0000-4000-8000-000000000099' },
    ]);
  });

  it('when the text is an e-mail address, then the field’s hint says Look up searches the transactions, and it goes there without asking the gateway', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/account', bff);
    const field = await openDialog(app);
    expect(field).toHaveAccessibleDescription(
      'A Paydesk id works too (an order’s, a payout’s, a payment link’s or a subscription’s). Asks the gateway for the current status and opens the order. An e-mail address or a masked card searches the transactions instead.',
    );
    await app.user.type(field, 'customer3@example.com');
    expect(field).toHaveAccessibleDescription(
      'An e-mail address is no order id: Look up searches the transactions for it (the gateway is not asked).',
    );
    await app.user.click(screen.getByRole('button', { name: 'Look up' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=customer3%40example.com');
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Order 900003' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
  });

  it('when a masked card is typed, then Enter goes to the transactions search for it, the gateway not asked', async () => {
    const bff = bffAs(['support']);
    const app = await lookUpOnList(bff, '411111******1111');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=411111******1111');
    });
    expect(bff.requestsTo('POST', '/api/transactions/lookup')).toHaveLength(0);
  });

  it('when four digits find no order at the gateway (as orderid and client_orderid), then the dialog offers the transactions search, which finds them as a card’s last four', async () => {
    const bff = bffAs(['support'], {
      transactions: [
        makeTransaction(1, {
          card: {
            bin: '555555',
            lastFour: '4444',
            brand: 'MASTERCARD',
            masked: '555555******4444',
          },
        }),
      ],
    });
    const app = await lookUpOnList(bff, '4444');
    await app.user.click(
      await screen.findByRole('button', { name: 'Search the transactions for “4444”' }),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=4444');
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Order 900001' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '4444' },
      { client_orderid: '4444' },
    ]);
  });

  it('when the orderid is a payout’s awaiting approval (the BFF answers with the payout), then the payout opens; no second gateway lookup is made', async () => {
    const payout = makePayout(1);
    const bff = bffAs(['support'], { payouts: [payout] });
    const app = await lookUpOnList(bff, '700001');
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${payout.id}`);
    });
    expect(await screen.findByRole('heading', { name: 'Payout of €101.00' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '700001' },
    ]);
  });

  it('when a payout’s client_orderid is looked up, then the payout opens', async () => {
    const payout = makePayout(2, { mode: 'single', orderid: null });
    const bff = bffAs(['finance'], { payouts: [payout] });
    const app = await lookUpOnList(bff, 'payout-2');
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${payout.id}`);
    });
  });

  it('when an id is a payout’s orderid and another order’s client_orderid, then the payout is offered beside the order, neither opened silently', async () => {
    const payout = makePayout(1);
    const bff = bffAs(['support'], {
      payouts: [payout],
      transactions: [makeTransaction(2, { clientOrderId: '700001' })],
    });
    const app = await lookUpOnList(bff, '700001');
    const dialog = within(await screen.findByRole('dialog'));
    expect(await dialog.findByRole('list', { name: /One order matches/ })).toBeInTheDocument();
    const notice = dialog.getByText(/is a payout/);
    expect(notice).toHaveTextContent(
      'Order “700001” is a payout (awaiting approval, €101.00): open the payout. Its order becomes a transaction only once the payout is sent.',
    );
    await app.user.click(dialog.getByRole('link', { name: 'open the payout' }));
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${payout.id}`);
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('when a lookup failed and the field is cleared and submitted, then only the new problem is said, not the old result beside it', async () => {
    const app = await lookUpOnList(bffAs(['support']), '9999999');
    const old = /Paydesk has no order “9999999”/;
    expect(await screen.findByText(old)).toBeInTheDocument();
    const field = await termField();
    await app.user.clear(field);
    await app.user.keyboard('{Enter}');
    expect(
      await screen.findByText('Type an orderid, a client order id or a Paydesk id.'),
    ).toBeInTheDocument();
    expect(screen.queryByText(old)).not.toBeInTheDocument();
    expect(within(screen.getByRole('dialog')).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when the looked-up id is edited, then the old result goes at once; typing the client_orderid it asked for keeps it', async () => {
    const app = await lookUpOnList(bffAs(['support']), '9999999');
    const old = /Paydesk has no order “9999999”/;
    expect(await screen.findByText(old)).toBeInTheDocument();
    await app.user.type(screen.getByLabelText(/^Client order id/), 'shop-9');
    expect(screen.getByText(old)).toBeInTheDocument();
    await app.user.type(await termField(), '8');
    expect(screen.queryByText(old)).not.toBeInTheDocument();
  });

  it('when no order matches after clicking “Look up”, then the keyboard focus is back in the field, not on the dialog', async () => {
    const app = renderApp('/transactions', bffAs(['support']));
    const field = await openDialog(app);
    await app.user.type(field, 'nope-1');
    await app.user.click(screen.getByRole('button', { name: 'Look up' }));
    await screen.findByText('The gateway knows no order “nope-1” as a client order id.');
    await waitFor(() => {
      expect(field).toHaveFocus();
    });
    expect(field).not.toBeDisabled();
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('when Enter starts a look-up, then the field keeps the focus while it runs', async () => {
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => 'hang');
    const app = renderApp('/transactions', bff);
    const field = await openDialog(app);
    await app.user.type(field, '123{Enter}');
    await waitFor(() => {
      expect(field).toHaveAttribute('readonly');
    });
    expect(field).toHaveFocus();
  });

  it('when the gateway does not answer on an endpoint (the BFF’s 503), then the dialog says which one as the BFF does, and Enter looks up again', async () => {
    const bff = bffAs(['support']);
    let answering = false;
    // As the BFF answers (payments/transactions.ts `lookup`): it names the endpoint that did not
    // answer, and asks no further one.
    bff.on('POST /api/transactions/lookup', () =>
      answering
        ? {
            status: 200,
            body: TransactionDetailSchema.parse(
              bff.payments.byId('00000000-0000-4000-8000-000000000004'),
            ),
          }
        : {
            status: 503,
            body: {
              error: {
                code: 'GATEWAY_UNAVAILABLE',
                message:
                  'The gateway did not answer the status request on endpoint 1002. Nothing changed; try again.',
                requestId: 'r-503',
              },
            },
          },
    );
    const app = await lookUpOnList(bff, 'shop-4');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      /^The gateway did not answer the status request on endpoint 1002\. Nothing changed; try again\.$/,
    );
    const field = await termField();
    await waitFor(() => {
      expect(field).toHaveFocus();
    });
    expect(field).not.toHaveAttribute('readonly');
    answering = true;
    await app.user.keyboard('{Enter}');
    expect(await screen.findByRole('heading', { name: 'Order 900004' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { client_orderid: 'shop-4' },
      { client_orderid: 'shop-4' },
    ]);
  });

  it('when the Paydesk server is stopping during a lookup (the BFF’s 503 SERVICE_UNAVAILABLE), then the dialog says so and that nothing was recorded, not a server problem', async () => {
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => ({
      status: 503,
      body: {
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'this instance is stopping; ask again',
          requestId: 'r-stop',
        },
      },
    }));
    await lookUpOnList(bff, 'shop-1');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'This Paydesk server is stopping, so the lookup ended before it finished; nothing was recorded. Look up again in a moment (request r-stop).',
    );
    expect(alert).not.toHaveTextContent(/server had a problem/);
  });

  it('when the server refuses the endpoint (400 naming endpointId), then its message shows under the Endpoint field, not a generic alert', async () => {
    const rule = 'must be one of the configured endpoints (1001, 1002, 2001)';
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: `endpointId: ${rule}`,
          details: { fields: [{ path: 'endpointId', rule: 'endpoint', message: rule }] },
          requestId: 'r-400',
        },
      },
    }));
    const app = renderApp('/transactions', bff);
    await app.user.type(await openDialog(app), '1000328');
    const dialog = within(screen.getByRole('dialog'));
    await app.user.type(dialog.getByLabelText(/^Client order id/), 'rev-pa-53a0218c');
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    await app.user.type(endpoint, '7777{Enter}');
    expect(await dialog.findByText(`This ${rule}.`)).toBeInTheDocument();
    expect(endpoint).toHaveAttribute('aria-invalid', 'true');
    expect(endpoint).toHaveAccessibleDescription(`This ${rule}.`);
    await waitFor(() => {
      expect(endpoint).toHaveFocus();
    });
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();
    expect(dialog.queryByText('Some fields need attention.')).not.toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
      { orderid: '1000328', client_orderid: 'rev-pa-53a0218c', endpointId: '7777' },
    ]);
    // Corrected, the field's usual hint is back.
    await app.user.clear(endpoint);
    expect(endpoint).toHaveAttribute('aria-invalid', 'false');
    expect(dialog.queryByText(`This ${rule}.`)).not.toBeInTheDocument();
  });

  it('when the server refuses a field the dialog names differently, then the message goes to the field that was typed', () => {
    const refusal = (path: string) =>
      new ApiError({
        code: 'VALIDATION_FAILED',
        status: 400,
        message: 'x',
        details: { fields: [{ path, rule: 'format', message: `bad ${path}` }] },
      });
    const asked = { term: '1000328', clientOrderId: 'shop-1', endpointId: '' };
    expect(serverProblem(refusal('orderid'), asked)).toEqual({
      field: 'term',
      problem: 'Bad orderid.',
    });
    expect(serverProblem(refusal('client_orderid'), asked)).toEqual({
      field: 'clientOrderId',
      problem: 'Bad client_orderid.',
    });
    // The first field was asked as a client_orderid.
    expect(serverProblem(refusal('client_orderid'), { ...asked, clientOrderId: '' })).toEqual({
      field: 'term',
      problem: 'Bad client_orderid.',
    });
    expect(serverProblem(refusal('amount'), asked)).toBeNull();
  });

  it('when the dialog is on a phone (390 px), then each field’s label is a few words that fit, and what the field is for is its hint', async () => {
    screenWidth(390);
    const app = renderApp('/transactions', bffAs(['support']));
    await openDialog(app);
    const dialog = within(screen.getByRole('dialog'));
    const labels = Array.from(screen.getByRole('dialog').querySelectorAll('label'), (label) =>
      label.textContent.replace(/\s*\*$/, ''),
    );
    expect(labels).toEqual([
      'Orderid or client order id',
      'Client order id',
      'Endpoint (optional)',
    ]);
    // An outlined field's label has some 250 px of a 390 px screen's dialog: about 30 characters.
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(30);
    expect(dialog.getByLabelText('Client order id')).toHaveAccessibleDescription(
      'For an orderid Paydesk has not learned: the gateway finds an order by its orderid only together with its client order id.',
    );
    expect(dialog.getByLabelText('Orderid or client order id')).toHaveAccessibleDescription(
      /^A Paydesk id works too \(an order’s, a payout’s/,
    );
    vi.restoreAllMocks();
  });

  it('when the gateway’s reply is an order that names its payout (a payout’s order), then the order opens, not the payout', async () => {
    const order = makeTransaction(6, { type: 'payout' });
    const bff = bffAs(['support']).on('POST /api/transactions/lookup', () => ({
      status: 200,
      body: { ...order, payout: null },
    }));
    await lookUpOnList(bff, 'shop-6');
    expect(await screen.findByRole('heading', { name: 'Order 900006' })).toBeInTheDocument();
  });

  it('when an auditor (no lookup role) presses Ctrl+K, then nothing opens and no button is offered', async () => {
    const app = renderApp('/transactions', bffAs(['auditor']));
    await screen.findByRole('table', { name: 'Transactions' });
    expect(screen.queryByRole('button', { name: /Look up order/ })).not.toBeInTheDocument();
    await app.user.keyboard('{Control>}k{/Control}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
