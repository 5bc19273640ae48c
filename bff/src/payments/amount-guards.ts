// The two guards on an amount staff type for a new order (rebill, subscription, payment link,
// payout): the per-order ceiling (`ORDER_AMOUNT_LIMIT`, order-limit.ts), then the large-amount
// confirmation (`LARGE_AMOUNT_CONFIRM_ABOVE`, large-amount.ts). The ceiling comes first: confirming
// an amount above it would not help. The routes call `requireAmountAccepted` right after the body
// is parsed, before the Idempotency-Key is taken: a refusal is a 400 like any bad input (audited as
// refused by the runner), stores no reply, and the confirmed or corrected request may be sent again
// with the same key.
import type { LargeAmountSettings, OrderAmountLimits } from '@paydesk/shared/api';
import type { Config } from '../config.js';
import { largeAmountSettings, requireLargeAmountConfirmed } from './large-amount.js';
import { orderAmountLimits, requireWithinOrderAmountLimit } from './order-limit.js';

export interface AmountGuards {
  /** the limits above which an order is refused, confirmed or not */
  orderAmountLimit: OrderAmountLimits;
  /** the thresholds above which an order needs `confirmLargeAmount: true` */
  largeAmount: LargeAmountSettings;
}

/** The guards the BFF runs with, as the configuration sets them (unset: the defaults). */
export function amountGuards(
  config: Pick<Config, 'orderAmountLimit' | 'largeAmount'>,
): AmountGuards {
  return { orderAmountLimit: orderAmountLimits(config), largeAmount: largeAmountSettings(config) };
}

/**
 * Throws 400 VALIDATION_FAILED naming `amount` (rule `too_big`) above the order's limit, else
 * naming `confirmLargeAmount` (rule `large_amount`) above the large-amount threshold when the body
 * did not confirm it. No amount (an account verification form): nothing to guard.
 */
export function requireAmountAccepted(
  guards: AmountGuards,
  order: { amount?: string | undefined; currency?: string | undefined; confirmLargeAmount?: true },
): void {
  requireWithinOrderAmountLimit(guards.orderAmountLimit, order);
  requireLargeAmountConfirmed(guards.largeAmount, order);
}
