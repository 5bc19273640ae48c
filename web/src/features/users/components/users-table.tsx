import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { ROLE_LABELS, type UserListItem } from '@paydesk/shared/api';
import { createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useEffect, useMemo, useRef } from 'react';
import { DataTable } from '../../../components/data-table';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { signInLockWords } from './sign-in-lock-words';

const features = tableFeatures({});
const helper = createColumnHelper<typeof features, UserListItem>();

export interface UserActions {
  onEdit: (user: UserListItem) => void;
  onToggleDisabled: (user: UserListItem) => void;
  onResetTotp: (user: UserListItem) => void;
  onResetPassword: (user: UserListItem) => void;
  onUnlockSignIn: (user: UserListItem) => void;
}

function NameAndEmail({ user }: { user: UserListItem }) {
  return (
    <div>
      <Typography variant="body2" sx={{ fontWeight: 600 }}>
        {user.name}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        <EmailText value={user.email} />
      </Typography>
    </div>
  );
}

function RoleChips({ user }: { user: UserListItem }) {
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {user.roles.map((role) => (
        <Chip key={role} label={ROLE_LABELS[role]} size="small" variant="outlined" />
      ))}
    </Stack>
  );
}

/** A chip that may break onto two lines, so that the column stays narrow. */
const WRAPPING_CHIP = {
  height: 'auto',
  py: 0.25,
  '& .MuiChip-label': { whiteSpace: 'normal' },
} as const;

function StateChips({ user, direction }: { user: UserListItem; direction: 'row' | 'column' }) {
  return (
    <Stack
      direction={direction}
      spacing={0.5}
      useFlexGap
      sx={{ alignItems: 'flex-start', flexWrap: 'wrap' }}
    >
      {user.disabled ? (
        <Chip label="Disabled" size="small" color="default" />
      ) : (
        <Chip label="Active" size="small" color="success" variant="outlined" />
      )}
      {/* Set by an administrator (creation or a reset) until the user chooses their own. */}
      {user.passwordChangeRequired ? (
        <Chip
          label="Temporary password"
          size="small"
          color="warning"
          variant="outlined"
          title="Set by an administrator: the user must choose their own at their next sign-in"
          sx={WRAPPING_CHIP}
        />
      ) : null}
      {/* Failed sign-ins hold the account back (from every address, or from some): the words say
          which and until when, as the chip's tooltip and to screen readers. */}
      {user.signInLock === null ? null : (
        <Chip
          label="Sign-in locked"
          size="small"
          color="error"
          variant="outlined"
          title={signInLockWords(user.signInLock)}
          aria-label={`Sign-in locked: ${signInLockWords(user.signInLock)}`}
          sx={WRAPPING_CHIP}
        />
      )}
    </Stack>
  );
}

function LastSignIn({ user }: { user: UserListItem }) {
  return user.lastLoginAt === null ? 'Never' : <DateTime value={user.lastLoginAt} />;
}

