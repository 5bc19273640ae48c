import { zodResolver } from '@hookform/resolvers/zod';
import { CurrencySchema, type EndpointChoice, type SessionResponse } from '@paydesk/shared/api';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useForm } from 'react-hook-form';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionContext } from '../features/auth/components/session-context';
import { makeUser } from '../test/fake-bff';
import { EndpointField, MoneyFields } from './money-fields';

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

const ENDPOINTS: EndpointChoice[] = [
  { id: '1001', kind: 'endpoint', currencies: ['EUR'] },
  { id: '2001', kind: 'group', currencies: ['EUR', 'USD'] },
  { id: '2002', kind: 'group', currencies: null },
];

/** A session whose settings say `endpoints` (undefined: not said, as an older BFF instance). */
function sessionWith(endpoints: EndpointChoice[] | undefined): SessionResponse {
  return {
    user: makeUser({ email: 'me@example.com', roles: ['finance'] }),
    idleExpiresAt: '2026-11-20T10:00:00.000Z',
    absoluteExpiresAt: '2026-11-20T20:00:00.000Z',
    previousSession: null,
    settings: {
      payoutHoldMaxAgeMs: 60_000,
      ...(endpoints === undefined ? {} : { endpoints }),
    },
  };
}

/** An endpoint form as the dialogs build one; Send shows what the form would send. */
function EndpointForm({ currency }: { currency?: string }) {
  const { register, handleSubmit } = useForm<{ endpointId: string }>({
    defaultValues: { endpointId: '' },
  });
  return (
    <form
      onSubmit={(event) =>
        void handleSubmit((values) => {
          document.title = `sent ${values.endpointId === '' ? '(default)' : values.endpointId}`;
        })(event)
      }
      noValidate
    >
      <EndpointField field={register('endpointId')} error={undefined} currency={currency} />
      <button type="submit">Send</button>
    </form>
  );
}

describe('currency field hint', () => {
  it('when every configured endpoint says its currencies, then the currency field’s hint names them, before anything is sent (QA: GBP was refused only once sent); when one does not, the hint is the plain one', () => {
    const known = ENDPOINTS.filter((choice) => choice.currencies !== null);
    const page = render(
      <SessionContext.Provider value={sessionWith(known)}>
        <MoneyForm />
      </SessionContext.Provider>,
    );
    expect(screen.getByLabelText(/Currency/)).toHaveAccessibleDescription('ISO code: EUR or USD');
    page.unmount();
    const single = render(
      <SessionContext.Provider
        value={sessionWith([{ id: '1001', kind: 'endpoint', currencies: ['EUR'] }])}
      >
        <MoneyForm />
      </SessionContext.Provider>,
    );
    expect(screen.getByLabelText(/Currency/)).toHaveAccessibleDescription('ISO code: EUR');
    single.unmount();
    render(
      <SessionContext.Provider value={sessionWith(ENDPOINTS)}>
        <MoneyForm />
      </SessionContext.Provider>,
    );
    expect(screen.getByLabelText(/Currency/)).toHaveAccessibleDescription('ISO code');
  });
});

describe('endpoint field', () => {
  it('when the session says the configured endpoints, then it is a choice of them with the currencies each takes, the currency’s default first', async () => {
    const user = userEvent.setup();
    render(
      <SessionContext.Provider value={sessionWith(ENDPOINTS)}>
        <EndpointForm />
      </SessionContext.Provider>,
    );
    const endpoint = screen.getByLabelText('Endpoint');
    expect(endpoint.tagName).toBe('SELECT');
    expect(
      screen
        .getAllByRole('option')
        .map((option) => [option.textContent, option.getAttribute('value')]),
    ).toEqual([
      ['Default for the currency', ''],
      ['1001 · EUR', '1001'],
      ['Group 2001 · EUR, USD', '2001'],
      ['Group 2002 · currencies not configured', '2002'],
    ]);
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(document.title).toBe('sent (default)');
    await user.selectOptions(endpoint, 'Group 2001 · EUR, USD');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(document.title).toBe('sent 2001');
  });

  it('when the form’s currency is given, then the choices that do not take it are marked', () => {
    render(
      <SessionContext.Provider value={sessionWith(ENDPOINTS)}>
        <EndpointForm currency="usd" />
      </SessionContext.Provider>,
    );
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
      'Default for the currency',
      '1001 · EUR (does not take USD)',
      'Group 2001 · EUR, USD',
      'Group 2002 · currencies not configured',
    ]);
  });

  it('when the session does not say the endpoints (an older BFF) or there is none, then the endpoint is typed as digits', async () => {
    for (const endpoints of [undefined, []]) {
      const user = userEvent.setup();
      const { unmount } = render(
        <SessionContext.Provider value={sessionWith(endpoints)}>
          <EndpointForm />
        </SessionContext.Provider>,
      );
      const endpoint = screen.getByLabelText('Endpoint (optional)');
      expect(endpoint.tagName).toBe('INPUT');
      expect(endpoint).toHaveAccessibleDescription(
        'Leave empty for the currency’s default endpoint.',
      );
      await user.type(endpoint, '1001');
      await user.click(screen.getByRole('button', { name: 'Send' }));
      expect(document.title).toBe('sent 1001');
      unmount();
    }
  });
});
