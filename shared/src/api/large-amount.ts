// Large amounts: an order Paydesk creates (a rebill, a subscription's charges, a payment link, a
// payout) above a configured amount must be confirmed, so that a slipped key (an extra zero) is
// caught before the gateway moves money. The BFF sets the thresholds at start-up
// (`LARGE_AMOUNT_CONFIRM_ABOVE`), gives them to the SPA in the session's settings, and refuses such a
// request without `confirmLargeAmount: true` (400 VALIDATION_FAILED naming that field, rule
// `large_amount`), before anything is recorded or sent.
import { z } from 'zod';
import { toMinorUnits } from '../protocol/money.js';
import { AmountSchema } from './payments.js';

/** The body field a large amount needs: `true`, the person confirmed the amount they typed. */
export const LARGE_AMOUNT_FIELD = 'confirmLargeAmount';
/** The rule named by the refusal of an unconfirmed large amount. */
export const LARGE_AMOUNT_RULE = 'large_amount';

/**
 * The thresholds: an amount strictly above its currency's (else above `default`) needs confirming.
 * Amounts are decimal text (`10000.00`), as everywhere in the API.
 */
export const LargeAmountSettingsSchema = z.object({
  /** for a currency not in `currencies`; null: no confirmation for those */
  default: AmountSchema.nullable(),
  /** per ISO 4217 code (upper case) */
  currencies: z.record(z.string().regex(/^[A-Z]{3}$/), AmountSchema),
});
export type LargeAmountSettings = z.infer<typeof LargeAmountSettingsSchema>;

/** The threshold for `currency` (decimal text), or null when amounts in it need no confirmation. */
export function largeAmountThreshold(
  settings: LargeAmountSettings | undefined,
  currency: string,
): string | null {
  if (settings === undefined) return null;
  return settings.currencies[currency.toUpperCase()] ?? settings.default;
}

/**
 * Whether `amount` in `currency` is above its threshold and so needs `confirmLargeAmount: true`.
 * False for text that is not an amount (the amount's own rule refuses it).
 */
export function needsLargeAmountConfirmation(
  settings: LargeAmountSettings | undefined,
  amount: string,
  currency: string,
): boolean {
  const threshold = largeAmountThreshold(settings, currency);
  if (threshold === null || !AmountSchema.safeParse(amount).success) return false;
  return toMinorUnits(amount.trim()) > toMinorUnits(threshold);
}
