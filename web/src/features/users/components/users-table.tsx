import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ROLE_LABELS, type User } from '@paydesk/shared/api';
import { createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useMemo } from 'react';
import { DataTable } from '../../../components/data-table';
import { DateTime } from '../../../components/date-time';

const features = tableFeatures({});
const helper = createColumnHelper<typeof features, User>();

export interface UserActions {
  onEdit: (user: User) => void;
  onToggleDisabled: (user: User) => void;
  onResetTotp: (user: User) => void;
  onResetPassword: (user: User) => void;
}

export function UsersTable({
  users,
  actions,
  currentUserId,
}: {
  users: readonly User[];
  /** null for a reader (an auditor): the table has no actions column */
  actions: UserActions | null;
  currentUserId: string;
}) {
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor('name', {
          header: 'User',
          cell: (info) => (
            <>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {info.getValue()}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {info.row.original.email}
              </Typography>
            </>
          ),
        }),
        helper.accessor('roles', {
          header: 'Roles',
          cell: (info) => (
            <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
              {info.getValue().map((role) => (
                <Chip key={role} label={ROLE_LABELS[role]} size="small" variant="outlined" />
              ))}
            </Stack>
          ),
        }),
        helper.accessor('disabled', {
          header: 'Status',
          cell: (info) => (
            <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
              {info.getValue() ? (
                <Chip label="Disabled" size="small" color="default" />
              ) : (
                <Chip label="Active" size="small" color="success" variant="outlined" />
              )}
              {/* Set by an administrator (creation or a reset) until the user chooses their own. */}
              {info.row.original.passwordChangeRequired ? (
                <Chip
                  label="Temporary password"
                  size="small"
                  color="warning"
                  variant="outlined"
                  title="Set by an administrator: the user must choose their own at their next sign-in"
                  // May break onto two lines, so that the column stays narrow.
                  sx={{ height: 'auto', py: 0.25, '& .MuiChip-label': { whiteSpace: 'normal' } }}
                />
              ) : null}
            </Stack>
          ),
        }),
        helper.accessor('totpEnabled', {
          header: 'Two-step',
          cell: (info) => (info.getValue() ? 'On' : 'Off'),
        }),
        helper.accessor('lastLoginAt', {
          header: 'Last sign-in',
          cell: (info) => {
            const value = info.getValue();
            return value === null ? 'Never' : <DateTime value={value} />;
          },
        }),
        // A reader (an auditor) gets no actions column.
        ...(actions === null
          ? []
          : [
              helper.display({
                id: 'actions',
                header: 'Actions',
                cell: ({ row }) => {
                  const user = row.original;
                  return (
                    <Stack direction="row" spacing={1}>
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
                      {/* One's own two-step is reset by another administrator (the BFF refuses it). */}
                      {user.totpEnabled && user.id !== currentUserId ? (
                        <Button
                          size="small"
                          color="warning"
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
                },
              }),
            ]),
      ]),
    [actions, currentUserId],
  );
  const data = useMemo(() => [...users], [users]);
  const table = useTable({ features, columns, data, getRowId: (user) => user.id });
  return <DataTable table={table} label="Users" />;
}
