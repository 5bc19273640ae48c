import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { describeTransactionQuery } from './query-summary';
import { TransactionFilters } from './transaction-filters';

describe('transaction filters', () => {
  it('when an amount bound is above the largest the API takes, then the field says the maximum, not the usual rule, and nothing is applied', async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<TransactionFilters value={{}} created={undefined} appliedKey="" onApply={onApply} />);
    const from = screen.getByLabelText('Amount from');
    await user.type(from, '99999999999999999');
    expect(from).toHaveAccessibleDescription('At most 9999999999999.99.');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).not.toHaveBeenCalled();
    await user.clear(from);
    await user.type(from, '12.345');
    expect(from).toHaveAccessibleDescription(
      'An amount with at most 2 decimals, like 10 or 19.99.',
    );
    await user.clear(from);
    await user.type(from, '9999999999999.99');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).toHaveBeenCalledWith({ amountMin: '9999999999999.99' }, undefined);
  });

  it('when a whole card number is typed in Search, then it is refused beside the field and never applied (so never in the address); its last four are searched', async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<TransactionFilters value={{}} created={undefined} appliedKey="" onApply={onApply} />);
    const search = screen.getByLabelText('Search');
    expect(search).toHaveAttribute('placeholder', 'orderid, client order id, e-mail or last four');
    await user.type(search, '4111 1111 1111 1111');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(search).toHaveAccessibleDescription(
      'Not a whole card number: search by its last four digits or the masked card (411111******1111).',
    );
    expect(onApply).not.toHaveBeenCalled();
    await user.clear(search);
    await user.type(search, '1111');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).toHaveBeenCalledWith({ q: '1111' }, undefined);
  });

  it('when a draft with errors was never applied, then Clear empties the form and its errors, and applies no filter', async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<TransactionFilters value={{}} created={undefined} appliedKey="" onApply={onApply} />);
    const from = screen.getByLabelText('Created from (your time)');
    const to = screen.getByLabelText('Created before (your time)');
    await user.type(from, '2026-11-25T12:00');
    await user.type(to, '2026-11-24T12:00');
    await user.type(screen.getByLabelText('Currency'), 'euro');
    expect(screen.getByText('Must be after “Created from”.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(from).toHaveValue('');
    expect(to).toHaveValue('');
    expect(screen.getByLabelText('Currency')).toHaveValue('');
    expect(screen.getByLabelText('Currency')).not.toHaveAccessibleDescription();
    expect(screen.queryByText('Must be after “Created from”.')).toBeNull();
    expect(onApply).toHaveBeenLastCalledWith({}, undefined);
    // Applying the empty form now applies no filter, with no error shown.
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).toHaveBeenLastCalledWith({}, undefined);
    expect(screen.queryByRole('textbox', { description: /./ })).toBeNull();
  });

  it('when the currency is refused, then the field says the rule it broke: no cents, no real currency, or its form', async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<TransactionFilters value={{}} created={undefined} appliedKey="" onApply={onApply} />);
    const currency = screen.getByLabelText('Currency');
    await user.type(currency, 'JPY');
    expect(currency).toHaveAccessibleDescription(
      'A currency with 2 decimals (cents), e.g. EUR: the gateway counts amounts in cents.',
    );
    await user.clear(currency);
    await user.type(currency, 'XXX');
    expect(currency).toHaveAccessibleDescription(
      'Not a real currency: an ISO code in use, e.g. EUR.',
    );
    await user.clear(currency);
    await user.type(currency, 'EU');
    expect(currency).toHaveAccessibleDescription('A three-letter code, e.g. EUR.');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).not.toHaveBeenCalled();
  });
});

describe('the unknown outcome status', () => {
  it('when Unknown outcome is chosen, then its label and help say it also takes orders with a follow-up whose outcome is unknown, and it applies status=unknown', async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<TransactionFilters value={{}} created={undefined} appliedKey="" onApply={onApply} />);
    const status = screen.getByLabelText('Status');
    expect(status).not.toHaveAccessibleDescription();
    await user.selectOptions(
      status,
      screen.getByRole('option', { name: 'Unknown outcome (order or follow-up)' }),
    );
    expect(status).toHaveAccessibleDescription(
      'Orders whose outcome is unknown, and orders with a capture, return, void or card reference whose outcome is unknown.',
    );
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).toHaveBeenCalledWith({ status: 'unknown' }, undefined);
  });

  it('when a saved view filters by an unknown outcome, then its description names it as the form does', () => {
    expect(describeTransactionQuery('status=unknown')).toBe(
      'Status Unknown outcome (order or follow-up) · newest first',
    );
    expect(describeTransactionQuery('status=approved')).toBe('Status Approved · newest first');
  });

  it('when a saved view lists follow-ups the gateway did not make, then its description says so', () => {
    expect(describeTransactionQuery('notMade=true')).toBe(
      'Follow-up not made by the gateway (7 days) · newest first',
    );
  });
});
