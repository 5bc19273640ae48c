import PersonAddOutlined from '@mui/icons-material/PersonAddOutlined';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import type { User } from '@paydesk/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useNotify } from '../../../components/notifier';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { resetUserTotp, updateUser, userKeys, usersQueryOptions } from '../api/users';
import { describeUserError } from '../components/user-errors';
import { UsersTable, type UserActions } from '../components/users-table';

// The forms (and react-hook-form) load when a dialog first opens, not with the list.
const CreateUserDialog = lazy(() => import('../components/create-user-dialog'));
const EditUserDialog = lazy(() => import('../components/edit-user-dialog'));
const ResetPasswordDialog = lazy(() => import('../components/reset-password-dialog'));

type Pending = { kind: 'disable' | 'reset-totp'; user: User } | null;

function UsersScreen() {
  const client = useQueryClient();
  const notify = useNotify();
  const session = useSession();
  const users = useQuery(usersQueryOptions());
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<User | null>(null);
  const [resettingPassword, setResettingPassword] = useState<User | null>(null);
  const [pending, setPending] = useState<Pending>(null);

  const refresh = () => client.invalidateQueries({ queryKey: userKeys.all });

  const setDisabled = useMutation({
    mutationFn: ({ user, disabled }: { user: User; disabled: boolean }) =>
      updateUser({ id: user.id, body: { disabled } }),
    onSuccess: async (user) => {
      notify(
        user.disabled
          ? `${user.email} is disabled and signed out.`
          : `${user.email} can sign in again.`,
      );
      setPending(null);
      await refresh();
    },
    onError: (error) => {
      setPending(null);
      notify(describeUserError(error), 'error');
    },
  });

  const resetTotp = useMutation({
    mutationFn: (user: User) => resetUserTotp(user.id),
    onSuccess: async (user) => {
      notify(`Two-step sign-in of ${user.email} was reset; they can enrol again.`);
      setPending(null);
      await refresh();
    },
    onError: (error) => {
      setPending(null);
      notify(describeUserError(error), 'error');
    },
  });

  const { mutate: mutateDisabled } = setDisabled;
  const actions = useMemo<UserActions>(
    () => ({
      onEdit: setEditing,
      onToggleDisabled: (user) => {
        // Enabling gives access back and is undone easily; disabling locks someone out, so ask first.
        if (user.disabled) mutateDisabled({ user, disabled: false });
        else setPending({ kind: 'disable', user });
      },
      onResetTotp: (user) => {
        setPending({ kind: 'reset-totp', user });
      },
      onResetPassword: setResettingPassword,
    }),
    [mutateDisabled],
  );

  return (
    <>
      <PageHeader
        title="Users"
        actions={
          <Button
            variant="contained"
            startIcon={<PersonAddOutlined />}
            onClick={() => {
              setCreating(true);
            }}
          >
            Create user
          </Button>
        }
      >
        Staff accounts and their roles.
      </PageHeader>
      {users.isPending ? (
        <LoadingState label="Loading users…" />
      ) : users.isError ? (
        <ErrorState error={users.error} what="the users" onRetry={() => void users.refetch()} />
      ) : users.data.items.length === 0 ? (
        <EmptyState title="No users yet">
          Create the first staff account with “Create user”.
        </EmptyState>
      ) : (
        <Paper variant="outlined">
          <UsersTable users={users.data.items} actions={actions} currentUserId={session.user.id} />
        </Paper>
      )}
      <Suspense fallback={null}>
        {creating ? (
          <CreateUserDialog
            open
            onClose={() => {
              setCreating(false);
            }}
          />
        ) : null}
        {editing ? (
          <EditUserDialog
            key={editing.id}
            user={editing}
            onClose={() => {
              setEditing(null);
            }}
          />
        ) : null}
        {resettingPassword ? (
          <ResetPasswordDialog
            key={resettingPassword.id}
            user={resettingPassword}
            onClose={() => {
              setResettingPassword(null);
            }}
          />
        ) : null}
      </Suspense>
      <ConfirmDialog
        open={pending?.kind === 'disable'}
        title="Disable this user?"
        confirmLabel="Disable"
        destructive
        busy={setDisabled.isPending}
        onClose={() => {
          setPending(null);
        }}
        onConfirm={() => {
          if (pending) setDisabled.mutate({ user: pending.user, disabled: true });
        }}
      >
        {pending?.user.email} will be signed out everywhere and cannot sign in until enabled again.
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.kind === 'reset-totp'}
        title="Reset two-step sign-in?"
        confirmLabel="Reset"
        destructive
        busy={resetTotp.isPending}
        onClose={() => {
          setPending(null);
        }}
        onConfirm={() => {
          if (pending) resetTotp.mutate(pending.user);
        }}
      >
        {pending?.user.email} will be signed out, their authenticator and recovery codes stop
        working, and they sign in with their password alone until they enrol again.
      </ConfirmDialog>
    </>
  );
}

export default function UsersRoute() {
  return (
    <RequireRoles roles={SCREENS.users.roles} what="user administration">
      <UsersScreen />
    </RequireRoles>
  );
}
