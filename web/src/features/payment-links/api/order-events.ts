import type { LiveEvent } from '@paydesk/shared/api';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useLiveEvents } from '../../transactions/api/live-events';
import { linkKeys } from './payment-links';

/**
 * Refetches the links shown when the order of one of them changes (a callback: the customer paid,
 * or failed), and after a reconnection: what came of a link shows without a reload.
 */
export function useLinkOrderEvents(orderids: readonly (string | null)[]): void {
  const client = useQueryClient();
  const watched = orderids.filter((o): o is string => o !== null).join(' ');
  const refetch = useCallback(() => {
    void client.invalidateQueries({ queryKey: linkKeys.all }, { cancelRefetch: false });
  }, [client]);
  const receive = useCallback(
    (event: LiveEvent) => {
      if (
        (event.type === 'transaction.created' || event.type === 'transaction.updated') &&
        watched.split(' ').includes(event.orderid)
      )
        refetch();
    },
    [watched, refetch],
  );
  useLiveEvents('transaction', receive, refetch);
}
