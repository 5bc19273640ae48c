import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { IDEMPOTENCY_KEY_HEADER } from '@paydesk/shared/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FakeBff,
  makeCharge,
  makeSubscription,
  makeTransaction,
  makeUser,
} from '../../../test/fake-bff';
import { itShowsTheListStates } from '../../../test/list-states';
import { renderApp } from '../../../test/render-app';
import { seenAs } from '../../../test/seen-text';
import { screenWidth } from '../../../test/screen-width';

const PLAN = makeSubscription(1, {
  charges: [makeCharge(41, { amount: '1.99', status: 'approved' })],
});

function bffAs(roles: Parameters<typeof makeUser>[0]['roles'], subscriptions = [PLAN]) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
    subscriptions,
    transactions: [makeTransaction(41, { type: 'rebill', amount: '1.99' })],
  });
}

async function fillCreateForm(app: ReturnType<typeof renderApp>) {
  const dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
  await app.user.type(dialog.getByLabelText(/Amount per charge/), '9.9');
  await app.user.clear(dialog.getByLabelText(/^Every/));
  await app.user.type(dialog.getByLabelText(/^Every/), '2');
  await app.user.selectOptions(dialog.getByLabelText(/Period/), 'week');
  await app.user.type(dialog.getByLabelText(/Charges at most/), '6');
  await app.user.type(dialog.getByLabelText(/Description/), 'Fortnightly coffee');
  await app.user.type(dialog.getByLabelText(/Customer e-mail/), 'Ann@Example.com');
  await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
}

/** The browser's clock at `iso` (Date only: timers run as usual), for a test's dated messages. */
function clockAt(iso: string) {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(new Date(iso));
}

async function openCreateDialog(bff = bffAs(['finance'], [])) {
  const app = renderApp('/subscriptions?ref=card-ref-7', bff);
  await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
  const dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
  return { app, dialog };
}

const headersOf = (table: HTMLElement) =>
  within(table)
    .getAllByRole('columnheader')
    .map((h) => h.textContent);

