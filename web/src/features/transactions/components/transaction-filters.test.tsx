import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { TransactionFilters } from './transaction-filters';

describe('transaction filters', () => {
  it('when an amount bound is above the largest the API takes, then the field says the maximum, not the usual rule, and nothing is applied', async () => {
    const user = userEvent.setup();
    const onApply = vi.fn();
    render(<TransactionFilters value={{}} created={undefined} onApply={onApply} />);
    const from = screen.getByLabelText('Amount from');
    await user.type(from, '99999999999999999');
    expect(from).toHaveAccessibleDescription('At most 9999999999999.99.');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).not.toHaveBeenCalled();
    await user.clear(from);
    await user.type(from, '12.345');
    expect(from).toHaveAccessibleDescription('An amount like 10 or 19.99.');
    await user.clear(from);
    await user.type(from, '9999999999999.99');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(onApply).toHaveBeenCalledWith({ amountMin: '9999999999999.99' }, undefined);
  });
});
