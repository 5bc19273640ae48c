// The large-amount guard (a slipped key, an extra zero): an order Paydesk creates with an amount
// (rebill, subscription, payment link, payout) above its currency's threshold
// (`LARGE_AMOUNT_CONFIRM_ABOVE`) is refused unless the body says `confirmLargeAmount: true`. The
// routes check it after the per-order ceiling, through `requireAmountAccepted` (amount-guards.ts).
import {
  LARGE_AMOUNT_FIELD,
  LARGE_AMOUNT_RULE,
  largeAmountThreshold,
  needsLargeAmountConfirmation,
  type LargeAmountSettings,
} from '@paydesk/shared/api';
import { toMinorUnits } from '@paydesk/shared/protocol';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { readable } from './amount-range.js';

/** Unset `LARGE_AMOUNT_CONFIRM_ABOVE`: above 10,000.00 in every currency. */
export const DEFAULT_LARGE_AMOUNT: LargeAmountSettings = { default: '10000.00', currencies: {} };

/** `off`: no confirmation in any currency. */
export const LARGE_AMOUNT_OFF: LargeAmountSettings = { default: null, currencies: {} };

/** The thresholds the BFF runs with (a Config built without them: the default). */
export function largeAmountSettings(config: Pick<Config, 'largeAmount'>): LargeAmountSettings {
  return config.largeAmount ?? DEFAULT_LARGE_AMOUNT;
}

/**
 * Throws 400 VALIDATION_FAILED naming `confirmLargeAmount` (rule `large_amount`) when `amount` in
 * `currency` is above its threshold and the body did not confirm it. No amount (an account
 * verification form): nothing to confirm.
 */
export function requireLargeAmountConfirmed(
  settings: LargeAmountSettings,
  order: { amount?: string | undefined; currency?: string | undefined; confirmLargeAmount?: true },
): void {
  const { amount, currency } = order;
  if (amount === undefined || currency === undefined || order.confirmLargeAmount === true) return;
  if (!needsLargeAmountConfirmation(settings, amount, currency)) return;
  const threshold = largeAmountThreshold(settings, currency) ?? '0';
  const code = currency.toUpperCase();
  const message = `Above ${code} ${readable(toMinorUnits(threshold))} an amount needs confirming: confirm ${code} ${readable(toMinorUnits(amount.trim()))} (${LARGE_AMOUNT_FIELD}: true).`;
  throw new AppError('VALIDATION_FAILED', `${LARGE_AMOUNT_FIELD}: ${message}`, {
    fields: [{ path: LARGE_AMOUNT_FIELD, rule: LARGE_AMOUNT_RULE, message }],
  });
}

/**
 * What an Idempotency-Key is bound to: the order without the confirmation, which changes nothing
 * of it (a repeat that adds or drops the flag is the same request; an unconfirmed large amount is
 * refused before the key is looked at).
 */
export function withoutConfirmation<T extends { confirmLargeAmount?: true }>(
  body: T,
): Omit<T, 'confirmLargeAmount'> {
  const { confirmLargeAmount: _confirmed, ...rest } = body;
  return rest;
}
