import type { LiveEvent, LiveEventName, TransactionEvent } from '@paydesk/shared/api';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { liveHub, type LiveState } from '../../../lib/live-hub';
import { sessionKeys } from '../../auth/api/session';
import { transactionKeys } from './transactions';

export type { LiveState } from '../../../lib/live-hub';

/**
 * Follows the live events named `name` (`transaction`, `payout`, `payment_link`) while the screen
 * is open, handing each to `receive`; keep `receive` and `catchUp` stable (useCallback). The
 * browser's one stream (`lib/live-hub.ts`: shared by every screen and every tab) reconnects by
 * itself after a dropped connection (or a stream the BFF ended because it may have missed
 * changes); changes made meanwhile were not streamed, so each reconnection calls `catchUp`
 * (refetch what the screen shows). The BFF ends a stream whose session ended and refuses the
 * reconnection: the session is then asked for again, so that a session revoked, signed out
 * elsewhere or timed out asks the user at once to sign in again (over the page, which stays); once
 * they have, the stream opens again and the screen catches up. The state says whether the screen
 * is live right now.
 */
export function useLiveEvents(
  name: LiveEventName,
  receive: (event: LiveEvent) => void,
  catchUp: () => void,
): LiveState {
  const client = useQueryClient();
  const supported = typeof EventSource !== 'undefined';
  const [state, setState] = useState<LiveState>(supported ? 'connecting' : 'off');

  useEffect(() => {
    if (!supported) return undefined;
    return liveHub().subscribe(name, {
      receive,
      catchUp,
      state: (next) => {
        setState(next);
        if (next === 'off') void client.invalidateQueries({ queryKey: sessionKeys.current });
      },
    });
  }, [client, supported, name, receive, catchUp]);

  return state;
}

/**
 * Transaction events: refetches what an event changed, the transaction's detail and the lists.
 * `onEvent` gets each event, and `null` after a reconnection (any transaction may have changed).
 */
export function useTransactionEvents(
  onEvent?: (event: TransactionEvent | null) => void,
): LiveState {
  const client = useQueryClient();
  const receive = useCallback(
    (event: LiveEvent) => {
      if (event.type !== 'transaction.created' && event.type !== 'transaction.updated') return;
      // A burst of events (a storefront's busy minute) must not cancel and restart the list request
      // each time: an already running refetch is reused.
      void client.invalidateQueries(
        { queryKey: transactionKeys.detail(event.transactionId) },
        { cancelRefetch: false },
      );
      void client.invalidateQueries({ queryKey: transactionKeys.lists }, { cancelRefetch: false });
      onEvent?.(event);
    },
    [client, onEvent],
  );
  const catchUp = useCallback(() => {
    void client.invalidateQueries({ queryKey: transactionKeys.all }, { cancelRefetch: false });
    onEvent?.(null);
  }, [client, onEvent]);
  return useLiveEvents('transaction', receive, catchUp);
}

/**
 * Refetches every query under `queryKey` on each event named `name` (e.g. the payout or payment
 * link lists), from any BFF instance, so a queue never offers what someone else just decided.
 */
export function useRefetchOnLiveEvents(name: LiveEventName, queryKey: QueryKey): LiveState {
  const client = useQueryClient();
  // A key is a new array on each render; its content is what matters.
  const keyText = JSON.stringify(queryKey);
  const refetch = useCallback(() => {
    void client.invalidateQueries(
      { queryKey: JSON.parse(keyText) as QueryKey },
      { cancelRefetch: false },
    );
  }, [client, keyText]);
  return useLiveEvents(name, refetch, refetch);
}
