import PersonAddOutlined from '@mui/icons-material/PersonAddOutlined';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import type { User, UserListItem } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { usersQueryOptions } from '../api/users';
import type { UserStep } from '../components/user-reason-dialog';
import { UsersTable, type UserActions } from '../components/users-table';

// The forms (and react-hook-form) load when a dialog first opens, not with the list.
const CreateUserDialog = lazy(() => import('../components/create-user-dialog'));
const EditUserDialog = lazy(() => import('../components/edit-user-dialog'));
const ResetPasswordDialog = lazy(() => import('../components/reset-password-dialog'));
const UserReasonDialog = lazy(() => import('../components/user-reason-dialog'));

type Pending = { step: UserStep; user: UserListItem } | null;

function UsersScreen() {
  const session = useSession();
  const users = useQuery(usersQueryOptions());
  // `?user=<id>`: opened for one user (an audit row's target): the table brings their row forward.
  const [params] = useSearchParams();
  const selectedId = params.get('user') ?? undefined;
  // Mirrors the BFF's route table: auditors read the list, admins alone change anything.
  const manages = session.user.roles.includes('admin');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<User | null>(null);
  const [resettingPassword, setResettingPassword] = useState<User | null>(null);
  const [pending, setPending] = useState<Pending>(null);

  const actions = useMemo<UserActions>(
    () => ({
      onEdit: setEditing,
      onToggleDisabled: (user) => {
        // Both ask first, and why: disabling locks someone out; enabling lets them back in and
        // ties the admin to the account for four-eyes (bff/README.md, Roles).
        setPending({ step: user.disabled ? 'enable' : 'disable', user });
      },
      onResetTotp: (user) => {
        setPending({ step: 'reset-totp', user });
      },
      onResetPassword: setResettingPassword,
      onUnlockSignIn: (user) => {
        setPending({ step: 'unlock-sign-in', user });
      },
    }),
    [],
  );

  return (
    <>
      <PageHeader
        title="Users"
        actions={
          manages ? (
            <Button
              variant="contained"
              startIcon={<PersonAddOutlined />}
              onClick={() => {
                setCreating(true);
              }}
            >
              Create user
            </Button>
          ) : null
        }
      >
        {manages
          ? 'Staff accounts and their roles.'
          : 'Staff accounts and their roles, to read: administrators change them.'}
      </PageHeader>
      {users.isPending ? (
        <LoadingState label="Loading users…" />
      ) : users.isError ? (
        <ErrorState error={users.error} what="the users" onRetry={() => void users.refetch()} />
      ) : users.data.items.length === 0 ? (
        <EmptyState title="No users yet">
          {manages ? 'Create the first staff account with “Create user”.' : 'No staff accounts.'}
        </EmptyState>
      ) : (
        <Paper variant="outlined">
          <UsersTable
            users={users.data.items}
            actions={manages ? actions : null}
            currentUserId={session.user.id}
            selectedId={selectedId}
          />
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
        {pending ? (
          <UserReasonDialog
            key={`${pending.step}-${pending.user.id}`}
            user={pending.user}
            step={pending.step}
            onClose={() => {
              setPending(null);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

export default function UsersRoute() {
  return (
    <RequireRoles roles={SCREENS.users.roles} what="the user accounts">
      <UsersScreen />
    </RequireRoles>
  );
}
