import type { LiveEvent } from '@paydesk/shared/api';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useLiveEvents, type LiveState } from '../../transactions/api/live-events';
import { subscriptionKeys } from './subscriptions';

/**
 * A transaction event that may be a plan's charge: a plan's charges are rebill orders, and the
 * event does not name the plan; an event that does not say its order's type (an older instance)
 * may be one too.
 */
export function mayBeCharge(event: LiveEvent): boolean {
  if (event.type !== 'transaction.created' && event.type !== 'transaction.updated') return false;
  return (
    event.transactionType === undefined ||
    event.transactionType === 'rebill' ||
    event.transactionType === 'unknown'
  );
}

/**
 * Refetches the subscriptions shown (list and detail) when a charge may have arrived or changed,
 * and after a reconnection: a new plan's first charge, made at once, shows without a reload, as
 * transactions, payouts and links do. Other orders' events cost nothing.
 */
export function useSubscriptionChargeEvents(): LiveState {
  const client = useQueryClient();
  const refetch = useCallback(() => {
    // A burst of charges must not cancel and restart the request each time.
    void client.invalidateQueries({ queryKey: subscriptionKeys.all }, { cancelRefetch: false });
  }, [client]);
  const receive = useCallback(
    (event: LiveEvent) => {
      if (mayBeCharge(event)) refetch();
    },
    [refetch],
  );
  return useLiveEvents('transaction', receive, refetch);
}
