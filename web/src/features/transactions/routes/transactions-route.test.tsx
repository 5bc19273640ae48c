import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  DEMO_PASSWORD,
  FakeBff,
  makePayout,
  makeTransaction,
  makeUser,
} from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

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

async function table() {
  return screen.findByRole('table', { name: 'Transactions' });
}

function lastListQuery(bff: FakeBff): URLSearchParams {
  const requests = bff.requestsTo('GET', '/api/transactions');
  return requests.at(-1)!.query;
}

describe('transactions screen', () => {
  it('when the reader’s locale writes a decimal comma (de-DE), then the CSV export asks for semicolons (and decimal commas)', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    renderApp('/transactions?status=approved', bffAs(['support']));
    await table();
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/transactions/export?status=approved&sort=created_desc&delimiter=semicolon',
    );
    vi.restoreAllMocks();
  });

  it('when the list is on its way, then a loading state is announced', async () => {
    const bff = bffAs(['support']).on('GET /api/transactions', () => 'hang');
    renderApp('/transactions', bff);
    expect(await screen.findByText('Loading transactions…')).toBeInTheDocument();
  });

  it('when transactions exist, then rows show amounts per currency, status chips with text, and unknown and drift stand out', async () => {
    const bff = bffAs(['support']);
    renderApp('/transactions', bff);
    const rows = within(await table()).getAllByRole('row');
    expect(rows).toHaveLength(31);
    expect(screen.getByText('30 transactions')).toBeInTheDocument();
    // newest first: order 900030 (40.50 EUR) is the first data row
    expect(rows[1]).toHaveTextContent('900030');
    expect(rows[1]).toHaveTextContent('€40.50');
    expect(within(await table()).getByText('Unknown outcome')).toBeInTheDocument();
    expect(within(await table()).getByText('Drift')).toBeInTheDocument();
    expect(within(await table()).getByText('$21.50')).toBeInTheDocument();
    expect(within(await table()).getByText('Declined')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Order 900030' })).toHaveAttribute(
      'href',
      '/transactions/00000000-0000-4000-8000-000000000030',
    );
  });

  it('when money went back on an order, then its row says so beside the status: partly returned, returned, voided', async () => {
    const order = (n: number, stage: string | null) => makeTransaction(n, { stage });
    renderApp(
      '/transactions',
      bffAs(['support'], {
        transactions: [
          order(1, 'partially_returned'),
          order(2, 'returned'),
          order(3, 'voided'),
          order(4, 'settled'),
        ],
      }),
    );
    await table();
    const row = (n: number) =>
      within(screen.getByRole('link', { name: `Order ${String(900000 + n)}` }).closest('tr')!);
    expect(
      row(1).getByTitle(
        'Part of the captured money was returned to the customer; the order shows how much.',
      ),
    ).toHaveTextContent('Partly returned');
    expect(row(2).getByText('Returned')).toBeInTheDocument();
    expect(row(3).getByText('Voided')).toBeInTheDocument();
    for (const n of [1, 2, 3, 4]) expect(row(n).getByText('Approved')).toBeInTheDocument();
    expect(row(4).queryByText(/Returned|Voided/i)).toBeNull();
  });

  it('when nothing matches the filters in the URL, then an empty state says so and the query was sent as given', async () => {
    const bff = bffAs(['finance']);
    renderApp('/transactions?q=nobody%40example.com&status=approved', bff);
    expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
    const query = lastListQuery(bff);
    expect(query.get('q')).toBe('nobody@example.com');
    expect(query.get('status')).toBe('approved');
    expect(query.get('limit')).toBe('50');
  });

  it('when only filters (no search) match nothing, then the empty state says to change them, without the search help; a search that finds nothing gets it', async () => {
    const view = renderApp('/transactions?type=payout', bffAs(['support']));
    expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
    expect(screen.getByText(/^Change or clear the filters to see more\.$/)).toBeInTheDocument();
    expect(screen.queryByText(/Search matches/)).not.toBeInTheDocument();
    view.unmount();
    renderApp('/transactions?q=nobody%40example.com', bffAs(['support']));
    expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
    expect(screen.getByText(/Search matches an orderid/)).toHaveTextContent(
      /^Change or clear the filters to see more\. Search matches an orderid, a client order id, Paydesk’s id, an e-mail, the last four digits or a masked card \(411111\*{6}1111\) exactly, a client order id or an e-mail in any case\./,
    );
  });

  it('when a search finds nothing, then the empty state offers the gateway lookup with the term filled in', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions?q=1000337', bff);
    expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Look up “1000337” at the gateway' }));
    const dialog = await screen.findByRole('dialog', { name: 'Look up an order' });
    expect(within(dialog).getByLabelText(/^Orderid or client order id/)).toHaveValue('1000337');
    await app.user.click(within(dialog).getByRole('button', { name: 'Look up' }));
    await waitFor(() => {
      expect(bff.requestsTo('POST', '/api/transactions/lookup').map((r) => r.body)).toEqual([
        { orderid: '1000337' },
        { client_orderid: '1000337' },
      ]);
    });
  });

  it('when a search for an e-mail, a name or a masked card finds nothing, then no gateway look-up is offered (the gateway finds orders by id only): the page says what the list searches and to check the spelling; an id-like term still gets the look-up', async () => {
    for (const [term, encoded] of [
      ['shoper@example.com', 'shoper%40example.com'],
      ['QA SHOPPER', 'QA%20SHOPPER'],
      ['411111******1234', '411111******1234'],
    ] as const) {
      const view = renderApp(`/transactions?q=${encoded}`, bffAs(['support']));
      expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
      expect(screen.getByText(/Search matches an orderid/)).toHaveTextContent(
        `Search matches an orderid, a client order id, Paydesk’s id, an e-mail, the last four digits or a masked card (411111******1111) exactly, a client order id or an e-mail in any case. Check the spelling of “${term}”. The gateway cannot be searched for it: it finds an order only by its orderid or client order id, not by an e-mail, a name or a card.`,
      );
      expect(screen.queryByRole('button', { name: /at the gateway/ })).not.toBeInTheDocument();
      view.unmount();
    }
    // What could be an order's id (orderid, client_orderid, four digits) is still offered.
    for (const term of ['1000337', 'qa-usd', '3220']) {
      const view = renderApp(`/transactions?q=${term}`, bffAs(['support']));
      expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
      expect(
        screen.getByRole('button', { name: `Look up “${term}” at the gateway` }),
      ).toBeInTheDocument();
      expect(screen.queryByText(/Check the spelling/)).not.toBeInTheDocument();
      view.unmount();
    }
  });

  it('when a search finds no transaction but names a payout awaiting approval (its orderid or client_orderid), then the page says so and links to the payout instead of the gateway lookup', async () => {
    const payout = makePayout(4, { amount: '250.00' });
    const bff = bffAs(['support'], { payouts: [payout] });
    const app = renderApp('/transactions?q=700004', bff);
    expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
    const notice = screen.getByText(/is a payout/);
    expect(notice).toHaveTextContent(
      'Order “700004” is a payout (awaiting approval, €250.00): open the payout. Its order becomes a transaction only once the payout is sent.',
    );
    expect(screen.queryByRole('button', { name: /at the gateway/ })).not.toBeInTheDocument();
    await app.user.click(screen.getByRole('link', { name: 'open the payout' }));
    await waitFor(() => {
      expect(app.location()).toBe(`/payouts/${payout.id}`);
    });
    expect(await screen.findByRole('heading', { name: 'Payout of €250.00' })).toBeInTheDocument();
  });

  it('when an auditor’s search names a held payout by its client_orderid, then it is shown with its state, without a lookup; a paid one says no more than that', async () => {
    const bff = bffAs(['auditor'], {
      payouts: [
        makePayout(5, { mode: 'single', orderid: null }),
        makePayout(6, { state: 'approved' }),
      ],
    });
    const held = renderApp('/transactions?q=payout-5', bff);
    expect(await screen.findByText(/is a payout/)).toHaveTextContent(
      'Order “payout-5” is a payout (awaiting approval, €105.00): open the payout. Its order becomes a transaction only once the payout is sent.',
    );
    expect(screen.getByRole('link', { name: 'open the payout' })).toHaveAttribute(
      'href',
      '/payouts/10000000-0000-4000-8000-000000000005',
    );
    held.unmount();
    renderApp('/transactions?q=700006', bff);
    expect(await screen.findByText(/is a payout/)).toHaveTextContent(
      'Order “700006” is a payout (paid, €106.00): open the payout.',
    );
  });

  it('when a search finds nothing for a role that cannot look orders up, then no lookup is offered', async () => {
    renderApp('/transactions?q=1000337', bffAs(['auditor']));
    expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /at the gateway/ })).not.toBeInTheDocument();
  });

  it('when there are no transactions at all, then the empty state explains where they come from', async () => {
    renderApp('/transactions', bffAs(['ops'], { transactions: [] }));
    expect(await screen.findByText('No transactions yet')).toBeInTheDocument();
  });

  it('when the list fails, then an error with a retry is shown, and the retry loads it', async () => {
    let fail = true;
    const bff = bffAs(['auditor']);
    bff.on('GET /api/transactions', () =>
      fail
        ? {
            status: 500,
            body: { error: { code: 'INTERNAL', message: 'boom', requestId: 'req-1' } },
          }
        : 'hang',
    );
    const app = renderApp('/transactions', bff);
    expect(await screen.findByText('Could not load the transactions')).toBeInTheDocument();
    expect(screen.getByText(/request req-1/)).toBeInTheDocument();
    fail = false;
    await app.user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Loading transactions…')).toBeInTheDocument();
  });

  it('when the roles do not open the screen, then it says so and asks the server nothing', async () => {
    const bff = bffAs(['admin']);
    renderApp('/transactions', bff);
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/transactions')).toHaveLength(0);
  });

  it('when the server refuses the list (403), then the forbidden state is shown', async () => {
    const bff = bffAs(['support']).on('GET /api/transactions', () => ({
      status: 403,
      body: { error: { code: 'FORBIDDEN', message: 'no', requestId: 'r' } },
    }));
    renderApp('/transactions', bff);
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
  });

  it('when filters are applied, then they go into the URL and the request, and Back restores the previous view', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions', bff);
    await table();
    await app.user.selectOptions(screen.getByLabelText('Status'), 'declined');
    await app.user.type(screen.getByLabelText('Amount from'), '10');
    await app.user.type(screen.getByLabelText('Amount to'), '20.5');
    await app.user.type(screen.getByLabelText('Currency'), 'eur');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe(
        '/transactions?status=declined&currency=EUR&amountMin=10&amountMax=20.5',
      );
    });
    expect(await screen.findByText('1 transaction matches')).toBeInTheDocument();
    const query = lastListQuery(bff);
    expect(query.get('status')).toBe('declined');
    expect(query.get('amountMin')).toBe('10');
    expect(query.get('amountMax')).toBe('20.5');
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/transactions/export?status=declined&currency=EUR&amountMin=10&amountMax=20.5&sort=created_desc&delimiter=comma',
    );
    await app.back();
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
    expect(await screen.findByText('30 transactions')).toBeInTheDocument();
    expect(screen.getByLabelText('Status')).toHaveValue('');
  });

  it('when a shared link holds filters that cannot be used, then a dismissible notice names them and the valid ones still apply', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions?amountMin=abc&status=bogus&currency=usd', bff);
    await table();
    const notice = await screen.findByRole('alert');
    expect(notice).toHaveTextContent(
      '2 filters in the link could not be used: Amount from “abc” (not an amount), Status “bogus” (unknown).',
    );
    const query = lastListQuery(bff);
    expect(query.get('currency')).toBe('USD');
    expect(query.has('amountMin')).toBe(false);
    expect(query.has('status')).toBe(false);
    expect(screen.getByLabelText('Currency')).toHaveValue('USD');
    await app.user.click(within(notice).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(app.location()).toBe('/transactions?amountMin=abc&status=bogus&currency=usd');
  });

  it('when filters are applied from a link with unusable ones, then the URL holds only what applies and the notice goes', async () => {
    const app = renderApp('/transactions?status=bogus&currency=usd', bffAs(['support']));
    await table();
    expect(await screen.findByRole('alert')).toHaveTextContent('Status “bogus” (unknown)');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?currency=USD');
    });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('when a filter breaks its rule, then the field says what to type and nothing is applied', async () => {
    const app = renderApp('/transactions', bffAs(['support']));
    await table();
    await app.user.type(screen.getByLabelText('Amount from'), '1.234');
    await app.user.type(screen.getByLabelText('Amount to'), '0.5');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(
      screen.getAllByText('An amount with at most 2 decimals, like 10 or 19.99.'),
    ).toHaveLength(1);
    expect(app.location()).toBe('/transactions');
    await app.user.clear(screen.getByLabelText('Amount from'));
    await app.user.type(screen.getByLabelText('Amount from'), '5');
    expect(screen.getByText('Must not be below the minimum.')).toBeInTheDocument();
  });

  it('when a search breaks its rule after an earlier search, then the page says it was not applied and the list still shows the earlier one, until the field is right (QA)', async () => {
    const app = renderApp('/transactions?q=shopper%40', bffAs(['support']));
    // No order matches it: the list says so, and offers the gateway look-up.
    expect(
      await screen.findByRole('button', { name: 'Look up “shopper@” at the gateway' }),
    ).toBeVisible();
    const search = screen.getByLabelText('Search');
    await app.user.clear(search);
    await app.user.type(search, '4111111111111111{Enter}');
    const notice = await screen.findByText(
      'Not applied: correct the field marked in red. The list below still shows the filters applied before.',
    );
    expect(notice).toBeVisible();
    expect(app.location()).toBe('/transactions?q=shopper%40');
    await app.user.clear(search);
    await app.user.type(search, '1111');
    expect(screen.queryByText(/^Not applied:/)).not.toBeInTheDocument();
    await app.user.type(search, '{Enter}');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=1111');
    });
  });

  it('when a sortable header is clicked, then the server sort goes into the URL and the request', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions', bff);
    await table();
    await app.user.click(screen.getByRole('button', { name: /^Amount, not sorted/ }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?sort=amount_desc');
    });
    await waitFor(() => {
      expect(lastListQuery(bff).get('sort')).toBe('amount_desc');
    });
    await waitFor(() => {
      expect(
        within(screen.getByRole('table', { name: 'Transactions' })).getAllByRole('row')[1],
      ).toHaveTextContent('€40.50');
    });
    await app.user.click(screen.getByRole('button', { name: /^Amount, sorted largest first/ }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?sort=amount_asc');
    });
  });

  it('when the list is sorted by amount, then Export CSV asks for the same sort, so the file is in the order shown', async () => {
    const app = renderApp('/transactions?status=approved', bffAs(['finance']));
    await table();
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/transactions/export?status=approved&sort=created_desc&delimiter=comma',
    );
    await app.user.click(screen.getByRole('button', { name: /^Amount, not sorted/ }));
    await waitFor(() => {
      expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
        'href',
        '/api/transactions/export?status=approved&sort=amount_desc&delimiter=comma',
      );
    });
  });

  it('when the list is sorted, then the sortable column headers say how with aria-sort, the others say nothing', async () => {
    const app = renderApp('/transactions?sort=amount_asc', bffAs(['support']));
    const list = await table();
    const header = (name: RegExp) =>
      within(list)
        .getAllByRole('columnheader')
        .find((cell) => name.test(cell.textContent))!;
    expect(header(/^Amount/)).toHaveAttribute('aria-sort', 'ascending');
    expect(header(/^Created/)).toHaveAttribute('aria-sort', 'none');
    expect(header(/^Status/)).not.toHaveAttribute('aria-sort');
    await app.user.click(screen.getByRole('button', { name: /^Created, not sorted/ }));
    await waitFor(() => {
      expect(header(/^Created/)).toHaveAttribute('aria-sort', 'descending');
    });
    expect(header(/^Amount/)).toHaveAttribute('aria-sort', 'none');
  });

  it('when paging with the keyset cursor, then next and previous follow the server cursors and the URL', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions?limit=25', bff);
    await table();
    expect(screen.getByText(/Page 1 · 25 rows/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await app.user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?limit=25&cursor=after-25');
    });
    expect(await screen.findByText(/Page 2 · 5 rows/)).toBeInTheDocument();
    expect(lastListQuery(bff).get('cursor')).toBe('after-25');
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    await app.user.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?limit=25');
    });
    expect(await screen.findByText(/Page 1 · 25 rows/)).toBeInTheDocument();
  });

  it('when the address names a page marker the list refuses (an old bookmark), then it says so and offers the first page of the same filters, not a retry that fails again (QA)', async () => {
    const bff = bffAs(['support']);
    bff.on('GET /api/transactions', (request) =>
      request.query.get('cursor') === 'garbage'
        ? {
            status: 400,
            body: {
              error: {
                code: 'VALIDATION_FAILED',
                message: 'query.cursor: not a cursor of this list',
                details: {
                  fields: [
                    { path: 'query.cursor', rule: 'cursor', message: 'not a cursor of this list' },
                  ],
                },
                requestId: 'req-1',
              },
            },
          }
        : bff.payments.handle(request, bff.users[0])!,
    );
    const app = renderApp('/transactions?limit=25&cursor=garbage', bff);
    expect(
      await screen.findByText(/This address names a page the list no longer has/),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    await app.user.click(screen.getByRole('button', { name: 'Go to the first page' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?limit=25');
    });
    expect(await screen.findByText(/Page 1 · 25 rows/)).toBeInTheDocument();
  });

  it('when the total is capped by the server, then the count says "or more"', async () => {
    const bff = bffAs(['support']);
    bff.payments.totalCap = 20;
    renderApp('/transactions', bff);
    expect(await screen.findByText('20+ transactions')).toBeInTheDocument();
  });

  /** The first row turns Declined, by one list refetch, however the change reaches the screen. */
  async function expectListFollows(deliver: (bff: FakeBff, change: () => void) => void) {
    const bff = bffAs(['support']);
    renderApp('/transactions', bff);
    expect(within(await table()).getAllByRole('row')[1]).toHaveTextContent('Approved');
    expect(await screen.findByText('Live')).toBeInTheDocument();
    const before = bff.requestsTo('GET', '/api/transactions').length;
    deliver(bff, () => {
      bff.payments.change('00000000-0000-4000-8000-000000000030', { status: 'declined' });
    });
    await waitFor(() => {
      expect(
        within(screen.getByRole('table', { name: 'Transactions' })).getAllByRole('row')[1],
      ).toHaveTextContent('Declined');
    });
    expect(bff.requestsTo('GET', '/api/transactions').length).toBe(before + 1);
    expect(screen.getByText('Live')).toBeInTheDocument();
  }

  it('when the event stream reports a change, then the list is fetched again and shows it', () =>
    expectListFollows((_bff, change) => {
      change();
    }));

  it('when the event stream drops and comes back, then the list is fetched again and shows what changed meanwhile', () =>
    // Changed while nothing was streamed: only the refetch on reconnecting can show it.
    expectListFollows((bff, change) => {
      bff.payments.interruptStreams(change);
    }));

  it('when the session ends while the screen is live (the BFF ends the stream and refuses it again), then the user is asked at once to sign in again over the page, and once they have the list is live again', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/transactions', bff);
    expect(await screen.findByText('Live')).toBeInTheDocument();
    bff.payments.interruptStreams(() => {
      bff.expireSession();
    });
    const again = within(
      await screen.findByRole('dialog', {
        name: 'Your session ended — sign in again to continue',
      }),
    );
    expect(app.location()).toBe('/transactions');
    await app.user.type(again.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(again.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(await screen.findByText('Live')).toBeInTheDocument();
    expect(app.location()).toBe('/transactions');
  });

  it('when a transaction is one of many in a short list, then its detail link opens it', async () => {
    const bff = bffAs(['support'], { transactions: [makeTransaction(1)] });
    const app = renderApp('/transactions', bff);
    await app.user.click(await screen.findByRole('link', { name: 'Order 900001' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions/00000000-0000-4000-8000-000000000001');
    });
    expect(await screen.findByRole('heading', { name: 'Order 900001' })).toBeInTheDocument();
  });
});