function ActionButtons({
  user,
  actions,
  currentUserId,
  layout,
}: {
  user: UserListItem;
  actions: UserActions;
  currentUserId: string;
  /**
   * `row`: side by side (a wide screen); `wrap`: onto more lines instead of widening the row (a
   * phone); `stack`: one under the other, a column as wide as the widest (a tablet)
   */
  layout: 'row' | 'wrap' | 'stack';
}) {
  return (
    <Stack
      direction={layout === 'stack' ? 'column' : 'row'}
      spacing={layout === 'stack' ? 0.5 : 1}
      useFlexGap
      sx={
        layout === 'wrap'
          ? { flexWrap: 'wrap' }
          : layout === 'stack'
            ? { alignItems: 'flex-start' }
            : undefined
      }
    >
      <Button
        size="small"
        onClick={() => {
          actions.onEdit(user);
        }}
        aria-label={`Edit ${user.email}`}
      >
        Edit
      </Button>
      {/* Locking oneself out is never the intended action. */}
      {user.id === currentUserId ? null : (
        <Button
          size="small"
          color={user.disabled ? 'primary' : 'error'}
          onClick={() => {
            actions.onToggleDisabled(user);
          }}
          aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.email}`}
        >
          {user.disabled ? 'Enable' : 'Disable'}
        </Button>
      )}
      {/* One's own password is changed under My account, with the current one. */}
      {user.id === currentUserId ? null : (
        <Button
          size="small"
          color="warning"
          sx={{ whiteSpace: 'nowrap' }}
          onClick={() => {
            actions.onResetPassword(user);
          }}
          aria-label={`Reset password of ${user.email}`}
        >
          Reset password
        </Button>
      )}
      {/* One's own lock is lifted by another administrator (the BFF refuses it). */}
      {user.signInLock !== null && user.id !== currentUserId ? (
        <Button
          size="small"
          sx={{ whiteSpace: 'nowrap' }}
          onClick={() => {
            actions.onUnlockSignIn(user);
          }}
          aria-label={`Unlock sign-in of ${user.email}`}
        >
          Unlock sign-in
        </Button>
      ) : null}
      {/* One's own two-step is reset by another administrator (the BFF refuses it). */}
      {user.totpEnabled && user.id !== currentUserId ? (
        <Button
          size="small"
          color="warning"
          sx={{ whiteSpace: 'nowrap' }}
          onClick={() => {
            actions.onResetTotp(user);
          }}
          aria-label={`Reset two-step sign-in of ${user.email}`}
        >
          Reset two-step
        </Button>
      ) : null}
    </Stack>
  );
}

/** The actions column (none for a reader, an auditor), its buttons laid out as `layout` says. */
function actionsColumn(
  actions: UserActions | null,
  currentUserId: string,
  layout: 'row' | 'stack',
) {
  if (actions === null) return [];
  return [
    helper.display({
      id: 'actions',
      header: 'Actions',
      cell: ({ row }) => (
        <ActionButtons
          user={row.original}
          actions={actions}
          currentUserId={currentUserId}
          layout={layout}
        />
      ),
    }),
  ];
}

function wideColumns(actions: UserActions | null, currentUserId: string) {
  return helper.columns([
    helper.accessor('name', {
      header: 'User',
      cell: (info) => <NameAndEmail user={info.row.original} />,
    }),
    helper.accessor('roles', {
      header: 'Roles',
      cell: (info) => <RoleChips user={info.row.original} />,
    }),
    helper.accessor('disabled', {
      header: 'Status',
      cell: (info) => <StateChips user={info.row.original} direction="column" />,
    }),
    helper.accessor('totpEnabled', {
      header: 'Two-step',
      cell: (info) => (info.getValue() ? 'On' : 'Off'),
    }),
    helper.accessor('lastLoginAt', {
      header: 'Last sign-in',
      cell: (info) => <LastSignIn user={info.row.original} />,
    }),
    ...actionsColumn(actions, currentUserId, 'row'),
  ]);
}

/** Two-step sign-in and the last sign-in, said in one line under the user. */
function SignInFacts({ user }: { user: UserListItem }) {
  return (
    <Typography variant="caption" component="div" color="text.secondary">
      Two-step sign-in {user.totpEnabled ? 'on' : 'off'} ·{' '}
      {user.lastLoginAt === null ? (
        'never signed in'
      ) : (
        <>
          last sign-in <DateTime value={user.lastLoginAt} />
        </>
      )}
    </Typography>
  );
}

/**
 * A tablet's screen (600 to 1200 px, no side navigation): three columns. The user with their
 * two-step and last sign-in under them, the roles with the state under them, and the actions one
 * under the other. Six columns side by side cut the actions to "Ed" at 800 px: Disable and Reset
 * password were off the screen's edge.
 */
function tabletColumns(actions: UserActions | null, currentUserId: string) {
  return helper.columns([
    helper.accessor('name', {
      id: 'user',
      header: 'User',
      cell: ({ row }) => (
        <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
          <NameAndEmail user={row.original} />
          <SignInFacts user={row.original} />
        </Stack>
      ),
    }),
    helper.accessor('roles', {
      id: 'rolesAndStatus',
      header: 'Roles and status',
      cell: ({ row }) => (
        <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
          <RoleChips user={row.original} />
          <StateChips user={row.original} direction="row" />
        </Stack>
      ),
    }),
    ...actionsColumn(actions, currentUserId, 'stack'),
  ]);
}

/**
 * A phone's screen (below 600 px): each user is one cell, its name and e-mail, roles and state
 * first, its two-step and last sign-in under them, then the actions, which wrap. Side by side, the
 * six columns (the actions alone some 400 px) made a 390 px screen scroll sideways to reach the
 * roles, the state and every action.
 */
function phoneColumns(actions: UserActions | null, currentUserId: string) {
  return helper.columns([
    helper.accessor('name', {
      id: 'user',
      header: 'User',
      cell: ({ row }) => {
        const user = row.original;
        return (
          <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
            <NameAndEmail user={user} />
            <RoleChips user={user} />
            <StateChips user={user} direction="row" />
            <SignInFacts user={user} />
            {actions === null ? null : (
              <ActionButtons
                user={user}
                actions={actions}
                currentUserId={currentUserId}
                layout="wrap"
              />
            )}
          </Stack>
        );
      },
    }),
  ]);
}

export function UsersTable({
  users,
  actions,
  currentUserId,
  selectedId,
}: {
  users: readonly UserListItem[];
  /** null for a reader (an auditor): the table has no actions column */
  actions: UserActions | null;
  currentUserId: string;
  /**
   * The user the page was opened for (`?user=<id>`, from an audit row): their row is shown
   * selected, scrolled into view and focused once; nothing when no such user is listed.
   */
  selectedId?: string | undefined;
}) {
  const theme = useTheme();
  // noSsr: the first render already has the screen's columns (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const tablet = useMediaQuery(theme.breakpoints.down('lg'), { noSsr: true });
  const columns = useMemo(
    () => (phone ? phoneColumns : tablet ? tabletColumns : wideColumns)(actions, currentUserId),
    [phone, tablet, actions, currentUserId],
  );
  const data = useMemo(() => [...users], [users]);
  const table = useTable({ features, columns, data, getRowId: (user) => user.id });
  const listed = selectedId !== undefined && users.some((user) => user.id === selectedId);
  const box = useRef<HTMLDivElement>(null);
  // Brought into view once per user asked for: a refetch does not take the focus back.
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!listed || shown.current === selectedId) return;
    const row = box.current?.querySelector<HTMLElement>('tr[aria-current="true"]');
    if (!row) return;
    shown.current = selectedId;
    row.scrollIntoView({ block: 'center' });
    row.focus({ preventScroll: true });
  }, [listed, selectedId]);
  return (
    <div ref={box}>
      <DataTable table={table} label="Users" selectedRowId={listed ? selectedId : undefined} />
    </div>
  );
}
