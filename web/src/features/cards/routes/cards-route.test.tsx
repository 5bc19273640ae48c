import { screen, waitFor, within } from '@testing-library/react';
import { IDEMPOTENCY_KEY_HEADER } from '@paydesk/shared/api';
import { describe, expect, it, vi } from 'vitest';
import { FakeBff, makeCardInfo, makeTransaction, makeUser } from '../../../test/fake-bff';
import { itShowsTheListStates } from '../../../test/list-states';
import { renderApp } from '../../../test/render-app';
import { seenAs } from '../../../test/seen-text';
import { screenWidth } from '../../../test/screen-width';

function bffAs(roles: Parameters<typeof makeUser>[0]['roles']) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
    cards: [makeCardInfo('card-ref-1', { brand: 'MASTERCARD', maskedNumber: '555555******4444' })],
  });
}

function lookupForm() {
  return within(screen.getByRole('form', { name: 'Look up a card' }));
}

describe('cards', () => {
  it('when support looks up a card with a reason, then the masked card shows and the reason is sent', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await screen.findByRole('heading', { name: 'Cards' });
    expect(lookupForm().getByLabelText(/Card reference id/)).toHaveValue('card-ref-1');
    await app.user.type(lookupForm().getByLabelText(/Reason/), 'Customer disputes a charge');
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    const facts = within(await screen.findByRole('region', { name: 'Card behind the reference' }));
    expect(facts.getByText('555555******4444')).toBeInTheDocument();
    expect(facts.getByText('MASTERCARD')).toBeInTheDocument();
    expect(facts.getByText('12/2028')).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/cards/card-ref-1/info')[0]!.body).toEqual({
      reason: 'Customer disputes a charge',
    });
    // Support reads cards but never charges them.
    expect(screen.queryByRole('button', { name: 'Rebill a card' })).not.toBeInTheDocument();
  });

  it('when the reason is missing, then the field says so and nothing is sent', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/cards', bff);
    await screen.findByRole('heading', { name: 'Cards' });
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    expect(
      await lookupForm().findByText('Say why you need the card details (3 to 255 characters).'),
    ).toBeInTheDocument();
    expect(
      lookupForm().getByText('Enter the card reference id (letters, digits, no spaces).'),
    ).toBeInTheDocument();
    expect(bff.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('when the reason holds a card number or a control character, then the field says which and nothing is sent', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await screen.findByRole('heading', { name: 'Cards' });
    const reason = lookupForm().getByLabelText(/Reason/);
    await app.user.type(reason, 'customer gave 4111-1111-1111-1111');
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    expect(
      await lookupForm().findByText(
        'Must not contain a card number; give the last four digits only.',
      ),
    ).toBeInTheDocument();
    await app.user.clear(reason);
    await app.user.type(reason, 'dispute \u202eofni');
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    expect(
      await lookupForm().findByText(
        'Must not contain bidirectional text controls (U+202A–U+202E, U+2066–U+2069).',
      ),
    ).toBeInTheDocument();
    expect(bff.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('when the server refuses a field, then its message shows next to that field', async () => {
    const bff = bffAs(['finance']).on('POST /api/cards/:cardRefId/info', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'invalid',
          requestId: 'r',
          details: {
            fields: [
              {
                path: 'params.cardRefId',
                rule: 'format',
                message: 'must be 1-64 letters, digits, dots, dashes or underscores',
              },
            ],
          },
        },
      },
    }));
    const app = renderApp('/cards?ref=card~ref', bff);
    await screen.findByRole('heading', { name: 'Cards' });
    await app.user.type(lookupForm().getByLabelText(/Reason/), 'checking');
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    expect(
      await lookupForm().findByText(
        'This must be 1-64 letters, digits, dots, dashes or underscores.',
      ),
    ).toBeInTheDocument();
  });

  it('when the gateway does not know the reference, then its refusal is shown in the BFF’s words, pointing to the list', async () => {
    const app = renderApp('/cards?ref=card-ref-9', bffAs(['support']));
    await screen.findByRole('heading', { name: 'Cards' });
    await app.user.type(lookupForm().getByLabelText(/Reason/), 'checking');
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    expect(
      await screen.findByText(
        'No card is stored under reference card-ref-9 at the gateway. Check the reference, or pick one from the list below.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/get-card-info|cardrefid/)).not.toBeInTheDocument();
    // A failed look-up keeps the reason: it is the same look-up, tried again.
    expect(lookupForm().getByLabelText(/Reason/)).toHaveValue('checking');
  });

  it('when the lookup is on its way, then the button shows progress', async () => {
    const bff = bffAs(['support']).on('POST /api/cards/:cardRefId/info', () => 'hang');
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await screen.findByRole('heading', { name: 'Cards' });
    await app.user.type(lookupForm().getByLabelText(/Reason/), 'checking');
    await app.user.click(lookupForm().getByRole('button', { name: 'Show card information' }));
    await waitFor(() => {
      expect(lookupForm().getByRole('button', { name: /Show card information/ })).toBeDisabled();
    });
  });

  it('when orders carry card references, then they are listed with their card and source order, and choosing one fills the lookup', async () => {
    const bff = new FakeBff({
      signedInAs: 'me@example.com',
      users: [makeUser({ email: 'me@example.com', roles: ['support'] })],
      transactions: [
        makeTransaction(1, { cardRefId: 'card-ref-1' }),
        makeTransaction(2, {
          cardRefId: 'card-ref-2',
          endpointId: '1002',
          currency: 'USD',
          card: {
            bin: '555555',
            lastFour: '4444',
            brand: 'MASTERCARD',
            masked: '555555******4444',
          },
        }),
        makeTransaction(3, { type: 'rebill', cardRefId: 'card-ref-1' }),
      ],
    });
    const app = renderApp('/cards', bff);
    const table = await screen.findByRole('table', { name: 'Card references' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('card-ref-1');
    expect(rows[1]).toHaveTextContent('Sale 900001');
    expect(rows[1]).toHaveTextContent('2');
    expect(rows[2]).toHaveTextContent('555555******4444 · MASTERCARD');
    // Where each was made: the gateway charges it only there, by default in that currency.
    const madeOn = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    const column = madeOn.indexOf('Endpoint · currency');
    expect(column).toBe(3);
    expect(within(rows[1]!).getAllByRole('cell')[column]).toHaveTextContent(/^1001 · EUR$/);
    expect(within(rows[2]!).getAllByRole('cell')[column]).toHaveTextContent(/^1002 · USD$/);
    await app.user.click(
      within(table).getByRole('link', { name: 'Use card reference card-ref-2' }),
    );
    await waitFor(() => {
      expect(lookupForm().getByLabelText(/Card reference id/)).toHaveValue('card-ref-2');
    });
    // The label moves up out of the value's way, and the next thing to fill has the focus.
    const refInput = lookupForm().getByLabelText(/Card reference id/);
    expect(document.querySelector(`label[for="${refInput.id}"]`)).toHaveAttribute(
      'data-shrink',
      'true',
    );
    expect(lookupForm().getByLabelText(/Reason/)).toHaveFocus();
    expect(app.location()).toBe('/cards?ref=card-ref-2');
    await app.user.click(within(rows[1]!).getByRole('link', { name: 'Sale 900001' }));
    expect(await screen.findByRole('heading', { name: 'Order 900001' })).toBeInTheDocument();
  });

  it('when a card was shown and another reference is chosen in the list or typed, then the reason and the card shown are cleared: each look-up has its own reason', async () => {
    const bff = new FakeBff({
      signedInAs: 'me@example.com',
      users: [makeUser({ email: 'me@example.com', roles: ['support'] })],
      transactions: [
        makeTransaction(1, { cardRefId: 'card-ref-1' }),
        makeTransaction(2, { cardRefId: 'card-ref-2' }),
      ],
      cards: [
        makeCardInfo('card-ref-1'),
        makeCardInfo('card-ref-2', { brand: 'MASTERCARD', maskedNumber: '555555******4444' }),
      ],
    });
    const app = renderApp('/cards?ref=card-ref-1', bff);
    const table = await screen.findByRole('table', { name: 'Card references' });
    const reason = () => lookupForm().getByLabelText(/Reason/);
    const show = () => lookupForm().getByRole('button', { name: 'Show card information' });
    await app.user.type(reason(), 'Customer A disputes a charge');
    await app.user.click(show());
    expect(
      await screen.findByRole('region', { name: 'Card behind the reference' }),
    ).toHaveTextContent('411111******1111');

    // Chosen in the list: the first customer's reason and card go.
    await app.user.click(
      within(table).getByRole('link', { name: 'Use card reference card-ref-2' }),
    );
    await waitFor(() => {
      expect(lookupForm().getByLabelText(/Card reference id/)).toHaveValue('card-ref-2');
    });
    expect(reason()).toHaveValue('');
    expect(reason()).toHaveFocus();
    // The field says why it is empty, before anyone presses the button.
    expect(reason()).toHaveAccessibleDescription(
      'Cleared for the new card reference: each look-up is kept in the audit log with its own reason.',
    );
    expect(
      screen.queryByRole('region', { name: 'Card behind the reference' }),
    ).not.toBeInTheDocument();
    // One click cannot show the second card: its reason is asked for, saying why it went.
    await app.user.click(show());
    expect(
      await lookupForm().findByText(
        'Say why you need this card’s details (3 to 255 characters): the reason was cleared when the card reference changed, because each look-up is audited with its own reason.',
      ),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/cards/card-ref-2/info')).toHaveLength(0);

    await app.user.type(reason(), 'Customer B asked for the expiry');
    // Typing a reason ends the explanation: the usual hint is back.
    expect(reason()).toHaveAccessibleDescription('Required: kept in the audit log with your name.');
    await app.user.click(show());
    expect(
      await screen.findByRole('region', { name: 'Card behind the reference' }),
    ).toHaveTextContent('555555******4444');
    expect(bff.requestsTo('POST', '/api/cards/card-ref-2/info')[0]!.body).toEqual({
      reason: 'Customer B asked for the expiry',
    });

    // Typed: the same.
    await app.user.type(lookupForm().getByLabelText(/Card reference id/), 'x');
    expect(reason()).toHaveValue('');
    expect(
      screen.queryByRole('region', { name: 'Card behind the reference' }),
    ).not.toBeInTheDocument();

    // Back in the list to the reference in the address (card-ref-2): the field follows again.
    await app.user.click(
      within(table).getByRole('link', { name: 'Use card reference card-ref-2' }),
    );
    await waitFor(() => {
      expect(lookupForm().getByLabelText(/Card reference id/)).toHaveValue('card-ref-2');
    });
    expect(bff.requestsTo('POST', '/api/cards/card-ref-1/info')).toHaveLength(1);
  });

  it('when the screen is a phone’s (390 px), then each card reference is one cell with its card, the order it was made from, how many orders carry it and when it was last used; from 600 px the columns return', async () => {
    const bff = () =>
      new FakeBff({
        signedInAs: 'me@example.com',
        users: [makeUser({ email: 'me@example.com', roles: ['support'] })],
        transactions: [
          makeTransaction(1, { cardRefId: 'card-ref-1' }),
          makeTransaction(3, { type: 'rebill', cardRefId: 'card-ref-1' }),
        ],
      });
    const headers = (table: HTMLElement) =>
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent);
    screenWidth(390);
    const phone = renderApp('/cards', bff());
    const table = await screen.findByRole('table', { name: 'Card references' });
    expect(headers(table)).toEqual(['Card reference']);
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells).toHaveLength(1);
    const cell = within(cells[0]!);
    expect(cell.getByRole('link', { name: 'Use card reference card-ref-1' })).toBeInTheDocument();
    expect(cells[0]).toHaveTextContent('411111******1111 · VISA');
    expect(cell.getByRole('link', { name: 'Sale 900001' })).toBeInTheDocument();
    expect(cells[0]).toHaveTextContent(/Made from Sale 900001 on endpoint 1001 · EUR/);
    expect(cells[0]).toHaveTextContent(/2 orders · last used/);
    expect(cells[0]!.querySelector('time')).not.toBeNull();
    phone.unmount();

    screenWidth(600);
    renderApp('/cards', bff());
    expect(headers(await screen.findByRole('table', { name: 'Card references' }))).toEqual([
      'Card reference',
      'Card',
      'Made from',
      'Endpoint · currency',
      'Orders',
      'Last used',
    ]);
    vi.restoreAllMocks();
  });

  it('when no order carries a card reference, then the list says how one is made', async () => {
    renderApp('/cards', bffAs(['support']));
    expect(await screen.findByText('No card references yet.')).toBeInTheDocument();
  });

  itShowsTheListStates({
    path: '/cards',
    route: 'GET /api/cards',
    bffAs,
    reader: ['support'],
    noAccess: ['ops'],
    loading: 'Loading card references…',
    what: 'card references',
    screenName: 'cards',
  });

  it('when finance rebills a card, then the rules run first, the confirmation states the amount in words, one key is sent and the new order is linked', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    expect(dialog.getByLabelText(/Card reference id/)).toHaveValue('card-ref-1');
    // The reason's rule is said before Continue: that of every reason for a money step.
    expect(dialog.getByLabelText(/Reason/)).toHaveAccessibleDescription(
      '3 to 255 characters, kept in the audit log.',
    );
    await app.user.type(dialog.getByLabelText(/^Amount/), '12.345');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      dialog.getByText('An amount above zero with at most 2 decimals, e.g. 12.50.'),
    ).toBeInTheDocument();
    expect(
      dialog.getByText('Say what the charge is for (up to 1024 characters).'),
    ).toBeInTheDocument();
    expect(
      dialog.getByText('Say why the card is charged again (3 to 255 characters).'),
    ).toBeInTheDocument();
    await app.user.clear(dialog.getByLabelText(/^Amount/));
    await app.user.type(dialog.getByLabelText(/^Amount/), '12.5');
    await app.user.type(dialog.getByLabelText(/Description/), 'Monthly box, November');
    await app.user.type(dialog.getByLabelText(/Reason/), 'Customer asked by phone');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(
      confirm.getByText(seenAs('Charge €12.50 to the card of reference card-ref-1?')),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/rebills')).toHaveLength(0);
    await app.user.click(confirm.getByRole('button', { name: 'Charge €12.50' }));
    const done = within(await screen.findByRole('dialog', { name: 'Rebill approved' }));
    const [request] = bff.requestsTo('POST', '/api/rebills');
    expect(request!.body).toEqual({
      cardRefId: 'card-ref-1',
      amount: '12.50',
      currency: 'EUR',
      orderDesc: 'Monthly box, November',
      reason: 'Customer asked by phone',
    });
    expect(request!.headers.get(IDEMPOTENCY_KEY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    await app.user.click(done.getByRole('link', { name: 'Open order 900501' }));
    expect(await screen.findByRole('heading', { name: 'Order 900501' })).toBeInTheDocument();
    expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000501');
  });

  it('when a German types the amount with a decimal comma, then it is sent as the plain amount; thousands separators are refused by name', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const bff = bffAs(['finance']);
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    expect(dialog.getByText('e.g. 12,50')).toBeInTheDocument();
    await app.user.type(dialog.getByLabelText(/^Amount/), '1.234,56');
    await app.user.type(dialog.getByLabelText(/Description/), 'Monthly box, November');
    await app.user.type(dialog.getByLabelText(/Reason/), 'Customer asked by phone');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      await dialog.findByText('Enter the amount without thousands separators.'),
    ).toBeInTheDocument();
    await app.user.clear(dialog.getByLabelText(/^Amount/));
    await app.user.type(dialog.getByLabelText(/^Amount/), '5,5');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    expect(
      confirm.getByText(seenAs('Charge 5,50 € to the card of reference card-ref-1?')),
    ).toBeInTheDocument();
    await app.user.click(confirm.getByRole('button', { name: /^Charge/ }));
    await screen.findByRole('dialog', { name: 'Rebill approved' });
    const [request] = bff.requestsTo('POST', '/api/rebills');
    expect(request!.body).toMatchObject({ amount: '5.50', currency: 'EUR' });
  });

  it('when a rebill gets no answer, then sending again repeats the same request with the same key and charges once', async () => {
    const bff = bffAs(['finance']);
    let first = true;
    bff.on('POST /api/rebills', (request) => {
      const reply = bff.cards.handle(request, bff.users[0]);
      if (first) {
        first = false;
        return 'network-error';
      }
      return reply!;
    });
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    await app.user.type(dialog.getByLabelText(/^Amount/), '5');
    await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
    await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    await app.user.click(confirm.getByRole('button', { name: 'Charge €5.00' }));
    expect(await confirm.findByText('No answer yet')).toBeInTheDocument();
    expect(confirm.queryByRole('button', { name: 'Back' })).not.toBeInTheDocument();
    await app.user.click(confirm.getByRole('button', { name: 'Send again' }));
    await screen.findByRole('dialog', { name: 'Rebill approved' });
    const requests = bff.requestsTo('POST', '/api/rebills');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers.get(IDEMPOTENCY_KEY_HEADER)).toBe(
      requests[0]!.headers.get(IDEMPOTENCY_KEY_HEADER),
    );
    expect(bff.payments.transactions.filter((t) => t.type === 'rebill')).toHaveLength(1);
  });

  it('when the server names a rebill field, then the form comes back with the message next to it, as a sentence', async () => {
    const bff = bffAs(['finance']).on('POST /api/rebills', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'invalid',
          requestId: 'r',
          details: {
            fields: [
              {
                path: 'currency',
                rule: 'endpoint_currency',
                message: 'no configured endpoint takes GBP (configured: EUR, USD)',
              },
            ],
          },
        },
      },
    }));
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    await app.user.type(dialog.getByLabelText(/^Amount/), '5');
    await app.user.clear(dialog.getByLabelText(/Currency/));
    await app.user.type(dialog.getByLabelText(/Currency/), 'GBP');
    await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
    await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    await app.user.click(confirm.getByRole('button', { name: /Charge/ }));
    const back = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    expect(
      await back.findByText('No configured endpoint takes GBP (configured: EUR, USD).'),
    ).toBeInTheDocument();
  });

  it('when the gateway does not know the card reference (the BFF’s 404 naming cardRefId), then the form comes back with the message under Card reference id, not the API’s field name', async () => {
    const message =
      'no card is stored under this reference at the gateway (endpoint 1001); check the reference, or pick one from the list of stored cards';
    const bff = bffAs(['finance']).on('POST /api/rebills', () => ({
      status: 404,
      body: {
        error: {
          code: 'NOT_FOUND',
          message: `cardRefId: ${message}; nothing was charged or recorded.`,
          requestId: 'r-404',
          details: { fields: [{ path: 'cardRefId', rule: 'card_ref_unknown', message }] },
        },
      },
    }));
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    await app.user.type(dialog.getByLabelText(/^Amount/), '5');
    await app.user.type(dialog.getByLabelText(/Description/), 'Top-up');
    await app.user.type(dialog.getByLabelText(/Reason/), 'agreed');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the rebill' }));
    await app.user.click(confirm.getByRole('button', { name: /Charge/ }));
    const back = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    // Said as the form's own sentences are: a capital and a full stop.
    const sentence =
      'No card is stored under this reference at the gateway (endpoint 1001); check the reference, or pick one from the list of stored cards.';
    expect(await back.findByText(sentence)).toBeInTheDocument();
    expect(back.getByLabelText(/Card reference id/)).toHaveAccessibleDescription(sentence);
    expect(screen.queryByText(/cardRefId/)).not.toBeInTheDocument();
  });

  it('when a rebill’s amount is above the largest the API takes, then the field says the maximum, not the decimals rule', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp('/cards?ref=card-ref-1', bff);
    await app.user.click(await screen.findByRole('button', { name: 'Rebill a card' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    await app.user.type(dialog.getByLabelText(/^Amount/), '99999999999999999');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(await dialog.findByText('At most 9999999999999.99.')).toBeInTheDocument();
    expect(dialog.queryByText(/An amount above zero/)).not.toBeInTheDocument();
    // The other fields' rules are said in the same pass (the empty description and reason).
    expect(dialog.getByLabelText(/Description/)).toHaveAttribute('aria-invalid', 'true');
    expect(dialog.getByLabelText(/Reason/)).toHaveAttribute('aria-invalid', 'true');
    await app.user.clear(dialog.getByLabelText(/^Amount/));
    await app.user.type(dialog.getByLabelText(/^Amount/), '9999999999999.99');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(dialog.queryByText('At most 9999999999999.99.')).not.toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/rebills')).toHaveLength(0);
  });

  it('when finance presses a reference’s Rebill in the list, then the rebill dialog opens with that reference, and the look-up follows it (QA: the reference had to be chosen first)', async () => {
    const refs = (roles: Parameters<typeof makeUser>[0]['roles']) =>
      new FakeBff({
        signedInAs: 'me@example.com',
        users: [makeUser({ email: 'me@example.com', roles })],
        transactions: [
          makeTransaction(1, { cardRefId: 'card-ref-1' }),
          makeTransaction(2, { cardRefId: 'card-ref-2' }),
        ],
      });
    const app = renderApp('/cards?ref=card-ref-1', refs(['finance']));
    const table = await screen.findByRole('table', { name: 'Card references' });
    expect(within(table).getByRole('columnheader', { name: 'Actions' })).toBeInTheDocument();
    await app.user.click(
      within(table).getByRole('button', { name: 'Rebill the card of reference card-ref-2' }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Rebill a stored card' }));
    expect(dialog.getByLabelText(/Card reference id/)).toHaveValue('card-ref-2');
    // The look-up follows the reference chosen, as choosing it in the list does.
    await app.user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(lookupForm().getByLabelText(/Card reference id/)).toHaveValue('card-ref-2');
    });
  });

  it('when support lists the card references, then no row offers a rebill', async () => {
    renderApp(
      '/cards',
      new FakeBff({
        signedInAs: 'me@example.com',
        users: [makeUser({ email: 'me@example.com', roles: ['support'] })],
        transactions: [makeTransaction(1, { cardRefId: 'card-ref-1' })],
      }),
    );
    const table = await screen.findByRole('table', { name: 'Card references' });
    expect(within(table).queryByRole('button', { name: /Rebill/ })).toBeNull();
    expect(within(table).queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });

  it('when finance starts a subscription from Cards, then the new subscription dialog opens with the reference', async () => {
    const app = renderApp('/cards?ref=card-ref-1', bffAs(['finance']));
    await app.user.click(await screen.findByRole('link', { name: 'New subscription' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    expect(dialog.getByLabelText(/Card reference id/)).toHaveValue('card-ref-1');
    await app.user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(app.location()).toBe('/subscriptions');
    });
  });

  it('when an order has a card reference, then its detail links to Cards with the reference filled in', async () => {
    const bff = new FakeBff({
      signedInAs: 'me@example.com',
      users: [makeUser({ email: 'me@example.com', roles: ['support'] })],
      transactions: [makeTransaction(1, { cardRefId: 'card-ref-1' })],
    });
    const app = renderApp('/transactions/00000000-0000-4000-8000-000000000001', bff);
    await app.user.click(await screen.findByRole('link', { name: 'card-ref-1' }));
    await screen.findByRole('heading', { name: 'Cards' });
    expect(app.location()).toBe('/cards?ref=card-ref-1');
    expect(lookupForm().getByLabelText(/Card reference id/)).toHaveValue('card-ref-1');
  });
});
