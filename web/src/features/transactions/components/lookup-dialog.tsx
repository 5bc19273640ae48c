import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { LookupBodySchema, type LookupBody } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { useNavigate } from 'react-router';
import { describeError, isApiError } from '../../../lib/api-client';
import { lookupTransaction, transactionKeys } from '../api/transactions';

/**
 * What to ask for: digits may be the gateway's orderid or a client_orderid, so they are tried as an
 * orderid first; anything else is a client_orderid.
 */
export function lookupAttempts(text: string): LookupBody[] {
  const value = text.trim();
  const attempts: LookupBody[] = [];
  const byOrderid = LookupBodySchema.safeParse({ orderid: value });
  if (byOrderid.success) attempts.push(byOrderid.data);
  const byClient = LookupBodySchema.safeParse({ client_orderid: value });
  if (byClient.success) attempts.push(byClient.data);
  return attempts;
}

async function lookUp(text: string) {
  const attempts = lookupAttempts(text);
  let last: unknown = null;
  for (const body of attempts) {
    try {
      return await lookupTransaction(body);
    } catch (error) {
      // Not found as an orderid (or unknown to Paydesk without its client_orderid): try the next way.
      const tryNext =
        isApiError(error) && (error.code === 'NOT_FOUND' || error.code === 'VALIDATION_FAILED');
      if (!tryNext) throw error;
      last = error;
    }
  }
  throw last;
}

/** Support's status check: asks the gateway now, records the answer, opens the order. */
export default function LookupDialog({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const valid = lookupAttempts(text).length > 0;

  const mutation = useMutation({
    mutationFn: lookUp,
    onSuccess: async (detail) => {
      client.setQueryData(transactionKeys.detail(detail.id), detail);
      onClose();
      await navigate(`/transactions/${encodeURIComponent(detail.id)}`);
    },
    // Not found (or refused): the keyboard is back in the field, to correct what was typed.
    onError: () => {
      inputRef.current?.focus();
    },
  });

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if (valid) mutation.mutate(text);
    else inputRef.current?.focus();
  };
  const notFound =
    isApiError(mutation.error) &&
    (mutation.error.code === 'NOT_FOUND' || mutation.error.code === 'VALIDATION_FAILED');

  return (
    <Dialog
      open
      onClose={mutation.isPending ? undefined : onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form noValidate aria-labelledby={titleId} onSubmit={submit}>
        <DialogTitle id={titleId}>Look up an order</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {mutation.isError ? (
              <Alert severity={notFound ? 'info' : 'error'}>
                {notFound
                  ? `The gateway knows no order “${text.trim()}” as an orderid or a client_orderid.`
                  : describeError(mutation.error)}
              </Alert>
            ) : null}
            <TextField
              label="Orderid or client_orderid"
              value={text}
              onChange={(event) => {
                setText(event.target.value);
              }}
              required
              autoFocus
              autoComplete="off"
              inputRef={inputRef}
              // Read-only, not disabled, while asking: a disabled field would lose the focus.
              aria-busy={mutation.isPending}
              error={touched && !valid}
              helperText={
                touched && !valid
                  ? 'Type the gateway’s orderid (digits) or the shop’s client_orderid (no spaces).'
                  : 'Asks the gateway for the current status and opens the order.'
              }
              slotProps={{ htmlInput: { spellCheck: false, readOnly: mutation.isPending } }}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Look up
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
