import {
  SessionResponseSchema,
  TotpConfirmResponseSchema,
  TotpEnrolResponseSchema,
  type ChangePasswordRequest,
  type LoginRequest,
  type SessionResponse,
  type TotpConfirmRequest,
} from '@paydesk/shared/api';
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { apiCommand, apiRequest, sessionEndOf } from '../../../lib/api-client';

export const sessionKeys = {
  /** the signed-in user, or null when there is no session */
  current: ['session'] as const,
  /** why the session ended, read by the guard to tell the user */
  ended: ['session-ended'] as const,
};

export type SessionEndReason = 'expired' | 'disabled' | 'signed-out';

export function sessionQueryOptions() {
  return queryOptions({
    queryKey: sessionKeys.current,
    queryFn: async ({ signal, client }): Promise<SessionResponse | null> => {
      try {
        return await apiRequest('GET', '/api/session', SessionResponseSchema, { signal });
      } catch (error) {
        const reason = sessionEndOf(error);
        if (reason === null) throw error;
        // Signed in a moment ago and now not: the session timed out or was revoked, or the
        // account was disabled (which the user is told even on a fresh page).
        if (reason === 'disabled' || client.getQueryData(sessionKeys.current))
          client.setQueryData(sessionKeys.ended, reason);
        return null;
      }
    },
    staleTime: 5 * 60_000,
  });
}

/** Forgets the session locally; the guard then sends the user to sign-in. */
export function endSession(client: QueryClient, reason: SessionEndReason): void {
  client.setQueryData(sessionKeys.ended, reason);
  client.setQueryData(sessionKeys.current, null);
}

export function signIn(body: LoginRequest): Promise<SessionResponse> {
  return apiRequest('POST', '/api/session', SessionResponseSchema, { body });
}

export function signOut(): Promise<void> {
  return apiCommand('DELETE', '/api/session');
}

export function changePassword(body: ChangePasswordRequest): Promise<SessionResponse> {
  return apiRequest('POST', '/api/session/password', SessionResponseSchema, { body });
}

export function startTotpEnrolment() {
  return apiRequest('POST', '/api/session/totp', TotpEnrolResponseSchema, { body: {} });
}

export function confirmTotp(body: TotpConfirmRequest) {
  return apiRequest('POST', '/api/session/totp/confirm', TotpConfirmResponseSchema, { body });
}
