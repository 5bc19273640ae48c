import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import type { SessionResponse } from '@paydesk/shared/api';
import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useNavigate } from 'react-router';
import { isApiError } from '../../../lib/api-client';
import { discardSession, endSession, resumeSession, sessionKeys } from '../api/session';
import { SignInForm } from './sign-in-form';

/**
 * Over the page whose session timed out or was revoked: the same user signs in again (password,
 * then the code if the account has TOTP) and carries on where they were, with everything typed
 * still there; nothing is sent again by itself. Another user starts afresh from the sign-in page.
 * A disabled account goes to the sign-in page, which says so; a password an administrator set
 * meanwhile, to "Choose your password" (the guard sees it in the new session).
 */
export function SessionEndedDialog({ session }: { session: SessionResponse }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const titleId = useId();
  const { user } = session;

  const startAfresh = (reply: SessionResponse | null) => {
    discardSession(client);
    if (reply !== null) client.setQueryData(sessionKeys.current, reply);
    void navigate('/sign-in', { replace: true });
  };

  return (
    <Dialog
      open
      aria-labelledby={titleId}
      maxWidth="xs"
      fullWidth
      // Above any dialog the page has open, whose values wait underneath.
      sx={{ zIndex: (theme) => theme.zIndex.modal + 1 }}
      // The idle timeout is also a screen lock: nothing of the page shows while no one is signed
      // in (it stays mounted, hidden behind an opaque backdrop).
      slotProps={{
        backdrop: { sx: { backgroundColor: 'background.default' } },
      }}
    >
      <DialogTitle id={titleId}>Your session ended — sign in again to continue</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          Signed out after a while without activity, or from elsewhere. Sign in again as {user.name}{' '}
          and carry on where you were: what you typed is still here, and nothing was sent again.
        </DialogContentText>
        <Stack spacing={1}>
          <SignInForm
            account={user.email}
            onSignedIn={(reply) => {
              // Only the same user carries on; another one never sees this page.
              if (reply.user.id === user.id) resumeSession(client, reply);
              else startAfresh(reply);
            }}
            onRefused={(error) => {
              if (isApiError(error) && error.code === 'ACCOUNT_DISABLED') {
                endSession(client, 'disabled');
              }
            }}
          />
          <Button
            onClick={() => {
              startAfresh(null);
            }}
          >
            Sign in as someone else
          </Button>
        </Stack>
      </DialogContent>
    </Dialog>
  );
}
