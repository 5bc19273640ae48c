import { screen, waitFor, within } from '@testing-library/react';
import {
  PAYMENT_LINK_NOT_CREATED,
  PAYMENT_LINK_PAGE_LOST,
  type PaymentLinkDetail,
} from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeLink, makeUser } from '../../../test/fake-bff';
import { sendWithReason } from '../../../test/decision-dialog';
import { heldPayoutForm } from '../../../test/fake-links';
import { renderApp } from '../../../test/render-app';

const SENT = '30000000-0000-4000-8000-000000000001';
const HELD = '30000000-0000-4000-8000-000000000002';
const LOST = '30000000-0000-4000-8000-000000000003';
/** when link 1's order last changed: later than the link itself (makeLink(1): 09:01) */
const ORDER_CHANGED = '2026-11-20T11:30:00.000Z';

// Finance created sale-form 1 (sent); Otto (ops) created payout-form 2; link 3's reply was lost.
function bffAs(roles: Parameters<typeof makeUser>[0]['roles']) {
  const bff = new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga', roles }),
      makeUser({ email: 'otto@example.com', name: 'Otto', roles: ['ops'] }),
    ],
    links: [
      makeLink(1),
      heldPayoutForm(2),
      makeLink(3, {
        state: 'unknown',
        orderid: null,
        redirectUrl: null,
        errorCode: 'INTERRUPTED',
        errorMessage: 'the instance sending it stopped before recording the reply',
      }),
    ],
  });
  bff.links.orders.set(SENT, {
    transactionId: '00000000-0000-4000-8000-000000000009',
    orderid: '800001',
    status: 'approved',
    stage: 'captured',
    updatedAt: ORDER_CHANGED,
  });
  return bff;
}

/** The instant the page's "Last change" says (none when it says "—"). */
function lastChange(): string | null {
  const order = screen.getByRole('region', { name: 'Gateway order' });
  const value = within(order).getByText('Last change').nextElementSibling;
  return value?.querySelector('time')?.getAttribute('datetime') ?? null;
}

