import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  CreateUserRequestSchema,
  EMAIL_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  type CreateUserRequest,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import type { z } from 'zod';
import { FormDialog } from '../../../components/form-dialog';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { createUser, userKeys } from '../api/users';
import {
  askedReasonOnly,
  MoneyRoleReasonField,
  moneyRolesToExplain,
} from './money-role-reason-field';
import { RolesField } from './roles-field';

type FormInput = z.input<typeof CreateUserRequestSchema>;

const EMPTY: FormInput = { email: '', name: '', password: '', roles: [] };

export default function CreateUserDialog({
  open,
  onClose,
}: {
  open: boolean;
  onClose: () => void;
}) {
  const titleId = useId();
  const client = useQueryClient();
  const notify = useNotify();
  const { register, control, handleSubmit, formState, setError, reset } = useForm<
    FormInput,
    unknown,
    CreateUserRequest
  >({
    resolver: askedReasonOnly(zodResolver(CreateUserRequestSchema)),
    defaultValues: EMPTY,
  });
  // Finance or Operations says why (the shared schema requires it then, as the BFF does).
  const added = moneyRolesToExplain({ roles: useWatch({ control, name: 'roles' }) });

  const [besideFields, setBesideFields] = useState(false);
  const mutation = useMutation({
    mutationFn: createUser,
    onSuccess: async (user) => {
      notify(
        `${user.name} can now sign in as ${user.email}, and must then choose their own password.`,
      );
      reset(EMPTY);
      onClose();
      await client.invalidateQueries({ queryKey: userKeys.all });
    },
    // A refusal is said once, in the dialog: beside the fields it names, else in its alert.
    onError: (error) => {
      if (isApiError(error) && error.code === 'EMAIL_TAKEN') {
        setError('email', {
          type: 'server',
          message: 'Another account already uses this e-mail address.',
        });
        setBesideFields(true);
        return;
      }
      // (The reason only while its field shows: else the alert says it.)
      const fields = ['email', 'name', 'password', 'roles'] as const;
      setBesideFields(
        applyServerFieldErrors(error, setError, added.length > 0 ? [...fields, 'reason'] : fields),
      );
    },
  });

  const close = () => {
    if (mutation.isPending) return;
    reset(EMPTY);
    mutation.reset();
    onClose();
  };

  return (
    <FormDialog
      open={open}
      dirty={formState.isDirty}
      busy={mutation.isPending}
      onClose={close}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form
        noValidate
        aria-labelledby={titleId}
        onSubmit={(event) => {
          void handleSubmit((values) => {
            mutation.mutate(values);
          })(event);
        }}
      >
        <DialogTitle id={titleId}>Create user</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {mutation.isError && !besideFields ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            <TextField
              label="E-mail"
              type="email"
              autoComplete="off"
              required
              autoFocus
              error={formState.errors.email !== undefined}
              helperText={fieldHelp(
                formState.errors.email,
                `Enter a valid e-mail address of up to ${EMAIL_MAX_LENGTH} characters.`,
              )}
              {...register('email')}
            />
            <TextField
              label="Name"
              autoComplete="off"
              required
              error={formState.errors.name !== undefined}
              helperText={fieldHelp(formState.errors.name, 'Enter a name of up to 120 characters.')}
              {...register('name')}
            />
            <TextField
              label="Initial password"
              type="password"
              autoComplete="new-password"
              required
              error={formState.errors.password !== undefined}
              helperText={fieldHelp(
                formState.errors.password,
                `At least ${PASSWORD_MIN_LENGTH} characters.`,
                `At least ${PASSWORD_MIN_LENGTH} characters. Share it safely: it is temporary, and the user must choose their own at their first sign-in.`,
              )}
              {...register('password')}
            />
            <Controller
              control={control}
              name="roles"
              render={({ field, fieldState }) => (
                // A new account: Auditor with a money role is said at the boxes as they are ticked
                // (the shared schema stops the submit, the BFF refuses it).
                <RolesField
                  value={field.value}
                  onChange={field.onChange}
                  error={
                    fieldState.error
                      ? fieldHelp(fieldState.error, 'Choose at least one role.')
                      : undefined
                  }
                />
              )}
            />
            {added.length > 0 ? (
              <MoneyRoleReasonField
                added={added}
                error={formState.errors.reason}
                registration={register('reason')}
              />
            ) : null}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Create user
          </Button>
        </DialogActions>
      </form>
    </FormDialog>
  );
}
