// The per-order ceiling: an order Paydesk creates with an amount (a rebill, a subscription's
// charges, a payment link, a payout) above its currency's limit is refused outright, confirmed or
// not. The large-amount confirmation (large-amount.ts) catches a slipped key someone can still
// confirm by mistake; the limit is what no one can type past. The BFF sets the limits at start-up
// (`ORDER_AMOUNT_LIMIT`), gives them to the SPA in the session's settings, and refuses such a
// request with 400 VALIDATION_FAILED naming `amount`, rule `too_big`, before anything is recorded
// or sent. The SPA says the same words at the amount field before sending.
import type { z } from 'zod';
import { formatMinorUnits, toMinorUnits } from '../protocol/money.js';
import {
  AmountsPerCurrencySchema,
  amountForCurrency,
  isAboveAmountForCurrency,
} from './amounts-per-currency.js';

/**
 * The words every refusal of the limit ends with, the BFF's and the SPA's: staff learn that an
 * administrator can raise the limit, never the name of the setting (it means nothing to them).
 */
export const ORDER_AMOUNT_LIMIT_RAISE = 'per order; an administrator can raise';
/** The field the refusal names. */
export const ORDER_AMOUNT_LIMIT_FIELD = 'amount';
/** The rule the refusal names: the same as the amount's own size rule. */
export const ORDER_AMOUNT_LIMIT_RULE = 'too_big';

/** The limits: an amount strictly above its currency's (else above `default`) is refused. */
export const OrderAmountLimitsSchema = AmountsPerCurrencySchema;
export type OrderAmountLimits = z.infer<typeof OrderAmountLimitsSchema>;

/**
 * An amount as people read it, grouped by thousands ('1,000,000.00'). The BFF's messages use it
 * for the amounts they name (bff/src/payments/amount-range.ts `readable`): an ungrouped run of 13
 * or more digits would be masked as a card number in the audit row.
 */
export function readableAmount(minor: bigint): string {
  return formatMinorUnits(minor).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The limit for `currency` (decimal text), or null when amounts in it have none. */
export const orderAmountLimit: (
  limits: OrderAmountLimits | undefined,
  currency: string,
) => string | null = amountForCurrency;

/**
 * Whether `amount` in `currency` is strictly above its limit. False for text that is not an
 * amount (the amount's own rule refuses it) and when no limit is known (an older BFF).
 */
export const isAboveOrderAmountLimit: (
  limits: OrderAmountLimits | undefined,
  amount: string,
  currency: string,
) => boolean = isAboveAmountForCurrency;

/**
 * What the refusal says of the amount, as a rule of the field ('at most EUR 1,000,000.00 per order;
 * an administrator can raise the limit'): the BFF's field message. The SPA says the same at the
 * field before sending, with the amount as it writes money.
 */
export function orderAmountLimitRule(limit: string, currency: string): string {
  return `at most ${currency.toUpperCase()} ${readableAmount(toMinorUnits(limit))} ${ORDER_AMOUNT_LIMIT_RAISE} the limit`;
}

/** The rule `amount` in `currency` breaks (`orderAmountLimitRule`), or undefined when within. */
export function orderAmountLimitRefusal(
  limits: OrderAmountLimits | undefined,
  amount: string,
  currency: string,
): string | undefined {
  const limit = orderAmountLimit(limits, currency);
  if (limit === null || !isAboveOrderAmountLimit(limits, amount, currency)) return undefined;
  return orderAmountLimitRule(limit, currency);
}
