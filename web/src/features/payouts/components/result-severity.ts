import type { PayoutState } from '@paydesk/shared/api';
import type { Severity } from '../../../components/notifier';

/**
 * How the answer to a payout's preparation or decision is announced, by the state it left the
 * payout in: a success only for what really succeeded (checked or held for approval, paid,
 * rejected or withdrawn as asked); information while the gateway accepted it and its final status is
 * still to come; a warning while the outcome is not known (a reply lost, a check not confirmed yet:
 * Paydesk asks the gateway, nothing to redo yet); an error for everything the gateway refused or
 * that never happened.
 */
export const PAYOUT_RESULT_SEVERITY: Record<PayoutState, Severity> = {
  pending_approval: 'success',
  approved: 'success',
  rejected: 'success',
  // a prepare that answers `checking`: its payout-check's outcome is not known yet
  checking: 'warning',
  sending: 'info',
  processing: 'info',
  unknown: 'warning',
  declined: 'error',
  error: 'error',
  filtered: 'error',
  check_declined: 'error',
  expired: 'error',
  failed: 'error',
};

export function payoutResultSeverity(state: PayoutState): Severity {
  return PAYOUT_RESULT_SEVERITY[state];
}
