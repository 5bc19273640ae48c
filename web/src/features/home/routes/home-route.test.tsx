import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeBff, makeLink, makePayout, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { screenWidth } from '../../../test/screen-width';
import { windowCaption, windowStart } from '../api/home-stats';
import { CAPTURED_NOTE } from '../components/volume-card';

const DAY = 86_400_000;

// The screens are lazy chunks: transform them once up front, so that on a busy machine the first
// test's findBy waits for the screen, not for the compiler.
beforeAll(async () => {
  await Promise.all([
    import('../../shell/routes/shell-route'),
    import('./home-route'),
    import('../components/home-charts'),
    import('../../transactions/routes/transactions-route'),
  ]);
}, 60_000);

/** Orders placed relative to the real clock, as the home screen asks for "today" by it. */
function recentOrders() {
  const now = Date.now();
  const midnight = Date.parse(windowStart(1));
  const at = (ms: number) => new Date(ms).toISOString();
  const todayAt = at(Math.floor((midnight + now) / 2));
  return [
    makeTransaction(1, { createdAt: todayAt, updatedAt: todayAt }),
    makeTransaction(2, { status: 'declined', createdAt: todayAt, updatedAt: todayAt }),
    (() => {
      const t = makeTransaction(3, {
        currency: 'USD',
        createdAt: at(now - 3 * DAY),
        updatedAt: at(now - 3 * DAY),
      });
      return {
        ...t,
        operations: [
          ...t.operations,
          {
            ...t.operations[0]!,
            id: 'op-r',
            kind: 'return' as const,
            amount: '1.00',
            createdAt: at(now - 2 * DAY),
          },
        ],
      };
    })(),
    makeTransaction(4, {
      status: 'unknown',
      createdAt: at(now - 10 * DAY),
      updatedAt: at(now - 10 * DAY),
    }),
    makeTransaction(5, {
      drift: true,
      createdAt: at(now - 40 * DAY),
      updatedAt: at(now - 40 * DAY),
    }),
  ];
}

function bffAs(
  roles: Parameters<typeof makeUser>[0]['roles'],
  options: ConstructorParameters<typeof FakeBff>[0] = {},
) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Mo', roles })],
    transactions: recentOrders(),
    ...options,
  });
}

const section = (name: string) => screen.getByRole('region', { name });

