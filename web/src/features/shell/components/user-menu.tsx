import AccountCircle from '@mui/icons-material/AccountCircle';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import { ROLE_LABELS } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { useNotify } from '../../../components/notifier';
import { describeError } from '../../../lib/api-client';
import { announceSignOut, forgetSignedOutSession, signOut } from '../../auth/api/session';
import { useSession } from '../../auth/components/session-context';

export function UserMenu() {
  const { user } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const notify = useNotify();
  const menuId = useId();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const close = () => {
    setAnchor(null);
  };

  const signOutMutation = useMutation({
    mutationFn: signOut,
    onSuccess: async () => {
      close();
      forgetSignedOutSession(client);
      announceSignOut();
      // The sign-in page says the user signed out (its only use of the reason).
      await navigate('/sign-in?reason=signed-out', { replace: true });
    },
    onError: (error) => {
      notify(describeError(error), 'error');
    },
  });

  return (
    <>
      <IconButton
        title={`${user.name} (${user.email})`}
        color="inherit"
        aria-label={`Account menu for ${user.name}`}
        aria-controls={anchor ? menuId : undefined}
        aria-haspopup="true"
        aria-expanded={anchor ? 'true' : undefined}
        onClick={(event) => {
          setAnchor(event.currentTarget);
        }}
      >
        <AccountCircle />
      </IconButton>
      <Menu id={menuId} anchorEl={anchor} open={anchor !== null} onClose={close}>
        <MenuItem disabled sx={{ '&.Mui-disabled': { opacity: 1 } }}>
          <ListItemText
            primary={user.name}
            secondary={user.roles.map((role) => ROLE_LABELS[role]).join(', ')}
          />
        </MenuItem>
        <Divider />
        <MenuItem
          onClick={() => {
            close();
            void navigate('/account');
          }}
        >
          My account
        </MenuItem>
        <MenuItem
          disabled={signOutMutation.isPending}
          onClick={() => {
            signOutMutation.mutate();
          }}
        >
          Sign out
        </MenuItem>
      </Menu>
    </>
  );
}
