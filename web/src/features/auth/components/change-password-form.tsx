import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  ChangePasswordRequestSchema,
  PASSWORD_MIN_LENGTH,
  type SessionResponse,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { changePassword, sessionKeys } from '../api/session';

const SAME_AS_TEMPORARY = 'Choose a new password, not the one the administrator set.';

/**
 * The shared request schema plus the client-only "type it twice" check, and for a temporary
 * password the server's own rule that the new one differs from it.
 */
function formSchema(temporary: boolean) {
  return ChangePasswordRequestSchema.extend({ confirmPassword: z.string() })
    .refine((values) => values.newPassword === values.confirmPassword, {
      path: ['confirmPassword'],
      message: 'The two new passwords differ.',
    })
    .refine((values) => !temporary || values.newPassword !== values.currentPassword, {
      path: ['newPassword'],
      message: SAME_AS_TEMPORARY,
    });
}
type FormSchema = ReturnType<typeof formSchema>;
type FormInput = z.input<FormSchema>;
type FormOutput = z.output<FormSchema>;

export function ChangePasswordForm({
  temporary = false,
  onChanged,
}: {
  /**
   * The current password is one an administrator set ("Choose your password"): the first field
   * has the focus, the new password must differ from it, and failures show in the form.
   */
  temporary?: boolean;
  /** Called with the new session once changed; without it a snackbar confirms the change. */
  onChanged?: (session: SessionResponse) => void;
}) {
  const client = useQueryClient();
  const notify = useNotify();
  const schema = useMemo(() => formSchema(temporary), [temporary]);
  const [failure, setFailure] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<
    FormInput,
    unknown,
    FormOutput
  >({
    resolver: zodResolver(schema),
    defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
  });

  const mutation = useMutation({
    mutationFn: changePassword,
    onSuccess: (session) => {
      client.setQueryData(sessionKeys.current, session);
      reset();
      if (onChanged) onChanged(session);
      else notify('Password changed. Your other sessions were signed out.');
    },
    onError: (error) => {
      if (isApiError(error) && error.code === 'CURRENT_PASSWORD_INVALID') {
        setError(
          'currentPassword',
          {
            type: 'server',
            message: temporary
              ? 'This is not the password the administrator gave you.'
              : 'This is not your current password.',
          },
          { shouldFocus: true },
        );
        return;
      }
      if (isApiError(error) && error.fieldErrors.some((f) => f.rule === 'differs')) {
        setError(
          'newPassword',
          { type: 'server', message: SAME_AS_TEMPORARY },
          { shouldFocus: true },
        );
        return;
      }
      if (applyServerFieldErrors(error, setError, ['currentPassword', 'newPassword'])) return;
      if (temporary) setFailure(describeError(error));
      else notify(describeError(error), 'error');
    },
  });

  const newPasswordHelp = temporary
    ? `At least ${PASSWORD_MIN_LENGTH} characters, and not the one you were given.`
    : `At least ${PASSWORD_MIN_LENGTH} characters.`;
  return (
    <form
      noValidate
      aria-label={temporary ? 'Choose your password' : 'Change password'}
      onSubmit={(event) => {
        setFailure(null);
        void handleSubmit(({ currentPassword, newPassword }) => {
          mutation.mutate({ currentPassword, newPassword });
        })(event);
      }}
    >
      <Stack spacing={2} sx={{ maxWidth: 420 }}>
        {failure !== null ? (
          <Alert severity="error" role="alert">
            {failure}
          </Alert>
        ) : mutation.isError &&
          isApiError(mutation.error) &&
          mutation.error.code === 'VALIDATION_FAILED' ? (
          <Alert severity="error" role="alert">
            {describeError(mutation.error)}
          </Alert>
        ) : null}
        <TextField
          label={temporary ? 'Current (temporary) password' : 'Current password'}
          type="password"
          autoComplete="current-password"
          required
          autoFocus={temporary}
          error={formState.errors.currentPassword !== undefined}
          helperText={fieldHelp(
            formState.errors.currentPassword,
            temporary
              ? 'Enter the password the administrator gave you.'
              : 'Enter your current password.',
            temporary ? 'The password you signed in with.' : undefined,
          )}
          {...register('currentPassword')}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          error={formState.errors.newPassword !== undefined}
          helperText={
            formState.errors.newPassword?.message === SAME_AS_TEMPORARY
              ? SAME_AS_TEMPORARY
              : fieldHelp(formState.errors.newPassword, newPasswordHelp, newPasswordHelp)
          }
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
            {temporary ? 'Save my password and continue' : 'Change password'}
          </Button>
        </div>
      </Stack>
    </form>
  );
}
