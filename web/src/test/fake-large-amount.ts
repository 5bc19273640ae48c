// The BFF's fat-finger guard, in the fake BFF: an order created with an amount above its
// currency's threshold (the session's `settings.largeAmount`) is refused unless the body says
// `confirmLargeAmount: true` — 400 VALIDATION_FAILED at that field, rule `large_amount`. And its
// per-order ceiling: above its currency's limit (`settings.orderAmountLimit`) an amount is refused,
// confirmed or not — 400 VALIDATION_FAILED at `amount`, rule `too_big`, in the BFF's words.
import {
  LARGE_AMOUNT_FIELD,
  LARGE_AMOUNT_RULE,
  ORDER_AMOUNT_LIMIT_FIELD,
  ORDER_AMOUNT_LIMIT_RULE,
  largeAmountThreshold,
  needsLargeAmountConfirmation,
  orderAmountLimitRefusal,
  type LargeAmountSettings,
  type OrderAmountLimits,
} from '@paydesk/shared/api';
import type { ErrorReply, PaymentsReply } from './fake-payments';

/** The refusal of `body`, or null when it may go on. */
export type LargeAmountCheck = (body: {
  amount?: string | undefined;
  currency?: string | undefined;
  confirmLargeAmount?: true | undefined;
}) => PaymentsReply | null;

/** Checks as the BFF with the thresholds `settings()` says (undefined: none, as an older BFF). */
export function largeAmountCheck(
  settings: () => LargeAmountSettings | undefined,
  error: ErrorReply,
): LargeAmountCheck {
  return ({ amount, currency, confirmLargeAmount }) => {
    if (amount === undefined || currency === undefined || confirmLargeAmount === true) return null;
    const thresholds = settings();
    if (!needsLargeAmountConfirmation(thresholds, amount, currency)) return null;
    const message = `${amount} ${currency} is above ${String(largeAmountThreshold(thresholds, currency))} ${currency}: confirm the amount`;
    return error(400, 'VALIDATION_FAILED', `${LARGE_AMOUNT_FIELD}: ${message}`, {
      fields: [{ path: LARGE_AMOUNT_FIELD, rule: LARGE_AMOUNT_RULE, message }],
    });
  };
}

/** Checks as the BFF with the limits `limits()` says (undefined: none, as an older BFF). */
export function orderAmountLimitCheck(
  limits: () => OrderAmountLimits | undefined,
  error: ErrorReply,
): LargeAmountCheck {
  return ({ amount, currency }) => {
    if (amount === undefined || currency === undefined) return null;
    const message = orderAmountLimitRefusal(limits(), amount, currency);
    if (message === undefined) return null;
    return error(400, 'VALIDATION_FAILED', `${ORDER_AMOUNT_LIMIT_FIELD}: ${message}.`, {
      fields: [{ path: ORDER_AMOUNT_LIMIT_FIELD, rule: ORDER_AMOUNT_LIMIT_RULE, message }],
    });
  };
}
