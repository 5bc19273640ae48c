import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { TransactionSummary } from '@paydesk/shared/api';
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

  it('when the order’s own outcome is unknown, or the row does not say (a reply without the field), then no operation marker is added', () => {
    const [own, older] = renderTable([
      row(1, { status: 'unknown', stage: null, unknownOperations: ['sale'] }),
      row(2),
    ]);
    expect(within(own!).getByText('Unknown outcome')).toBeInTheDocument();
    expect(within(own!).queryByText(/outcome unknown/)).toBeNull();
    expect(within(older!).queryByText(/outcome unknown/)).toBeNull();
  });

  it('when the screen is a phone’s, then the order, its status and its amount come first; on a wide screen the creation time leads', () => {
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
    expect(headers().slice(0, 5)).toEqual(['Created', 'Order', 'Type', 'Status', 'Amount']);
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
    const [phoneRow] = renderTable([row(1, { amount: '12.34' })]);
    expect(headers().slice(0, 4)).toEqual(['Order', 'Status', 'Amount', 'Created']);
    const cells = within(phoneRow!).getAllByRole('cell');
    expect(cells[1]).toHaveTextContent('Approved');
    expect(cells[2]).toHaveTextContent('€12.34');
    vi.restoreAllMocks();
  });
});
