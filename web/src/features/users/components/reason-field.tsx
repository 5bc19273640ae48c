import TextField, { type TextFieldProps } from '@mui/material/TextField';
import type { FieldError } from 'react-hook-form';
import { fieldHelp } from '../../../lib/field-help';

/** The reason an account change needs, as every such dialog asks it (kept in the audit log). */
export function ReasonField({
  error,
  ...props
}: Omit<TextFieldProps, 'error'> & { error: FieldError | undefined }) {
  return (
    <TextField
      label="Reason"
      required
      multiline
      minRows={2}
      error={error !== undefined}
      helperText={fieldHelp(
        error,
        'Say why (3 to 500 characters).',
        'Required: kept in the audit log with your name.',
      )}
      {...props}
    />
  );
}
