import { render, screen, within } from '@testing-library/react';
import axe from 'axe-core';
import type { Operation } from '@paydesk/shared/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OperationsList } from './operations-list';
import { screenWidth } from '../../../test/screen-width';

const operation = (n: number, overrides: Partial<Operation>): Operation => ({
  id: `op-${String(n)}`,
  kind: 'sale',
  origin: 'gateway',
  state: 'approved',
  amount: '1500.00',
  gatewaySerial: `serial-${String(n)}`,
  requestedBy: null,
  reasonCode: null,
  comment: null,
  errorCode: null,
  errorMessage: null,
  unanswered: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
  ...overrides,
});

// A sale, a partial return with its reason, a return refused by the gateway, and a void.
const OPERATIONS = [
  operation(1, {}),
  operation(2, {
    kind: 'return',
    origin: 'paydesk',
    amount: '1234.56',
    requestedBy: 'finance@example.com',
    reasonCode: 'customer_request',
    comment: 'Parcel came back',
  }),
  operation(3, {
    kind: 'return',
    origin: 'paydesk',
    state: 'declined',
    amount: '10.00',
    requestedBy: 'finance@example.com',
    errorCode: '301',
    errorMessage: 'Amount exceeds the returnable amount',
  }),
  operation(4, { kind: 'void', origin: 'paydesk', amount: null, requestedBy: 'ops@example.com' }),
];

function renderList() {
  render(<OperationsList operations={OPERATIONS} currency="EUR" voided="1500.00" />);
}

/** An item's labelled values, as a screen reader pairs them: label → text. */
function factsOf(item: HTMLElement): Record<string, string> {
  const terms = within(item).getAllByRole('term');
  const values = within(item).getAllByRole('definition');
  expect(values).toHaveLength(terms.length);
  return Object.fromEntries(
    terms.map((term, i) => [term.textContent, values[i]?.textContent ?? '']),
  );
}

describe('the operations of an order', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('when the screen is a phone’s (390 px), then each operation is one item with its facts labelled, and nothing scrolls sideways', () => {
    screenWidth(390);
    renderList();
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.queryByRole('region', { name: /scrolls sideways/ })).toBeNull();
    const items = within(screen.getByRole('list', { name: 'Operations' })).getAllByRole('listitem');
    expect(items).toHaveLength(4);
    const [sale, partReturn, refused, voided] = items;

    expect(sale).toHaveTextContent(/^Sale/);
    expect(factsOf(sale!)).toMatchObject({
      Outcome: 'Approved',
      Amount: '€1,500.00',
      By: 'gateway',
      Reason: '—',
    });

    expect(partReturn).toHaveTextContent(/^Return/);
    expect(factsOf(partReturn!)).toMatchObject({
      Outcome: 'Approved',
      Amount: '€1,234.56',
      By: 'finance@example.com',
      Reason: 'Customer request: Parcel came back',
    });
    // The amount never breaks or wraps out of sight.
    expect(within(partReturn!).getByText('€1,234.56')).toHaveStyle({ whiteSpace: 'nowrap' });

    expect(factsOf(refused!)).toMatchObject({
      Outcome: 'Declined301: Amount exceeds the returnable amount',
      Amount: '€10.00',
    });

    expect(voided).toHaveTextContent(/^Void/);
    // A void names no amount: what it took back is shown.
    expect(factsOf(voided!)).toMatchObject({ Outcome: 'Approved', Amount: '€1,500.00' });

    // Every item says when.
    for (const item of items) {
      expect(factsOf(item).When).toMatch(/Nov 25, 2026/);
    }
  });

  it('when the screen is a phone’s, then axe finds no serious violations in the items', async () => {
    // axe probes icon fonts with a canvas, which jsdom lacks; without one that check is skipped.
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    screenWidth(390);
    renderList();
    const result = await axe.run(document.body, {
      resultTypes: ['violations'],
      rules: { 'color-contrast': { enabled: false } },
    });
    expect(
      result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id),
    ).toEqual([]);
  });

  it('when the screen is 600 px or wider, then the operations are a table with its column headers in a sideways-scrolling region', () => {
    screenWidth(600);
    renderList();
    expect(screen.queryByRole('list', { name: 'Operations' })).toBeNull();
    const region = screen.getByRole('region', {
      name: 'Operations (scrolls sideways when wider than the screen)',
    });
    const table = within(region).getByRole('table', { name: 'Operations' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Operation', 'Outcome', 'Amount', 'By', 'Reason', 'When']);
    const [, ...rows] = within(table).getAllByRole('row');
    expect(rows).toHaveLength(4);
    expect(
      within(rows[1]!)
        .getAllByRole('cell')
        .slice(0, 4)
        .map((cell) => cell.textContent),
    ).toEqual(['Return', 'Approved', '€1,234.56', 'finance@example.com']);
  });

  it('when a follow-up was not made by the gateway, then its outcome reads Not made, the word the order page and the filters use', () => {
    screenWidth(600);
    render(
      <OperationsList
        operations={[
          operation(5, {
            kind: 'return',
            origin: 'paydesk',
            state: 'not_applied',
            amount: '5.55',
            requestedBy: 'finance@example.com',
          }),
        ]}
        currency="EUR"
        voided={null}
      />,
    );
    const table = screen.getByRole('table', { name: 'Operations' });
    const [, row] = within(table).getAllByRole('row');
    expect(
      within(row!)
        .getAllByRole('cell')
        .slice(0, 3)
        .map((cell) => cell.textContent),
    ).toEqual(['Return', 'Not made', '€5.55']);
  });

  it('when a payout’s payout-check and payout-pay were learned from the gateway, then they are credited to the ops users who prepared and approved it, not to the gateway', () => {
    const staff = { preparedBy: 'ops-a@example.com', approvedBy: 'ops-b@example.com' };
    const payout = [
      operation(11, { kind: 'payout-check', amount: '150.00', payoutStaff: staff }),
      operation(12, { kind: 'payout-pay', amount: '150.00', payoutStaff: staff }),
      operation(13, { kind: 'payout', amount: '42.00', payoutStaff: staff }),
      // a payout made elsewhere: Paydesk knows no one behind it
      operation(14, { kind: 'payout', amount: '7.00' }),
    ];
    const expected = [
      'Paydesk (prepared by ops-a@example.com)',
      'Paydesk (approved by ops-b@example.com)',
      'Paydesk (prepared by ops-a@example.com, approved by ops-b@example.com)',
      'gateway',
    ];
    screenWidth(600);
    const { unmount } = render(<OperationsList operations={payout} currency="EUR" />);
    const [, ...rows] = within(screen.getByRole('table', { name: 'Operations' })).getAllByRole(
      'row',
    );
    expect(rows.map((row) => within(row).getAllByRole('cell')[3]?.textContent)).toEqual(expected);
    unmount();

    screenWidth(390);
    render(<OperationsList operations={payout} currency="EUR" />);
    const items = within(screen.getByRole('list', { name: 'Operations' })).getAllByRole('listitem');
    expect(items.map((item) => factsOf(item).By)).toEqual(expected);
  });
});
