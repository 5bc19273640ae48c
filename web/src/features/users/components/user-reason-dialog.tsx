import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import { ReasonSchema, type Role, type UserListItem } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { FormDialog } from '../../../components/form-dialog';
import { useSession } from '../../auth/components/session-context';
import { useNotify } from '../../../components/notifier';
import { isApiError } from '../../../lib/api-client';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { resetUserTotp, unlockUserSignIn, updateUser, userKeys } from '../api/users';
import { FOUR_EYES_TIE, tieMatters } from './four-eyes-tie';
import { ReasonField } from './reason-field';
import { signInLockWords } from './sign-in-lock-words';
import { describeUserError } from './user-errors';

// The reason of every step, under the same shared rule (3–500 characters, kept in the audit log).
const ReasonFormSchema = z.object({ reason: ReasonSchema });
type ReasonInput = z.input<typeof ReasonFormSchema>;
type ReasonOutput = z.output<typeof ReasonFormSchema>;

/**
 * A step others must be able to account for (locking someone out, or letting them back in): it
 * says why, and the audit log keeps it.
 */
export type UserStep = 'disable' | 'enable' | 'reset-totp' | 'unlock-sign-in';

const STEPS: Record<
  UserStep,
  {
    title: string;
    confirmLabel: string;
    /** red for a step that locks someone out */
    confirmColor: 'error' | 'primary';
    /** `adminRoles`: the roles of the admin taking the step */
    consequence: (user: UserListItem, adminRoles: readonly Role[]) => string;
    /** Sends the step; answers what was done, in words. */
    send: (user: UserListItem, reason: string) => Promise<string>;
  }
> = {
  disable: {
    title: 'Disable this user?',
    confirmLabel: 'Disable',
    confirmColor: 'error',
    consequence: (user, adminRoles) =>
      `${user.email} will be signed out everywhere and cannot sign in until enabled again.` +
      (tieMatters([user.roles], adminRoles) ? ` ${FOUR_EYES_TIE}` : ''),
    send: async (user, reason) => {
      const done = await updateUser({ id: user.id, body: { disabled: true, reason } });
      return `${done.email} is disabled and signed out.`;
    },
  },
  // Enabling lets someone back in; it ties the admin to the account (FOUR_EYES_TIE), as disabling
  // does.
  enable: {
    title: 'Enable this user?',
    confirmLabel: 'Enable',
    confirmColor: 'primary',
    consequence: (user, adminRoles) =>
      `${user.email} will be able to sign in again, with the roles they have.` +
      (tieMatters([user.roles], adminRoles) ? ` ${FOUR_EYES_TIE}` : ''),
    send: async (user, reason) => {
      const done = await updateUser({ id: user.id, body: { disabled: false, reason } });
      return `${done.email} can sign in again.`;
    },
  },
  'reset-totp': {
    title: 'Reset two-step sign-in?',
    confirmLabel: 'Reset',
    confirmColor: 'error',
    consequence: (user) =>
      `${user.email} will be signed out, their authenticator and recovery codes stop working, and they sign in with their password alone until they enrol again.`,
    send: async (user, reason) => {
      const done = await resetUserTotp({ id: user.id, body: { reason } });
      return `Two-step sign-in of ${done.email} was reset; they can enrol again.`;
    },
  },
  // Lifting a lock helps whoever failed: the user who mistyped, or someone guessing. Said first.
  'unlock-sign-in': {
    title: 'Unlock sign-in?',
    confirmLabel: 'Unlock',
    confirmColor: 'primary',
    consequence: (user) =>
      (user.signInLock === null
        ? `${user.email} is no longer locked out. `
        : `${signInLockWords(user.signInLock)} `) +
      `Unlocking clears the account's failed sign-ins, so anyone trying its password can try again at once: do it once you know the failures were the user's own.`,
    send: async (user, reason) => {
      const { user: done, cleared } = await unlockUserSignIn({ id: user.id, body: { reason } });
      return cleared === 0
        ? `${done.email} was no longer locked out: nothing to clear.`
        : `${done.email} can sign in again: ${String(cleared)} failed sign-in${cleared === 1 ? '' : 's'} cleared.`;
    },
  },
};

/**
 * Disables or enables a user, resets their two-step sign-in or unlocks their sign-in, once the
 * admin has said why.
 */
export default function UserReasonDialog({
  user,
  step,
  onClose,
}: {
  user: UserListItem;
  step: UserStep;
  onClose: () => void;
}) {
  const titleId = useId();
  const client = useQueryClient();
  const notify = useNotify();
  const words = STEPS[step];
  const { user: admin } = useSession();
  const { register, handleSubmit, formState, setError } = useForm<
    ReasonInput,
    unknown,
    ReasonOutput
  >({
    resolver: zodResolver(ReasonFormSchema),
    defaultValues: { reason: '' },
  });

  const [besideField, setBesideField] = useState(false);
  const mutation = useMutation({
    mutationFn: ({ reason }: ReasonOutput) => words.send(user, reason),
    onSuccess: async (done) => {
      notify(done);
      onClose();
      await client.invalidateQueries({ queryKey: userKeys.all });
    },
    // A refusal is said once, in the dialog: beside the reason when it names it, else in its alert.
    onError: async (error) => {
      setBesideField(applyServerFieldErrors(error, setError, ['reason']));
      // Refused because the account is no longer as the list shows it (its two-step sign-in reset
      // by another administrator meanwhile: nothing to reset): the list is read again, so that
      // the row shows it as it is and offers the step no more.
      if (isApiError(error) && error.code === 'CONFLICT')
        await client.invalidateQueries({ queryKey: userKeys.all });
    },
  });

  return (
    <FormDialog
      open
      dirty={formState.isDirty}
      busy={mutation.isPending}
      onClose={onClose}
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
        <DialogTitle id={titleId}>{words.title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            {mutation.isError && !besideField ? (
              <Alert severity="error">{describeUserError(mutation.error)}</Alert>
            ) : null}
            <DialogContentText>{words.consequence(user, admin.roles)}</DialogContentText>
            <ReasonField error={formState.errors.reason} autoFocus {...register('reason')} />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button
            type="submit"
            variant="contained"
            color={words.confirmColor}
            loading={mutation.isPending}
          >
            {words.confirmLabel}
          </Button>
        </DialogActions>
      </form>
    </FormDialog>
  );
}
