import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  PASSWORD_MIN_LENGTH,
  ResetPasswordRequestSchema,
  type ResetPasswordRequest,
  type User,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { FormDialog } from '../../../components/form-dialog';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { resetUserPassword, userKeys } from '../api/users';
import { ReasonField } from './reason-field';
import { describeUserError } from './user-errors';

type FormInput = z.input<typeof ResetPasswordRequestSchema>;

/**
 * An admin sets a new temporary password for a user who forgot theirs: the password and why, then
 * the reset in words (it signs the user out everywhere), then what happened. The user must choose
 * their own password at their next sign-in.
 */
export default function ResetPasswordDialog({
  user,
  onClose,
}: {
  user: User;
  onClose: () => void;
}) {
  const titleId = useId();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState<ResetPasswordRequest | null>(null);
  const { register, handleSubmit, formState, setError } = useForm<
    FormInput,
    unknown,
    ResetPasswordRequest
  >({
    resolver: zodResolver(ResetPasswordRequestSchema),
    defaultValues: { password: '', reason: '' },
  });

  const mutation = useMutation({
    mutationFn: resetUserPassword,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: userKeys.all });
    },
    onError: (error) => {
      // A password or reason the server refused: back to the field, which says why.
      if (applyServerFieldErrors(error, setError, ['password', 'reason'])) setConfirming(null);
    },
  });

  const busy = mutation.isPending;
  const close = () => {
    if (!busy) onClose();
  };

  let step: 'form' | 'confirm' | 'done' = 'form';
  if (mutation.isSuccess) step = 'done';
  else if (confirming !== null) step = 'confirm';

  return (
    <FormDialog
      open
      dirty={formState.isDirty && step !== 'done'}
      busy={busy}
      onClose={close}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      {step === 'done' ? (
        <>
          <DialogTitle id={titleId}>Password reset</DialogTitle>
          <DialogContent>
            <Alert severity="success" role="status">
              {user.email} now has the temporary password you set. Their sessions were ended, and at
              their next sign-in they must choose their own password. Give them the temporary one
              safely, not by e-mail.
            </Alert>
          </DialogContent>
          <DialogActions>
            <Button variant="contained" onClick={onClose} autoFocus>
              Done
            </Button>
          </DialogActions>
        </>
      ) : step === 'confirm' && confirming !== null ? (
        <>
          <DialogTitle id={titleId}>Reset the password of {user.email}?</DialogTitle>
          <DialogContent>
            <Stack spacing={2}>
              {mutation.isError ? (
                <Alert severity="error" role="alert">
                  {describeUserError(mutation.error)}
                </Alert>
              ) : null}
              <DialogContentText>
                {user.name} is signed out everywhere at once and their current password stops
                working. They sign in with the temporary password you set and must then choose their
                own before they can do anything else.
              </DialogContentText>
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button
              onClick={() => {
                mutation.reset();
                setConfirming(null);
              }}
              disabled={busy}
              autoFocus
            >
              Back
            </Button>
            <Button
              variant="contained"
              color="error"
              loading={busy}
              onClick={() => {
                mutation.mutate({ id: user.id, body: confirming });
              }}
            >
              Reset password
            </Button>
          </DialogActions>
        </>
      ) : (
        <form
          noValidate
          aria-labelledby={titleId}
          onSubmit={(event) => {
            void handleSubmit((values) => {
              mutation.reset();
              setConfirming(values);
            })(event);
          }}
        >
          <DialogTitle id={titleId}>Reset password</DialogTitle>
          <DialogContent>
            <Stack spacing={2}>
              <DialogContentText>
                For {user.name} ({user.email}), who forgot theirs. Choose a temporary password to
                give them; at their next sign-in they must choose their own.
              </DialogContentText>
              <TextField
                label="New temporary password"
                type="password"
                autoComplete="new-password"
                required
                autoFocus
                error={formState.errors.password !== undefined}
                helperText={fieldHelp(
                  formState.errors.password,
                  `At least ${PASSWORD_MIN_LENGTH} characters.`,
                  `At least ${PASSWORD_MIN_LENGTH} characters.`,
                )}
                {...register('password')}
              />
              {/* As for a two-step reset: whoever holds the new password can sign in as them
                  until they choose their own, so the audit log keeps why (QA). */}
              <ReasonField error={formState.errors.reason} {...register('reason')} />
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="contained">
              Continue
            </Button>
          </DialogActions>
        </form>
      )}
    </FormDialog>
  );
}
