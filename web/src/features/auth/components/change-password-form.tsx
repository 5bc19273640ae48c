import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { ChangePasswordRequestSchema, PASSWORD_MIN_LENGTH } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { changePassword, sessionKeys } from '../api/session';

// The shared request schema plus the client-only "type it twice" check.
const FormSchema = ChangePasswordRequestSchema.extend({ confirmPassword: z.string() }).refine(
  (values) => values.newPassword === values.confirmPassword,
  { path: ['confirmPassword'], message: 'The two new passwords differ.' },
);
type FormInput = z.input<typeof FormSchema>;
type FormOutput = z.output<typeof FormSchema>;

export function ChangePasswordForm() {
  const client = useQueryClient();
  const notify = useNotify();
  const { register, handleSubmit, formState, setError, reset } = useForm<
    FormInput,
    unknown,
    FormOutput
  >({
    resolver: zodResolver(FormSchema),
    defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
  });

  const mutation = useMutation({
    mutationFn: changePassword,
    onSuccess: (session) => {
      client.setQueryData(sessionKeys.current, session);
      reset();
      notify('Password changed. Your other sessions were signed out.');
    },
    onError: (error) => {
      if (isApiError(error) && error.code === 'CURRENT_PASSWORD_INVALID') {
        setError('currentPassword', {
          type: 'server',
          message: 'This is not your current password.',
        });
        return;
      }
      if (!applyServerFieldErrors(error, setError, ['currentPassword', 'newPassword'])) {
        notify(describeError(error), 'error');
      }
    },
  });

  const newPasswordHelp = `At least ${PASSWORD_MIN_LENGTH} characters.`;
  return (
    <form
      noValidate
      aria-label="Change password"
      onSubmit={(event) => {
        void handleSubmit(({ currentPassword, newPassword }) => {
          mutation.mutate({ currentPassword, newPassword });
        })(event);
      }}
    >
      <Stack spacing={2} sx={{ maxWidth: 420 }}>
        {mutation.isError &&
        isApiError(mutation.error) &&
        mutation.error.code === 'VALIDATION_FAILED' ? (
          <Alert severity="error">{describeError(mutation.error)}</Alert>
        ) : null}
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          error={formState.errors.currentPassword !== undefined}
          helperText={fieldHelp(formState.errors.currentPassword, 'Enter your current password.')}
          {...register('currentPassword')}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          error={formState.errors.newPassword !== undefined}
          helperText={fieldHelp(formState.errors.newPassword, newPasswordHelp, newPasswordHelp)}
          {...register('newPassword')}
        />
        <TextField
          label="Repeat new password"
          type="password"
          autoComplete="new-password"
          required
          error={formState.errors.confirmPassword !== undefined}
          helperText={fieldHelp(formState.errors.confirmPassword, 'The two new passwords differ.')}
          {...register('confirmPassword')}
        />
        <div>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Change password
          </Button>
        </div>
      </Stack>
    </form>
  );
}
