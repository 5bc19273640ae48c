// The per-order ceiling (the BFF's ORDER_AMOUNT_LIMIT, in the session's `settings.orderAmountLimit`)
// as the amount forms say it: the BFF refuses an amount above its currency's limit, confirmed or
// not, so the form says so at the amount field, in the BFF's words, before any request is sent.
import {
  CurrencySchema,
  ORDER_AMOUNT_LIMIT_FIELD,
  ORDER_AMOUNT_LIMIT_KEY,
  ORDER_AMOUNT_LIMIT_RULE,
  orderAmountLimitRefusal,
  type OrderAmountLimits,
} from '@paydesk/shared/api';
import { sentenceOf } from './form-errors';
import { readAmount } from './money';

/**
 * The refusal of the typed amount in the typed currency ('At most EUR 1,000,000.00 per order
 * (ORDER_AMOUNT_LIMIT); an admin can raise it.'), as the BFF's refusal is said at the field, or
 * undefined: within the limit, no limit known (an older BFF), or text that is not an amount or a
 * currency (their own rules say so).
 */
export function orderLimitRefusal(
  limits: OrderAmountLimits | undefined,
  typedAmount: string,
  typedCurrency: string,
): string | undefined {
  const amount = readAmount(typedAmount).amount;
  const currency = CurrencySchema.safeParse(typedCurrency);
  if (amount === undefined || !currency.success) return undefined;
  const rule = orderAmountLimitRefusal(limits, amount, currency.data);
  return rule === undefined
    ? undefined
    : sentenceOf(ORDER_AMOUNT_LIMIT_FIELD, rule, ORDER_AMOUNT_LIMIT_RULE);
}

/** Whether `message` is the limit's refusal (`orderLimitRefusal`), shown as it is at the field. */
export function isOrderLimitRefusal(message: string | undefined): boolean {
  return message?.includes(`per order (${ORDER_AMOUNT_LIMIT_KEY})`) ?? false;
}
