// Large amounts: an order Paydesk creates (a rebill, a subscription's charges, a payment link, a
// payout) above a configured amount must be confirmed, so that a slipped key (an extra zero) is
// caught before the gateway moves money. The BFF sets the thresholds at start-up
// (`LARGE_AMOUNT_CONFIRM_ABOVE`), gives them to the SPA in the session's settings, and refuses such a
// request without `confirmLargeAmount: true` (400 VALIDATION_FAILED naming that field, rule
// `large_amount`), before anything is recorded or sent.
import type { z } from 'zod';
import {
  AmountsPerCurrencySchema,
  amountForCurrency,
  isAboveAmountForCurrency,
} from './amounts-per-currency.js';

/** The body field a large amount needs: `true`, the person confirmed the amount they typed. */
export const LARGE_AMOUNT_FIELD = 'confirmLargeAmount';
/** The rule named by the refusal of an unconfirmed large amount. */
export const LARGE_AMOUNT_RULE = 'large_amount';

/** The thresholds: an amount strictly above its currency's (else above `default`) needs confirming. */
export const LargeAmountSettingsSchema = AmountsPerCurrencySchema;
export type LargeAmountSettings = z.infer<typeof LargeAmountSettingsSchema>;

/** The threshold for `currency` (decimal text), or null when amounts in it need no confirmation. */
export const largeAmountThreshold: (
  settings: LargeAmountSettings | undefined,
  currency: string,
) => string | null = amountForCurrency;

/**
 * Whether `amount` in `currency` is above its threshold and so needs `confirmLargeAmount: true`.
 * False for text that is not an amount (the amount's own rule refuses it).
 */
export const needsLargeAmountConfirmation: (
  settings: LargeAmountSettings | undefined,
  amount: string,
  currency: string,
) => boolean = isAboveAmountForCurrency;
