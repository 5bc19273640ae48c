import Box from '@mui/material/Box';
import TextField from '@mui/material/TextField';
import type { EndpointChoice } from '@paydesk/shared/api';
import { useContext, type ReactNode } from 'react';
import type { FieldError, UseFormRegisterReturn } from 'react-hook-form';
import { SessionContext } from '../features/auth/components/session-context';
import { fieldHelp } from '../lib/field-help';
import { currencyRefusal } from '../lib/form-errors';
import { isAmountRefusal, localAmountExample } from '../lib/money';
import { isOrderLimitRefusal } from '../lib/order-limit';

/**
 * The amount and currency of a react-hook-form money form, side by side (amount wider), with the
 * shared rules' words. `children` are more fields in the same grid (e.g. a subscription's period).
 * The amount stays text: the form's schema (AmountInputSchema) turns it into a decimal string,
 * never a float, reading the locale's decimal mark ('12,50' in de-DE) as well as a point. Its
 * refusals (thousands separators, a decimal comma where the locale uses a point, above the largest
 * amount, above the per-order limit) are said as they are. A currency is
 * refused for the rule it broke: its form, no cents (JPY), or no real currency (XXX).
 */
export function MoneyFields({
  amount,
  currency,
  amountError,
  currencyError,
  amountLabel = 'Amount',
  example,
  autoFocus,
  disabled,
  children,
}: {
  amount: UseFormRegisterReturn;
  currency: UseFormRegisterReturn;
  amountError: FieldError | undefined;
  currencyError: FieldError | undefined;
  amountLabel?: string;
  /** a typical amount for this form, e.g. '12.50' (shown as the hint and in the rule) */
  example: string;
  autoFocus?: boolean;
  disabled?: boolean;
  children?: ReactNode;
}) {
  const shown = localAmountExample(example);
  const taken = takenCurrencies(useContext(SessionContext)?.settings?.endpoints);
  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '2fr 1fr' } }}>
      <TextField
        label={amountLabel}
        required
        autoFocus={autoFocus}
        disabled={disabled}
        error={amountError !== undefined}
        helperText={
          amountError?.message !== undefined &&
          (isAmountRefusal(amountError.message) || isOrderLimitRefusal(amountError.message))
            ? amountError.message
            : fieldHelp(
                amountError,
                `An amount above zero with at most 2 decimals, e.g. ${shown}.`,
                `e.g. ${shown}`,
              )
        }
        slotProps={{ htmlInput: { inputMode: 'decimal' } }}
        {...amount}
      />
      <TextField
        label="Currency"
        required
        disabled={disabled}
        error={currencyError !== undefined}
        helperText={
          saidWords(currencyError) ??
          fieldHelp(
            currencyError,
            currencyRefusal(currencyError?.message) ?? 'A 3-letter ISO code, e.g. EUR.',
            taken === undefined ? 'ISO code' : `ISO code: ${taken}`,
          )
        }
        {...currency}
      />
      {children}
    </Box>
  );
}

/**
 * The type of a field error whose message is already a sentence written for staff (a form's own
 * check that knows more than the shared rules, e.g. which endpoint a card reference was made on):
 * the money fields and the endpoint field show it as it is, as they show the server's words.
 */
export const SAID_ERROR = 'said';

/** The error's own words when it is the server's or a form's own sentence (`SAID_ERROR`). */
function saidWords(error: FieldError | undefined): string | undefined {
  return (error?.type === 'server' || error?.type === SAID_ERROR) && error.message
    ? error.message
    : undefined;
}

/**
 * The currencies the configured endpoints take, "EUR or USD", for the currency field's hint (QA:
 * GBP was refused only once sent); undefined when not known (none said, or one endpoint without
 * its currencies, which may take any).
 */
function takenCurrencies(endpoints: readonly EndpointChoice[] | undefined): string | undefined {
  if (endpoints === undefined || endpoints.length === 0) return undefined;
  const codes = new Set<string>();
  for (const choice of endpoints) {
    if (choice.currencies === null || choice.currencies.length === 0) return undefined;
    for (const code of choice.currencies) codes.add(code);
  }
  const sorted = [...codes].sort();
  return sorted.length === 1
    ? sorted.join('')
    : `${sorted.slice(0, -1).join(', ')} or ${sorted.at(-1) ?? ''}`;
}

