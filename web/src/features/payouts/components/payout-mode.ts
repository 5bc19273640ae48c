import type { PayoutMode } from '@paydesk/shared/api';

/** A payout's mode in words, as its detail shows it. */
export const MODE_LABELS: Record<PayoutMode, string> = {
  'two-step': 'Two-step: payout-check when prepared, payout-pay when approved',
  single: 'Single: held unchecked, and the v2 payout sent when approved',
};

/** Said wherever a single-mode payout may be approved: no one at the gateway has looked at it. */
export const NOT_CHECKED_WARNING =
  'Single payout: the gateway has not checked this destination. Make sure it is right before approving.';
