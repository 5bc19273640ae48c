import {
  SessionResponseSchema,
  TotpConfirmResponseSchema,
  TotpEnrolResponseSchema,
  type ChangePasswordRequest,
  type LoginRequest,
  type SessionResponse,
  type TotpConfirmRequest,
  type TotpEnrolRequest,
} from '@paydesk/shared/api';
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { apiCommand, apiRequest, isApiError, sessionEndOf } from '../../../lib/api-client';
import { liveHub } from '../../../lib/live-hub';
import { reportedUserInputAt } from '../../../lib/user-activity';

export const sessionKeys = {
  /** the signed-in user, or null when there is no session */
  current: ['session'] as const,
  /** why the session ended, read by the guard to tell the user */
  ended: ['session-ended'] as const,
  /**
   * The session that ended (timed out, revoked) while its user was at work: the page stays as it
   * is, with the user's session, under a dialog that signs the same user in again.
   */
  lapsed: ['session-lapsed'] as const,
  /** when (this browser's clock, ms) the last request with the session succeeded */
  activity: ['session-activity'] as const,
};

/** The keys that say what became of the session: kept until replaced, never garbage-collected. */
export const SESSION_STATE_KEYS = [sessionKeys.ended, sessionKeys.lapsed, sessionKeys.activity];

/**
 * `signed-out`: the user chose to; `another-user`: a lapsed session was set aside for someone else
 * to sign in (nothing to tell them about the previous user).
 */
export type SessionEndReason = 'expired' | 'disabled' | 'signed-out' | 'another-user';

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
        // account was disabled (which the user is told even on a fresh page). A fresh page (a
        // reload, a link opened later) with a session the BFF says has expired is told so too;
        // a browser that never signed in gets UNAUTHENTICATED and no such words.
        const expiredCookie = isApiError(error) && error.code === 'SESSION_EXPIRED';
        if (reason === 'disabled' || expiredCookie || client.getQueryData(sessionKeys.current))
          recordEnd(client, reason);
        return null;
      }
    },
    staleTime: 5 * 60_000,
  });
}

/**
 * Says why the session ended. A session that timed out or was revoked while its user was at work
 * is kept as `lapsed`: the guard leaves the page (and any open dialog) as it is and asks the same
 * user to sign in again over it. Any other end forgets it.
 */
function recordEnd(client: QueryClient, reason: SessionEndReason): void {
  const previous = client.getQueryData<SessionResponse | null>(sessionKeys.current);
  client.setQueryData(sessionKeys.ended, reason);
  if (reason !== 'expired') client.removeQueries({ queryKey: sessionKeys.lapsed, exact: true });
  else if (previous) client.setQueryData(sessionKeys.lapsed, previous);
}

/**
 * Forgets the session locally. The guard then asks the same user to sign in again over the page
 * when it timed out or was revoked during work, and otherwise sends the user to sign-in.
 */
export function endSession(client: QueryClient, reason: SessionEndReason): void {
  recordEnd(client, reason);
  client.setQueryData(sessionKeys.current, null);
}

/**
 * The user signed out: the session is forgotten with everything loaded under it (only what says the
 * session ended stays), and the guard sends them to the sign-in page, which says they signed out.
 */
export function forgetSignedOutSession(client: QueryClient): void {
  endSession(client, 'signed-out');
  client.removeQueries({
    predicate: (query) =>
      query.queryKey[0] !== sessionKeys.current[0] && query.queryKey[0] !== sessionKeys.ended[0],
  });
}

/** What this browser's tabs say to each other about the session (one cookie, shared by all). */
const SESSION_CHANNEL = 'paydesk-session';
const SIGNED_OUT = 'signed-out';

/**
 * Tells this browser's other tabs that the user signed out here. The cookie is gone for them too,
 * but until their next request they went on showing customers' data (with a green Live chip) for
 * up to 20 seconds.
 */
export function announceSignOut(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(SESSION_CHANNEL);
  channel.postMessage(SIGNED_OUT);
  channel.close();
}

/**
 * Follows sign-outs in this browser's other tabs: a tab with a session forgets it at once, as if
 * the user had signed out in it. Returns what stops following.
 */
export function followSignOutsElsewhere(client: QueryClient): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(SESSION_CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    if (event.data !== SIGNED_OUT) return;
    if (!client.getQueryData<SessionResponse | null>(sessionKeys.current)) return;
    // The screens unmount on the way to sign-in, and the live-event stream closes with them.
    forgetSignedOutSession(client);
  };
  return () => {
    channel.close();
  };
}

/**
 * The user whose session lapsed signed in again (`reply`): the page they were on carries on. What
 * it could not load meanwhile is asked for again; nothing it sent is sent again by itself (a
 * dialog keeps its Idempotency-Key, so pressing its button again is safe).
 */
export function resumeSession(client: QueryClient, reply: SessionResponse): void {
  client.setQueryData(sessionKeys.current, reply);
  client.removeQueries({ queryKey: sessionKeys.ended, exact: true });
  // The live-event stream the BFF refused when the session ended follows events again.
  liveHub().retry();
  void client.invalidateQueries({
    predicate: (query) =>
      query.state.status === 'error' && sessionEndOf(query.state.error) !== null,
  });
}

/**
 * Another user is to sign in: everything the previous one had open is discarded (queries, the
 * lapsed session) and the guard sends them to the sign-in page.
 */
export function discardSession(client: QueryClient): void {
  endSession(client, 'another-user');
  client.removeQueries({
    predicate: (query) =>
      query.queryKey[0] !== sessionKeys.current[0] && query.queryKey[0] !== sessionKeys.ended[0],
  });
  client.getMutationCache().clear();
}

/**
 * A request with the session succeeded: the session's idle timeout runs again from the user's
 * latest input a request told the BFF of (its `Paydesk-Idle-Ms`), not from the request.
 */
export function recordActivity(client: QueryClient): void {
  client.setQueryData(sessionKeys.activity, reportedUserInputAt() ?? Date.now());
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

/** Starts two-step enrolment, the current password confirming it is the holder. */
export function startTotpEnrolment(body: TotpEnrolRequest) {
  return apiRequest('POST', '/api/session/totp', TotpEnrolResponseSchema, { body });
}

export function confirmTotp(body: TotpConfirmRequest) {
  return apiRequest('POST', '/api/session/totp/confirm', TotpConfirmResponseSchema, { body });
}
