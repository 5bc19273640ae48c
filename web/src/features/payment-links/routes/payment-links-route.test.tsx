import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  IDEMPOTENCY_KEY_HEADER,
  PAYMENT_LINK_NOT_CREATED,
  PAYMENT_LINK_PAGE_LOST,
} from '@paydesk/shared/api';
import { describe, expect, it, vi } from 'vitest';
import { FakeBff, makeLink, makeUser } from '../../../test/fake-bff';
import { heldPayoutForm } from '../../../test/fake-links';
import { sendWithReason } from '../../../test/decision-dialog';
import { itShowsTheListStates } from '../../../test/list-states';
import { renderApp } from '../../../test/render-app';
import { seenAs } from '../../../test/seen-text';
import { screenWidth } from '../../../test/screen-width';

// Otto (ops) created payout-form 2; Olga is signed in.
const LINKS = [
  makeLink(1),
  heldPayoutForm(2),
  makeLink(3, {
    kind: 'payout-form',
    state: 'pending_approval',
    orderid: null,
    customerEmail: null,
    redirectUrl: null,
    orderDesc: 'My own payout form',
    createdBy: { id: 'u-olga', email: 'olga@example.com' },
  }),
];

function bffAs(roles: Parameters<typeof makeUser>[0]['roles'], links = LINKS) {
  return new FakeBff({
    signedInAs: 'olga@example.com',
    users: [
      makeUser({ email: 'olga@example.com', name: 'Olga', roles }),
      makeUser({ email: 'otto@example.com', name: 'Otto', roles: ['ops'] }),
    ],
    links,
  });
}

function rowOf(text: string) {
  const table = screen.getByRole('table', { name: 'Payment links' });
  const row = within(table)
    .getAllByRole('row')
    .find((r) => r.textContent.includes(text));
  if (!row) throw new Error(`no row with ${text}`);
  return within(row);
}

/** A row's page address: one short line that opens the page, with the whole in its title. */
function addressIn(row: { getByRole: (role: 'link', options: { name: RegExp }) => HTMLElement }) {
  return row.getByRole('link', { name: /: open the page address in a new tab$/ });
}

