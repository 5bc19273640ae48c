import Alert from '@mui/material/Alert';
import Typography from '@mui/material/Typography';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { ErrorState, LoadingState } from '../../../components/page-states';
import { safeNextPath, SCREENS } from '../../shell/navigation';
import { choosePasswordPath, sessionKeys, sessionQueryOptions } from '../api/session';
import { AuthFrame } from '../components/auth-frame';
import { SignInForm } from '../components/sign-in-form';

export default function SignInRoute() {
  const client = useQueryClient();
  const [params] = useSearchParams();
  const session = useQuery(sessionQueryOptions());
  const next = safeNextPath(params.get('next'));
  // Says why the user is here, in words only: the parameter is typed into the address bar as
  // easily as set by the app, so it decides nothing else.
  const reason = params.get('reason');
  // Once the user tries to sign in, the page speaks of that attempt (a wrong code, a disabled
  // account) alone: why they came here ("You signed out.") is no longer news.
  const [attempted, setAttempted] = useState(false);

  useEffect(() => {
    document.title = 'Sign in · Paydesk';
  }, []);

  if (session.data) {
    // A password an administrator set comes first: then on to where the user was going.
    if (session.data.user.passwordChangeRequired)
      return <Navigate to={choosePasswordPath(next)} replace />;
    return <Navigate to={next ?? SCREENS.home.path} replace />;
  }

  return (
    <AuthFrame maxWidth={400}>
      <Typography variant="h1" sx={{ mb: 0.5 }}>
        Sign in to Paydesk
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        The back-office for payments staff.
      </Typography>
      {attempted ? null : reason === 'signed-out' ? (
        <Alert severity="info" role="status" sx={{ mb: 2 }}>
          You signed out.
        </Alert>
      ) : reason === 'expired' ? (
        <Alert severity="info" role="status" sx={{ mb: 2 }}>
          Your session ended; sign in again to carry on.
        </Alert>
      ) : reason === 'disabled' ? (
        <Alert severity="warning" sx={{ mb: 2 }}>
          Your account has been disabled, so you were signed out. Ask an administrator to enable it.
        </Alert>
      ) : null}
      {session.isPending ? (
        <LoadingState label="Checking your session…" />
      ) : session.isError ? (
        <ErrorState
          error={session.error}
          what="the sign-in page"
          onRetry={() => void session.refetch()}
        />
      ) : (
        <SignInForm
          onSent={() => {
            setAttempted(true);
          }}
          onSignedIn={(reply) => {
            client.removeQueries({ queryKey: sessionKeys.ended, exact: true });
            client.setQueryData(sessionKeys.current, reply);
          }}
        />
      )}
    </AuthFrame>
  );
}
