import { zodResolver } from '@hookform/resolvers/zod';
import { CurrencySchema } from '@paydesk/shared/api';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useForm } from 'react-hook-form';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MoneyFields } from './money-fields';

// A money form as the dialogs build one: the currency checked with the shared rule itself.
const Schema = z.object({ amount: z.string(), currency: CurrencySchema });

function MoneyForm() {
  const { register, handleSubmit, formState } = useForm<
    z.input<typeof Schema>,
    unknown,
    z.output<typeof Schema>
  >({ resolver: zodResolver(Schema), defaultValues: { amount: '12.50', currency: '' } });
  return (
    <form onSubmit={(event) => void handleSubmit(() => undefined)(event)} noValidate>
      <MoneyFields
        amount={register('amount')}
        currency={register('currency')}
        amountError={formState.errors.amount}
        currencyError={formState.errors.currency}
        example="12.50"
      />
      <button type="submit">Send</button>
    </form>
  );
}

describe('money fields', () => {
  it('when a currency is refused, then the field says the rule it broke: its form, no cents, or no real currency', async () => {
    const user = userEvent.setup();
    render(<MoneyForm />);
    const currency = screen.getByLabelText(/Currency/);
    const refusalOf = async (code: string) => {
      await user.clear(currency);
      await user.type(currency, code);
      await user.click(screen.getByRole('button', { name: 'Send' }));
      return currency;
    };
    expect(await refusalOf('euro')).toHaveAccessibleDescription('A 3-letter ISO code, e.g. EUR.');
    expect(await refusalOf('JPY')).toHaveAccessibleDescription(
      'A currency with 2 decimals (cents), e.g. EUR: the gateway counts amounts in cents.',
    );
    expect(await refusalOf('XXX')).toHaveAccessibleDescription(
      'Not a real currency: an ISO code in use, e.g. EUR.',
    );
    expect(await refusalOf('KWD')).toHaveAccessibleDescription(
      'A currency with 2 decimals (cents), e.g. EUR: the gateway counts amounts in cents.',
    );
    await refusalOf('usd');
    expect(currency).toHaveAccessibleDescription('ISO code');
  });
});