/** What an endpoint or group takes, in words: "EUR, USD" or "currencies not configured". */
export function currenciesText(choice: EndpointChoice): string {
  return choice.currencies === null || choice.currencies.length === 0
    ? 'currencies not configured'
    : choice.currencies.join(', ');
}

/**
 * An option of the endpoint choice: "1001 · EUR", "Group 2001 · EUR, USD", "Group 2002 ·
 * currencies not configured"; marked when its currencies are known and `currency` (the form's, once
 * it is a 3-letter code) is not among them, so that a mismatch is seen before sending.
 */
export function endpointChoiceText(choice: EndpointChoice, currency?: string): string {
  const name = choice.kind === 'group' ? `Group ${choice.id}` : choice.id;
  const code = currency?.trim().toUpperCase() ?? '';
  const refused =
    /^[A-Z]{3}$/.test(code) && choice.currencies !== null && !choice.currencies.includes(code);
  return `${name} · ${currenciesText(choice)}${refused ? ` (does not take ${code})` : ''}`;
}

/**
 * What the empty endpoint choice means for an order without a currency (an account verification
 * form): the BFF's `resolveEndpoint` then takes the first configured endpoint (not group), else the
 * first entry (QA: "Default for the currency" where there is none).
 */
export function firstEndpointChoice(endpoints: readonly EndpointChoice[]): string | undefined {
  const chosen = endpoints.find((e) => e.kind === 'endpoint') ?? endpoints[0];
  if (chosen === undefined) return undefined;
  return `Default: ${chosen.kind === 'group' ? `group ${chosen.id}` : chosen.id}, the first configured`;
}

/**
 * The optional endpoint id of a react-hook-form form: empty means the currency's default (or what
 * `defaultChoice` says it means in this form). When the session says which endpoints and groups
 * are configured it is a choice among them with the currencies each takes; from an older BFF
 * instance, which does not say, it stays a free-text field of digits. The choice is a native
 * select, so that `register` works on it as on a text field.
 */
export function EndpointField({
  field,
  error,
  disabled,
  currency,
  defaultChoice,
  noCurrency = false,
}: {
  field: UseFormRegisterReturn;
  error: FieldError | undefined;
  disabled?: boolean;
  /** the form's currency: the choices that do not take it are marked */
  currency?: string;
  /** what the empty choice means here, e.g. "The card reference’s endpoint (1001)" */
  defaultChoice?: string;
  /** the order has no currency (no amount): the empty choice is the first configured endpoint */
  noCurrency?: boolean;
}) {
  // The context rather than useSession(): a form shown without a session still works.
  const endpoints = useContext(SessionContext)?.settings?.endpoints;
  const emptyChoice =
    defaultChoice ??
    (noCurrency && endpoints !== undefined ? firstEndpointChoice(endpoints) : undefined);
  if (endpoints === undefined || endpoints.length === 0) {
    return (
      <TextField
        label="Endpoint (optional)"
        disabled={disabled}
        error={error !== undefined}
        helperText={endpointHelp(
          error,
          'An endpoint id is digits only.',
          noCurrency
            ? 'Leave empty for the first configured endpoint.'
            : defaultChoice === undefined
              ? 'Leave empty for the currency’s default endpoint.'
              : `Leave empty for ${lowerFirst(defaultChoice)}.`,
        )}
        slotProps={{ htmlInput: { inputMode: 'numeric' } }}
        {...field}
      />
    );
  }
  return (
    <TextField
      select
      label="Endpoint"
      disabled={disabled}
      error={error !== undefined}
      helperText={endpointHelp(
        error,
        'Choose one of the configured endpoints, or the default.',
        'The endpoint or endpoint group that takes the order, with the currencies each takes.',
      )}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
      {...field}
    >
      <option value="">{emptyChoice ?? 'Default for the currency'}</option>
      {endpoints.map((choice) => (
        <option key={`${choice.kind} ${choice.id}`} value={choice.id}>
          {endpointChoiceText(choice, currency)}
        </option>
      ))}
    </TextField>
  );
}

/**
 * What the endpoint field says beneath it, in either shape: the server's or the form's own words
 * for its error as they are, else `rule` for an error, else `hint`.
 */
function endpointHelp(
  error: FieldError | undefined,
  rule: string,
  hint: string,
): string | undefined {
  return saidWords(error) ?? fieldHelp(error, rule, hint);
}

function lowerFirst(text: string): string {
  return `${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}
