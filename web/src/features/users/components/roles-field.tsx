import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import { ROLE_LABELS, ROLES, type Role } from '@paydesk/shared/api';

const ROLE_HINTS: Record<Role, string> = {
  support: 'read, status lookup, card info',
  finance: 'captures, returns, voids, rebills, links',
  ops: 'payouts, four-eyes approvals',
  admin: 'users and roles',
  auditor: 'audit log',
};

/**
 * A labelled group of role checkboxes (a user may hold several). A `locked` role's box cannot be
 * changed, and `lockedReason` says why beneath the group.
 */
export function RolesField({
  value,
  onChange,
  error,
  locked = [],
  lockedReason,
}: {
  value: readonly Role[];
  onChange: (roles: Role[]) => void;
  error?: string | undefined;
  locked?: readonly Role[];
  lockedReason?: string | undefined;
}) {
  return (
    <FormControl component="fieldset" error={error !== undefined} variant="standard">
      <FormLabel component="legend">Roles</FormLabel>
      <FormGroup>
        {ROLES.map((role) => (
          <FormControlLabel
            key={role}
            control={
              <Checkbox
                checked={value.includes(role)}
                disabled={locked.includes(role)}
                onChange={(event) => {
                  onChange(
                    event.target.checked
                      ? ROLES.filter((r) => r === role || value.includes(r))
                      : value.filter((r) => r !== role),
                  );
                }}
              />
            }
            label={`${ROLE_LABELS[role]} — ${ROLE_HINTS[role]}`}
          />
        ))}
      </FormGroup>
      <FormHelperText>
        {error ??
          (lockedReason === undefined
            ? 'At least one role.'
            : `At least one role. ${lockedReason}`)}
      </FormHelperText>
    </FormControl>
  );
}
