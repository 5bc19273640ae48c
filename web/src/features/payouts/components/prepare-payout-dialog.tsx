import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  PayoutCreateBodySchema,
  type PayoutCreateBody,
  type PayoutDestinationKind,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SyntheticEvent } from 'react';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../../../lib/idempotency';
import { payoutKeys, preparePayout } from '../api/payouts';
import { DESTINATION_KIND_LABELS } from './destination-labels';

interface Field {
  name: string;
  label: string;
  hint?: string;
  inputMode?: 'numeric' | 'tel' | 'text';
}

const DESTINATION_FIELDS: Record<PayoutDestinationKind, Field[]> = {
  card: [
    { name: 'cardNumber', label: 'Card number', inputMode: 'numeric' },
    { name: 'cardholderName', label: 'Cardholder name' },
    { name: 'expiryMonth', label: 'Expiry month', hint: 'MM, e.g. 09', inputMode: 'numeric' },
    { name: 'expiryYear', label: 'Expiry year', hint: 'YYYY', inputMode: 'numeric' },
  ],
  bank: [
    { name: 'accountNumber', label: 'Account number or IBAN' },
    { name: 'bankName', label: 'Bank name' },
    { name: 'bankBic', label: 'BIC', hint: '8 or 11 characters' },
  ],
  ewallet: [
    { name: 'ewalletType', label: 'E-wallet type', hint: 'e.g. paypal' },
    { name: 'ewalletId', label: 'E-wallet id' },
  ],
  phone: [
    { name: 'phone', label: 'Phone number', inputMode: 'tel' },
    { name: 'fpsBankId', label: 'FPS bank id' },
  ],
};

interface Draft {
  kind: PayoutDestinationKind;
  destination: Record<string, string>;
  amount: string;
  currency: string;
  orderDesc: string;
  endpointId: string;
  mode: 'two-step' | 'single';
}

function candidateOf(draft: Draft): unknown {
  const destination: Record<string, string> = { kind: draft.kind };
  for (const field of DESTINATION_FIELDS[draft.kind]) {
    destination[field.name] = draft.destination[field.name] ?? '';
  }
  return {
    destination,
    amount: draft.amount,
    currency: draft.currency,
    orderDesc: draft.orderDesc,
    mode: draft.mode,
    ...(draft.endpointId.trim() === '' ? {} : { endpointId: draft.endpointId }),
  };
}

/** Sentences a person can act on, by field path (`destination.cardNumber`). */
function messagesOf(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): Map<string, string> {
  const messages = new Map<string, string>();
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (!messages.has(path)) {
      messages.set(
        path,
        /^(Invalid|Too|Expected)/.test(issue.message)
          ? 'Check this field.'
          : `This ${issue.message}.`.replace('This is required.', 'Required.'),
      );
    }
  }
  return messages;
}

/** Prepare a payout (payout-check): it waits for a second ops user to approve it. */
export default function PreparePayoutDialog({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const notify = useNotify();
  const [draft, setDraft] = useState<Draft>({
    kind: 'card',
    destination: {},
    amount: '',
    currency: 'EUR',
    orderDesc: '',
    endpointId: '',
    mode: 'two-step',
  });
  const [submitted, setSubmitted] = useState(false);
  const parsed = PayoutCreateBodySchema.safeParse(candidateOf(draft));
  const clientMessages =
    submitted && !parsed.success ? messagesOf(parsed.error.issues) : new Map<string, string>();

  const mutation = useMutation({
    mutationFn: (body: PayoutCreateBody) => preparePayout(body, keeper.keyFor(body)),
    onSuccess: async (result) => {
      notify(result.message, result.payout.state === 'check_declined' ? 'error' : 'success');
      onClose();
      await client.invalidateQueries({ queryKey: payoutKeys.all });
    },
    onError: (error) => {
      notify(describeError(error), 'error');
    },
  });
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  const serverMessages = new Map(
    isApiError(mutation.error)
      ? mutation.error.fieldErrors.map((f) => [f.path, f.message] as const)
      : [],
  );
  const messageFor = (path: string) => clientMessages.get(path) ?? serverMessages.get(path);
  const locked = outcomeUnknown || mutation.isPending;

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (parsed.success) mutation.mutate(parsed.data);
  };
  const set =
    (key: 'amount' | 'currency' | 'orderDesc' | 'endpointId') =>
    (event: { target: { value: string } }) => {
      setDraft((current) => ({ ...current, [key]: event.target.value }));
    };

  return (
    <Dialog
      open
      onClose={mutation.isPending ? undefined : onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form noValidate aria-labelledby={titleId} onSubmit={submit}>
        <DialogTitle id={titleId}>Prepare a payout</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeError(mutation.error)} Sending again is safe: it is the same request, and
                Paydesk will not prepare it twice.
              </Alert>
            ) : mutation.isError && serverMessages.size === 0 ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            <TextField
              select
              label="Destination"
              value={draft.kind}
              onChange={(event) => {
                const kind = event.target.value as PayoutDestinationKind;
                setDraft((current) => ({ ...current, kind, destination: {} }));
              }}
              disabled={locked}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              {(Object.keys(DESTINATION_FIELDS) as PayoutDestinationKind[]).map((kind) => (
                <option key={kind} value={kind}>
                  {DESTINATION_KIND_LABELS[kind]}
                </option>
              ))}
            </TextField>
            <Box
              sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}
            >
              {DESTINATION_FIELDS[draft.kind].map((field) => {
                const message = messageFor(`destination.${field.name}`);
                return (
                  <TextField
                    key={`${draft.kind}-${field.name}`}
                    label={field.label}
                    value={draft.destination[field.name] ?? ''}
                    onChange={(event) => {
                      const value = event.target.value;
                      setDraft((current) => ({
                        ...current,
                        destination: { ...current.destination, [field.name]: value },
                      }));
                    }}
                    required
                    autoComplete="off"
                    disabled={locked}
                    error={message !== undefined}
                    helperText={message ?? field.hint}
                    slotProps={{
                      htmlInput: { inputMode: field.inputMode ?? 'text', spellCheck: false },
                    }}
                  />
                );
              })}
              <TextField
                label="Amount"
                value={draft.amount}
                onChange={set('amount')}
                required
                disabled={locked}
                error={messageFor('amount') !== undefined}
                helperText={messageFor('amount') ?? 'e.g. 250.00'}
                slotProps={{ htmlInput: { inputMode: 'decimal' } }}
              />
              <TextField
                label="Currency"
                value={draft.currency}
                onChange={set('currency')}
                required
                disabled={locked}
                error={messageFor('currency') !== undefined}
                helperText={messageFor('currency') ?? 'ISO code, e.g. EUR'}
              />
            </Box>
            <TextField
              label="Description"
              value={draft.orderDesc}
              onChange={set('orderDesc')}
              required
              disabled={locked}
              error={messageFor('orderDesc') !== undefined}
              helperText={
                messageFor('orderDesc') ?? 'What the payout is for; the approver sees it.'
              }
            />
            <TextField
              label="Endpoint (optional)"
              value={draft.endpointId}
              onChange={set('endpointId')}
              disabled={locked}
              error={messageFor('endpointId') !== undefined}
              helperText={
                messageFor('endpointId') ?? 'Leave empty for the default payout endpoint.'
              }
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            {outcomeUnknown ? 'Send again' : 'Check and submit for approval'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
