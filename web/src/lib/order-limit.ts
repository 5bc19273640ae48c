// The per-order ceiling (the BFF's limits, in the session's `settings.orderAmountLimit`) as the
// amount forms say it: the BFF refuses an amount above its currency's limit, confirmed or not, so
// the form says so at the amount field before any request is sent. Staff are told an
// administrator can raise it, never the name of the setting that does.
import {
  CurrencySchema,
  isAboveOrderAmountLimit,
  ORDER_AMOUNT_LIMIT_RAISE,
  orderAmountLimit,
  type OrderAmountLimits,
} from '@paydesk/shared/api';
import { formatMoney } from './format';
import { readAmount } from './money';

/**
 * The refusal of the typed amount in the typed currency ('At most €1,000,000.00 per order; an
 * administrator can raise this limit.'), or undefined: within the limit, no limit known (an older
 * BFF), or text that is not an amount or a currency (their own rules say so).
 */
export function orderLimitRefusal(
  limits: OrderAmountLimits | undefined,
  typedAmount: string,
  typedCurrency: string,
): string | undefined {
  const amount = readAmount(typedAmount).amount;
  const currency = CurrencySchema.safeParse(typedCurrency);
  if (amount === undefined || !currency.success) return undefined;
  const code = currency.data;
  if (!isAboveOrderAmountLimit(limits, amount, code)) return undefined;
  const limit = orderAmountLimit(limits, code);
  return limit === null
    ? undefined
    : `At most ${formatMoney(limit, code)} ${ORDER_AMOUNT_LIMIT_RAISE} this limit.`;
}

/**
 * Whether `message` is the limit's refusal, the SPA's (`orderLimitRefusal`) or the BFF's (its
 * limits changed since sign-in): shown as it is at the field.
 */
export function isOrderLimitRefusal(message: string | undefined): boolean {
  return message?.includes(ORDER_AMOUNT_LIMIT_RAISE) ?? false;
}
