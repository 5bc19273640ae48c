import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { TransactionSummary } from '@paydesk/shared/api';
import { screenWidth } from '../../../test/screen-width';
import { TransactionsTable } from './transactions-table';

const row = (n: number, overrides: Partial<TransactionSummary> = {}): TransactionSummary => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  endpointId: '1001',
  orderid: String(900000 + n),
  clientOrderId: `shop-${n}`,
  type: 'sale',
  status: 'approved',
  stage: 'captured',
  currency: 'EUR',
  amount: '60.00',
  card: null,
  customerEmail: null,
  drift: false,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
  ...overrides,
});

function renderTable(items: TransactionSummary[]) {
  render(
    <MemoryRouter>
      <TransactionsTable items={items} busy={false} sort="created_desc" onSortChange={vi.fn()} />
    </MemoryRouter>,
  );
  const [, ...rows] = within(screen.getByRole('table', { name: 'Transactions' })).getAllByRole(
    'row',
  );
  return rows;
}

describe('the transactions table', () => {
  it('when a rebill’s order number is not known yet, then its row says so, with the client order id, never the placeholder', () => {
    const [pending] = renderTable([
      row(1, { type: 'rebill', orderid: 'pending:rb-1acfeed6', clientOrderId: 'rb-1acfeed6' }),
    ]);
    const link = within(pending!).getByRole('link', {
      name: 'Order (number not known yet; client order rb-1acfeed6)',
    });
    expect(link).toHaveTextContent('Order number not known yet');
    expect(link).toHaveAttribute('href', '/transactions/00000000-0000-4000-8000-000000000001');
    expect(within(pending!).getByText('rb-1acfeed6')).toBeInTheDocument();
    expect(pending).not.toHaveTextContent('pending:');
  });

  it('when the gateway never made a rebill’s order, then its row says “Order not made”, not that a number will come (QA B6)', () => {
    const [never] = renderTable([
      row(1, {
        type: 'rebill',
        status: 'error',
        stage: 'not_created',
        orderid: 'pending:rb-1acfeed6',
        clientOrderId: 'rb-1acfeed6',
      }),
    ]);
    const link = within(never!).getByRole('link', {
      name: 'Order not made by the gateway (client order rb-1acfeed6)',
    });
    expect(link).toHaveTextContent('Order not made');
    expect(never).not.toHaveTextContent('not known yet');
    expect(never).not.toHaveTextContent('pending:');
  });

  it('when an approved order has a return and a void whose outcome is unknown, then its row says so beside the known status', () => {
    const [marked, plain] = renderTable([
      row(1, { unknownOperations: ['return', 'void'] }),
      row(2, { unknownOperations: [] }),
    ]);
    expect(within(marked!).getByText('Approved')).toBeInTheDocument();
    expect(within(marked!).getByText('Return: outcome unknown')).toBeInTheDocument();
    expect(within(marked!).getByText('Void: outcome unknown')).toBeInTheDocument();
    expect(within(plain!).queryByText(/outcome unknown/)).toBeNull();
  });

  it('when approved preauths are listed, then each row says whether the money is held or captured; a captured sale says nothing more, an undone or returned preauth says that instead', () => {
    const [held, captured, settled, sale, voided, returned, declined] = renderTable([
      row(1, { type: 'preauth', stage: 'authorized' }),
      row(2, { type: 'preauth', stage: 'captured' }),
      row(3, { type: 'preauth', stage: 'settled' }),
      row(4, { type: 'sale', stage: 'captured' }),
      row(5, { type: 'preauth', stage: 'voided' }),
      row(6, { type: 'preauth', stage: 'partially_returned' }),
      row(7, { type: 'preauth', status: 'declined', stage: 'declined' }),
    ]);
    // the Status column's chips, in order (the fourth column on a wide screen)
    const chips = (r: HTMLElement | undefined) =>
      Array.from(
        within(r!).getAllByRole('cell')[3]!.querySelectorAll('.MuiChip-label'),
        (chip) => chip.textContent,
      );
    expect(chips(held)).toEqual(['Approved', 'Held']);
    expect(within(held!).getByText('Held').closest('[title]')).toHaveAttribute(
      'title',
      'Authorized: the amount is held on the customer’s card; nothing was captured yet.',
    );
    expect(chips(captured)).toEqual(['Approved', 'Captured']);
    // A row has no amounts: whether the capture took all of the hold is on the order's page.
    expect(within(captured!).getByText('Captured').closest('[title]')).toHaveAttribute(
      'title',
      'The hold was captured; the order shows whether in full or in part.',
    );
    expect(chips(settled)).toEqual(['Approved', 'Captured']);
    expect(chips(sale)).toEqual(['Approved']);
    expect(chips(voided)).toEqual(['Approved', 'Voided']);
    expect(chips(returned)).toEqual(['Approved', 'Partly returned']);
    expect(chips(declined)).toEqual(['Declined']);
  });

  it('when a preauth was captured only in part, then its row says Partly captured, not Captured, and keeps saying so once money went back; once the capture was voided, Voided alone', () => {
    const preauth = (n: number, stage: string, partlyCaptured: boolean) =>
      row(n, { type: 'preauth', amount: '120.00', stage, partlyCaptured });
    const [part, settled, partReturned, returned, voided, whole, wholeReturned] = renderTable([
      preauth(1, 'captured', true),
      preauth(2, 'settled', true),
      preauth(3, 'partially_returned', true),
      preauth(4, 'returned', true),
      preauth(5, 'voided', true),
      preauth(6, 'captured', false),
      preauth(7, 'partially_returned', false),
    ]);
    const chips = (r: HTMLElement | undefined) =>
      Array.from(
        within(r!).getAllByRole('cell')[3]!.querySelectorAll('.MuiChip-label'),
        (chip) => chip.textContent,
      );
    expect(chips(part)).toEqual(['Approved', 'Partly captured']);
    expect(within(part!).getByText('Partly captured').closest('[title]')).toHaveAttribute(
      'title',
      'Part of the hold was captured; the rest was released to the customer.',
    );
    expect(chips(settled)).toEqual(['Approved', 'Partly captured']);
    expect(chips(partReturned)).toEqual(['Approved', 'Partly captured', 'Partly returned']);
    expect(chips(returned)).toEqual(['Approved', 'Partly captured', 'Returned']);
    // The void took the captured part back (the rest was released at the capture): no money
    // moved, so "Partly captured" beside "Voided" contradicted it (QA).
    expect(chips(voided)).toEqual(['Approved', 'Voided']);
    // The row says a whole capture is one: no need to open the order to learn it.
    expect(chips(whole)).toEqual(['Approved', 'Captured']);
    expect(within(whole!).getByText('Captured').closest('[title]')).toHaveAttribute(
      'title',
      'The whole hold was captured.',
    );
    expect(chips(wholeReturned)).toEqual(['Approved', 'Partly returned']);
  });

  it('when payouts are listed, then a paid one says Paid out (money out, not a sale’s approval) and one only checked says Not paid out; one on its way or declined adds nothing', () => {
    const rows = renderTable([
      row(1, { type: 'payout', stage: 'paid' }),
      row(2, { type: 'payout-check', stage: 'registered' }),
      row(3, { type: 'payout-check', stage: 'processing' }),
      row(4, { type: 'payout', status: 'declined', stage: null }),
      row(5, { type: 'sale' }),
    ]);
    const chips = (r: HTMLElement | undefined) =>
      within(r!)
        .queryAllByText(/^(Paid out|Not paid out)$/)
        .map((c) => c.textContent);
    expect(chips(rows[0])).toEqual(['Paid out']);
    expect(within(rows[0]!).getByText('Paid out').closest('[title]')).toHaveAttribute(
      'title',
      'Money out: the amount was sent to the payee.',
    );
    expect(chips(rows[1])).toEqual(['Not paid out']);
    expect(chips(rows[2])).toEqual([]);
    expect(chips(rows[3])).toEqual([]);
    expect(chips(rows[4])).toEqual([]);
  });

  it('when an order failed at the gateway, then its row says why under the status, as text, the whole reason in its title', () => {
    const reason = '<b>Processing error</b> at the issuer';
    const [failed, silent, approved] = renderTable([
      row(1, {
        status: 'error',
        stage: 'error',
        failure: { message: reason, code: 'PROCESSING_ERROR' },
      }),
      row(2, { status: 'declined', stage: 'declined', failure: null }),
      row(3),
    ]);
    const status = within(failed!).getAllByRole('cell')[3]!;
    const caption = within(status).getByTitle(`${reason} (code PROCESSING_ERROR)`);
    expect(caption).toHaveTextContent(`${reason} code PROCESSING_ERROR`);
    // Markup in the gateway's text is shown, never read as markup.
    expect(status.querySelector('b')).toBeNull();
    expect(within(status).getByText('Error')).toBeInTheDocument();
    expect(within(silent!).getAllByRole('cell')[3]).toHaveTextContent(/^Declined$/);
    expect(within(approved!).getAllByRole('cell')[3]).toHaveTextContent(/^Approved$/);
  });

  it('when a failed order’s reason is long, then only the reason is cut to two lines; its code is on a line of its own, never cut, at every width', () => {
    const reason = `Filtered by the risk rules (test card) ${'and then some more words '.repeat(8)}`;
    for (const width of [390, 800, 1280, 1600]) {
      screenWidth(width);
      const [failed, codeOnly] = renderTable([
        row(1, {
          status: 'filtered',
          stage: 'filtered',
          failure: { message: reason, code: 'RISK' },
        }),
        row(2, {
          status: 'declined',
          stage: 'declined',
          failure: { message: null, code: 'DECLINED' },
        }),
      ]);
      // The code is an element of its own, not the end of the reason's text.
      const code = within(failed!).getByText('code RISK');
      expect(code).toHaveTextContent(/^code RISK$/);
      // Nothing between the code and its row cuts it off.
      for (
        let node: HTMLElement | null = code;
        node !== null && node.tagName !== 'TD';
        node = node.parentElement
      ) {
        expect(getComputedStyle(node).overflow, `${String(width)} px`).not.toBe('hidden');
      }
      const message = within(failed!).getByText(reason.trim());
      expect(getComputedStyle(message).overflow).toBe('hidden');
      expect(message).not.toHaveTextContent('RISK');
      expect(within(codeOnly!).getByText('code DECLINED')).toBeInTheDocument();
      cleanup();
      vi.restoreAllMocks();
    }
  });

  it('when an order has follow-ups the gateway did not make, then its row names each, in the app’s words, with what did not happen; none when it has none or the row does not say', () => {
    const [returned, every, declined, none, older] = renderTable([
      row(1, { notMade: ['return'] }),
      row(2, { notMade: ['capture', 'return', 'void', 'card-ref', 'rebill'] }),
      row(3, { status: 'declined', stage: null, notMade: ['capture'] }),
      row(4, { notMade: [] }),
      row(5),
    ]);
    const chips = (r: HTMLElement | undefined) =>
      Array.from(
        within(r!).getAllByRole('cell')[3]!.querySelectorAll('.MuiChip-label'),
        (chip) => chip.textContent,
      );
    expect(chips(returned)).toEqual(['Approved', 'Return not made']);
    expect(within(returned!).getByText('Return not made').closest('[title]')).toHaveAttribute(
      'title',
      'Staff asked for a return in the last 7 days that the gateway did not make: nothing was returned to the customer. No one has made it again; the order’s page says more.',
    );
    expect(chips(every).slice(1)).toEqual([
      'Capture not made',
      'Return not made',
      'Void not made',
      'Card reference not made',
      'Rebill not made',
    ]);
    expect(within(every!).getByText('Card reference not made').closest('[title]')).toHaveAttribute(
      'title',
      expect.stringContaining('a card reference in the last 7 days'),
    );
    // whatever the order's own status
    expect(chips(declined)).toEqual(['Declined', 'Capture not made']);
    expect(within(none!).queryByText(/not made/)).toBeNull();
    expect(within(older!).queryByText(/not made/)).toBeNull();
  });

  it('when the screen is a phone’s (390 px), then the follow-ups not made are under the order with its status, in the first column, beside the amount', () => {
    screenWidth(390);
    const [phoneRow] = renderTable([
      row(1, {
        amount: '1234.56',
        stage: 'partially_returned',
        unknownOperations: ['return'],
        notMade: ['card-ref', 'void'],
      }),
    ]);
    const [order, amount] = within(phoneRow!).getAllByRole('cell');
    expect(within(order!).getByText('Card reference not made')).toBeInTheDocument();
    expect(within(order!).getByText('Void not made')).toBeInTheDocument();
    // The chips wrap onto lines of their own and are never wider than the column.
    const chip = within(order!).getByText('Card reference not made').closest('.MuiChip-root');
    expect(chip).toHaveStyle({ maxWidth: '100%' });
    expect(getComputedStyle(chip!.parentElement!).flexWrap).toBe('wrap');
    expect(amount).toHaveTextContent(/^€1,234\.56$/);
    vi.restoreAllMocks();
  });

  it('when the order’s own outcome is unknown, or the row does not say (a reply without the field), then no operation marker is added', () => {
    const [own, older] = renderTable([
      row(1, { status: 'unknown', stage: null, unknownOperations: ['sale'] }),
      row(2),
    ]);
    expect(within(own!).getByText('Unknown outcome')).toBeInTheDocument();
    expect(within(own!).queryByText(/outcome unknown/)).toBeNull();
    expect(within(older!).queryByText(/outcome unknown/)).toBeNull();
  });

  it('when the screen is a phone’s, then the order with its status under it, and its amount beside them, come first; on a wide screen the creation time leads', () => {
    const headers = () =>
      within(screen.getByRole('table', { name: 'Transactions' }))
        .getAllByRole('columnheader')
        .map((h) => h.textContent);
    const wide = render(
      <MemoryRouter>
        <TransactionsTable
          items={[row(1)]}
          busy={false}
          sort="created_desc"
          onSortChange={vi.fn()}
        />
      </MemoryRouter>,
    );
    expect(headers()).toEqual([
      'Created',
      'Order',
      'Type',
      'Status',
      'Amount',
      'Card',
      'Customer',
      'Endpoint',
    ]);
    wide.unmount();
    // a phone: every max-width query matches
    vi.spyOn(window, 'matchMedia').mockImplementation((media: string): MediaQueryList =>
      Object.assign(new EventTarget(), {
        media,
        matches: media.includes('max-width'),
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
      }),
    );
    // Side by side, the order, a 'Partly returned' chip and the amount were wider than a 390 px
    // screen: the amount ended off it. Stacked, the order and its status take one column.
    const [phoneRow] = renderTable([
      row(1, { amount: '1234.56', stage: 'partially_returned', unknownOperations: ['return'] }),
    ]);
    expect(headers()).toEqual([
      'Order and status',
      'Amount',
      'Created',
      'Type',
      'Card',
      'Customer',
      'Endpoint',
    ]);
    const cells = within(phoneRow!).getAllByRole('cell');
    expect(cells).toHaveLength(7);
    const [order, amount] = cells;
    expect(within(order!).getByRole('link', { name: 'Order 900001' })).toBeInTheDocument();
    expect(order).toHaveTextContent('shop-1');
    expect(within(order!).getByText('Approved')).toBeInTheDocument();
    expect(within(order!).getByText('Partly returned')).toBeInTheDocument();
    expect(within(order!).getByText('Return: outcome unknown')).toBeInTheDocument();
    // The amount is alone in the second column, on one line.
    expect(amount).toHaveTextContent(/^€1,234\.56$/);
    expect(within(amount!).getByText('€1,234.56')).toHaveStyle({ whiteSpace: 'nowrap' });
    vi.restoreAllMocks();
  });
  it('when the screen is a laptop’s (1280 px), then the type and endpoint are under the amount, so the customer fits beside it; from 1536 px they have columns of their own', () => {
    const headers = () =>
      within(screen.getByRole('table', { name: 'Transactions' }))
        .getAllByRole('columnheader')
        .map((h) => h.textContent);
    screenWidth(1280);
    const [laptopRow] = renderTable([
      row(1, { type: 'preauth', endpointId: '1002', currency: 'USD', amount: '80.00' }),
    ]);
    // Type and Endpoint as columns of their own pushed the customer off a 1280 px screen.
    expect(headers()).toEqual(['Created', 'Order', 'Status', 'Amount', 'Card', 'Customer']);
    const amount = within(laptopRow!).getAllByRole('cell')[3];
    expect(amount).toHaveTextContent(/^\$80\.00PreauthEndpoint 1002$/);
    cleanup();
    // A tablet (800 px): the status under the order and the card under the customer as well; as
    // columns of their own, the customer ended some 160 px off the screen.
    screenWidth(800);
    const [tabletRow] = renderTable([
      row(2, {
        type: 'preauth',
        stage: 'authorized',
        customerEmail: 'buyer@example.com',
        card: { bin: '411111', lastFour: '1111', brand: 'VISA', masked: '411111******1111' },
      }),
    ]);
    expect(headers()).toEqual(['Created', 'Order and status', 'Amount', 'Customer and card']);
    const [, order, , customer] = within(tabletRow!).getAllByRole('cell');
    expect(within(order!).getByRole('link', { name: 'Order 900002' })).toBeInTheDocument();
    expect(within(order!).getByText('Held')).toBeInTheDocument();
    expect(customer).toHaveTextContent(/^buyer@example\.com411111\*{6}1111 · VISA$/);
    cleanup();
    screenWidth(900);
    renderTable([row(1)]);
    expect(headers()).toEqual(['Created', 'Order', 'Status', 'Amount', 'Card', 'Customer']);
    cleanup();
    screenWidth(1536);
    renderTable([row(1)]);
    expect(headers()).toEqual([
      'Created',
      'Order',
      'Type',
      'Status',
      'Amount',
      'Card',
      'Customer',
      'Endpoint',
    ]);
    vi.restoreAllMocks();
  });
});
