import type { LiveState } from '../../transactions/api/live-events';
import { useRefetchOnLiveEvents } from '../../transactions/api/live-events';
import { payoutKeys } from './payouts';

/**
 * Payout events (`event: payout`: prepared, approved, rejected, the gateway's outcome), from any
 * BFF instance: the payout lists are refetched, so a queue never offers what another ops user has
 * just decided.
 */
export function usePayoutEvents(): LiveState {
  return useRefetchOnLiveEvents('payout', payoutKeys.all);
}
