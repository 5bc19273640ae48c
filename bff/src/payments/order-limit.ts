// The per-order ceiling (`ORDER_AMOUNT_LIMIT`): an order Paydesk creates with an amount (rebill,
// subscription, payment link, payout) above its currency's limit is refused, even with
// `confirmLargeAmount: true`: the large-amount confirmation catches a slipped key, but a person
// can confirm a slipped key too. The routes check it with the large-amount guard, through
// `requireAmountAccepted` (amount-guards.ts).
import {
  ORDER_AMOUNT_LIMIT_FIELD,
  ORDER_AMOUNT_LIMIT_RULE,
  orderAmountLimit,
  orderAmountLimitRule,
  isAboveOrderAmountLimit,
  type OrderAmountLimits,
} from '@paydesk/shared/api';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

/** Unset `ORDER_AMOUNT_LIMIT`: at most 1,000,000.00 per order in every currency. */
export const DEFAULT_ORDER_AMOUNT_LIMIT: OrderAmountLimits = {
  default: '1000000.00',
  currencies: {},
};

/** `off`: no limit in any currency. */
export const ORDER_AMOUNT_LIMIT_OFF: OrderAmountLimits = { default: null, currencies: {} };

/** The limits the BFF runs with (a Config built without them: the default). */
export function orderAmountLimits(config: Pick<Config, 'orderAmountLimit'>): OrderAmountLimits {
  return config.orderAmountLimit ?? DEFAULT_ORDER_AMOUNT_LIMIT;
}

/**
 * Throws 400 VALIDATION_FAILED naming `amount` (rule `too_big`) when `amount` in `currency` is
 * above its limit, whether or not the body confirmed a large amount. No amount (an account
 * verification form): nothing to limit.
 */
export function requireWithinOrderAmountLimit(
  limits: OrderAmountLimits,
  order: { amount?: string | undefined; currency?: string | undefined },
): void {
  const { amount, currency } = order;
  if (amount === undefined || currency === undefined) return;
  if (!isAboveOrderAmountLimit(limits, amount, currency)) return;
  const message = orderAmountLimitRule(orderAmountLimit(limits, currency) ?? '0', currency);
  throw new AppError('VALIDATION_FAILED', `${ORDER_AMOUNT_LIMIT_FIELD}: ${message}.`, {
    fields: [{ path: ORDER_AMOUNT_LIMIT_FIELD, rule: ORDER_AMOUNT_LIMIT_RULE, message }],
  });
}
