import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ErrorState, LoadingState } from '../../../components/page-states';
import {
  choosePasswordPath,
  sessionKeys,
  sessionQueryOptions,
  type SessionEndReason,
} from '../api/session';
import { SessionContext } from './session-context';

/**
 * Renders its children only with a session; otherwise sends the user to sign-in and back after. A
 * session whose password an administrator chose is sent to "Choose your password" first, and back.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const location = useLocation();
  const session = useQuery(sessionQueryOptions());

  if (session.isPending) return <LoadingState label="Checking your session…" />;
  if (session.isError) {
    return (
      <ErrorState
        error={session.error}
        what="your session"
        onRetry={() => void session.refetch()}
      />
    );
  }
  if (session.data === null) {
    const reason = client.getQueryData<SessionEndReason>(sessionKeys.ended);
    const params = new URLSearchParams();
    if (reason !== 'signed-out') params.set('next', `${location.pathname}${location.search}`);
    if (reason === 'expired' || reason === 'disabled') params.set('reason', reason);
    return <Navigate to={`/sign-in?${params.toString()}`} replace />;
  }
  if (session.data.user.passwordChangeRequired) {
    return <Navigate to={choosePasswordPath(`${location.pathname}${location.search}`)} replace />;
  }
  return <SessionContext value={session.data}>{children}</SessionContext>;
}
