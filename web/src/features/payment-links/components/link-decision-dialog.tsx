import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { PayoutRejectBodySchema, type PaymentLink } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SyntheticEvent } from 'react';
import { useNotify } from '../../../components/notifier';
import { describeError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../../../lib/idempotency';
import { formatMoneyInWords } from '../../../lib/money';
import { Facts } from '../../transactions/components/amounts-panel';
import { approveLink, linkKeys, rejectLink } from '../api/payment-links';
import { KIND_LABELS } from './link-labels';

/**
 * Approve (send to the gateway and release its page) or reject a payout-form another ops user
 * created. The Idempotency-Key is created when the dialog opens.
 */
export default function LinkDecisionDialog({
  link,
  decision,
  onClose,
}: {
  link: PaymentLink;
  decision: 'approve' | 'reject';
  onClose: () => void;
}) {
  const titleId = useId();
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const notify = useNotify();
  const [reason, setReason] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const parsedReason = PayoutRejectBodySchema.safeParse({ reason });
  const mutation = useMutation({
    mutationFn: () => {
      if (decision === 'approve') return approveLink(link.id, keeper.keyFor({ approve: link.id }));
      const body = PayoutRejectBodySchema.parse({ reason });
      return rejectLink(link.id, body, keeper.keyFor(body));
    },
    onSuccess: async (result) => {
      notify(result.message, result.link.state === 'failed' ? 'error' : 'success');
      onClose();
      await client.invalidateQueries({ queryKey: linkKeys.all });
    },
    onError: async (error) => {
      notify(describeError(error), 'error');
      if (!isOutcomeUnknown(error)) await client.invalidateQueries({ queryKey: linkKeys.all });
    },
  });
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  const reasonError =
    submitted && !parsedReason.success ? 'Say why (up to 255 characters).' : undefined;
  const amount =
    link.amount !== null && link.currency !== null ? formatMoney(link.amount, link.currency) : '—';
  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (decision === 'reject' && !parsedReason.success) return;
    mutation.mutate();
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
        <DialogTitle id={titleId}>
          {decision === 'approve' ? 'Approve the payout form' : 'Reject the payout form'}
        </DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeError(mutation.error)} Sending again is safe: it is the same request.
              </Alert>
            ) : mutation.isError ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            {decision === 'approve' && link.amount !== null && link.currency !== null ? (
              <Typography variant="h6" component="p">
                Release a payout form for {formatMoneyInWords(link.amount, link.currency)}?
              </Typography>
            ) : null}
            <Facts
              rows={[
                ['Kind', KIND_LABELS[link.kind]],
                ['Amount', <strong key="a">{amount}</strong>],
                ['Description', link.orderDesc],
                ['Created by', link.createdBy.email],
                ['Client order id', link.clientOrderId],
              ]}
            />
            {decision === 'reject' ? (
              <TextField
                label="Reason"
                value={reason}
                onChange={(event) => {
                  setReason(event.target.value);
                }}
                required
                autoFocus
                multiline
                minRows={2}
                disabled={outcomeUnknown || mutation.isPending}
                error={reasonError !== undefined}
                helperText={reasonError ?? 'Shown to the ops user who created it, and audited.'}
              />
            ) : (
              <Typography color="text.secondary">
                Approving sends the payout-form to the gateway; the payee can then enter where the
                money goes, and it leaves the account.
              </Typography>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button
            type="submit"
            variant="contained"
            color={decision === 'approve' ? 'primary' : 'error'}
            loading={mutation.isPending}
          >
            {outcomeUnknown
              ? 'Send again'
              : decision === 'approve'
                ? `Approve ${amount}`
                : 'Reject'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
