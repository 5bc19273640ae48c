import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';

/**
 * What `read` takes from the query cache: data set with `setQueryData` rather than fetched (what
 * became of the session). The component renders again whenever it changes.
 */
export function useCachedData<T>(read: (client: QueryClient) => T): T {
  const client = useQueryClient();
  const subscribe = useCallback(
    (onChange: () => void) => client.getQueryCache().subscribe(onChange),
    [client],
  );
  return useSyncExternalStore(subscribe, () => read(client));
}
