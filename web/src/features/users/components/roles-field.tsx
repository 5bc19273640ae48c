import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import { ROLE_LABELS, ROLES, rolesRefusal, type Role } from '@paydesk/shared/api';
import { useId } from 'react';

const ROLE_HINTS: Record<Role, string> = {
  support: 'read, status lookup, card info',
  finance: 'captures, returns, voids, rebills, links',
  ops: 'payouts, four-eyes approvals',
  admin: 'users and roles',
  auditor: 'audit log',
};

/**
 * A labelled group of role checkboxes (a user may hold several). A `locked` role's box cannot be
 * changed, and `lockedReason` says why beneath the group. The shared roles rule (`rolesRefusal`,
 * the one the BFF refuses by) is said beneath the group as soon as the boxes break it, in the
 * BFF's words, weighed against the account's current roles (`before`, none for a new account) and
 * whether the administrator is changing their own (`self`).
 */
export function RolesField({
  value,
  onChange,
  error,
  locked = [],
  lockedReason,
  before = [],
  self = false,
}: {
  value: readonly Role[];
  onChange: (roles: Role[]) => void;
  error?: string | undefined;
  locked?: readonly Role[];
  lockedReason?: string | undefined;
  before?: readonly Role[];
  self?: boolean;
}) {
  const helpId = useId();
  const refusal = rolesRefusal({ roles: value, before, self });
  const problem = refusal?.message ?? error;
  return (
    // The help says why a box is locked or the set refused: read with the group, not only seen.
    <FormControl
      component="fieldset"
      error={problem !== undefined}
      variant="standard"
      aria-describedby={helpId}
    >
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
      <FormHelperText id={helpId} aria-live="polite">
        {problem ??
          (lockedReason === undefined
            ? 'At least one role.'
            : `At least one role. ${lockedReason}`)}
      </FormHelperText>
    </FormControl>
  );
}
