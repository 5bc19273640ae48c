import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import {
  endSession,
  recordActivity,
  requirePasswordChange,
  SESSION_STATE_KEYS,
  sessionKeys,
} from '../features/auth/api/session';
import { isApiError, isPasswordChangeRequired, sessionEndOf } from '../lib/api-client';

function isSessionQuery(key: readonly unknown[]): boolean {
  return key[0] === sessionKeys.current[0];
}

/**
 * A 401 from any query or mutation means the session is over (idle timeout, revocation): the guard
 * keeps the page and asks the same user to sign in again over it. A 403 ACCOUNT_DISABLED means its
 * account was disabled: the guard sends the user to sign-in (saying why) with `?next=`. A 403
 * PASSWORD_CHANGE_REQUIRED means the password an administrator chose must be replaced first: the
 * guard sends the user to choose one, and back. A 403 FORBIDDEN means the user's roles changed
 * since the session was read (an administrator took one): the session is read again, so that the
 * navigation and the actions offered follow at once (QA: Capture stayed offered after Finance was
 * taken). Every success restarts the session's idle timeout (the BFF's, and the warning before it).
 */
export function createQueryClient(options: { retryDelayMs?: number } = {}): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onSuccess: () => {
        recordActivity(client);
      },
      onError: (error, query) => {
        if (isSessionQuery(query.queryKey)) return;
        settle(error);
      },
    }),
    mutationCache: new MutationCache({
      onSuccess: () => {
        recordActivity(client);
      },
      onError: (error) => {
        settle(error);
      },
    }),
    defaultOptions: {
      queries: {
        // 4xx answers are final; retry network trouble and 5xx once.
        retry: (failures, error) =>
          !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 1,
        ...(options.retryDelayMs === undefined ? {} : { retryDelay: options.retryDelayMs }),
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
  /** What a refused or failed request says of the session, acted on (see above). */
  function settle(error: Error): void {
    const reason = sessionEndOf(error);
    if (reason !== null) endSession(client, reason);
    else if (isPasswordChangeRequired(error)) requirePasswordChange(client);
    else if (isApiError(error) && error.code === 'FORBIDDEN')
      void client.invalidateQueries({ queryKey: sessionKeys.current, exact: true });
  }
  // What became of the session is set, never fetched, and must outlive its readers.
  for (const queryKey of SESSION_STATE_KEYS)
    client.setQueryDefaults(queryKey, { gcTime: Infinity });
  return client;
}
