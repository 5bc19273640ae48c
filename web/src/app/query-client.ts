import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { endSession, requirePasswordChange, sessionKeys } from '../features/auth/api/session';
import { isApiError, isPasswordChangeRequired, sessionEndOf } from '../lib/api-client';

function isSessionQuery(key: readonly unknown[]): boolean {
  return key[0] === sessionKeys.current[0];
}

/**
 * A 401 from any query or mutation means the session is over (idle timeout, revocation), and a 403
 * ACCOUNT_DISABLED that its account was disabled: forget it so the guard sends the user to sign-in
 * (saying why) with `?next=` and back afterwards. A 403 PASSWORD_CHANGE_REQUIRED means the password
 * an administrator chose must be replaced first: the guard sends the user to choose one, and back.
 */
export function createQueryClient(options: { retryDelayMs?: number } = {}): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (isSessionQuery(query.queryKey)) return;
        const reason = sessionEndOf(error);
        if (reason !== null) endSession(client, reason);
        else if (isPasswordChangeRequired(error)) requirePasswordChange(client);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error) => {
        const reason = sessionEndOf(error);
        if (reason !== null) endSession(client, reason);
        else if (isPasswordChangeRequired(error)) requirePasswordChange(client);
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
  return client;
}
