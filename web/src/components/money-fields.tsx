import Box from '@mui/material/Box';
import TextField from '@mui/material/TextField';
import type { ReactNode } from 'react';
import type { FieldError, UseFormRegisterReturn } from 'react-hook-form';
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
        helperText={fieldHelp(
          currencyError,
          currencyRefusal(currencyError?.message) ?? 'A 3-letter ISO code, e.g. EUR.',
          'ISO code',
        )}
        {...currency}
      />
      {children}
    </Box>
  );
}

/** The optional endpoint id of a react-hook-form form: empty means the currency's default. */
export function EndpointField({
  field,
  error,
  disabled,
}: {
  field: UseFormRegisterReturn;
  error: FieldError | undefined;
  disabled?: boolean;
}) {
  return (
    <TextField
      label="Endpoint (optional)"
      disabled={disabled}
      error={error !== undefined}
      helperText={fieldHelp(
        error,
        'An endpoint id is digits only.',
        'Leave empty for the currency’s default endpoint.',
      )}
      slotProps={{ htmlInput: { inputMode: 'numeric' } }}
      {...field}
    />
  );
}