describe('payment links', () => {
  itShowsTheListStates({
    path: '/payment-links',
    route: 'GET /api/payment-links',
    bffAs,
    reader: ['support'],
    noAccess: ['admin'],
    loading: 'Loading payment links…',
    what: 'payment links',
  });

  it('when there are more links than a page, then the newest show first with how many are shown, and Load more brings the older ones until none is left', async () => {
    const bff = bffAs(
      ['support'],
      Array.from({ length: 103 }, (_, n) => makeLink(n + 1)),
    );
    const app = renderApp('/payment-links', bff);
    const table = await screen.findByRole('table', { name: 'Payment links' });
    expect(within(table).getAllByRole('row')).toHaveLength(101);
    expect(screen.getByText('100+ payment links shown')).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('103 payment links shown')).toBeInTheDocument();
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(103);
    expect(rows[0]).toHaveTextContent('Invoice 103');
    expect(rows.at(-1)).toHaveTextContent('€21.00Invoice 1Ready');
    expect(new Set(rows.map((r) => r.textContent)).size).toBe(103);
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(
      bff.requestsTo('GET', '/api/payment-links').map((r) => r.query.get('cursor') !== null),
    ).toEqual([false, true]);
  });

  it('when links’ creates went unanswered, then the list says how each ended: still unknown, its order found with the page address lost, or not created (QA: “Unknown outcome” for ever)', async () => {
    const lost = { orderid: null, redirectUrl: null };
    renderApp(
      '/payment-links',
      bffAs(
        ['support'],
        [
          makeLink(1, { ...lost, state: 'unknown', orderDesc: 'Invoice still unknown' }),
          makeLink(2, {
            ...lost,
            state: 'sent',
            orderid: '800002',
            orderDesc: 'Invoice page lost',
            errorCode: PAYMENT_LINK_PAGE_LOST,
            errorMessage:
              'The gateway shows order 800002 (processing, its page not used): the sale form was created, but its page address was lost with the gateway’s reply (the reply was lost), so nobody can be sent to it. Create the link again for the customer; this one was not sent again.',
          }),
          makeLink(3, {
            ...lost,
            state: 'failed',
            orderDesc: 'Invoice never made',
            errorCode: PAYMENT_LINK_NOT_CREATED,
            errorMessage:
              'The link was not created: Paydesk did not learn the outcome of its sale form (the reply was lost), and 75 seconds after it was sent the gateway still does not show its order (pd-link-3). Nothing was sent again and nobody can pay on it; create the link again if the customer still needs one.',
          }),
        ],
      ),
    );
    await screen.findByRole('table', { name: 'Payment links' });
    expect(rowOf('Invoice still unknown').getByText('Unknown outcome')).toBeInTheDocument();
    expect(rowOf('Invoice page lost').getByText('Page address lost')).toBeInTheDocument();
    expect(rowOf('Invoice page lost').queryByText('Ready to share')).not.toBeInTheDocument();
    expect(rowOf('Invoice never made').getByText('Not created')).toBeInTheDocument();
  });

  it('when a support user lists links, then a sent payout-form shows no page address but who sends it to the payee; a card form’s address shows', async () => {
    const sent = {
      ...heldPayoutForm(4),
      state: 'sent' as const,
      orderid: '800004',
      redirectUrl: 'https://gateway.example/paynet/form/p4',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
    };
    renderApp('/payment-links', bffAs(['support'], [makeLink(1), sent]));
    await screen.findByRole('table', { name: 'Payment links' });
    const row = rowOf('Seller payout 4');
    expect(
      row.getByText(
        'Page address only for otto@example.com (who created it) and ines@example.com (who approved it), who send it to the payee',
      ),
    ).toBeInTheDocument();
    expect(row.queryByRole('button', { name: 'Copy Page address' })).not.toBeInTheDocument();
    expect(screen.queryByText(/paynet\/form\/p4/)).not.toBeInTheDocument();
    expect(addressIn(rowOf('Invoice 1'))).toHaveAttribute(
      'href',
      'https://gateway.example/paynet/form/1',
    );
  });

  it('when a sent link’s page address is long (the demo sandbox’s), then the list shows its end on one line, the whole in its title, with buttons to open and copy it', async () => {
    const address =
      'http://127.0.0.1:8200/paynet/form/pl-7-3f9c2a41-5d0e-4b8e-9a77-0c1d2e3f4a5b?lang=en';
    const app = renderApp(
      '/payment-links',
      bffAs(['support'], [makeLink(7, { redirectUrl: address })]),
    );
    await screen.findByRole('table', { name: 'Payment links' });
    const open = addressIn(rowOf('Invoice 7'));
    // Four lines of monospace in a 240 px field made the rows tall and the table wider than its
    // card (the copy button off a 1024 px screen): now one line, the end that tells links apart.
    expect(open).toHaveTextContent(/^…2e3f4a5b\?lang=en$/);
    expect(open).toHaveAttribute('title', address);
    expect(open).toHaveAttribute('href', address);
    expect(open).toHaveAttribute('target', '_blank');
    expect(open).toHaveStyle({ whiteSpace: 'nowrap', textOverflow: 'ellipsis' });
    expect(rowOf('Invoice 7').queryByRole('textbox')).not.toBeInTheDocument();
    await app.user.click(rowOf('Invoice 7').getByRole('button', { name: 'Copy Page address' }));
    expect(await navigator.clipboard.readText()).toBe(address);
  });

  it('when a link’s page was used, or the link was rejected, withdrawn or lapsed, then its row offers no address to copy but says what came of it', async () => {
    const order = (status: 'approved' | 'declined' | 'processing') => ({
      transactionId: `00000000-0000-4000-8000-00000000000${status === 'approved' ? 1 : status === 'declined' ? 2 : 3}`,
      orderid: status === 'approved' ? '800001' : status === 'declined' ? '800002' : '800003',
      status,
      stage: null,
    });
    renderApp(
      '/payment-links',
      bffAs(
        ['finance'],
        [
          makeLink(1, { order: order('approved') }),
          makeLink(2, { order: order('declined') }),
          // still being paid: the page may yet be used, so its address stays
          makeLink(3, { order: order('processing') }),
          makeLink(4, {
            ...heldPayoutForm(4),
            state: 'expired',
            orderDesc: 'Lapsed payout form',
          }),
          makeLink(5, {
            ...heldPayoutForm(5),
            state: 'rejected',
            rejectReason: 'wrong payee',
            decidedBy: { id: 'u-ines', email: 'ines@example.com' },
            orderDesc: 'Rejected payout form',
          }),
        ],
      ),
    );
    await screen.findByRole('table', { name: 'Payment links' });
    const paid = rowOf('Invoice 1');
    expect(paid.queryByRole('button', { name: 'Copy Page address' })).not.toBeInTheDocument();
    expect(paid.queryByRole('link', { name: /open the page address/ })).not.toBeInTheDocument();
    expect(paid.getByText(/Page used: order/)).toHaveTextContent(
      'Page used: order 800001 (approved)',
    );
    expect(paid.getByRole('link', { name: '800001' })).toHaveAttribute(
      'href',
      '/transactions/00000000-0000-4000-8000-000000000001',
    );
    expect(rowOf('Invoice 2').getByText(/Page used: order/)).toHaveTextContent(
      'Page used: order 800002 (declined)',
    );
    expect(
      rowOf('Invoice 2').queryByRole('button', { name: 'Copy Page address' }),
    ).not.toBeInTheDocument();
    expect(rowOf('Invoice 3').getByRole('button', { name: 'Copy Page address' })).toBeVisible();
    expect(
      rowOf('Lapsed payout form').getByText('Lapsed before anyone approved it; nothing was sent.'),
    ).toBeInTheDocument();
    expect(
      rowOf('Rejected payout form').getByText('Rejected by ines@example.com: wrong payee'),
    ).toBeInTheDocument();
    for (const desc of ['Lapsed payout form', 'Rejected payout form'])
      expect(
        rowOf(desc).queryByRole('button', { name: 'Copy Page address' }),
      ).not.toBeInTheDocument();
  });

  it('when the screen is a phone’s (390 px), then each link is one column with its form, what it is for, its state, when and by whom it was created and its page address, with only the amount beside it; from 600 px the tablet’s three columns, from 900 px the wide ones', async () => {
    const headers = () =>
      within(screen.getByRole('table', { name: 'Payment links' }))
        .getAllByRole('columnheader')
        .map((h) => h.textContent);
    screenWidth(390);
    const phone = renderApp('/payment-links', bffAs(['support'], [makeLink(1)]));
    await screen.findByRole('table', { name: 'Payment links' });
    // Led by Created and Form, a 390 px screen showed neither the amount nor the state; with
    // Created as a third column, the table still ran past the screen's edge, scrolled sideways.
    expect(headers()).toEqual(['Link', 'Amount']);
    const cells = rowOf('Invoice 1').getAllByRole('cell');
    expect(cells).toHaveLength(2);
    const [link, amount] = cells;
    const inLink = within(link!);
    expect(link).toHaveTextContent(/^Sale form/);
    expect(inLink.getByRole('link', { name: 'Invoice 1' })).toHaveAttribute(
      'href',
      `/payment-links/${LINKS[0]!.id}`,
    );
    expect(link).toHaveTextContent('payer1@example.com');
    expect(inLink.getByText('Ready to share')).toBeInTheDocument();
    // When and by whom: a secondary line in the same column, not a column of its own.
    const created = inLink.getByText(/^Created/);
    expect(created).toHaveTextContent(`by ${LINKS[0]!.createdBy.email}`);
    expect(created.querySelector('time')).toHaveAttribute('datetime', LINKS[0]!.createdAt);
    // The amount alone beside it, on one line.
    expect(amount).toHaveTextContent(/^€21\.00$/);
    expect(amount).toHaveStyle({ whiteSpace: 'nowrap' });
    expect(amount!.querySelector('time')).toBeNull();
    // The page address with its copy button in the same column, on screen: as a column of its
    // own it was squeezed to "htt" with the copy button off the screen.
    expect(addressIn(inLink)).toHaveAttribute('href', 'https://gateway.example/paynet/form/1');
    expect(inLink.getByRole('button', { name: 'Copy Page address' })).toBeInTheDocument();
    phone.unmount();

    screenWidth(600);
    const tablet = renderApp('/payment-links', bffAs(['support'], [makeLink(1)]));
    await screen.findByRole('table', { name: 'Payment links' });
    expect(headers()).toEqual(['Link', 'Amount', 'Page address or decision']);
    tablet.unmount();

    screenWidth(900);
    renderApp('/payment-links', bffAs(['support'], [makeLink(1)]));
    await screen.findByRole('table', { name: 'Payment links' });
    expect(headers()).toEqual([
      'Created',
      'Form',
      'Amount',
      'Description',
      'State',
      'Page address or decision',
    ]);
    expect(screen.queryByText(/^Created/, { selector: 'td *' })).not.toBeInTheDocument();
    vi.restoreAllMocks();
  });

  it('when the screen is a tablet’s (800 px), then each link is the phone’s column (form, what it is for, state, when and by whom created) with its amount beside it and its page address and copy button, or the Approve and Reject buttons, in a third column, nothing to scroll to', async () => {
    screenWidth(800);
    const app = renderApp('/payment-links?view=all', bffAs(['ops']));
    const table = await screen.findByRole('table', { name: 'Payment links' });
    // The six wide columns needed some 820 px: an 800 px screen scrolled sideways, the copy
    // button off its edge.
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Link', 'Amount', 'Page address or decision']);

    const sent = rowOf('Invoice 1').getAllByRole('cell');
    expect(sent).toHaveLength(3);
    const [link, amount, address] = sent;
    const inLink = within(link!);
    expect(link).toHaveTextContent(/^Sale form/);
    expect(inLink.getByRole('link', { name: 'Invoice 1' })).toHaveAttribute(
      'href',
      `/payment-links/${LINKS[0]!.id}`,
    );
    expect(link).toHaveTextContent('payer1@example.com');
    expect(inLink.getByText('Ready to share')).toBeInTheDocument();
    const created = inLink.getByText(/^Created/);
    expect(created).toHaveTextContent(`by ${LINKS[0]!.createdBy.email}`);
    expect(created.querySelector('time')).toHaveAttribute('datetime', LINKS[0]!.createdAt);
    // A long description or e-mail breaks inside the column rather than widening the table.
    expect(link).toHaveStyle({ overflowWrap: 'anywhere' });
    expect(amount).toHaveTextContent(/^€21\.00$/);
    expect(amount).toHaveStyle({ whiteSpace: 'nowrap' });
    // The page address with its copy button in a column of its own, not under the link.
    expect(inLink.queryByRole('button', { name: 'Copy Page address' })).not.toBeInTheDocument();
    const inAddress = within(address!);
    expect(addressIn(inAddress)).toHaveAttribute('href', 'https://gateway.example/paynet/form/1');
    await app.user.click(inAddress.getByRole('button', { name: 'Copy Page address' }));
    expect(await navigator.clipboard.readText()).toBe('https://gateway.example/paynet/form/1');

    // Another's payout form: its state and creator in the first column, the decision in the third.
    const waiting = rowOf('Seller payout 2').getAllByRole('cell');
    expect(waiting).toHaveLength(3);
    const [payout, , decision] = waiting;
    expect(within(payout!).getByText('Awaiting approval')).toBeInTheDocument();
    expect(within(payout!).getByText(/^Created/)).toHaveTextContent('by otto@example.com');
    expect(within(payout!).queryByRole('button')).not.toBeInTheDocument();
    expect(within(decision!).getByRole('button', { name: /^Approve/ })).toBeInTheDocument();
    await app.user.click(within(decision!).getByRole('button', { name: /^Reject/ }));
    expect(await screen.findByRole('dialog', { name: /Reject/ })).toBeInTheDocument();
    vi.restoreAllMocks();
  });

  it('when an ops user opens the list on a phone (390 px), then a payout form awaiting approval shows its state, creator and the Approve and Reject buttons in its one column, the amount beside it', async () => {
    screenWidth(390);
    const app = renderApp('/payment-links', bffAs(['ops']));
    await screen.findByRole('table', { name: 'Payment links' });
    const cells = rowOf('Seller payout 2').getAllByRole('cell');
    expect(cells).toHaveLength(2);
    const [link, amount] = cells;
    const inLink = within(link!);
    expect(link).toHaveTextContent(/^Payout form/);
    expect(inLink.getByText('Awaiting approval')).toBeInTheDocument();
    expect(inLink.getByText(/^Created/)).toHaveTextContent('by otto@example.com');
    expect(inLink.getByRole('button', { name: /^Approve/ })).toBeInTheDocument();
    expect(inLink.getByRole('button', { name: /^Reject/ })).toBeInTheDocument();
    expect(amount).toHaveTextContent(/^€\d/);
    await app.user.click(inLink.getByRole('button', { name: /^Reject/ }));
    expect(await screen.findByRole('dialog', { name: /Reject/ })).toBeInTheDocument();
    vi.restoreAllMocks();
  });

  it('when an ops user opens payment links, then their approval queue is the first tab and shows, as on Payouts; Created by me and All links follow', async () => {
    const bff = bffAs(['ops']);
    renderApp('/payment-links', bff);
    const table = await screen.findByRole('table', { name: 'Payment links' });
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual([
      'Awaiting my approval',
      'Created by me',
      'All links',
    ]);
    expect(screen.getByRole('tab', { name: 'Awaiting my approval' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(bff.requestsTo('GET', '/api/payment-links')[0]!.query.get('view')).toBe(
      'awaiting-my-approval',
    );
    // another's payout form only: not a sale form, not their own
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toHaveTextContent('Seller payout 2');
    expect(screen.getByText('1 waiting for your approval, oldest first')).toBeInTheDocument();
  });

  it('when an ops user opens an address with a view (All links), then that view shows, not the approval queue', async () => {
    const bff = bffAs(['ops']);
    renderApp('/payment-links?view=all', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    expect(screen.getByRole('tab', { name: 'All links' })).toHaveAttribute('aria-selected', 'true');
    expect(bff.requestsTo('GET', '/api/payment-links')[0]!.query.get('view')).toBe('all');
    expect(rowOf('Invoice 1').getByText('Ready to share')).toBeInTheDocument();
    expect(rowOf('My own payout form').getByText('Yours: another ops user approves')).toBeVisible();
  });

  it('when finance or support opens payment links, then every link shows, its tab first; no approval queue', async () => {
    for (const [roles, tabs] of [
      [['finance'], ['All links', 'Created by me']],
      [['support'], ['All links']],
    ] as const) {
      const bff = bffAs([...roles]);
      const view = renderApp('/payment-links', bff);
      await screen.findByRole('table', { name: 'Payment links' });
      expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(tabs);
      expect(screen.getByRole('tab', { name: 'All links' })).toHaveAttribute(
        'aria-selected',
        'true',
      );
      expect(bff.requestsTo('GET', '/api/payment-links')[0]!.query.get('view')).toBe('all');
      expect(rowOf('Invoice 1').getByText('Ready to share')).toBeInTheDocument();
      view.unmount();
    }
  });

  it('when an auditor or support user follows an address to the approval queue or to "Created by me", then every link shows under All links', async () => {
    for (const [roles, view] of [
      [['auditor'], 'awaiting-my-approval'],
      [['support'], 'mine'],
    ] as const) {
      const bff = bffAs([...roles]);
      const page = renderApp(`/payment-links?view=${view}`, bff);
      await screen.findByRole('table', { name: 'Payment links' });
      expect(screen.getByRole('tab', { name: 'All links' })).toHaveAttribute(
        'aria-selected',
        'true',
      );
      expect(bff.requestsTo('GET', '/api/payment-links').map((r) => r.query.get('view'))).toEqual([
        'all',
      ]);
      expect(rowOf('Invoice 1').getByText('Ready to share')).toBeInTheDocument();
      page.unmount();
    }
  });

  it('when there is none, then the empty state says so', async () => {
    renderApp('/payment-links', bffAs(['finance'], []));
    expect(await screen.findByText('No payment links yet.')).toBeInTheDocument();
  });

  it('when support opens the list, then states show, a sent link can be copied, and nothing can be created or decided', async () => {
    const app = renderApp('/payment-links', bffAs(['support']));
    await screen.findByRole('table', { name: 'Payment links' });
    const sent = rowOf('Invoice 1');
    expect(sent.getByText('Ready to share')).toBeInTheDocument();
    expect(sent.getByText('€21.00')).toBeInTheDocument();
    await app.user.click(sent.getByRole('button', { name: 'Copy Page address' }));
    // user-event puts a clipboard of its own in place of the browser's.
    expect(await navigator.clipboard.readText()).toBe('https://gateway.example/paynet/form/1');
    expect(sent.getByRole('button', { name: 'Page address copied' })).toBeInTheDocument();
    expect(rowOf('Seller payout 2').getByText('Awaiting approval')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New payment link' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });

  it('when the customer has used a sent link, then its row says what came of it, not that it is ready to share', async () => {
    const order = (status: 'approved' | 'processing' | 'declined') => ({
      transactionId: `t-${status}`,
      orderid: '800001',
      status,
      stage: null,
    });
    renderApp(
      '/payment-links',
      bffAs(
        ['finance'],
        [
          makeLink(1, { order: order('approved') }),
          makeLink(4, { kind: 'preauth-form', order: order('approved') }),
          makeLink(5, { order: order('processing') }),
          makeLink(6, { order: order('declined') }),
          makeLink(7),
          makeLink(8, { order: { ...order('approved'), stage: 'partially_returned' } }),
          makeLink(9, { kind: 'preauth-form', order: { ...order('approved'), stage: 'voided' } }),
          makeLink(3, {
            kind: 'preauth-form',
            order: { ...order('approved'), stage: 'hold_cancelled' },
          }),
        ],
      ),
    );
    await screen.findByRole('table', { name: 'Payment links' });
    expect(rowOf('Invoice 1').getByText('Paid')).toBeInTheDocument();
    expect(rowOf('Invoice 4').getByText('Authorized')).toBeInTheDocument();
    expect(rowOf('Invoice 5').getByText('Customer paying')).toBeInTheDocument();
    expect(rowOf('Invoice 6').getByText('Declined')).toBeInTheDocument();
    expect(rowOf('Invoice 7').getByText('Ready to share')).toBeInTheDocument();
    // in the order's own chip's words (it said 'Partially returned' beside the order's 'Partly')
    expect(rowOf('Invoice 8').getByText('Partly returned')).toBeInTheDocument();
    // a voided preauthorization form says Voided, as its order does (QA: it said Hold released)
    expect(rowOf('Invoice 9').getByText('Voided')).toBeInTheDocument();
    expect(rowOf('Invoice 3').getByText('Hold released')).toBeInTheDocument();
  });

  it('when a preauthorization form’s hold was captured, then its row says Captured or Partly captured as its order does, and Voided alone once that capture was voided', async () => {
    const captured = (stage: string, amount: string) => ({
      transactionId: `t-${stage}-${amount}`,
      orderid: '800001',
      status: 'approved' as const,
      stage,
      money: { currency: 'USD', authorized: '100.00', captured: amount, returned: '0.00' },
    });
    renderApp(
      '/payment-links',
      bffAs(
        ['finance'],
        [
          makeLink(1, { kind: 'preauth-form', order: captured('captured', '60.00') }),
          makeLink(2, { kind: 'preauth-form', order: captured('settled', '60.00') }),
          makeLink(3, { kind: 'preauth-form', order: captured('captured', '100.00') }),
          makeLink(4, { kind: 'preauth-form', order: captured('voided', '60.00') }),
        ],
      ),
    );
    await screen.findByRole('table', { name: 'Payment links' });
    // QA: $60 of a $100 hold read "Captured" here and "Partly captured" on its order.
    expect(rowOf('Invoice 1').getByText('Partly captured')).toBeInTheDocument();
    expect(rowOf('Invoice 1').queryByText('Captured')).toBeNull();
    // and in words beside the order it made, in the same row
    expect(rowOf('Invoice 1').getByText(/^Page used: order/)).toHaveTextContent(
      'Page used: order 800001 (approved, partly captured)',
    );
    expect(rowOf('Invoice 2').getByText('Partly captured')).toBeInTheDocument();
    expect(rowOf('Invoice 3').getByText('Captured')).toBeInTheDocument();
    // the order's chips: the void took the captured part back, so Voided alone
    expect(rowOf('Invoice 4').getByText('Voided')).toBeInTheDocument();
    expect(rowOf('Invoice 4').queryByText(/captured/i)).toBeNull();
  });

  it('when the customer pays a listed link, then its row says Paid without a reload', async () => {
    const bff = bffAs(['finance'], [makeLink(1)]);
    renderApp('/payment-links', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    expect(rowOf('Invoice 1').getByText('Ready to share')).toBeInTheDocument();
    const link = bff.links.links[0]!;
    bff.links.orders.set(link.id, {
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      stage: null,
    });
    bff.payments.publish({
      type: 'transaction.created',
      transactionId: '00000000-0000-4000-8000-000000000009',
      orderid: '800001',
      status: 'approved',
      drift: false,
      at: '2026-11-20T10:00:00.000Z',
    });
    expect(await rowOf('Invoice 1').findByText('Paid')).toBeInTheDocument();
  });

  it('when finance sees another’s payout form awaiting approval, then it offers no decision: only ops decide', async () => {
    renderApp('/payment-links', bffAs(['finance']));
    await screen.findByRole('table', { name: 'Payment links' });
    expect(rowOf('Seller payout 2').getByText('Waits for a second ops user')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });

  it('when an ops user sees payout forms, then another’s can be approved and their own is visibly not approvable', async () => {
    renderApp('/payment-links?view=all', bffAs(['ops']));
    await screen.findByRole('table', { name: 'Payment links' });
    expect(rowOf('Seller payout 2').getByRole('button', { name: /^Approve / })).toBeInTheDocument();
    const own = rowOf('My own payout form');
    expect(own.getByText('Yours: another ops user approves')).toBeInTheDocument();
    expect(own.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
  });

  it('when an ops user approves another’s payout form above the large-amount threshold, then the dialog says so', async () => {
    const big = { ...LINKS[1]!, amount: '25000.00' };
    const app = renderApp('/payment-links', bffAs(['ops'], [LINKS[0]!, big, LINKS[2]!]));
    await screen.findByRole('table', { name: 'Payment links' });
    await app.user.click(
      rowOf('Seller payout 2').getByRole('button', {
        name: 'Approve payout form of €25,000.00: Seller payout 2',
      }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout form' }));
    expect(
      dialog.getByText(
        /^A large amount: above €10,000\.00\. The ops user who created it confirmed it \(in Paydesk by typing it twice\)/,
      ),
    ).toBeInTheDocument();
  });

  it('when another approver released the payout form first, then the refusal is said with only Close left, which takes the focus', async () => {
    const refusal = 'The link is sent: another approver got there first.';
    const bff = bffAs(['ops']).on('POST /api/payment-links/:id/approve', () => ({
      status: 409,
      body: {
        error: {
          code: 'INVALID_STATE',
          message: refusal,
          details: { state: 'sent' },
          requestId: 'r-409',
        },
      },
    }));
    const app = renderApp('/payment-links', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    await app.user.click(
      rowOf('Seller payout 2').getByRole('button', {
        name: 'Approve payout form of €75.00: Seller payout 2',
      }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout form' }));
    await app.user.click(dialog.getByRole('button', { name: 'Approve €75.00' }));
    expect(await dialog.findByText(refusal)).toBeInTheDocument();
    expect(dialog.getByText('Sending it again would be refused too.')).toBeInTheDocument();
    expect(dialog.getAllByRole('button').map((b) => b.textContent)).toEqual(['Close']);
    expect(dialog.getByRole('button', { name: 'Close' })).toHaveFocus();
  });

  it('when an ops user approves another’s payout form, then the amount and return address are stated, a key is sent, and the released page address shows beside the message that speaks of it', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payment-links?view=all', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    await app.user.click(
      rowOf('Seller payout 2').getByRole('button', {
        name: 'Approve payout form of €75.00: Seller payout 2',
      }),
    );
    const dialog = within(await screen.findByRole('dialog', { name: 'Approve the payout form' }));
    expect(dialog.getByText(seenAs('Release a payout form for €75.00?'))).toBeInTheDocument();
    // where the payee is sent afterwards, seen before it is released
    expect(dialog.getByText('Return address')).toBeInTheDocument();
    expect(dialog.getByText('https://shop.example/payees/2/done')).toBeInTheDocument();
    await app.user.click(dialog.getByRole('button', { name: 'Approve €75.00' }));
    // "Send this page address …": the address is right there, to copy, and said once
    const done = within(await screen.findByRole('dialog', { name: 'Payout form ready' }));
    const message =
      'Send this page address to the payee. Paydesk learns the outcome from the gateway automatically when the payee finishes.';
    expect(done.getByText(message)).toBeInTheDocument();
    expect(screen.getAllByText(message)).toHaveLength(1);
    const page = 'https://gateway.example/paynet/form/ppl-2';
    expect(done.getByLabelText('Payee page address')).toHaveValue(page);
    // the whole address, over as many lines as it needs (a one-line field cut it off)
    expect(done.getByLabelText('Payee page address').tagName).toBe('TEXTAREA');
    expect(done.getByLabelText('Payee page address')).toHaveStyle({ overflowWrap: 'anywhere' });
    expect(done.getByRole('link', { name: 'Open the link’s page' })).toHaveAttribute(
      'href',
      `/payment-links/${LINKS[1]!.id}`,
    );
    const [request] = bff.requestsTo('POST', `/api/payment-links/${LINKS[1]!.id}/approve`);
    expect(request!.headers.get(IDEMPOTENCY_KEY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
    await app.user.click(done.getByRole('button', { name: 'Done' }));
    await waitFor(() => {
      expect(rowOf('Seller payout 2').getByText('Ready to share')).toBeInTheDocument();
    });
    expect(addressIn(rowOf('Seller payout 2'))).toHaveAttribute('href', page);
  });

  it('when another ops user approves a payout form elsewhere, then the list shows it released without a reload', async () => {
    const bff = bffAs(['ops']);
    renderApp('/payment-links?view=all', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    expect(await screen.findByText('Live')).toBeInTheDocument();
    const held = bff.links.links[1]!;
    const released = {
      ...held,
      state: 'sent' as const,
      orderid: '5550002',
      redirectUrl: 'https://gateway.example/pay/5550002',
      decidedBy: { id: 'u-ines', email: 'ines@example.com' },
    };
    bff.links.links = bff.links.links.map((l) => (l.id === held.id ? released : l));
    bff.payments.publish({
      type: 'payment_link.updated',
      linkId: held.id,
      kind: 'payout-form',
      state: 'sent',
      orderid: '5550002',
      at: new Date().toISOString(),
    });
    await waitFor(() => {
      expect(rowOf('Seller payout 2').getByText('Ready to share')).toBeInTheDocument();
    });
    expect(rowOf('Seller payout 2').queryByRole('button', { name: /^Approve / })).toBeNull();
  });

  it('when an ops user rejects a payout form, then a reason is required and sent', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payment-links?view=awaiting-my-approval', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    await app.user.click(rowOf('Seller payout 2').getByRole('button', { name: /^Reject / }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject the payout form' });
    await sendWithReason(app.user, dialog, 'Reject', 'wrong amount');
    expect(await screen.findByText('Payout form rejected; nothing was sent.')).toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/payment-links/${LINKS[1]!.id}/reject`)[0]!.body).toEqual({
      reason: 'wrong amount',
    });
    expect(await screen.findByText('No payout form waits for your approval.')).toBeInTheDocument();
  });

  it('when finance chooses a form, then its help says what that form does, each differently; first and last name sit side by side', async () => {
    const app = renderApp('/payment-links', bffAs(['finance'], []));
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    const form = dialog.getByLabelText('Form');
    const helps = new Set<string>();
    for (const [kind, words] of [
      ['sale-form', /charged at once/],
      ['preauth-form', /only held/],
      ['payment-form', /universal payment page/],
      ['account-verification-form', /verified, not charged/],
    ] as const) {
      await app.user.selectOptions(form, kind);
      const help = form.getAttribute('aria-describedby');
      const text = document.getElementById(help ?? '')?.textContent ?? '';
      expect(text, kind).toMatch(words);
      helps.add(text);
    }
    expect(helps.size).toBe(4);
    await app.user.selectOptions(form, 'sale-form');
    // The e-mail has a row of its own, so that the two names that follow share one.
    const rootOf = (label: RegExp) => dialog.getByLabelText(label).closest('.MuiFormControl-root');
    expect(rootOf(/^E-mail/)).toHaveStyle({ gridColumn: '1 / -1' });
    expect(rootOf(/^First name/)).not.toHaveStyle({ gridColumn: '1 / -1' });
    expect(rootOf(/^Last name/)).not.toHaveStyle({ gridColumn: '1 / -1' });
    expect(rootOf(/^First name/)?.nextElementSibling).toBe(rootOf(/^Last name/));
    expect(rootOf(/^First name/)?.parentElement).toHaveStyle({
      gridTemplateColumns: '1fr 1fr',
    });
  });

  it('when the session says the configured endpoints, then the endpoint choices that do not take the link’s currency are marked; a form without an amount marks none', async () => {
    const bff = bffAs(['finance'], []);
    bff.endpoints = [
      { id: '1001', kind: 'endpoint', currencies: ['EUR'] },
      { id: '1002', kind: 'endpoint', currencies: ['USD'] },
      { id: '2002', kind: 'group', currencies: null },
    ];
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    const options = () =>
      within(endpoint)
        .getAllByRole('option')
        .map((o) => o.textContent);
    expect(options()).toEqual([
      'Default for the currency',
      '1001 · EUR',
      '1002 · USD (does not take EUR)',
      'Group 2002 · currencies not configured',
    ]);
    await app.user.clear(dialog.getByLabelText(/Currency/));
    await app.user.type(dialog.getByLabelText(/Currency/), 'usd');
    expect(options()).toContain('1001 · EUR (does not take USD)');
    expect(options()).toContain('1002 · USD');
    await app.user.selectOptions(dialog.getByLabelText('Form'), 'account-verification-form');
    expect(options().filter((text) => text.includes('does not take'))).toEqual([]);
    // No amount, no currency: the default is the first configured endpoint, as the BFF takes it
    // (QA: "Default for the currency" where there is none).
    expect(options()[0]).toBe('Default: 1001, the first configured');
  });

  it('when finance creates a sale form, then the shared rules put errors next to the fields, and the link to copy is shown', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    expect(
      within(dialog.getByLabelText('Form')).queryByRole('option', { name: 'Payout form' }),
    ).not.toBeInTheDocument();
    await app.user.type(dialog.getByLabelText(/^Amount/), '49.9');
    await app.user.type(dialog.getByLabelText(/Description/), 'Invoice 2026-118');
    await app.user.type(dialog.getByLabelText(/^E-mail/), 'payer@example.com');
    await app.user.type(dialog.getByLabelText(/^Address/), '1 Main St');
    await app.user.type(dialog.getByLabelText(/^City/), 'Berlin');
    await app.user.type(dialog.getByLabelText(/Postal code/), '10115');
    await app.user.type(dialog.getByLabelText(/Country/), 'Germany');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    expect(await dialog.findByText('A 2-letter ISO code, e.g. DE.')).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/payment-links')).toHaveLength(0);
    await app.user.clear(dialog.getByLabelText(/Country/));
    await app.user.type(dialog.getByLabelText(/Country/), 'de');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    // A sale form needs the customer's phone too; it was flagged with the country at once.
    expect(
      await dialog.findByText(
        'Enter the phone number, e.g. +44 7700 900123: 6 to 15 digits and a leading +; spaces, dashes and brackets are fine.',
      ),
    ).toBeInTheDocument();
    await app.user.type(dialog.getByLabelText(/^Phone/), '+49 30 1234567');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    const done = within(await screen.findByRole('dialog', { name: 'Payment link ready' }));
    expect(done.getByLabelText('Customer page address')).toHaveValue(
      'https://gateway.example/paynet/form/101',
    );
    // How Paydesk learns the outcome is not the staff's concern, only that it does (QA F8).
    expect(
      done.getByText(
        'Send this page address to the customer. Paydesk learns the outcome from the gateway automatically when the customer finishes.',
      ),
    ).toBeInTheDocument();
    expect(done.queryByText(/callback/)).not.toBeInTheDocument();
    const [request] = bff.requestsTo('POST', '/api/payment-links');
    expect(request!.body).toEqual({
      kind: 'sale-form',
      amount: '49.9',
      currency: 'EUR',
      orderDesc: 'Invoice 2026-118',
      customer: {
        email: 'payer@example.com',
        // As the gateway takes it: the layout typed ('+49 30 1234567') left out.
        phone: '+49301234567',
        address1: '1 Main St',
        city: 'Berlin',
        zipCode: '10115',
        country: 'DE',
      },
    });
    expect(request!.headers.get(IDEMPOTENCY_KEY_HEADER)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when the amount is above the largest the API takes, then the field says the maximum, not the decimals rule', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    const amount = dialog.getByLabelText(/^Amount/);
    await app.user.type(amount, '99999999999999');
    await app.user.type(dialog.getByLabelText(/Description/), 'Invoice 2026-118');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    expect(await dialog.findByText('At most 9999999999999.99.')).toBeInTheDocument();
    expect(amount).toHaveAccessibleDescription('At most 9999999999999.99.');
    expect(bff.requestsTo('POST', '/api/payment-links')).toHaveLength(0);
  });

  it('when the amount is refused (thousands separators, above the largest), then the other fields’ errors show with it, in one pass', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    const amount = dialog.getByLabelText(/^Amount/);
    await app.user.type(amount, '1,234.50');
    await app.user.type(dialog.getByLabelText(/^E-mail/), 'payer@example.com');
    await app.user.type(dialog.getByLabelText(/Country/), 'Germany');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription('Enter the amount without thousands separators.');
    });
    for (const label of [/Description/, /^Phone/, /^Address/, /^City/, /Postal code/, /Country/]) {
      expect(dialog.getByLabelText(label), String(label)).toHaveAttribute('aria-invalid', 'true');
    }
    expect(dialog.getByText('A 2-letter ISO code, e.g. DE.')).toBeInTheDocument();
    expect(dialog.getByLabelText(/^E-mail/)).toHaveAttribute('aria-invalid', 'false');
    expect(amount).toHaveFocus();
    // above the largest amount: the same, with the maximum said
    await app.user.clear(amount);
    await app.user.type(amount, '99999999999999');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription('At most 9999999999999.99.');
    });
    expect(dialog.getByLabelText(/Description/)).toHaveAttribute('aria-invalid', 'true');
    expect(dialog.getByText('A 2-letter ISO code, e.g. DE.')).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/payment-links')).toHaveLength(0);
  });

  it('when finance submits an empty sale form, then every required field is flagged at once, amount and phone included', async () => {
    const bff = bffAs(['finance'], []);
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    const required = [
      /^Amount/,
      /Description/,
      /^E-mail/,
      /^Phone/,
      /^Address/,
      /^City/,
      /Postal code/,
      /Country/,
    ];
    for (const label of required) {
      await waitFor(() => {
        expect(dialog.getByLabelText(label), String(label)).toHaveAttribute('aria-invalid', 'true');
      });
    }
    expect(dialog.getByLabelText(/^First name/)).toHaveAttribute('aria-invalid', 'false');
    expect(dialog.getByLabelText(/Return address/)).toHaveAttribute('aria-invalid', 'false');
    expect(
      dialog.getByText(
        'Enter the phone number, e.g. +44 7700 900123: 6 to 15 digits and a leading +; spaces, dashes and brackets are fine.',
      ),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/payment-links')).toHaveLength(0);
  });

  it('when an empty payout form or account verification is submitted, then what that kind needs is flagged at once', async () => {
    const app = renderApp('/payment-links', bffAs(['finance', 'ops'], []));
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    await app.user.selectOptions(dialog.getByLabelText('Form'), 'payout-form');
    await app.user.clear(dialog.getByLabelText(/^Currency/));
    await app.user.click(dialog.getByRole('button', { name: 'Submit for approval' }));
    for (const label of [/^Amount/, /^Currency/, /Description/]) {
      await waitFor(() => {
        expect(dialog.getByLabelText(label), String(label)).toHaveAttribute('aria-invalid', 'true');
      });
    }
    await app.user.selectOptions(dialog.getByLabelText('Form'), 'account-verification-form');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    for (const label of [/Description/, /^E-mail/, /^Address/, /^City/, /Postal code/, /Country/]) {
      await waitFor(() => {
        expect(dialog.getByLabelText(label), String(label)).toHaveAttribute('aria-invalid', 'true');
      });
    }
    expect(dialog.queryByLabelText(/^Amount/)).not.toBeInTheDocument();
    expect(dialog.queryByLabelText(/^Phone/)).not.toBeInTheDocument();
  });

  it('when an ops user withdraws their own payout form, then a reason is asked, the rejection is sent and the row says it was withdrawn; approving stays impossible', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payment-links?view=mine', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    const own = rowOf('My own payout form');
    expect(own.queryByRole('button', { name: /^Approve / })).not.toBeInTheDocument();
    await app.user.click(own.getByRole('button', { name: /^Withdraw / }));
    const dialog = await screen.findByRole('dialog', { name: 'Withdraw your payout form' });
    await sendWithReason(app.user, dialog, 'Withdraw', 'made by mistake');
    expect(
      await screen.findByText('You withdrew the payout form; nothing was sent.'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', `/api/payment-links/${LINKS[2]!.id}/reject`)[0]!.body).toEqual({
      reason: 'made by mistake',
    });
    // Said as a withdrawal, not as a second person's rejection.
    await waitFor(() => {
      expect(rowOf('My own payout form').getByText('Withdrawn')).toBeInTheDocument();
    });
    expect(
      rowOf('My own payout form').getByText('Withdrawn by you: made by mistake'),
    ).toBeInTheDocument();
    expect(rowOf('My own payout form').queryByText('Rejected')).not.toBeInTheDocument();
  });

  it('when an ops user double-clicks Withdraw on their own payout form, faster than the dialog shows it is sending, then one withdrawal is sent', async () => {
    const bff = bffAs(['ops']);
    const app = renderApp('/payment-links?view=mine', bff);
    await screen.findByRole('table', { name: 'Payment links' });
    await app.user.click(rowOf('My own payout form').getByRole('button', { name: /^Withdraw / }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Withdraw your payout form' }));
    await app.user.type(dialog.getByLabelText(/Reason/), 'made by mistake');
    // Sent twice before the screen re-renders its button as busy (a double click on a busy
    // browser, which handles input before the re-render).
    const withdraw = dialog.getByRole('button', { name: 'Withdraw' });
    const form = withdraw.closest('form')!;
    fireEvent.submit(form);
    fireEvent.submit(form);
    expect(
      await screen.findByText('You withdrew the payout form; nothing was sent.'),
    ).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bff.requestsTo('POST', `/api/payment-links/${LINKS[2]!.id}/reject`)).toHaveLength(1);
    await waitFor(() => {
      expect(rowOf('My own payout form').getByText('Withdrawn')).toBeInTheDocument();
    });
  });

  it('when the list holds a payout form withdrawn by its creator and one rejected by another ops user, then each row says which', async () => {
    const decided = (n: number, withdrawn: boolean) =>
      makeLink(n, {
        ...heldPayoutForm(n),
        state: 'rejected',
        expiresAt: null,
        orderDesc: withdrawn ? 'Withdrawn form' : 'Rejected form',
        rejectReason: withdrawn ? 'typed it twice' : 'not due',
        decidedBy: withdrawn
          ? { id: 'u-otto', email: 'otto@example.com' }
          : { id: 'u-olga', email: 'olga@example.com' },
        withdrawn,
      });
    renderApp('/payment-links', bffAs(['support'], [decided(5, true), decided(6, false)]));
    await screen.findByRole('table', { name: 'Payment links' });
    const withdrawn = rowOf('Withdrawn form');
    expect(withdrawn.getByText('Withdrawn')).toBeInTheDocument();
    expect(
      withdrawn.getByText('Withdrawn by otto@example.com: typed it twice'),
    ).toBeInTheDocument();
    const rejected = rowOf('Rejected form');
    expect(rejected.getByText('Rejected')).toBeInTheDocument();
    // one's own decision says "you", another's names them
    expect(rejected.getByText('Rejected by you: not due')).toBeInTheDocument();
  });

  it('when ops creates a payout form, then no customer is asked, the form says how long it waits (the BFF’s hold time), and it waits for approval', async () => {
    const bff = bffAs(['ops'], []);
    // The BFF's PAYOUT_HOLD_MAX_AGE_MS, said by the session reply: not the default 7 days.
    bff.payoutHoldMaxAgeMs = 36 * 60 * 60_000;
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    expect(dialog.getByLabelText('Form')).toHaveValue('payout-form');
    expect(dialog.getByLabelText('Form')).toHaveAccessibleDescription(
      'The payee enters where the money goes. A second ops user must approve it first; it lapses if not approved within 1 day and 12 hours.',
    );
    expect(dialog.queryByLabelText(/^E-mail/)).not.toBeInTheDocument();
    // the person the form pays is the payee, never "the customer"
    expect(dialog.getByLabelText(/Return address/)).toHaveAccessibleDescription(
      /Where the gateway sends the payee afterwards\./,
    );
    await app.user.type(dialog.getByLabelText(/^Amount/), '30');
    await app.user.type(dialog.getByLabelText(/Description/), 'Refund via payout form');
    await app.user.click(dialog.getByRole('button', { name: 'Submit for approval' }));
    await screen.findByRole('dialog', { name: 'Payout form waits for approval' });
    expect(bff.requestsTo('POST', '/api/payment-links')[0]!.body).toEqual({
      kind: 'payout-form',
      amount: '30',
      currency: 'EUR',
      orderDesc: 'Refund via payout form',
    });
    await app.user.click(screen.getByRole('button', { name: 'Done' }));
    // Created from the approval queue (where one's own never shows), the list turns to one's own.
    expect(screen.getByRole('tab', { name: 'Created by me' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(app.location()).toBe('/payment-links?view=mine');
    expect(await screen.findByText('Yours: another ops user approves')).toBeInTheDocument();
  });

  it('when a return address is plain http to another host, then the form refuses it by the https rule and sends nothing; https (or http to localhost) is sent', async () => {
    const bff = bffAs(['ops'], []);
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    await app.user.type(dialog.getByLabelText(/^Amount/), '30');
    await app.user.type(dialog.getByLabelText(/Description/), 'Prize payout');
    const returnAddress = dialog.getByLabelText(/Return address/);
    await app.user.type(returnAddress, 'http://evil.example/x');
    await app.user.click(dialog.getByRole('button', { name: 'Submit for approval' }));
    await waitFor(() => {
      expect(returnAddress).toHaveAttribute('aria-invalid', 'true');
    });
    expect(returnAddress).toHaveAccessibleDescription(
      'An https address (plain http only for localhost).',
    );
    expect(bff.requestsTo('POST', '/api/payment-links')).toHaveLength(0);
    await app.user.clear(returnAddress);
    await app.user.type(returnAddress, 'http://localhost:5173/payee-done');
    await app.user.click(dialog.getByRole('button', { name: 'Submit for approval' }));
    await screen.findByRole('dialog', { name: 'Payout form waits for approval' });
    expect(bff.requestsTo('POST', '/api/payment-links')[0]!.body).toMatchObject({
      redirectUrl: 'http://localhost:5173/payee-done',
    });
  });

  it('when the server names a field, then its message shows next to that field', async () => {
    const bff = bffAs(['finance'], []).on('POST /api/payment-links', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'invalid',
          requestId: 'r',
          details: {
            fields: [{ path: 'customer.zipCode', rule: 'custom', message: 'unknown postal code' }],
          },
        },
      },
    }));
    const app = renderApp('/payment-links', bff);
    await app.user.click(await screen.findByRole('button', { name: 'New payment link' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New payment link' }));
    await app.user.selectOptions(dialog.getByLabelText('Form'), 'account-verification-form');
    expect(dialog.queryByLabelText(/^Amount/)).not.toBeInTheDocument();
    await app.user.type(dialog.getByLabelText(/Description/), 'Verify card');
    await app.user.type(dialog.getByLabelText(/^E-mail/), 'payer@example.com');
    await app.user.type(dialog.getByLabelText(/^Address/), '1 Main St');
    await app.user.type(dialog.getByLabelText(/^City/), 'Berlin');
    await app.user.type(dialog.getByLabelText(/Postal code/), '00000');
    await app.user.type(dialog.getByLabelText(/Country/), 'DE');
    await app.user.click(dialog.getByRole('button', { name: 'Create link' }));
    expect(await dialog.findByText('Unknown postal code.')).toBeInTheDocument();
  });
});