describe('payment link detail', () => {
  it('when a reader opens a paid link from the list, then its page shows the gateway order (with its own last change) and its history, and no address to copy (the page was used)', async () => {
    const app = renderApp('/payment-links', bffAs(['support']));
    await app.user.click(await screen.findByRole('link', { name: 'Invoice 1' }));
    await waitFor(() => {
      expect(app.location()).toBe(`/payment-links/${SENT}`);
    });
    expect(
      await screen.findByRole('heading', { name: 'Sale form link of €21.00' }),
    ).toBeInTheDocument();
    // the customer paid: the state says so, not that the link is still to share
    expect(screen.getByText('Paid')).toBeInTheDocument();
    expect(screen.queryByText('Ready to share')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
    expect(screen.getByText(/The page cannot be used again\./)).toBeInTheDocument();
    expect(screen.getByText('payer1@example.com')).toBeInTheDocument();
    // the last change: its order's (a callback), later than the link's own
    const order = screen.getByRole('region', { name: 'Gateway order' });
    expect(order.querySelector(`time[datetime="${ORDER_CHANGED}"]`)).not.toBeNull();
    expect(order.querySelector(`time[datetime="${makeLink(1).updatedAt}"]`)).toBeNull();
    // the customer paid: the order's callback told Paydesk
    expect(screen.getByText('800001')).toBeInTheDocument();
    expect(screen.getByText('Approved')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'its order’s page' })).toHaveAttribute(
      'href',
      '/transactions/00000000-0000-4000-8000-000000000009',
    );
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(within(timeline).getByText('Sale form link created')).toBeInTheDocument();
    expect(
      within(timeline).getByText('Sale form sent to the gateway; its page is ready'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });

  it('when a link is a payout form, then its page names the payee, not a customer; a sale form keeps the customer', async () => {
    const view = renderApp(`/payment-links/${HELD}`, bffAs(['ops']));
    expect(await screen.findByText('Payee e-mail')).toBeInTheDocument();
    expect(screen.queryByText('Customer e-mail')).toBeNull();
    view.unmount();
    renderApp(`/payment-links/${SENT}`, bffAs(['finance']));
    expect(await screen.findByText('Customer e-mail')).toBeInTheDocument();
    expect(screen.queryByText('Payee e-mail')).toBeNull();
  });

  it('when a card form’s page is opened, then a panel named for it says who created it and when, and the customer entered at creation (name, phone as kept, address) shows beside the e-mail', async () => {
    const bff = bffAs(['finance']);
    bff.on('GET /api/payment-links/:id', (request) => {
      const reply = bff.links.handle(request, bff.users[0]);
      const body = reply?.body as PaymentLinkDetail;
      // As the BFF keeps it: the request sent to the gateway, redacted (the phone to its last four).
      return {
        status: 200,
        body: {
          ...body,
          events: body.events.map((event) =>
            event.kind === 'gateway' && event.title.includes('sent to the gateway')
              ? {
                  ...event,
                  data: {
                    ...event.data,
                    request: {
                      client_orderid: 'pl-1',
                      email: 'payer1@example.com',
                      first_name: 'Jane',
                      last_name: 'Doe',
                      phone: '*********4567',
                      address1: '1 Main St',
                      city: 'Berlin',
                      zip_code: '10115',
                      country: 'DE',
                    },
                  },
                }
              : event,
          ),
        },
      };
    });
    renderApp(`/payment-links/${SENT}`, bff);
    const creation = within(await screen.findByRole('region', { name: 'Creation' }));
    expect(creation.getByText('Created by')).toBeInTheDocument();
    expect(creation.getByText('Created at')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Created' })).not.toBeInTheDocument();
    const facts = within(screen.getByRole('region', { name: 'Link' }));
    expect(facts.getByText('Customer name').nextElementSibling).toHaveTextContent('Jane Doe');
    expect(facts.getByText('Customer phone').nextElementSibling).toHaveTextContent('*********4567');
    expect(facts.getByText('Customer address').nextElementSibling).toHaveTextContent(
      '1 Main St, 10115 Berlin, DE',
    );
  });

  it('when the API gives no request with the customer (a payout form, or nothing sent yet), then no customer rows are invented', async () => {
    renderApp(`/payment-links/${HELD}`, bffAs(['ops']));
    expect(await screen.findByText('Payee e-mail')).toBeInTheDocument();
    expect(screen.queryByText('Customer name')).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Four eyes' })).toBeInTheDocument();
  });

  it('when the customer pays while the link is open, then its order status shows without a reload', async () => {
    const bff = bffAs(['finance']);
    bff.links.orders.delete(SENT);
    renderApp(`/payment-links/${SENT}`, bff);
    expect(
      await screen.findByText('not yet: the customer has not finished the form'),
    ).toBeInTheDocument();
    expect(screen.getByText('Ready to share')).toBeInTheDocument();
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'captured',
    });
    // another order's callback changes nothing here ...
    bff.payments.publish({
      type: 'transaction.created',
      transactionId: '00000000-0000-4000-8000-000000000008',
      orderid: '700008',
      status: 'approved',
      drift: false,
      at: '2026-11-20T10:00:00.000Z',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.getByText('not yet: the customer has not finished the form')).toBeInTheDocument();
    // ... this order's does
    bff.payments.publish({
      type: 'transaction.created',
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      drift: false,
      at: '2026-11-20T10:00:00.000Z',
    });
    expect(await screen.findByText('Approved')).toBeInTheDocument();
    expect(screen.getByText('Paid')).toBeInTheDocument();
    expect(
      screen.getByText(
        'The customer used the page: its order is approved, captured. The page cannot be used again.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'its order’s page' })).toBeInTheDocument();
  });

  it('when another ops user opens a held payout-form, then they may approve it there and its page address appears', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp(`/payment-links/${HELD}`, bff);
    expect(
      await screen.findByRole('heading', { name: 'Payout form link of €75.00' }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Waits for an ops user other than otto@example.com/),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
    // where the payee is sent after the form, shown before anyone approves it
    const link = screen.getByRole('region', { name: 'Link' });
    expect(within(link).getByText('Return address')).toBeInTheDocument();
    expect(within(link).getByText('https://shop.example/payees/2/done')).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: /^Approve / }));
    const dialog = await screen.findByRole('dialog');
    await app.user.click(within(dialog).getByRole('button', { name: /^Approve/ }));
    const done = within(await screen.findByRole('dialog', { name: 'Payout form ready' }));
    expect(done.getByLabelText('Payee page address')).toHaveValue(
      'https://gateway.example/paynet/form/ppl-2',
    );
    // already on the link's page: no way "to" it
    expect(done.queryByRole('link', { name: 'Open the link’s page' })).not.toBeInTheDocument();
    await app.user.click(done.getByRole('button', { name: 'Done' }));
    expect(await screen.findByLabelText('Page address')).toHaveValue(
      'https://gateway.example/paynet/form/ppl-2',
    );
    // The whole address, over the lines it needs: one line cut a long address off.
    expect(screen.getByLabelText('Page address').tagName).toBe('TEXTAREA');
    expect(screen.getByLabelText('Page address')).toHaveStyle({ overflowWrap: 'anywhere' });
    expect(screen.getByRole('button', { name: 'Copy Page address' })).toBeInTheDocument();
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(within(timeline).getByText('Payout form link approved')).toBeInTheDocument();
    expect(screen.getByText('Approved by')).toBeInTheDocument();
    // when it was decided, as a payout's page says it
    const fourEyes = screen.getByRole('region', { name: 'Four eyes' });
    expect(within(fourEyes).getByText('Decided')).toBeInTheDocument();
    const decidedAt = bff.links.links.find((l) => l.id === HELD)?.decidedAt ?? '';
    expect(decidedAt).not.toBe('');
    expect(fourEyes.querySelector(`time[datetime="${decidedAt}"]`)).not.toBeNull();
  });

  it('when a preauthorization-form link’s hold was captured afterwards, then the link says Captured, not Authorized', async () => {
    const bff = bffAs(['finance']);
    bff.links.links = bff.links.links.map((l) =>
      l.id === SENT ? { ...l, kind: 'preauth-form' as const } : l,
    );
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'authorized',
      updatedAt: ORDER_CHANGED,
    });
    const view = renderApp(`/payment-links/${SENT}`, bff);
    expect(await screen.findByText('Authorized')).toBeInTheDocument();
    view.unmount();
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'captured',
      updatedAt: ORDER_CHANGED,
    });
    renderApp(`/payment-links/${SENT}`, bff);
    expect(await screen.findByText('Captured')).toBeInTheDocument();
    expect(screen.queryByText('Authorized')).not.toBeInTheDocument();
  });

  it('when a preauthorization-form link’s hold was captured only in part, then the link says Partly captured, as its order does, in its chip and in words', async () => {
    const bff = bffAs(['finance']);
    bff.links.links = bff.links.links.map((l) =>
      l.id === SENT ? { ...l, kind: 'preauth-form' as const } : l,
    );
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'captured',
      updatedAt: ORDER_CHANGED,
      money: { currency: 'EUR', authorized: '100.00', captured: '60.00', returned: '0.00' },
    });
    renderApp(`/payment-links/${SENT}`, bff);
    // QA: the link said "Captured" for €60.00 of a €100.00 hold; its order, "Partly captured".
    expect(
      await screen.findByText('Partly captured', { selector: '.MuiChip-label' }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Captured', { selector: '.MuiChip-label' })).toBeNull();
    expect(
      screen.getByText(
        'The customer used the page: its order is approved, partly captured. The page cannot be used again.',
      ),
    ).toBeInTheDocument();
    const order = within(screen.getByRole('region', { name: 'Gateway order' }));
    expect(order.getByText('partly captured')).toBeInTheDocument();
  });

  it('when a link’s order was partly captured and returned, then its page says how much was authorized, captured and returned', async () => {
    const bff = bffAs(['finance']);
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'captured',
      updatedAt: ORDER_CHANGED,
      money: { currency: 'EUR', authorized: '23.45', captured: '10.05', returned: '2.50' },
    });
    renderApp(`/payment-links/${SENT}`, bff);
    const order = await screen.findByRole('region', { name: 'Gateway order' });
    expect(order).toHaveTextContent('Money€23.45 authorized · €10.05 captured · €2.50 returned');
  });

  it('when a link’s order was declined, then the page says so once (not “declined (declined)”) and offers no address to copy', async () => {
    const bff = bffAs(['finance']);
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'declined',
      stage: 'declined',
      updatedAt: ORDER_CHANGED,
    });
    renderApp(`/payment-links/${SENT}`, bff);
    expect(
      await screen.findByText(
        'The customer used the page: its order is declined. The page cannot be used again.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
  });

  it('when a payee used a payout-form’s page, then the link says where the money went (the masked card, as the order has it) and its timeline goes on past the page being ready', async () => {
    const PAID_OUT = '30000000-0000-4000-8000-000000000004';
    const bff = bffAs(['support']);
    bff.links.links = [...bff.links.links, heldPayoutForm(4)].map((l) =>
      l.id === PAID_OUT
        ? {
            ...l,
            state: 'sent' as const,
            orderid: '800004',
            redirectUrl: null,
            decidedBy: { id: 'u-ines', email: 'ines@example.com' },
          }
        : l,
    );
    bff.links.orders.set(PAID_OUT, {
      transactionId: '00000000-0000-4000-8000-000000000004',
      orderid: '800004',
      status: 'approved',
      stage: 'paid',
      updatedAt: ORDER_CHANGED,
      money: {
        currency: 'EUR',
        authorized: '0.00',
        captured: '0.00',
        returned: '0.00',
        paidOut: '3.99',
      },
      card: { bin: '411111', lastFour: '1111', brand: 'VISA', masked: '411111******1111' },
    });
    renderApp(`/payment-links/${PAID_OUT}`, bff);
    expect(
      await screen.findByText(
        'The payee used the page: its order is approved, paid out. The money went to the card 411111******1111. The page cannot be used again.',
      ),
    ).toBeInTheDocument();
    const order = within(screen.getByRole('region', { name: 'Gateway order' }));
    // No money came in: what went out, not "€0.00 authorized · €0.00 captured" (QA).
    expect(screen.getByRole('region', { name: 'Gateway order' })).toHaveTextContent(
      'Money€3.99 paid out',
    );
    expect(order.queryByText(/authorized/)).toBeNull();
    expect(order.getByText('Destination')).toBeInTheDocument();
    expect(order.getByText('411111******1111')).toBeInTheDocument();
    expect(order.getByText(/VISA/)).toBeInTheDocument();
    const timeline = within(screen.getByRole('list', { name: 'Timeline' }));
    expect(
      timeline.getByText(
        'The payee used the page: order 800004 approved, paid out to 411111******1111 (learned by callback)',
      ),
    ).toBeInTheDocument();
  });

  it('when a reader who neither created nor approved a sent payout-form opens it, then no page address shows and the page says who sends it to the payee; its approver sees the address', async () => {
    const PAID_OUT = '30000000-0000-4000-8000-000000000004';
    const sentPayoutForm = (bff: FakeBff, approver: { id: string; email: string }) => {
      bff.links.links = [...bff.links.links, heldPayoutForm(4)].map((l) =>
        l.id === PAID_OUT
          ? {
              ...l,
              state: 'sent' as const,
              orderid: '800004',
              redirectUrl: 'https://gateway.example/paynet/form/p4',
              decidedBy: approver,
            }
          : l,
      );
      return bff;
    };
    for (const roles of [['support'], ['auditor', 'support'], ['ops']] as const) {
      const view = renderApp(
        `/payment-links/${PAID_OUT}`,
        sentPayoutForm(bffAs([...roles]), { id: 'u-ines', email: 'ines@example.com' }),
      );
      expect(
        await screen.findByText(
          /only otto@example\.com \(who created it\) and ines@example\.com \(who approved it\) see it and send it to the payee/,
        ),
      ).toBeInTheDocument();
      expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
      expect(screen.queryByText(/gateway\.example\/paynet\/form\/p4/)).not.toBeInTheDocument();
      view.unmount();
    }
    renderApp(
      `/payment-links/${PAID_OUT}`,
      sentPayoutForm(bffAs(['ops']), { id: 'u-olga', email: 'olga@example.com' }),
    );
    expect(await screen.findByLabelText('Page address')).toHaveValue(
      'https://gateway.example/paynet/form/p4',
    );
    expect(screen.getByText(/Send the page address to the payee/)).toBeInTheDocument();
  });

  it('when a link’s reply was lost, then the page says the address is not known and what to do, and shows its order once learned', async () => {
    const bff = bffAs(['finance']);
    // its order, found by the link's client_orderid once a callback told Paydesk of it
    bff.links.orders.set(LOST, {
      transactionId: '00000000-0000-4000-8000-000000000003',
      orderid: '800003',
      status: 'processing',
      stage: null,
    });
    renderApp(`/payment-links/${LOST}`, bff);
    expect(await screen.findByText('Unknown outcome')).toBeInTheDocument();
    expect(screen.getByText('800003')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'its order’s page' })).toHaveAttribute(
      'href',
      '/transactions/00000000-0000-4000-8000-000000000003',
    );
    expect(
      screen.getByText(
        /page address is not known\. It is never sent again: Paydesk asks the gateway’s status by itself/,
      ),
    ).toBeInTheDocument();
    // What happened, in words; Paydesk's own code does not lead them (F3).
    expect(
      screen.getByText(
        /^The instance sending it stopped before recording the reply\. The order may exist/,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/INTERRUPTED/)).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
  });

  it.each([
    [
      { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
      'The gateway answered 500',
    ],
    [{ kind: 'timeout', waitedMs: 15_000 }, 'No answer came from the gateway within 15 s'],
    [{ kind: 'connection-closed' }, 'No answer came from the gateway'],
  ] as const)(
    'when a link’s create went unlearned (%j), then its page says how in the words an order’s operations use, not its recorded words or code',
    async (unanswered, words) => {
      const bff = new FakeBff({
        signedInAs: 'olga@example.com',
        users: [makeUser({ email: 'olga@example.com', name: 'Olga', roles: ['support'] })],
        links: [
          makeLink(3, {
            state: 'unknown',
            orderid: null,
            redirectUrl: null,
            // as links recorded it before 0026: the client's reason, never read
            errorCode: 'CONNECTION-LOST',
            errorMessage: 'the reply was lost (connection-lost)',
            unanswered,
          }),
        ],
      });
      renderApp(`/payment-links/${LOST}`, bff);
      const note = await screen.findByText(/The order may exist, but its page address/);
      expect(note.textContent.startsWith(`${words}. The order may exist`)).toBe(true);
      expect(document.body.textContent).not.toMatch(
        /connection-lost|CONNECTION-LOST|reply was lost/,
      );
    },
  );

  it('when a payout form’s reply was lost, then the page speaks of the payee, not a customer, once it is known how it ended', async () => {
    const bff = new FakeBff({
      signedInAs: 'otto@example.com',
      users: [makeUser({ email: 'otto@example.com', name: 'Otto', roles: ['ops'] })],
      links: [
        makeLink(3, {
          kind: 'payout-form',
          state: 'unknown',
          orderid: null,
          redirectUrl: null,
          errorCode: 'INTERRUPTED',
          errorMessage: 'the instance sending it stopped before recording the reply',
        }),
      ],
    });
    bff.links.settles.set(LOST, {
      state: 'failed',
      errorCode: PAYMENT_LINK_NOT_CREATED,
      errorMessage:
        'The link was not created: Paydesk did not learn the outcome of its payout form (the reply was lost), and 75 seconds after it was sent the gateway still does not show its order (pd-link-3). Nothing was sent again and nobody can pay on it; create the link again if the payee still needs one.',
    });
    const app = renderApp(`/payment-links/${LOST}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Check payment status' }));
    expect(await screen.findByText('Not created')).toBeInTheDocument();
    expect(
      screen.getAllByText(/create the link again if the payee still needs one/).length,
    ).toBeGreaterThan(0);
    expect(document.body.textContent).not.toMatch(/customer/);
  });

  it('when a link’s outcome is unknown, then a reader may check its payment status: an order the gateway has makes it sent with its orderid, and its page says the page address was lost and the link must be made again (QA)', async () => {
    const bff = bffAs(['support']);
    const message =
      "The gateway shows order 800003 (processing, its page not used): the sale form was created, but its page address was lost with the gateway's reply (the reply was lost), so nobody can be sent to it. Create the link again for the customer; this one was not sent again.";
    bff.links.settles.set(LOST, {
      state: 'sent',
      orderid: '800003',
      errorCode: PAYMENT_LINK_PAGE_LOST,
      errorMessage: message,
    });
    const app = renderApp(`/payment-links/${LOST}`, bff);
    expect(await screen.findByText('Unknown outcome')).toBeInTheDocument();
    await app.user.click(await screen.findByRole('button', { name: 'Check payment status' }));
    expect(bff.links.refreshed).toEqual([LOST]);
    expect(await screen.findByText('Page address lost')).toBeInTheDocument();
    // said in the state's note (and once more as the check's answer)
    expect(screen.getAllByText(message).length).toBeGreaterThan(0);
    expect(screen.getByText('800003')).toBeInTheDocument();
    expect(screen.queryByText('Ready to share')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Page address')).not.toBeInTheDocument();
  });

  it('when an unknown link’s order is not known to the gateway yet, then checking says so and the link stays unknown with the check still offered', async () => {
    const bff = bffAs(['finance']);
    const app = renderApp(`/payment-links/${LOST}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Check payment status' }));
    expect(
      await screen.findByText(/The gateway does not show the link's order yet/),
    ).toBeInTheDocument();
    expect(screen.getByText('Unknown outcome')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Check payment status' })).toBeInTheDocument();
  });

  it('when an account verification link’s order is known, then its page shows no money line: such a link has no amount nor currency (QA)', async () => {
    const bff = new FakeBff({
      signedInAs: 'olga@example.com',
      users: [makeUser({ email: 'olga@example.com', name: 'Olga', roles: ['finance'] })],
      links: [makeLink(1, { kind: 'account-verification-form', amount: null, currency: null })],
    });
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'verified',
      updatedAt: ORDER_CHANGED,
      money: { currency: 'EUR', authorized: '0.00', captured: '0.00', returned: '0.00' },
    });
    renderApp(`/payment-links/${SENT}`, bff);
    expect(await screen.findByText('Verified')).toBeInTheDocument();
    const order = screen.getByRole('region', { name: 'Gateway order' });
    expect(within(order).queryByText('Money')).not.toBeInTheDocument();
    expect(document.body.textContent).not.toMatch(/€0\.00/);
  });

  it('when a sent link has no order yet, then a reader may check its payment status: an order the gateway shows appears at once and the button goes', async () => {
    const bff = bffAs(['support']);
    bff.links.orders.delete(SENT);
    // the customer paid, but the callback was lost
    bff.links.atGateway.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: 'captured',
    });
    const app = renderApp(`/payment-links/${SENT}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Check payment status' }));
    expect(
      await screen.findByText(
        'The gateway shows order 800001: approved, captured. It is now among the transactions.',
      ),
    ).toBeInTheDocument();
    expect(bff.links.refreshed).toEqual([SENT]);
    expect(await screen.findByText('Approved')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'its order’s page' })).toHaveAttribute(
      'href',
      '/transactions/00000000-0000-4000-8000-000000000009',
    );
    // final now: nothing more to learn
    await waitFor(() => {
      expect(
        screen.queryByRole('button', { name: 'Check payment status' }),
      ).not.toBeInTheDocument();
    });
  });

  it('when the page was not used, then checking says the customer has not paid yet and the link stays waiting', async () => {
    const bff = bffAs(['support']);
    bff.links.orders.delete(SENT);
    const app = renderApp(`/payment-links/${SENT}`, bff);
    await app.user.click(await screen.findByRole('button', { name: 'Check payment status' }));
    expect(await screen.findByText(/The customer has not paid yet/)).toBeInTheDocument();
    expect(screen.getByText('not yet: the customer has not finished the form')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Check payment status' })).toBeInTheDocument();
  });

  it('when the viewer is an auditor (read only), then no status check is offered', async () => {
    const bff = bffAs(['auditor']);
    bff.links.orders.delete(SENT);
    renderApp(`/payment-links/${SENT}`, bff);
    expect(await screen.findByText('Timeline')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Check payment status' })).not.toBeInTheDocument();
  });

  it('when a link’s order is final, or the link is neither sent nor unknown, then no status check is offered', async () => {
    // a paid link (its order final), a held payout-form
    for (const id of [SENT, HELD]) {
      const view = renderApp(`/payment-links/${id}`, bffAs(['finance', 'ops']));
      expect(await screen.findByText('Timeline')).toBeInTheDocument();
      expect(
        screen.queryByRole('button', { name: 'Check payment status' }),
      ).not.toBeInTheDocument();
      view.unmount();
    }
    // an order still processing: worth asking
    const bff = bffAs(['finance']);
    bff.links.orders.set(SENT, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'processing',
      stage: null,
    });
    renderApp(`/payment-links/${SENT}`, bff);
    expect(await screen.findByRole('button', { name: 'Check payment status' })).toBeInTheDocument();
  });

  it('when a payout-form link is held, then its page says when it lapses; once it lapsed, that it expired and nothing was sent', async () => {
    const lapses = heldPayoutForm(2).expiresAt ?? '';
    expect(lapses).not.toBe('');
    const view = renderApp(`/payment-links/${HELD}`, bffAs(['ops']));
    const panel = await screen.findByRole('region', { name: 'Four eyes' });
    expect(within(panel).getByText('Lapses at')).toBeInTheDocument();
    expect(panel.querySelector(`time[datetime="${lapses}"]`)).not.toBeNull();
    const notes = () => screen.getAllByRole('alert').map((a) => a.textContent);
    expect(notes()).toContainEqual(expect.stringMatching(/Not approved by .+, it lapses\./));
    view.unmount();

    const bff = bffAs(['ops']);
    bff.links.links = bff.links.links.map((l) =>
      l.id === HELD ? { ...l, state: 'expired' as const } : l,
    );
    renderApp(`/payment-links/${HELD}`, bff);
    const after = await screen.findByRole('region', { name: 'Four eyes' });
    expect(within(after).getByText('Lapsed at')).toBeInTheDocument();
    expect(notes()).toContainEqual(
      expect.stringMatching(/^It lapsed .+ before anyone approved it; nothing was sent/),
    );
    expect(screen.getByText('Expired')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve/ })).not.toBeInTheDocument();
  });

  it('when its creator withdraws a held payout-form from its page, then the page says it was withdrawn by its creator (state, note, four-eyes panel, timeline), not rejected', async () => {
    const bff = bffAs(['ops']);
    const OWN = makeLink(4, {
      ...heldPayoutForm(4),
      createdBy: { id: 'u-olga', email: 'olga@example.com' },
    });
    bff.links.links = [...bff.links.links, OWN];
    const app = renderApp(`/payment-links/${OWN.id}`, bff);
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
    await app.user.click(await screen.findByRole('button', { name: /^Withdraw / }));
    const dialog = await screen.findByRole('dialog', { name: 'Withdraw your payout form' });
    await sendWithReason(app.user, dialog, 'Withdraw', 'typed it twice');
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(
      await within(timeline).findByText('Payout form link withdrawn by its creator'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        'Withdrawn by its creator olga@example.com: typed it twice. Nothing was sent.',
      ),
    ).toBeInTheDocument();
    const panel = screen.getByRole('region', { name: 'Four eyes' });
    expect(within(panel).getByText('Withdrawn by')).toBeInTheDocument();
    expect(within(panel).queryByText('Rejected by')).toBeNull();
    expect(screen.getByText('Withdrawn')).toBeInTheDocument();
    expect(screen.queryByText(/Rejected/)).toBeNull();
  });

  it('when another ops user rejects a held payout-form from its page, then the page says rejected, not withdrawn', async () => {
    const app = renderApp(`/payment-links/${HELD}`, bffAs(['ops']));
    await app.user.click(await screen.findByRole('button', { name: /^Reject / }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject the payout form' });
    await sendWithReason(app.user, dialog, 'Reject', 'not due');
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    expect(await within(timeline).findByText('Payout form link rejected')).toBeInTheDocument();
    expect(
      screen.getByText('Rejected by olga@example.com: not due. Nothing was sent.'),
    ).toBeInTheDocument();
    const panel = screen.getByRole('region', { name: 'Four eyes' });
    expect(within(panel).getByText('Rejected by')).toBeInTheDocument();
    expect(screen.getByText('Rejected')).toBeInTheDocument();
    expect(screen.queryByText(/Withdrawn/)).toBeNull();
  });

  it('when a held payout-form is withdrawn or approved on its page, then its Last change says when, as its timeline does, not "—"', async () => {
    const bff = bffAs(['ops']);
    const OWN = makeLink(4, {
      ...heldPayoutForm(4),
      createdBy: { id: 'u-olga', email: 'olga@example.com' },
    });
    bff.links.links = [...bff.links.links, OWN];
    const own = renderApp(`/payment-links/${OWN.id}`, bff);
    await screen.findByRole('region', { name: 'Gateway order' });
    // before anyone decided: its creation
    expect(lastChange()).toBe(OWN.updatedAt);
    await own.user.click(await screen.findByRole('button', { name: /^Withdraw / }));
    const withdrawing = await screen.findByRole('dialog', { name: 'Withdraw your payout form' });
    await sendWithReason(own.user, withdrawing, 'Withdraw', 'typed it twice');
    expect(
      await within(screen.getByRole('list', { name: 'Timeline' })).findByText(
        'Payout form link withdrawn by its creator',
      ),
    ).toBeInTheDocument();
    const withdrawn = bff.links.links.find((l) => l.id === OWN.id)?.updatedAt;
    expect(withdrawn).not.toBe(OWN.updatedAt);
    await waitFor(() => {
      expect(lastChange()).toBe(withdrawn);
    });
    own.unmount();

    const approver = renderApp(`/payment-links/${HELD}`, bff);
    await approver.user.click(await screen.findByRole('button', { name: /^Approve / }));
    const dialog = await screen.findByRole('dialog');
    await approver.user.click(within(dialog).getByRole('button', { name: /^Approve/ }));
    const done = within(await screen.findByRole('dialog', { name: 'Payout form ready' }));
    await approver.user.click(done.getByRole('button', { name: 'Done' }));
    expect(
      await within(screen.getByRole('list', { name: 'Timeline' })).findByText(
        'Payout form link approved',
      ),
    ).toBeInTheDocument();
    const approved = bff.links.links.find((l) => l.id === HELD)?.updatedAt;
    expect(approved).not.toBe(heldPayoutForm(2).updatedAt);
    await waitFor(() => {
      expect(lastChange()).toBe(approved);
    });
  });

  it('when a sent link’s payment status is checked, then its Last change is the check’s time, as its timeline says it, though the link itself did not change', async () => {
    const bff = bffAs(['support']);
    bff.links.orders.delete(SENT);
    const app = renderApp(`/payment-links/${SENT}`, bff);
    await screen.findByRole('region', { name: 'Gateway order' });
    // before the check: the link's own last change (its creation and sending)
    expect(lastChange()).toBe(makeLink(1).updatedAt);
    await app.user.click(await screen.findByRole('button', { name: 'Check payment status' }));
    expect(await screen.findByText(/The customer has not paid yet/)).toBeInTheDocument();
    const timeline = screen.getByRole('list', { name: 'Timeline' });
    const check = await within(timeline).findByText('Status check: the customer has not paid yet');
    const checkedAt = check.closest('li')?.querySelector('time')?.getAttribute('datetime');
    expect(checkedAt).toBeTruthy();
    expect(bff.links.links.find((l) => l.id === SENT)?.updatedAt).toBe(makeLink(1).updatedAt);
    await waitFor(() => {
      expect(lastChange()).toBe(checkedAt);
    });
  });

  it('when a link’s order is known, then its gateway order id leads to the order’s page; before that it is plain text', async () => {
    const view = renderApp(`/payment-links/${SENT}`, bffAs(['support']));
    const order = await screen.findByRole('region', { name: 'Gateway order' });
    expect(within(order).getByRole('link', { name: '800001' })).toHaveAttribute(
      'href',
      '/transactions/00000000-0000-4000-8000-000000000009',
    );
    view.unmount();

    const bff = bffAs(['support']);
    bff.links.orders.delete(SENT);
    renderApp(`/payment-links/${SENT}`, bff);
    const waiting = await screen.findByRole('region', { name: 'Gateway order' });
    expect(within(waiting).getByText('800001')).toBeInTheDocument();
    expect(within(waiting).queryByRole('link')).toBeNull();
  });

  it('when the address names no link, then the page says so and leads back', async () => {
    renderApp('/payment-links/no-such-link', bffAs(['support']));
    expect(
      await screen.findByRole('heading', { name: 'Payment link not found' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'all payment links' })).toHaveAttribute(
      'href',
      '/payment-links',
    );
  });
});
