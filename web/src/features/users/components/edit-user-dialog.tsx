import { zodResolver } from '@hookform/resolvers/zod';
import Button from '@mui/material/Button';
import Alert from '@mui/material/Alert';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  NO_SELF_GRANT_ROLES,
  ReasonSchema,
  RoleSetSchema,
  moneyRoleReasonRequired,
  UserNameSchema,
  rolesRefusal,
  selfGrantRefusal,
  type Role,
  type UpdateUserRequest,
  type User,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { FormDialog } from '../../../components/form-dialog';
import { useNotify } from '../../../components/notifier';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { useSession } from '../../auth/components/session-context';
import { updateUser, userKeys } from '../api/users';
import {
  askedReasonOnly,
  MoneyRoleReasonField,
  moneyRolesToExplain,
} from './money-role-reason-field';
import { FOUR_EYES_TIE, tieMatters } from './four-eyes-tie';
import { RolesField } from './roles-field';
import { describeUserError } from './user-errors';

// The editable part of UpdateUserRequest, built from the same shared field schemas.
const EditSchema = z.object({
  name: UserNameSchema,
  roles: RoleSetSchema,
  reason: ReasonSchema.optional(),
});
type EditInput = z.input<typeof EditSchema>;
type EditOutput = z.output<typeof EditSchema>;

/**
 * The edit form's rules for this account: the shared roles rule (as the BFF weighs it, against the
 * account's current roles and whether it is one's own) stops the submit, in the same words the
 * roles field already shows; roles that stand but add Finance or Operations need a reason, as the
 * BFF requires (`moneyRoleReasonRequired`).
 */
function editSchemaFor(before: readonly Role[], self: boolean) {
  return EditSchema.superRefine((values, ctx) => {
    const refusal = rolesRefusal({ roles: values.roles, before, self });
    if (refusal !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['roles'],
        message: refusal.message,
        params: { rule: refusal.rule },
      });
      return;
    }
    const missing = moneyRoleReasonRequired(values.roles, before);
    if (missing === undefined || values.reason !== undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['reason'],
      message: missing,
      params: { rule: 'required' },
    });
  });
}

/** Two role sets hold the same roles, whatever their order. */
function sameRoles(a: readonly Role[], b: readonly Role[]): boolean {
  return a.length === b.length && a.every((role) => b.includes(role));
}

/**
 * What the edit changes, and only that: the name if it changed, the roles (with the reason a money
 * role asks for) if they changed. The audit row then records what changed, not a name that stood.
 * Null: nothing changed, nothing to send.
 */
function changesOf(values: EditOutput, user: User): UpdateUserRequest | null {
  const body: UpdateUserRequest = {};
  if (values.name !== user.name) body.name = values.name;
  if (!sameRoles(values.roles, user.roles)) {
    body.roles = values.roles;
    if (values.reason !== undefined) body.reason = values.reason;
  }
  return Object.keys(body).length === 0 ? null : body;
}

export default function EditUserDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const titleId = useId();
  const { user: me } = useSession();
  const self = user.id === me.id;
  // One's own Administrator role stays (the BFF refuses it too): without it one would be locked
  // out of this very screen. Another administrator may take it.
  const ownAdmin = self && user.roles.includes('admin');
  // Nor does one give oneself a money role (the BFF refuses it too): four eyes would be two of one
  // person's; nor Auditor, the reader of one's own record. Another administrator may grant them;
  // one held already may be kept or given up.
  const lockedGrants = self ? NO_SELF_GRANT_ROLES.filter((role) => !user.roles.includes(role)) : [];
  const locked: Role[] = [...(ownAdmin ? (['admin'] as const) : []), ...lockedGrants];
  const lockedReason = [
    ownAdmin ? 'You cannot remove your own Administrator role: another administrator can.' : null,
    selfGrantRefusal([...user.roles, ...lockedGrants], user.roles)?.message ?? null,
  ]
    .filter((reason) => reason !== null)
    .join(' ');
  const client = useQueryClient();
  const notify = useNotify();
  const { register, control, handleSubmit, formState, setError, subscribe } = useForm<
    EditInput,
    unknown,
    EditOutput
  >({
    resolver: askedReasonOnly(zodResolver(editSchemaFor(user.roles, self)), {
      before: user.roles,
      self,
    }),
    defaultValues: { name: user.name, roles: user.roles },
  });
  const roles = useWatch({ control, name: 'roles' });
  // Giving Finance or Operations says why; keeping or removing one does not.
  const added = moneyRolesToExplain({ roles, before: user.roles, self });
  // Changing another's roles ties the admin to the account for payout approvals, as enabling it
  // does (QA: the Enable dialog said so, this one did not).
  const tie = !self && !sameRoles(roles, user.roles) && tieMatters([user.roles, roles], me.roles);

  const [besideFields, setBesideFields] = useState(false);
  // Save pressed with the name and roles as they were: said, and nothing sent; said until the next
  // edit (a role ticked since makes it untrue), and again only by the next Save.
  const [unchanged, setUnchanged] = useState(false);
  useEffect(
    () =>
      subscribe({
        formState: { values: true },
        callback: () => {
          setUnchanged(false);
        },
      }),
    [subscribe],
  );
  const mutation = useMutation({
    mutationFn: updateUser,
    onSuccess: async (updated) => {
      notify(`Saved ${updated.name}.`);
      onClose();
      await client.invalidateQueries({ queryKey: userKeys.all });
    },
    // A refusal is said once, in the dialog: beside the fields it names, else in its alert.
    onError: (error) => {
      // (The reason only while its field shows: else the alert says it.)
      const fields = ['name', 'roles'] as const;
      setBesideFields(
        applyServerFieldErrors(error, setError, added.length > 0 ? [...fields, 'reason'] : fields),
      );
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
            const body = changesOf(values, user);
            setUnchanged(body === null);
            if (body !== null) mutation.mutate({ id: user.id, body });
          })(event);
        }}
      >
        <DialogTitle id={titleId}>Edit {user.email}</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>
            Role changes apply from the user&apos;s next request.
          </DialogContentText>
          <Stack spacing={2}>
            {mutation.isError && !besideFields ? (
              <Alert severity="error">{describeUserError(mutation.error)}</Alert>
            ) : null}
            {unchanged ? (
              <Alert severity="info">
                Nothing to save: the name and roles are as they were. Change one, or cancel.
              </Alert>
            ) : null}
            <TextField
              label="Name"
              required
              autoFocus
              error={formState.errors.name !== undefined}
              helperText={fieldHelp(formState.errors.name, 'Enter a name of up to 120 characters.')}
              {...register('name')}
            />
            <Controller
              control={control}
              name="roles"
              render={({ field, fieldState }) => (
                <RolesField
                  value={field.value}
                  onChange={field.onChange}
                  before={user.roles}
                  self={self}
                  {...(locked.length > 0 ? { locked, lockedReason } : {})}
                  error={
                    fieldState.error
                      ? fieldHelp(fieldState.error, 'Choose at least one role.')
                      : undefined
                  }
                />
              )}
            />
            {tie ? (
              // A note on what Save will do, not an alarm: no alert role.
              <Alert severity="info" role="note">
                Changing this account’s roles ties you to it. {FOUR_EYES_TIE}
              </Alert>
            ) : null}
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
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Save
          </Button>
        </DialogActions>
      </form>
    </FormDialog>
  );
}
