import { TransactionEventSchema, type TransactionEvent } from '@paydesk/shared/api';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { transactionKeys } from './transactions';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'off';

/**
 * Follows `GET /api/events` (server-sent events) while the screen is open and refetches what an
 * event changed: the transaction's detail and the lists. EventSource reconnects by itself after a
 * dropped connection; the state says whether the screen is live right now.
 */
export function useTransactionEvents(onEvent?: (event: TransactionEvent) => void): LiveState {
  const client = useQueryClient();
  const supported = typeof EventSource !== 'undefined';
  const [state, setState] = useState<LiveState>(supported ? 'connecting' : 'off');

  useEffect(() => {
    if (!supported) return undefined;
    const source = new EventSource('/api/events', { withCredentials: true });
    source.onopen = () => {
      setState('live');
    };
    source.onerror = () => {
      // CLOSED = the server refused (e.g. the session ended); otherwise the browser retries.
      setState(source.readyState === EventSource.CLOSED ? 'off' : 'reconnecting');
    };
    const receive = (message: MessageEvent<unknown>) => {
      if (typeof message.data !== 'string') return;
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      const parsed = TransactionEventSchema.safeParse(data);
      if (!parsed.success) return;
      const event = parsed.data;
      // A burst of events (a storefront's busy minute) must not cancel and restart the list request
      // each time: an already running refetch is reused.
      void client.invalidateQueries(
        { queryKey: transactionKeys.detail(event.transactionId) },
        { cancelRefetch: false },
      );
      void client.invalidateQueries({ queryKey: transactionKeys.lists }, { cancelRefetch: false });
      onEvent?.(event);
    };
    source.addEventListener('transaction', receive);
    return () => {
      source.removeEventListener('transaction', receive);
      source.close();
    };
  }, [client, supported, onEvent]);

  return state;
}
