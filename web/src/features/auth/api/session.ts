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

/** The page a user whose password an administrator chose is sent to (outside the app's shell). */
export const CHOOSE_PASSWORD_PATH = '/choose-password';

/** `/choose-password?next=…`: where the user goes once they have chosen their password. */
export function choosePasswordPath(next: string | null): string {
  if (next === null || next === '/' || next.startsWith(CHOOSE_PASSWORD_PATH))
    return CHOOSE_PASSWORD_PATH;
  return `${CHOOSE_PASSWORD_PATH}?${new URLSearchParams({ next }).toString()}`;
}

/**
 * The server refused a request because the password must be changed first (403
 * PASSWORD_CHANGE_REQUIRED: an administrator reset it meanwhile, or the session reply is old):
 * the session is marked so, and the guard sends the user to choose one.
 */
export function requirePasswordChange(client: QueryClient): void {
  const session = client.getQueryData<SessionResponse | null>(sessionKeys.current);
  if (session === undefined || session === null) {
    void client.invalidateQueries({ queryKey: sessionKeys.current });
    return;
  }
  if (session.user.passwordChangeRequired) return;
  client.setQueryData<SessionResponse>(sessionKeys.current, {
    ...session,
    user: { ...session.user, passwordChangeRequired: true },
  });
}

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
