import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { NotifierProvider } from '../../../components/notifier';
import { ErrorState, LoadingState } from '../../../components/page-states';
import { describeError } from '../../../lib/api-client';
import { safeNextPath, SCREENS } from '../../shell/navigation';
import {
  announceSignOut,
  CHOOSE_PASSWORD_PATH,
  forgetSignedOutSession,
  sessionKeys,
  sessionQueryOptions,
  signOut,
  type SessionEndReason,
} from '../api/session';
import { AuthFrame } from '../components/auth-frame';
import { ChangePasswordForm } from '../components/change-password-form';

/** Where to go once the password is chosen: `next` when it is a page of this app. */
function nextPath(raw: string | null): string {
  const next = safeNextPath(raw);
  return next === null || next.startsWith(CHOOSE_PASSWORD_PATH) ? SCREENS.home.path : next;
}

/** Where "Sign out instead" leads: the sign-in page, saying "You signed out." */
const SIGNED_OUT_PATH = '/sign-in?reason=signed-out';

/** The sign-in page's frame, a little wider for the password rules. */
function Frame({ children }: { children: ReactNode }) {
  return <AuthFrame maxWidth={480}>{children}</AuthFrame>;
}

/**
 * "Choose your password": where a user whose password an administrator set (a new account, or a
 * reset) lands after sign-in, or on any 403 PASSWORD_CHANGE_REQUIRED. The server allows such a
 * session nothing else; once the password is theirs, they continue to the page they wanted.
 */
export default function ChoosePasswordRoute() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const session = useQuery(sessionQueryOptions());
  const next = nextPath(params.get('next'));

  useEffect(() => {
    document.title = 'Choose your password · Paydesk';
  }, []);

  const signOutMutation = useMutation({
    mutationFn: signOut,
    onSuccess: async () => {
      forgetSignedOutSession(client);
      announceSignOut();
      // The sign-in page says the user signed out, as after Sign out in the app's user menu.
      await navigate(SIGNED_OUT_PATH, { replace: true });
    },
  });

  if (session.isPending) {
    return (
      <Frame>
        <LoadingState label="Checking your session…" />
      </Frame>
    );
  }
  if (session.isError) {
    return (
      <Frame>
        <ErrorState
          error={session.error}
          what="your session"
          onRetry={() => void session.refetch()}
        />
      </Frame>
    );
  }
  if (session.data === null) {
    const reason = client.getQueryData<SessionEndReason>(sessionKeys.ended);
    const query = new URLSearchParams();
    // Reached first when the user signs out here (the session is gone before `navigate` runs),
    // so it too says so. For the sign-in page's words only: the parameter grants nothing.
    if (reason !== 'signed-out') query.set('next', next);
    if (reason === 'expired' || reason === 'disabled' || reason === 'signed-out')
      query.set('reason', reason);
    return <Navigate to={`/sign-in?${query.toString()}`} replace />;
  }
  // Chosen already (here, or in another tab): on to the page the user wanted.
  if (!session.data.user.passwordChangeRequired) return <Navigate to={next} replace />;

  const { user } = session.data;
  return (
    <Frame>
      <NotifierProvider>
        <Stack spacing={2}>
          <div>
            <Typography variant="h1" sx={{ mb: 0.5 }}>
              Choose your password
            </Typography>
            <Typography color="text.secondary">
              Signed in as {user.name} · {user.email}
            </Typography>
          </div>
          <Alert severity="info">
            An administrator set the password you signed in with, so it is not yours alone. Choose a
            password only you know before you continue. Your other sessions will be signed out.
          </Alert>
          <ChangePasswordForm temporary onChanged={() => undefined} />
          <Box>
            <Button
              onClick={() => {
                signOutMutation.mutate();
              }}
              loading={signOutMutation.isPending}
            >
              Sign out instead
            </Button>
            {signOutMutation.isError ? (
              <Alert severity="error" role="alert" sx={{ mt: 1 }}>
                {describeError(signOutMutation.error)}
              </Alert>
            ) : null}
          </Box>
        </Stack>
      </NotifierProvider>
    </Frame>
  );
}