describe('subscriptions', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  itShowsTheListStates({
    path: '/subscriptions',
    route: 'GET /api/subscriptions',
    bffAs,
    reader: ['support'],
    noAccess: ['admin'],
    loading: 'Loading subscriptions…',
    what: 'subscriptions',
  });

  it('when there is none, then the empty state says how one is made', async () => {
    renderApp('/subscriptions', bffAs(['finance'], []));
    expect(await screen.findByText('No subscriptions yet.')).toBeInTheDocument();
    expect(screen.getByText(/Create one from a card reference/)).toBeInTheDocument();
    // The intro says what finance staff need, not the API's name (QA F8).
    expect(
      screen.getByText(/Paydesk learns each charge automatically from the gateway/),
    ).toBeInTheDocument();
    expect(screen.queryByText(/v4|recurring payments\)|callback/)).not.toBeInTheDocument();
  });

  it('when support opens the list, then each plan shows amount, schedule, next charge and state, and nothing can be created', async () => {
    renderApp('/subscriptions', bffAs(['support']));
    const table = await screen.findByRole('table', { name: 'Subscriptions' });
    const row = within(table).getAllByRole('row')[1]!;
    expect(row).toHaveTextContent('Monthly plan 1');
    expect(row).toHaveTextContent('€1.99');
    expect(row).toHaveTextContent('every month');
    expect(row).toHaveTextContent('1 of 12 charges');
    expect(row).toHaveTextContent('Active');
    expect(screen.queryByRole('button', { name: 'New subscription' })).not.toBeInTheDocument();
  });

  it('when the screen is a phone’s (390 px), then each plan is one column (name, state, schedule, next charge, customer) with its amount beside it, nothing to scroll to; from 600 px the wide columns return', async () => {
    screenWidth(390);
    renderApp('/subscriptions', bffAs(['support']));
    const table = await screen.findByRole('table', { name: 'Subscriptions' });
    // Six columns side by side made a 390 px screen scroll sideways, the state off its edge.
    expect(headersOf(table)).toEqual(['Plan', 'Amount']);
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells).toHaveLength(2);
    const [plan, amount] = cells;
    expect(within(plan!).getByRole('link', { name: 'Monthly plan 1' })).toHaveAttribute(
      'href',
      `/subscriptions/${PLAN.id}`,
    );
    expect(within(plan!).getByText('Active')).toBeInTheDocument();
    expect(plan).toHaveTextContent('every month');
    expect(plan).toHaveTextContent('1 of 12 charges');
    expect(plan).toHaveTextContent(/Next charge/);
    expect(plan!.querySelector('time[datetime="2026-12-20T09:00:00.000Z"]')).not.toBeNull();
    expect(plan).toHaveTextContent('subscriber1@example.com');
    // A long name or address breaks inside the column instead of widening the table.
    expect(plan!.querySelector('wbr')).not.toBeNull();
    expect(plan).toHaveStyle({ overflowWrap: 'anywhere' });
    expect(amount).toHaveTextContent(/^€1\.99$/);
    expect(amount).toHaveStyle({ whiteSpace: 'nowrap' });
    cleanup();

    screenWidth(600);
    renderApp('/subscriptions', bffAs(['support']));
    expect(headersOf(await screen.findByRole('table', { name: 'Subscriptions' }))).toEqual([
      'Plan',
      'Amount',
      'Schedule',
      'Next charge',
      'Customer',
      'State',
    ]);
  });

  it('when there are more plans than a page, then Next follows the cursor and Previous comes back', async () => {
    const many = Array.from({ length: 30 }, (_, i) => makeSubscription(i + 1));
    const bff = bffAs(['support'], many);
    const app = renderApp('/subscriptions?limit=25', bff);
    const table = await screen.findByRole('table', { name: 'Subscriptions' });
    expect(within(table).getAllByRole('row')).toHaveLength(26);
    await app.user.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => {
      expect(
        within(screen.getByRole('table', { name: 'Subscriptions' })).getAllByRole('row'),
      ).toHaveLength(6);
    });
    expect(app.location()).toBe('/subscriptions?cursor=25&limit=25');
    expect(screen.getByText(/Page 2/)).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => {
      expect(app.location()).toBe('/subscriptions?limit=25');
    });
  });

  it('when a plan is opened, then its schedule, card reference and charges with links to their orders show', async () => {
    const app = renderApp('/subscriptions', bffAs(['support']));
    await app.user.click(await screen.findByRole('link', { name: 'Monthly plan 1' }));
    await screen.findByRole('heading', { name: 'Monthly plan 1' });
    const schedule = within(screen.getByRole('region', { name: 'Schedule' }));
    expect(schedule.getByText('every month')).toBeInTheDocument();
    expect(schedule.getByText('1 of 12 charges')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Schedule' })).not.toHaveTextContent(
      /may not exist|if the plan exists/,
    );
    const plan = within(screen.getByRole('region', { name: 'Plan' }));
    expect(plan.getByRole('link', { name: 'card-ref-1' })).toHaveAttribute(
      'href',
      '/cards?ref=card-ref-1',
    );
    const charges = within(screen.getByRole('table', { name: 'Charges' }));
    expect(charges.getByText('Approved')).toBeInTheDocument();
    await app.user.click(charges.getByRole('link', { name: 'Order 900041' }));
    expect(await screen.findByRole('heading', { name: 'Order 900041' })).toBeInTheDocument();
  });

  it('when a plan is opened on a phone (390 px), then each charge is one column (its order, status and when it was charged) with its amount beside it, nothing to scroll to; from 600 px the four columns return', async () => {
    screenWidth(390);
    renderApp(`/subscriptions/${PLAN.id}`, bffAs(['support']));
    const table = await screen.findByRole('table', { name: 'Charges' });
    // Order, amount, status and time side by side ran some 480 px wide: a 390 px screen scrolled
    // sideways to reach when the charge was made.
    expect(headersOf(table)).toEqual(['Charge', 'Amount']);
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cells).toHaveLength(2);
    const [charge, amount] = cells;
    const inCharge = within(charge!);
    expect(inCharge.getByRole('link', { name: 'Order 900041' })).toHaveAttribute(
      'href',
      `/transactions/${PLAN.charges[0]!.id}`,
    );
    expect(charge).toHaveTextContent('rp-41-1');
    expect(inCharge.getByText('Approved')).toBeInTheDocument();
    const charged = inCharge.getByText(/^Charged/);
    expect(charged.querySelector('time')).toHaveAttribute('datetime', PLAN.charges[0]!.createdAt);
    // A long client order id breaks inside the column instead of widening the table.
    expect(charge).toHaveStyle({ overflowWrap: 'anywhere' });
    expect(amount).toHaveTextContent(/^€1\.99$/);
    expect(amount).toHaveStyle({ whiteSpace: 'nowrap' });
    cleanup();

    screenWidth(600);
    renderApp(`/subscriptions/${PLAN.id}`, bffAs(['support']));
    expect(headersOf(await screen.findByRole('table', { name: 'Charges' }))).toEqual([
      'Order',
      'Amount',
      'Status',
      'Charged',
    ]);
  });

  it('when a running plan is opened, then beside its schedule a note says Paydesk cannot stop it and how it is stopped, with the id to give; a plan that charges no more has no such note', async () => {
    const waiting = makeSubscription(2, { state: 'unknown', recurringPaymentId: null });
    const done = makeSubscription(3, { state: 'completed' });
    const refused = makeSubscription(4, { state: 'refused', recurringPaymentId: null });
    renderApp(`/subscriptions/${PLAN.id}`, bffAs(['finance'], [PLAN, waiting, done, refused]));
    await screen.findByRole('heading', { name: 'Monthly plan 1' });
    const schedule = within(screen.getByRole('region', { name: 'Schedule' }));
    const note = schedule.getByRole('note');
    expect(note).toHaveTextContent(/^Stopping this plan/);
    expect(note).toHaveTextContent(
      'Paydesk cannot stop or pause a plan: the payment gateway does not offer a way to do it. To stop the charges, contact the gateway’s support or use its merchant portal, giving them the recurring payment id 3001.',
    );
    // Read when wanted: not announced as news when the page opens.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    cleanup();

    // No id at the gateway known yet (its reply was lost): the plan's own order id is given.
    renderApp(`/subscriptions/${waiting.id}`, bffAs(['finance'], [PLAN, waiting, done, refused]));
    await screen.findByRole('heading', { name: 'Monthly plan 2' });
    expect(
      within(screen.getByRole('region', { name: 'Schedule' })).getByRole('note'),
    ).toHaveTextContent(/giving them the client order id rp-2\.$/);
    cleanup();

    for (const plan of [done, refused]) {
      renderApp(`/subscriptions/${plan.id}`, bffAs(['finance'], [PLAN, waiting, done, refused]));
      await screen.findByRole('heading', { name: plan.orderDesc });
      expect(screen.queryByText('Stopping this plan')).not.toBeInTheDocument();
      cleanup();
    }
  });

  it('when a plan’s create got a 5xx or no answer in time, then its page says so in words with the gateway’s code, once, never the recorded form or a reason code', async () => {
    const answered = makeSubscription(5, {
      state: 'unknown',
      recurringPaymentId: null,
      charges: [],
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
    const slow = makeSubscription(6, {
      state: 'unknown',
      recurringPaymentId: null,
      charges: [],
      errorCode: null,
      errorMessage: 'no answer within 15 s',
      unanswered: { kind: 'timeout', waitedMs: 15_000 },
    });
    renderApp(`/subscriptions/${answered.id}`, bffAs(['support'], [answered, slow]));
    await screen.findByRole('heading', { name: 'Monthly plan 5' });
    const [note, ...others] = screen.getAllByRole('alert');
    expect(others).toEqual([]);
    expect(note).toHaveClass('MuiAlert-colorWarning');
    expect(note).toHaveTextContent(
      'The gateway answered with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation): the plan may exist. Paydesk does not send it again; its first charge names it.',
    );
    expect(document.body).not.toHaveTextContent(/gateway answered 500|server-error|reply was lost/);
    cleanup();

    renderApp(`/subscriptions/${slow.id}`, bffAs(['support'], [answered, slow]));
    await screen.findByRole('heading', { name: 'Monthly plan 6' });
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'The gateway did not answer within 15 s: the plan may exist. Paydesk does not send it again; its first charge names it.',
    ]);
    expect(document.body).not.toHaveTextContent(/timeout|reply was lost/);
    // The schedule is what was asked for, not a fact, while the plan may not exist (QA).
    const schedule = within(screen.getByRole('region', { name: 'Schedule' }));
    expect(schedule.getByText(/asked for; the plan may not exist/)).toBeInTheDocument();
    expect(schedule.getByText(/if the plan exists/)).toBeInTheDocument();
  });

  it('when a plan does not exist, then the detail says so', async () => {
    renderApp('/subscriptions/20000000-0000-4000-8000-000000000099', bffAs(['support']));
    expect(await screen.findByText('Subscription not found')).toBeInTheDocument();
  });

  it('when the address holds no subscription id at all, then the detail says it is not found', async () => {
    renderApp('/subscriptions/not-an-id', bffAs(['support']));
    expect(await screen.findByText('Subscription not found')).toBeInTheDocument();
  });

  it('when the detail is on its way, then a loading state is shown', async () => {
    renderApp(
      `/subscriptions/${PLAN.id}`,
      bffAs(['support']).on('GET /api/subscriptions/:id', () => 'hang'),
    );
    expect(await screen.findByText('Loading the subscription…')).toBeInTheDocument();
  });

  it('when the detail fails, then an error with a retry is shown', async () => {
    renderApp(
      `/subscriptions/${PLAN.id}`,
      bffAs(['support']).on('GET /api/subscriptions/:id', () => ({
        status: 503,
        body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'x', requestId: 'r' } },
      })),
    );
    expect(await screen.findByText('Could not load the subscription')).toBeInTheDocument();
  });

  it('when finance creates a plan, then the shared rules run, the confirmation states it with the amount as the app writes money, and the body is sent under a key', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/subscriptions?ref=card-ref-7', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    expect(dialog.getByLabelText(/Card reference id/)).toHaveValue('card-ref-7');
    await app.user.type(dialog.getByLabelText(/Customer e-mail/), 'not-an-email');
    await app.user.type(dialog.getByLabelText(/Charges at most/), 'many');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(dialog.getByText('Enter a valid e-mail address.')).toBeInTheDocument();
    expect(dialog.getByText('A whole number from 1 to 10000.')).toBeInTheDocument();
    expect(
      dialog.getByText('An amount above zero with at most 2 decimals, e.g. 9.99.'),
    ).toBeInTheDocument();
    await app.user.clear(dialog.getByLabelText(/Customer e-mail/));
    await app.user.clear(dialog.getByLabelText(/Charges at most/));
    await fillCreateForm(app);
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    expect(
      confirm.getByText(
        seenAs(
          'Charge €9.90 every 2 weeks to the card of reference card-ref-7, starting today (the first charge is made at once), 6 charges at most?',
        ),
      ),
    ).toBeInTheDocument();
    await app.user.click(confirm.getByRole('button', { name: /^Create: €9.90 every 2 weeks/ }));
    expect(await screen.findByRole('heading', { name: 'Fortnightly coffee' })).toBeInTheDocument();
    // Said by the SPA from the plan returned (amount localized), not the server's English.
    const [plan] = bff.subscriptions.subscriptions;
    expect(
      await screen.findByText(
        `Subscription ${plan!.recurringPaymentId ?? ''} created: €9.90 every 2 weeks. Paydesk learns each charge automatically from the gateway and lists it as a rebill order.`,
      ),
    ).toBeInTheDocument();
    expect(
      screen.queryByText('Subscription created; the gateway charges it on schedule.'),
    ).not.toBeInTheDocument();
    const [request] = bff.requestsTo('POST', '/api/subscriptions');
    expect(request!.body).toEqual({
      cardRefId: 'card-ref-7',
      amount: '9.90',
      currency: 'EUR',
      period: 'week',
      interval: 2,
      maxPayments: 6,
      orderDesc: 'Fortnightly coffee',
      email: 'ann@example.com',
    });
    expect(request!.headers.get(IDEMPOTENCY_KEY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    expect(app.location()).toMatch(/^\/subscriptions\/20000000-/);
  });

  it('when the dialog opens, then the keyboard is in the first field to fill: the card reference, or the amount when the reference came given', async () => {
    const bff = bffAs(['finance'], []);
    let app = renderApp('/subscriptions', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    let dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    expect(dialog.getByLabelText(/Card reference id/)).toHaveFocus();
    await app.user.keyboard('card-ref-9');
    expect(dialog.getByLabelText(/Card reference id/)).toHaveValue('card-ref-9');
    cleanup();

    // Opened from Cards: the reference is filled in, the amount is next.
    app = renderApp('/subscriptions?create=1&ref=card-ref-7', bff);
    dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    expect(dialog.getByLabelText(/Card reference id/)).toHaveValue('card-ref-7');
    await waitFor(() => {
      expect(dialog.getByLabelText(/Amount per charge/)).toHaveFocus();
    });
    await app.user.keyboard('9.9');
    expect(dialog.getByLabelText(/Amount per charge/)).toHaveValue('9.9');
  });

  it('when a plan is created, then its page opens with the keyboard focus on its heading, not on the page’s body', async () => {
    const app = renderApp('/subscriptions?ref=card-ref-7', bffAs(['finance'], []));
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    await fillCreateForm(app);
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create:/ }));
    const heading = await screen.findByRole('heading', { name: 'Fortnightly coffee' });
    await waitFor(() => {
      expect(heading).toHaveFocus();
    });
  });

  it('when a plan starting today is created, then its page says the first charge is being made (not “No charge yet”) and shows the charge once Paydesk has it, even when no event reaches the page', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/subscriptions?ref=card-ref-7', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    await fillCreateForm(app);
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create/ }));
    await screen.findByRole('heading', { name: 'Fortnightly coffee' });
    const charges = within(screen.getByRole('region', { name: 'Charges' }));
    expect(charges.getByText(/^First charge being made/)).toBeInTheDocument();
    expect(screen.queryByText(/No charge yet/)).not.toBeInTheDocument();
    // The gateway charged at once; its event went by before this page followed the events.
    const [plan] = bff.subscriptions.subscriptions;
    bff.subscriptions.subscriptions = [
      {
        ...plan!,
        schedule: { ...plan!.schedule, paymentsMade: 1 },
        charges: [makeCharge(335, { amount: '9.90', status: 'approved' })],
      },
    ];
    const table = within(await screen.findByRole('table', { name: 'Charges' }));
    expect(table.getByRole('link', { name: 'Order 900335' })).toBeInTheDocument();
    expect(screen.queryByText(/First charge being made/)).not.toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Schedule' })).getByText('1 of 6 charges'),
    ).toBeInTheDocument();
  });

  it('when a plan’s first charge was due long ago and Paydesk knows of none, then the page says so and not to create the plan again', async () => {
    const late = makeSubscription(5, {
      schedule: { ...makeSubscription(5).schedule, paymentsMade: 0 },
    });
    renderApp(`/subscriptions/${late.id}`, bffAs(['support'], [late]));
    expect(await screen.findByText(/The first charge was due/)).toHaveTextContent(
      /Do not create the plan again/,
    );
    expect(screen.queryByText(/No charge yet/)).not.toBeInTheDocument();
  });

  it('when a charge of a plan arrives (a rebill order’s event), then the plan and the list show it without a reload; other orders’ events do not refetch', async () => {
    const bff = bffAs(['support']);
    const charged = () => {
      bff.subscriptions.subscriptions = [
        {
          ...PLAN,
          schedule: { ...PLAN.schedule, paymentsMade: 2 },
          charges: [makeCharge(42, { amount: '1.99', status: 'approved' }), ...PLAN.charges],
        },
      ];
    };
    const event = (transactionType: 'sale' | 'rebill') => ({
      type: 'transaction.created' as const,
      transactionId: '00000000-0000-4000-8000-000000000042',
      orderid: '900042',
      status: 'approved' as const,
      drift: false,
      at: '2026-11-20T10:00:00.000Z',
      transactionType,
    });
    const list = renderApp('/subscriptions', bff);
    const row = within(await screen.findByRole('table', { name: 'Subscriptions' })).getAllByRole(
      'row',
    )[1]!;
    expect(row).toHaveTextContent('1 of 12 charges');
    await waitFor(() => {
      expect(screen.getByRole('status')).toHaveTextContent('Live');
    });
    charged();
    const reads = () => bff.requestsTo('GET', '/api/subscriptions').length;
    const before = reads();
    bff.payments.publish(event('sale'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads()).toBe(before);
    bff.payments.publish(event('rebill'));
    await waitFor(() => {
      expect(
        within(screen.getByRole('table', { name: 'Subscriptions' })).getAllByRole('row')[1],
      ).toHaveTextContent('2 of 12 charges');
    });
    list.unmount();

    bff.subscriptions.subscriptions = [PLAN];
    renderApp(`/subscriptions/${PLAN.id}`, bff);
    const charges = await screen.findByRole('table', { name: 'Charges' });
    expect(within(charges).getAllByRole('row')).toHaveLength(2);
    await waitFor(() => {
      expect(screen.getByRole('status')).toHaveTextContent('Live');
    });
    charged();
    bff.payments.publish(event('rebill'));
    expect(await within(charges).findByRole('link', { name: 'Order 900042' })).toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Schedule' })).getByText('2 of 12 charges'),
    ).toBeInTheDocument();
  });

  it('when the start date is in the past, then the form refuses it with the BFF’s rule (today, UTC, or later), today dated as the UI dates, before any confirmation', async () => {
    // Late on the 27th in UTC: the rule goes by the UTC calendar whatever the browser's zone.
    clockAt('2026-11-27T23:30:00.000Z');
    const bff = bffAs(['finance'], []);
    const { app, dialog } = await openCreateDialog(bff);
    const start = dialog.getByLabelText(/Start date/);
    await app.user.type(start, '2020-01-01');
    expect(start).toHaveValue('2020-01-01');
    await fillCreateForm(app);
    // Not the ISO form (2026-11-27): dates are said as the rest of the UI says them.
    const rule = 'A real date, from today (Nov 27, 2026, UTC) to a year ahead (Nov 27, 2027).';
    expect(await dialog.findByText(rule)).toBeInTheDocument();
    expect(start).toHaveAccessibleDescription(rule);
    expect(start).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByRole('dialog', { name: 'Confirm the subscription' })).toBeNull();
    // Every other field's rule is said in the same pass.
    await app.user.clear(dialog.getByLabelText(/Customer e-mail/));
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(await dialog.findByText('Enter a valid e-mail address.')).toBeInTheDocument();
    expect(dialog.getByText(rule)).toBeInTheDocument();
    await app.user.clear(start);
    await app.user.type(dialog.getByLabelText(/Customer e-mail/), 'ann@example.com');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByRole('dialog', { name: 'Confirm the subscription' }),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/subscriptions')).toHaveLength(0);
  });

  it('when the start date is more than a year ahead, then the form refuses it before any confirmation; a year ahead to the day is taken', async () => {
    clockAt('2026-11-27T23:30:00.000Z');
    const bff = bffAs(['finance'], []);
    const { app, dialog } = await openCreateDialog(bff);
    const start = dialog.getByLabelText(/Start date/);
    await app.user.type(start, '2099-11-27');
    await fillCreateForm(app);
    const rule = 'A real date, from today (Nov 27, 2026, UTC) to a year ahead (Nov 27, 2027).';
    expect(await dialog.findByText(rule)).toBeInTheDocument();
    expect(start).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByRole('dialog', { name: 'Confirm the subscription' })).toBeNull();
    await app.user.clear(start);
    await app.user.type(start, '2027-11-27');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByRole('dialog', { name: 'Confirm the subscription' }),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/subscriptions')).toHaveLength(0);
  });

  it('when the amount is above the largest the API takes, then the other fields’ rules (past start date, e-mail, empty description) are said in the same pass', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/subscriptions?ref=card-ref-7', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    await app.user.type(dialog.getByLabelText(/Start date/), '2020-01-01');
    await app.user.type(dialog.getByLabelText(/Amount per charge/), '99999999999999999');
    await app.user.type(dialog.getByLabelText(/Customer e-mail/), 'ann@example');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(await dialog.findByText('At most 9999999999999.99.')).toBeInTheDocument();
    expect(
      dialog.getByText(/^A real date, from today \(.+, UTC\) to a year ahead \(.+\)\.$/),
    ).toBeInTheDocument();
    expect(dialog.getByText('Enter a valid e-mail address.')).toBeInTheDocument();
    expect(dialog.getByLabelText(/Description/)).toHaveAttribute('aria-invalid', 'true');
    expect(bff.requestsTo('POST', '/api/subscriptions')).toHaveLength(0);
  });

  it('when a later start date is chosen, then the confirmation says it as the UI says dates, not in ISO form', async () => {
    clockAt('2026-11-27T10:00:00.000Z');
    const { app, dialog } = await openCreateDialog();
    await app.user.type(dialog.getByLabelText(/Start date/), '2026-12-01');
    await fillCreateForm(app);
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    expect(
      confirm.getByText(
        seenAs(
          'Charge €9.90 every 2 weeks to the card of reference card-ref-7, starting Dec 1, 2026, 6 charges at most?',
        ),
      ),
    ).toBeInTheDocument();
    expect(confirm.queryByText(/2026-12-01/)).toBeNull();
  });

  it('when the dialog opens, then the charge limit has a short label that shows whole, says it is optional beneath, and shares a row of its own with the start date (one above the other on a phone)', async () => {
    const { dialog } = await openCreateDialog();
    const limit = dialog.getByLabelText(/Charges at most/);
    // 'Charges at most (optional)' was cut off in the money grid's narrow third.
    expect(limit).toHaveAccessibleName('Charges at most');
    expect(limit).toHaveAccessibleDescription('Optional. Empty: no end.');
    const row = dialog.getByRole('group', { name: 'Start and end' });
    expect(row).toContainElement(limit);
    expect(row).toContainElement(dialog.getByLabelText(/Start date/));
    expect(row).toHaveStyle({ gridTemplateColumns: '1fr 1fr' });
    cleanup();

    screenWidth(390);
    const phone = await openCreateDialog();
    expect(phone.dialog.getByRole('group', { name: 'Start and end' })).toHaveStyle({
      gridTemplateColumns: '1fr',
    });
    expect(phone.dialog.getByLabelText(/Charges at most/)).toHaveAccessibleName('Charges at most');
  });

  it('when the merchant RSA key is not configured, then the dialog says so clearly, naming MERCHANT_RSA_KEY_FILE', async () => {
    const bff = bffAs(['finance'], []);
    bff.subscriptions.rsaKeyConfigured = false;
    const app = renderApp('/subscriptions?ref=card-ref-7', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    await fillCreateForm(app);
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create/ }));
    expect(
      await confirm.findByText('Subscriptions are not set up on this Paydesk'),
    ).toBeInTheDocument();
    expect(confirm.getAllByText(/MERCHANT_RSA_KEY_FILE/).length).toBeGreaterThan(0);
    expect(bff.subscriptions.subscriptions).toHaveLength(0);
  });

  it('when the server names a field, then the form comes back with the message next to it', async () => {
    const bff = bffAs(['finance'], []).on('POST /api/subscriptions', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'invalid',
          requestId: 'r',
          details: {
            fields: [{ path: 'startDate', rule: 'custom', message: 'must not be in the past' }],
          },
        },
      },
    }));
    const app = renderApp('/subscriptions?ref=card-ref-7', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New subscription' }));
    await fillCreateForm(app);
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create/ }));
    const form = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    expect(await form.findByText('This must not be in the past.')).toBeInTheDocument();
  });
});
