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
import Typography from '@mui/material/Typography';
import { PayoutRejectBodySchema, type Payout } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SyntheticEvent } from 'react';
import { DateTime } from '../../../components/date-time';
import { useNotify } from '../../../components/notifier';
import { describeError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../../../lib/idempotency';
import { formatMoneyInWords } from '../../../lib/money';
import { approvePayout, payoutKeys, rejectPayout } from '../api/payouts';
import { DESTINATION_KIND_LABELS } from './destination-labels';

/** Exactly what payout-check checked, which is what an approval pays. */
export function CheckedFacts({ payout }: { payout: Payout }) {
  const rows: [string, React.ReactNode][] = [
    ['Amount', <strong key="a">{formatMoney(payout.amount, payout.currency)}</strong>],
    [
      'Destination',
      `${DESTINATION_KIND_LABELS[payout.destination.kind]} ${payout.destination.masked} · ${payout.destination.label}`,
    ],
    ['Description', payout.orderDesc],
    ['Prepared by', payout.preparedBy.email],
    ['Checked', <DateTime key="c" value={payout.createdAt} />],
    ['Endpoint', payout.endpointId],
    ['Client order id', payout.clientOrderId],
  ];
  if (payout.expiresAt) rows.push(['Check expires', <DateTime key="e" value={payout.expiresAt} />]);
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        gridTemplateColumns: 'max-content 1fr',
        columnGap: 2,
        rowGap: 0.5,
        m: 0,
      }}
    >
      {rows.map(([label, value]) => (
        <Box key={label} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'break-word' }}>
            {value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

/**
 * Approve (payout-pay) or reject a payout someone else prepared. The dialog's Idempotency-Key is
 * created when it opens and reused when the same decision is sent again after a lost reply.
 */
export default function PayoutDecisionDialog({
  payout,
  decision,
  onClose,
}: {
  payout: Payout;
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
      if (decision === 'approve')
        return approvePayout(payout.id, keeper.keyFor({ approve: payout.id }));
      const body = PayoutRejectBodySchema.parse({ reason });
      return rejectPayout(payout.id, body, keeper.keyFor(body));
    },
    onSuccess: async (result) => {
      notify(result.message, result.payout.state === 'failed' ? 'error' : 'success');
      onClose();
      await client.invalidateQueries({ queryKey: payoutKeys.all });
    },
    onError: async (error) => {
      notify(describeError(error), 'error');
      if (!isOutcomeUnknown(error)) await client.invalidateQueries({ queryKey: payoutKeys.all });
    },
  });
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  const reasonError =
    submitted && !parsedReason.success ? 'Say why (up to 255 characters).' : undefined;

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
          {decision === 'approve' ? 'Approve the payout' : 'Reject the payout'}
        </DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeError(mutation.error)} Sending again is safe: it is the same request, and
                Paydesk will not pay twice.
              </Alert>
            ) : mutation.isError ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            {decision === 'approve' ? (
              <Typography variant="h6" component="p">
                Pay {formatMoneyInWords(payout.amount, payout.currency)} to{' '}
                {payout.destination.masked}?
              </Typography>
            ) : null}
            <CheckedFacts payout={payout} />
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
                helperText={reasonError ?? 'Shown to the ops user who prepared it, and audited.'}
              />
            ) : (
              <Typography color="text.secondary">
                Approving sends payout-pay for exactly these details; money leaves the account.
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
                ? `Approve and pay ${formatMoney(payout.amount, payout.currency)}`
                : 'Reject'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
