import TextField from '@mui/material/TextField';
import { moneyRolesAdded, ROLE_LABELS, rolesRefusal, type Role } from '@paydesk/shared/api';
import type { FieldError, UseFormRegisterReturn } from 'react-hook-form';
import { fieldHelp } from '../../../lib/field-help';

/** The question for roles that add Finance, Operations or both: "… need Finance and Operations?" */
export function moneyRoleQuestion(added: readonly Role[]): string {
  return `Why does this account need ${added.map((role) => ROLE_LABELS[role]).join(' and ')}?`;
}

/**
 * The money roles the dialog asks a reason for: those the chosen roles add (`moneyRolesAdded`),
 * none while the roles field already says the set is refused (Auditor with a money role, or a
 * money role given to oneself): a set that cannot be saved is not explained first.
 */
export function moneyRolesToExplain(change: {
  roles: readonly Role[];
  before?: readonly Role[];
  self?: boolean;
}): Role[] {
  return rolesRefusal(change) === undefined ? moneyRolesAdded(change.roles, change.before) : [];
}

/**
 * Why an account is given a money role (`added`, from the shared `moneyRolesAdded`): asked like
 * the reason to disable a user (3 to 500 characters, several lines), and kept in the audit log.
 * Shown only while the chosen roles add one: the create and edit dialogs register it with
 * `shouldUnregister`, so that a reason typed for roles since unticked is not sent.
 */
export function MoneyRoleReasonField({
  added,
  error,
  registration,
}: {
  added: readonly Role[];
  error: FieldError | undefined;
  registration: UseFormRegisterReturn;
}) {
  return (
    <TextField
      label={moneyRoleQuestion(added)}
      required
      multiline
      minRows={2}
      error={error !== undefined}
      helperText={fieldHelp(
        error,
        'Say why (3 to 500 characters).',
        'Required: kept in the audit log with your name.',
      )}
      {...registration}
    />
  );
}
