import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ErrorState, LoadingState } from '../../../components/page-states';
import type { SessionResponse } from '@paydesk/shared/api';
import {
  choosePasswordPath,
  sessionKeys,
  sessionQueryOptions,
  type SessionEndReason,
} from '../api/session';
import { SessionContext } from './session-context';
import { SessionEndedDialog } from './session-ended-dialog';
import { SessionTimeoutWarning } from './session-timeout-warning';
import { useCachedData } from './use-cached-data';

/**
 * Renders its children only with a session; otherwise sends the user to sign-in and back after. A
 * session that timed out or was revoked while its user was at work keeps the page (and any open
 * dialog, with what was typed) under a dialog that signs the same user in again. A session whose
 * password an administrator chose is sent to "Choose your password" first, and back. While signed
 * in, the user is warned before the session times out.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const location = useLocation();
  const session = useQuery(sessionQueryOptions());
  const lapsed = useCachedData((c) => c.getQueryData<SessionResponse>(sessionKeys.lapsed));

  if (session.isPending) return <LoadingState label="Checking your session…" />;
  // A failed re-check (network, 5xx) leaves the page as it is; only a first check shows the error.
  if (session.isError && session.data === undefined) {
    return (
      <ErrorState
        error={session.error}
        what="your session"
        onRetry={() => void session.refetch()}
      />
    );
  }
  const live = session.data ?? null;
  const shown = live ?? lapsed ?? null;
  if (shown === null) {
    const reason = client.getQueryData<SessionEndReason>(sessionKeys.ended);
    const params = new URLSearchParams();
    // A user who signed out, or made way for another, starts afresh rather than where they were.
    if (reason !== 'signed-out' && reason !== 'another-user')
      params.set('next', `${location.pathname}${location.search}`);
    // For the sign-in page's words only: the parameter grants nothing.
    if (reason === 'expired' || reason === 'disabled' || reason === 'signed-out')
      params.set('reason', reason);
    return <Navigate to={`/sign-in?${params.toString()}`} replace />;
  }
  if (shown.user.passwordChangeRequired) {
    return <Navigate to={choosePasswordPath(`${location.pathname}${location.search}`)} replace />;
  }
  // The same tree either way, so that the page stays mounted when the session lapses and resumes.
  return (
    <SessionContext value={shown}>
      {children}
      {live === null ? (
        <SessionEndedDialog session={shown} />
      ) : (
        <SessionTimeoutWarning session={live} />
      )}
    </SessionContext>
  );
}
