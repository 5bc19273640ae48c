// An amount per currency with a default for the others: the form of both the large-amount
// thresholds (`LARGE_AMOUNT_CONFIRM_ABOVE`) and the per-order limits (`ORDER_AMOUNT_LIMIT`), and
// the one comparison both make, strictly above.
import { z } from 'zod';
import { toMinorUnits } from '../protocol/money.js';
import { AmountSchema } from './payments.js';

/** Amounts are decimal text (`10000.00`), as everywhere in the API. */
export const AmountsPerCurrencySchema = z.object({
  /** for a currency not in `currencies`; null: none for those */
  default: AmountSchema.nullable(),
  /** per ISO 4217 code (upper case) */
  currencies: z.record(z.string().regex(/^[A-Z]{3}$/), AmountSchema),
});
export type AmountsPerCurrency = z.infer<typeof AmountsPerCurrencySchema>;

/** The amount for `currency` (decimal text), or null when it has none (or none are known). */
export function amountForCurrency(
  amounts: AmountsPerCurrency | undefined,
  currency: string,
): string | null {
  if (amounts === undefined) return null;
  return amounts.currencies[currency.toUpperCase()] ?? amounts.default;
}

/**
 * Whether `amount` in `currency` is strictly above its currency's amount. False for text that is
 * not an amount (the amount's own rule refuses it) and when the currency has none.
 */
export function isAboveAmountForCurrency(
  amounts: AmountsPerCurrency | undefined,
  amount: string,
  currency: string,
): boolean {
  const bound = amountForCurrency(amounts, currency);
  if (bound === null || !AmountSchema.safeParse(amount).success) return false;
  return toMinorUnits(amount.trim()) > toMinorUnits(bound);
}
