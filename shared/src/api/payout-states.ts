// Where a payout stands: in a module of its own, so that the transactions' schemas (payments.ts,
// which payouts.ts builds on) can name a payout's state too without an import cycle.
import { z } from 'zod';

/**
 * Where a payout stands.
 * - checking: payout-check sent, its outcome not yet learned
 * - pending_approval: checked (two-step) or held (single); waits for a second ops user
 * - sending: an approver claimed it and the money-moving request is on its way
 * - processing: the gateway accepted it; the final status follows (status polling, callbacks)
 * - unknown: the reply was lost; reconciled with `status`, never sent again
 * - approved | declined | error | filtered: the gateway's final status
 * - check_declined: payout-check refused the destination; nothing can be paid
 * - rejected: an ops user rejected it; nothing was sent
 * - expired: the registration lapsed (24 h after payout-check), or a held single payout was not
 *   approved within PAYOUT_HOLD_MAX_AGE_MS (its sealed destination erased); cannot be approved
 * - failed: the gateway refused the request, or Paydesk judged it not applied (NOT_APPLIED: the
 *   gateway still did not show it a while after it was sent; an approval so judged may still be
 *   paid late, and is then approved with PAID_AFTER_NOT_APPLIED)
 */
export const PAYOUT_STATES = [
  'checking',
  'pending_approval',
  'sending',
  'processing',
  'unknown',
  'approved',
  'declined',
  'error',
  'filtered',
  'check_declined',
  'rejected',
  'expired',
  'failed',
] as const;
export const PayoutStateSchema = z.enum(PAYOUT_STATES);
export type PayoutState = z.infer<typeof PayoutStateSchema>;

/**
 * The states in which a payout's money order was (or may have been) sent: a single payout's
 * `payout`, a two-step one's `payout-pay`. From then on its order is the gateway's record of money
 * that left, learned as a transaction (its callbacks, a lookup); before, its order (a payout-check,
 * or none while held) is the payout's alone.
 */
export const PAYOUT_SENT_STATES: ReadonlySet<PayoutState> = new Set<PayoutState>([
  'sending',
  'processing',
  'unknown',
  'approved',
  'declined',
  'error',
  'filtered',
]);