describe('home screen', () => {
  it('when the figures are on their way, then a loading state is announced', async () => {
    renderApp(
      '/',
      bffAs(['support']).on('GET /api/stats', () => 'hang'),
    );
    expect(await screen.findByText('Loading the figures…')).toBeInTheDocument();
  });

  it('when orders exist, then today and the period show the captured volume per currency, approval rate and returns, formatted from decimal strings', async () => {
    const now = Date.now();
    const todayAt = new Date(Math.floor((Date.parse(windowStart(1)) + now) / 2)).toISOString();
    // Payouts made today are money out, not orders placed: in no count and not in the rate.
    const payouts = [
      makeTransaction(7, { type: 'payout', createdAt: todayAt, updatedAt: todayAt }),
      makeTransaction(8, {
        type: 'payout-check',
        status: 'declined',
        createdAt: todayAt,
        updatedAt: todayAt,
      }),
    ];
    renderApp('/', bffAs(['finance'], { transactions: [...recentOrders(), ...payouts] }));
    await screen.findByRole('heading', { name: 'Captured volume' });
    const today = section('Today');
    expect(within(today).getByText('€11.50')).toBeInTheDocument();
    expect(within(today).getByText('captured · 2 orders placed, 1 approved')).toBeInTheDocument();
    expect(within(today).getByText(/^Approval rate/)).toHaveTextContent(/^Approval rate 50%$/);
    const period = section('Last 30 days');
    // What "captured" counts is said once, under both cards, and is each card's description: in
    // each card, the same long text stood twice side by side.
    const [note, ...again] = screen.getAllByText(CAPTURED_NOTE);
    expect(again).toHaveLength(0);
    expect(section('Captured volume')).toContainElement(note!);
    expect(today).not.toContainElement(note!);
    expect(period).not.toContainElement(note!);
    expect(today).toHaveAccessibleDescription(CAPTURED_NOTE);
    expect(period).toHaveAccessibleDescription(CAPTURED_NOTE);
    expect(within(period).getByText('$13.50')).toBeInTheDocument();
    expect(within(period).getByText('captured · 3 orders placed, 1 approved')).toBeInTheDocument();
    // The rate is of the decided orders: with one still processing, said so, so the figures add up.
    expect(period).toHaveTextContent('Approval rate 66.7% of the 3 decided (1 still processing)');
    const returns = section('Returns, last 30 days');
    expect(within(returns).getByText('$1.00')).toBeInTheDocument();
    expect(returns).toHaveTextContent('1 return');
  });

  it('when every order placed today is in one currency and decided, then the Today card says how many were placed once', async () => {
    // QA: "2 orders placed" on the currency's line, and again after the approval rate.
    renderApp('/', bffAs(['finance']));
    await screen.findByRole('heading', { name: 'Captured volume' });
    const today = section('Today');
    expect(today.textContent.match(/orders? placed/g)).toEqual(['orders placed']);
    expect(within(today).getByText(/^Approval rate/)).toHaveTextContent(/^Approval rate 50%$/);
  });

  it('when the orders placed today are in more than one currency and decided, then the approval rate says their total', async () => {
    const now = Date.now();
    const todayAt = new Date(Math.floor((Date.parse(windowStart(1)) + now) / 2)).toISOString();
    const placedToday = (n: number) =>
      makeTransaction(n, { currency: 'USD', createdAt: todayAt, updatedAt: todayAt });
    renderApp(
      '/',
      bffAs(['finance'], { transactions: [...recentOrders(), placedToday(11), placedToday(12)] }),
    );
    await screen.findByRole('heading', { name: 'Captured volume' });
    const today = section('Today');
    // Each currency's line counts its own orders: the rate's basis, their total, is new.
    expect(within(today).getByText('captured · 2 orders placed, 2 approved')).toBeInTheDocument();
    expect(within(today).getByText(/^Approval rate/)).toHaveTextContent(
      /^Approval rate 75% of all 4 orders$/,
    );
  });

  it('when a hold authorized before the period is captured today, then today and the period count its captured part, not the order', async () => {
    const now = Date.now();
    const todayAt = new Date(Math.floor((Date.parse(windowStart(1)) + now) / 2)).toISOString();
    const authorizedAt = new Date(now - 40 * DAY).toISOString();
    const hold = makeTransaction(6, {
      type: 'preauth',
      currency: 'GBP',
      amount: '30.00',
      stage: 'captured',
      createdAt: authorizedAt,
      updatedAt: todayAt,
    });
    // 20.00 of the 30.00 hold captured today; a declined try before it took nothing
    const capture = {
      ...hold.operations[0]!,
      id: 'op-6-capture',
      kind: 'capture' as const,
      amount: '20.00',
      createdAt: todayAt,
    };
    const captured = {
      ...hold,
      amounts: { ...hold.amounts, captured: '20.00', remainingCapturable: '0.00' },
      operations: [
        ...hold.operations,
        { ...capture, id: 'op-6-declined', state: 'declined' as const, amount: '30.00' },
        capture,
      ],
    };
    const app = renderApp('/', bffAs(['finance'], { transactions: [...recentOrders(), captured] }));
    await screen.findByRole('heading', { name: 'Captured volume' });
    const today = section('Today');
    expect(within(today).getByText('£20.00')).toBeInTheDocument();
    expect(within(today).getByText('captured · no orders placed')).toBeInTheDocument();
    // Orders and the approval rate are still of the orders placed today.
    expect(within(today).getByText('€11.50')).toBeInTheDocument();
    expect(within(today).getByText('captured · 2 orders placed, 1 approved')).toBeInTheDocument();
    expect(within(today).getByText(/^Approval rate/)).toHaveTextContent(/^Approval rate 50%$/);
    expect(within(section('Last 30 days')).getByText('£20.00')).toBeInTheDocument();
    await app.user.click(await screen.findByRole('button', { name: 'GBP' }));
    expect(
      await screen.findByRole('img', {
        name: /Captured volume and returns per day, GBP: £20\.00 captured, last 30 days/,
      }),
    ).toBeInTheDocument();
  });

  it('when orders need a person, then unknown and drift are counted whatever their age and link to the filtered list', async () => {
    const app = renderApp('/', bffAs(['support']));
    await screen.findByRole('heading', { name: 'Needs attention' });
    const unknown = section('Unknown outcome');
    expect(unknown).toHaveTextContent('1');
    const drift = section('Drift flagged');
    expect(within(drift).getByRole('link', { name: 'Show orders with drift' })).toHaveAttribute(
      'href',
      '/transactions?drift=true',
    );
    await app.user.click(
      within(unknown).getByRole('link', { name: 'Show orders with an unknown outcome' }),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?status=unknown');
    });
    expect(await screen.findByText('1 transaction matches')).toBeInTheDocument();
  });

  it('when an approved order has a return whose outcome is unknown, then the card counts it with the orders whose own outcome is unknown, and its link lists both, the return marked', async () => {
    const sale = makeTransaction(6);
    const lostReturn = {
      ...sale,
      operations: [
        ...sale.operations,
        {
          ...sale.operations[0]!,
          id: 'op-6-return',
          kind: 'return' as const,
          state: 'unknown' as const,
          amount: '5.00',
          gatewaySerial: null,
        },
      ],
    };
    const app = renderApp(
      '/',
      bffAs(['finance'], { transactions: [...recentOrders(), lostReturn] }),
    );
    await screen.findByRole('heading', { name: 'Needs attention' });
    const unknown = section('Unknown outcome');
    expect(within(unknown).getByText('2')).toBeInTheDocument();
    await app.user.click(
      within(unknown).getByRole('link', { name: 'Show orders with an unknown outcome' }),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?status=unknown');
    });
    expect(await screen.findByText('2 transactions match')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Transactions' });
    const row = within(table)
      .getByRole('link', { name: `Order ${sale.orderid}` })
      .closest('tr');
    expect(row).toHaveTextContent('Approved');
    expect(row).toHaveTextContent('Return: outcome unknown');
  });

  it('when an ops user has payouts to approve or to pay again, then the count links to the approval queue; their own are not counted', async () => {
    const notPaid = {
      state: 'failed' as const,
      errorCode: 'NOT_APPLIED',
      decidedBy: { id: 'u-otto', email: 'otto@example.com' },
      decidedAt: new Date(Date.now() - 60_000).toISOString(),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const bff = bffAs(['ops'], {
      payouts: [
        makePayout(1),
        makePayout(2),
        makePayout(3, { preparedBy: { id: 'u-me', email: 'me@example.com' } }),
        makePayout(4, { state: 'approved' }),
        // not paid by the gateway, its check holding: the viewer may pay it again
        makePayout(5, notPaid),
        // the same, but its check lapsed: nothing to do
        makePayout(6, { ...notPaid, expiresAt: new Date(Date.now() - 60_000).toISOString() }),
      ],
    });
    renderApp('/', bff);
    const card = await screen.findByRole('region', { name: 'Payouts awaiting your approval' });
    await waitFor(() => {
      expect(card).toHaveTextContent('3');
    });
    // The queue holds both: the words say so.
    expect(card).toHaveTextContent(
      'Prepared by another ops user: waiting for you to approve, or to pay again after the gateway did not pay.',
    );
    expect(within(card).getByRole('link', { name: 'Open the approval queue' })).toHaveAttribute(
      'href',
      '/payouts?view=awaiting-my-approval',
    );
    const request = bff
      .requestsTo('GET', '/api/payouts')
      .find((r) => r.query.get('view') === 'awaiting-my-approval');
    expect(request!.query.has('state')).toBe(false);
  });

  it('when payout-form links prepared by another ops user wait for approval, then an ops user’s Home counts them in a card of their own, linking to the links’ approval queue (QA: they lapsed unseen); others get no such card', async () => {
    const held = (n: number, createdBy = { id: 'u-olu', email: 'olu@example.com' }) =>
      makeLink(n, {
        kind: 'payout-form',
        state: 'pending_approval',
        createdBy,
        redirectUrl: null,
        canDecide: createdBy.id !== 'u-me',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
    const links = [
      held(1),
      held(2),
      held(3, { id: 'u-me', email: 'me@example.com' }),
      makeLink(4, { kind: 'payout-form', state: 'sent' }),
      makeLink(5),
    ];
    const ops = bffAs(['ops'], { links });
    const app = renderApp('/', ops);
    const card = await screen.findByRole('region', { name: 'Payout forms awaiting your approval' });
    await waitFor(() => {
      expect(card).toHaveTextContent('2');
    });
    expect(
      within(card).getByRole('link', { name: 'Open the links awaiting approval' }),
    ).toHaveAttribute('href', '/payment-links?view=awaiting-my-approval');
    app.unmount();
    const finance = bffAs(['finance'], { links });
    renderApp('/', finance);
    await screen.findByRole('region', { name: 'Payouts awaiting approval' });
    expect(
      screen.queryByRole('region', { name: 'Payout forms awaiting your approval' }),
    ).not.toBeInTheDocument();
    expect(finance.requestsTo('GET', '/api/payment-links')).toHaveLength(0);
  });

  it('when payouts have an unknown outcome, then a card counts every one of them (not only the orders), calls for attention and links to the payouts list filtered to them', async () => {
    const bff = bffAs(['ops'], {
      payouts: [
        makePayout(1, { state: 'unknown' }),
        makePayout(2, { state: 'unknown', preparedBy: { id: 'u-me', email: 'me@example.com' } }),
        makePayout(3, { state: 'processing' }),
        makePayout(4),
      ],
    });
    const app = renderApp('/', bff);
    const card = await screen.findByRole('region', { name: 'Payouts with an unknown outcome' });
    await waitFor(() => {
      expect(within(card).getByText('2')).toBeInTheDocument();
    });
    expect(card).toHaveStyle({ borderLeftWidth: '4px' });
    expect(card).toHaveTextContent('The gateway did not answer their payment');
    // The orders' card counts orders only; this one is beside it.
    expect(section('Unknown outcome')).toHaveTextContent('1');
    const request = bff
      .requestsTo('GET', '/api/payouts')
      .find((r) => r.query.get('state') === 'unknown');
    expect(request!.query.get('view')).toBe('all');
    expect(Number(request!.query.get('limit'))).toBe(50);
    const link = within(card).getByRole('link', { name: 'Show payouts with an unknown outcome' });
    expect(link).toHaveAttribute('href', '/payouts?view=all&state=unknown');
    await app.user.click(link);
    await waitFor(() => {
      expect(app.location()).toBe('/payouts?view=all&state=unknown');
    });
  });

  it('when no payout has an unknown outcome, then its card says 0 without calling for attention', async () => {
    renderApp('/', bffAs(['auditor'], { payouts: [makePayout(1, { state: 'approved' })] }));
    const card = await screen.findByRole('region', { name: 'Payouts with an unknown outcome' });
    expect(within(card).getByText('0')).toBeInTheDocument();
    expect(card).not.toHaveStyle({ borderLeftWidth: '4px' });
  });

  it('when a payout’s outcome becomes unknown elsewhere, then the live event updates its card', async () => {
    const bff = bffAs(['support'], { payouts: [makePayout(1, { state: 'processing' })] });
    renderApp('/', bff);
    const card = await screen.findByRole('region', { name: 'Payouts with an unknown outcome' });
    expect(within(card).getByText('0')).toBeInTheDocument();
    const [first] = bff.payouts.payouts;
    bff.payouts.payouts = bff.payouts.payouts.map((p) =>
      p.id === first!.id ? { ...p, state: 'unknown' } : p,
    );
    bff.payments.publish({
      type: 'payout.updated',
      payoutId: first!.id,
      state: 'unknown',
      orderid: null,
      at: new Date().toISOString(),
    });
    await waitFor(() => {
      expect(within(section('Payouts with an unknown outcome')).getByText('1')).toBeInTheDocument();
    });
  });

  it('when payouts were paid after a not-applied verdict, then a card counts those decided in the last 30 days, asked of the list’s own filter, and links to the list filtered to them', async () => {
    const now = Date.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const paidLate = (n: number, decidedAt: string) =>
      makePayout(n, {
        state: 'approved',
        errorCode: 'PAID_AFTER_NOT_APPLIED',
        errorMessage: 'Paid after Paydesk had judged it not applied',
        decidedBy: { id: 'u-otto', email: 'otto@example.com' },
        decidedAt,
      });
    const bff = bffAs(['ops'], {
      payouts: [
        paidLate(1, at(now - 2 * DAY)),
        paidLate(2, at(now - 20 * DAY)),
        // decided before the 30 days: not counted
        paidLate(3, at(now - 45 * DAY)),
        makePayout(4, { state: 'approved', decidedAt: at(now - DAY) }),
      ],
    });
    renderApp('/', bff);
    const card = await screen.findByRole('region', {
      name: 'Payouts paid after a not-applied verdict',
    });
    await waitFor(() => {
      expect(within(card).getByText('2')).toBeInTheDocument();
    });
    expect(card).toHaveTextContent('Decided in the last 30 days');
    expect(card).toHaveTextContent(
      'The gateway paid these after Paydesk judged them not applied: check that none was prepared and paid again.',
    );
    expect(
      within(card).getByRole('link', { name: 'Show payouts paid after a not-applied verdict' }),
    ).toHaveAttribute(
      'href',
      // the list of what the card counted: the same 30 days
      `/payouts?view=all&paidLate=true&decidedFrom=${encodeURIComponent(windowStart(30))}`,
    );
    const request = bff
      .requestsTo('GET', '/api/payouts')
      .find((r) => r.query.get('paidLate') === 'true');
    expect(request!.query.get('decidedFrom')).toBe(windowStart(30));
    expect(Number(request!.query.get('limit'))).toBeLessThanOrEqual(50);
  });

  it('when no payout was paid after a not-applied verdict, then its card says 0 without calling for attention', async () => {
    renderApp('/', bffAs(['support'], { payouts: [makePayout(1, { state: 'approved' })] }));
    const card = await screen.findByRole('region', {
      name: 'Payouts paid after a not-applied verdict',
    });
    expect(within(card).getByText('0')).toBeInTheDocument();
    expect(card).not.toHaveStyle({ borderLeftWidth: '4px' });
  });

  it('when a payout is decided elsewhere, then the live event updates the approval count', async () => {
    const bff = bffAs(['ops'], { payouts: [makePayout(1), makePayout(2)] });
    renderApp('/', bff);
    const card = await screen.findByRole('region', { name: 'Payouts awaiting your approval' });
    expect(card).toHaveTextContent('2');
    const [first] = bff.payouts.payouts;
    bff.payouts.payouts = bff.payouts.payouts.map((p) =>
      p.id === first!.id ? { ...p, state: 'approved' } : p,
    );
    bff.payments.publish({
      type: 'payout.updated',
      payoutId: first!.id,
      state: 'approved',
      orderid: null,
      at: new Date().toISOString(),
    });
    await waitFor(() => {
      expect(section('Payouts awaiting your approval')).toHaveTextContent('1');
    });
  });

  it('when a reader who is not ops opens Home, then every pending payout is counted and links to the payouts waiting', async () => {
    const app = renderApp(
      '/',
      bffAs(['auditor'], { payouts: [makePayout(1), makePayout(2, { state: 'rejected' })] }),
    );
    const card = await screen.findByRole('region', { name: 'Payouts awaiting approval' });
    expect(card).toHaveTextContent('1');
    expect(card).toHaveTextContent('Prepared by one ops user, waiting for a second.');
    // No approval queue for them: the link says what it opens.
    const link = within(card).getByRole('link', { name: 'Open the payouts' });
    expect(link).toHaveAttribute('href', '/payouts?view=all&state=pending_approval');
    expect(within(card).queryByText(/approval queue/)).toBeNull();
    // The list it opens holds what was counted.
    await app.user.click(link);
    expect(await screen.findByText('Seller settlement 1')).toBeInTheDocument();
    expect(screen.queryByText('Seller settlement 2')).not.toBeInTheDocument();
  });

  it('when the payouts cannot be counted, then the rest of Home still shows and a warning says so', async () => {
    renderApp(
      '/',
      bffAs(['support']).on('GET /api/payouts', () => ({
        status: 500,
        body: { error: { code: 'INTERNAL', message: 'boom', requestId: 'req-p' } },
      })),
    );
    expect(
      await screen.findByText(/Could not count the payouts awaiting approval/),
    ).toBeInTheDocument();
    expect(section('Today')).toBeInTheDocument();
  });

  it('when the period has orders, then the charts load lazily for the busiest currency and can switch currency', async () => {
    const app = renderApp('/', bffAs(['support']));
    expect(
      await screen.findByRole('heading', { name: 'Captured volume and returns per day, EUR' }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('img', {
        name: /Orders per day \(EUR orders\): 1 of 3 EUR orders approved, last 30 days/,
      }),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'USD' }));
    expect(
      await screen.findByRole('img', {
        name: /Captured volume and returns per day, USD: \$13\.50 captured, last 30 days/,
      }),
    ).toBeInTheDocument();
  });

  it('when the charts are shown, then each title says its unit: the orders chart counts orders (of the currency chosen), not money; the volume chart is money in that currency', async () => {
    const app = renderApp('/', bffAs(['support']));
    const orders = await screen.findByRole('region', { name: 'Orders per day (EUR orders)' });
    // A count: no currency read as its unit, in the title or the chart's description.
    expect(within(orders).getByRole('heading', { level: 3 })).not.toHaveTextContent(/, EUR|€/);
    expect(within(orders).getByRole('img')).not.toHaveAccessibleName(/Orders per day, EUR/);
    expect(within(orders).getByText(/Number of orders placed each UTC day\./)).toBeInTheDocument();
    // Money: the currency is its unit.
    expect(
      screen.getByRole('region', { name: 'Captured volume and returns per day, EUR' }),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'USD' }));
    expect(
      await screen.findByRole('region', { name: 'Orders per day (USD orders)' }),
    ).toHaveTextContent('1 of 1 USD order approved, last 30 days.');
    expect(screen.queryByRole('region', { name: /^Orders per day, / })).toBeNull();
  });

  it('when the charts show 30 days, then the day axis names today and every 7th day before it, five labels at 1440, 1024 and 390 px; 7 days on a phone, every other day', async () => {
    const dayLabel = (daysBack: number) => {
      const now = new Date();
      const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysBack);
      return new Intl.DateTimeFormat(undefined, {
        day: 'numeric',
        month: 'short',
        timeZone: 'UTC',
      }).format(new Date(day));
    };
    /**
     * The orders chart's x axis: its tick labels and how many tick marks it has. (jsdom lays the
     * charts out 100 px wide, which leaves the volume chart, with its wider money axis, no room
     * for bars or ticks; both charts label their days alike.)
     */
    const axis = () => {
      const chart = screen.getByRole('region', { name: 'Orders per day (EUR orders)' });
      const x = chart.querySelector('.MuiChartsAxis-directionX');
      return {
        labels: [...(x?.querySelectorAll('.MuiChartsAxis-tickLabel') ?? [])].map(
          (label) => label.textContent,
        ),
        ticks: x?.querySelectorAll('.MuiChartsAxis-tick').length,
      };
    };
    const weekly = { labels: [28, 21, 14, 7, 0].map(dayLabel), ticks: 5 };
    for (const width of [1440, 1024, 390]) {
      screenWidth(width);
      const app = renderApp('/', bffAs(['support']));
      await screen.findByRole('region', { name: 'Orders per day (EUR orders)' });
      // All 30 days' labels, or as many as fit edge to edge, ran into each other.
      await waitFor(() => {
        expect(axis()).toEqual(weekly);
      });
      if (width === 390) {
        await app.user.click(screen.getByRole('button', { name: '7 days' }));
        const everyOther = { labels: [6, 4, 2, 0].map(dayLabel), ticks: 4 };
        await waitFor(() => {
          expect(axis()).toEqual(everyOther);
        });
      }
      app.unmount();
    }
  });

  it('when there are no orders, then the empty state says so and nothing needs attention', async () => {
    renderApp('/', bffAs(['support'], { transactions: [] }));
    expect(await screen.findByText('No orders in the last 30 days')).toBeInTheDocument();
    expect(within(section('Today')).getByText('No orders yet.')).toBeInTheDocument();
    expect(section('Unknown outcome')).toHaveTextContent('0');
    expect(section('Returns, last 30 days')).toHaveTextContent('No returns.');
  });

  it('when another period is chosen, then it goes into the URL and the window starts that many UTC days back, at UTC midnight as the charts count days, and says so', async () => {
    const bff = bffAs(['support']);
    const app = renderApp('/', bff);
    await screen.findByRole('heading', { name: 'Captured volume' });
    await app.user.click(screen.getByRole('button', { name: '7 days' }));
    await waitFor(() => {
      expect(app.location()).toBe('/?period=7d');
    });
    expect(await screen.findByRole('region', { name: 'Last 7 days' })).toBeInTheDocument();
    const froms = bff.requestsTo('GET', '/api/stats').map((r) => r.query.get('from'));
    const now = new Date();
    const utcMidnight = (daysBack: number) =>
      new Date(
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysBack),
      ).toISOString();
    expect(froms).toContain(utcMidnight(6));
    expect(froms).toContain(utcMidnight(0));
    expect(section('Last 7 days')).toHaveTextContent('2 orders placed, 1 approved');
    expect(section('Last 7 days')).toHaveTextContent(windowCaption(utcMidnight(6), 7));
    expect(section('Today')).toHaveTextContent(windowCaption(utcMidnight(0), 1));
    expect(section('Today')).toHaveTextContent(/^TodayUTC day /);
  });

  it('when the figures fail, then an error with a retry is shown', async () => {
    let fail = true;
    const bff = bffAs(['support']).on('GET /api/stats', () =>
      fail
        ? {
            status: 500,
            body: { error: { code: 'INTERNAL', message: 'boom', requestId: 'req-s' } },
          }
        : 'hang',
    );
    const app = renderApp('/', bff);
    expect(await screen.findByText('Could not load the figures')).toBeInTheDocument();
    fail = false;
    await app.user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Loading the figures…')).toBeInTheDocument();
  });

  it('when the server refuses the figures (403), then the forbidden state is shown', async () => {
    renderApp(
      '/',
      bffAs(['support']).on('GET /api/stats', () => ({
        status: 403,
        body: { error: { code: 'FORBIDDEN', message: 'no', requestId: 'r' } },
      })),
    );
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
  });

  it('when the user reads no statistics (admin only), then Home offers their screens and asks for no figures', async () => {
    const bff = bffAs(['admin']);
    renderApp('/', bff);
    const shortcuts = await screen.findByRole('region', { name: 'Your screens' });
    expect(within(shortcuts).getByRole('link', { name: /Users/ })).toHaveAttribute(
      'href',
      '/users',
    );
    expect(within(shortcuts).getByRole('link', { name: /My account/ })).toHaveAttribute(
      'href',
      '/account',
    );
    expect(within(shortcuts).queryByRole('link', { name: /Home/ })).toBeNull();
    // The screens' own words ("Create user", "Two-step sign-in"), not "invite", "TOTP", "two-factor".
    expect(within(shortcuts).getByRole('link', { name: /Users/ })).toHaveTextContent(
      'Create users, set their roles, disable accounts, reset two-step sign-in.',
    );
    expect(within(shortcuts).getByRole('link', { name: /My account/ })).toHaveTextContent(
      'Your password and two-step sign-in.',
    );
    expect(shortcuts).not.toHaveTextContent(/invite|TOTP|two-factor/i);
    // Each entry reads as a link: its name in the link colour, underlined.
    expect(within(shortcuts).getByText('Users')).toHaveStyle({ textDecoration: 'underline' });
    expect(bff.requestsTo('GET', '/api/stats')).toHaveLength(0);
    // Admins see no payouts: no payout card, none counted.
    expect(bff.requestsTo('GET', '/api/payouts')).toHaveLength(0);
    expect(screen.queryByRole('region', { name: /Payouts/ })).toBeNull();
  });

  it.each([
    [
      'the event stream reports a change',
      (_bff: FakeBff, change: () => void) => {
        change();
      },
    ],
    [
      'the event stream drops and comes back (the change made meanwhile)',
      (bff: FakeBff, change: () => void) => {
        bff.payments.interruptStreams(change);
      },
    ],
  ])('when %s, then the figures are fetched again and show it', async (_when, deliver) => {
    const bff = bffAs(['support']);
    renderApp('/', bff);
    await screen.findByRole('heading', { name: 'Captured volume' });
    expect(await screen.findByText('Live')).toBeInTheDocument();
    expect(section('Today')).toHaveTextContent('Approval rate 50%');
    deliver(bff, () => {
      bff.payments.change('00000000-0000-4000-8000-000000000002', { status: 'approved' });
    });
    await waitFor(() => {
      expect(section('Today')).toHaveTextContent('Approval rate 100%');
    });
  });
});
