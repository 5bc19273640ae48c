import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  ROLE_LABELS,
  VIEW_NAME_MAX,
  ViewCreateBodySchema,
  type ViewCreateBody,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SyntheticEvent } from 'react';
import { useOneAtATime } from '../../../lib/one-at-a-time';
import Alert from '@mui/material/Alert';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { savedViewKeys, saveView } from '../api/saved-views';
import { useServerFieldErrors } from './follow-up-frame';
import { describeTransactionQuery } from './query-summary';

/** The filters, sort and search on screen, saved under a name for one of the user's roles. */
export function SaveViewDialog({
  currentQuery,
  onClose,
}: {
  currentQuery: string;
  onClose: () => void;
}) {
  const { user } = useSession();
  const client = useQueryClient();
  const notify = useNotify();
  const titleId = useId();
  const roles = user.roles.filter((role) => SCREENS.transactions.roles.some((r) => r === role));
  const [name, setName] = useState('');
  const [role, setRole] = useState(roles[0] ?? '');
  const [submitted, setSubmitted] = useState(false);
  const parsed = ViewCreateBodySchema.safeParse({
    screen: 'transactions',
    name,
    role,
    query: currentQuery,
  });
  const mutation = useMutation({
    mutationFn: (body: ViewCreateBody) => saveView(body),
    onSuccess: (view) => {
      notify(`Saved the view “${view.name}” for ${ROLE_LABELS[view.role]}.`);
      void client.invalidateQueries({ queryKey: savedViewKeys.all });
      onClose();
    },
  });
  // The server's words under a field go once it is edited.
  const server = useServerFieldErrors(mutation.error);
  const localError = (path: string) =>
    submitted && !parsed.success
      ? parsed.error.issues.find((issue) => issue.path[0] === path)?.message
      : undefined;
  // The shared rule says 'is required'; beside the field it says whose: 'Name is required.'
  const named = (message: string | undefined) =>
    message === undefined || !/^[a-z]/.test(message) ? message : `Name ${message}.`;
  const nameError = named(localError('name')) ?? server.messageFor('name');
  const roleError = localError('role') ?? server.messageFor('role');
  const queryError = localError('query') ?? server.messageFor('query');
  const otherError =
    mutation.isError &&
    nameError === undefined &&
    roleError === undefined &&
    queryError === undefined &&
    !(isApiError(mutation.error) && mutation.error.fieldErrors.length > 0)
      ? describeError(mutation.error)
      : undefined;

  // A view has no Idempotency-Key: a second click before the button is disabled (a double click)
  // must not send the view again (it would be refused as a name already taken).
  const once = useOneAtATime();
  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (!parsed.success) return;
    const body = parsed.data;
    once((done) => {
      mutation.mutate(body, { onSettled: done });
    });
  };

  return (
    <Dialog
      open
      onClose={mutation.isPending ? undefined : onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="xs"
    >
      <form onSubmit={submit} noValidate aria-labelledby={titleId}>
        <DialogTitle id={titleId}>Save current view</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Typography variant="body2" color="text.secondary">
              The filters, sort and search on screen, for everyone with the role you choose.
            </Typography>
            <Typography
              variant="body2"
              sx={{ overflowWrap: 'anywhere', bgcolor: 'action.hover', p: 1, borderRadius: 1 }}
            >
              {describeTransactionQuery(currentQuery)}
            </Typography>
            <TextField
              label="Name"
              value={name}
              onChange={(event) => {
                server.edited('name');
                setName(event.target.value);
              }}
              required
              autoFocus
              size="small"
              error={nameError !== undefined}
              helperText={nameError ?? `Up to ${VIEW_NAME_MAX} characters, unique for the role.`}
              slotProps={{ htmlInput: { maxLength: VIEW_NAME_MAX + 10 } }}
            />
            <TextField
              select
              label="Shared with"
              value={role}
              onChange={(event) => {
                // A name is taken or free for a role: the server's words on it go too.
                server.edited('role');
                server.edited('name');
                setRole(event.target.value);
              }}
              size="small"
              error={roleError !== undefined}
              helperText={roleError ?? 'Everyone with this role sees the view.'}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              {roles.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
            </TextField>
            {queryError === undefined ? null : <Alert severity="error">{queryError}</Alert>}
            {otherError === undefined ? null : <Alert severity="error">{otherError}</Alert>}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Save view
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
