import TextField from '@mui/material/TextField';
import { ROLE_LABELS, type Role } from '@paydesk/shared/api';
import type { FieldError, UseFormRegisterReturn } from 'react-hook-form';
import { fieldHelp } from '../../../lib/field-help';

/** The question for roles that add Finance, Operations or both: "… need Finance and Operations?" */
export function moneyRoleQuestion(added: readonly Role[]): string {
  return `Why does this account need ${added.map((role) => ROLE_LABELS[role]).join(' and ')}?`;
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
