import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AmountSchema, type TransactionDetail } from '@paydesk/shared/api';
import { useState } from 'react';
import { formatMoney } from '../../../lib/format';
import { fromMinor, toMinor } from '../../../lib/money';
import { useFollowUp } from '../api/follow-up';
import { FollowUpFrame, serverFieldError } from './follow-up-frame';

/** Capture of a preauth: partial allowed, defaulting to the whole remaining hold. */
export default function CaptureDialog({
  detail,
  onClose,
}: {
  detail: TransactionDetail;
  onClose: () => void;
}) {
  const { mutation, outcomeUnknown } = useFollowUp(detail, onClose);
  const hold = detail.amounts.remainingCapturable;
  const [amount, setAmount] = useState(hold);
  const [submitted, setSubmitted] = useState(false);
  const holdMinor = toMinor(hold) ?? 0n;
  const minor = toMinor(amount);
  const rule = !AmountSchema.safeParse(amount).success
    ? 'An amount above zero with at most 2 decimals, e.g. 19.99.'
    : minor !== undefined && minor > holdMinor
      ? `At most the remaining hold, ${formatMoney(hold, detail.currency)}.`
      : undefined;
  const fieldError = (submitted ? rule : undefined) ?? serverFieldError(mutation.error, 'amount');
  const released = minor !== undefined && rule === undefined ? holdMinor - minor : 0n;

  return (
    <FollowUpFrame
      title="Capture"
      what="the capture"
      currency={detail.currency}
      pending={mutation.isPending}
      error={mutation.error}
      outcomeUnknown={outcomeUnknown}
      dirty={amount !== hold}
      submitLabel={
        rule === undefined ? `Capture ${formatMoney(amount.trim(), detail.currency)}` : 'Capture'
      }
      onClose={() => {
        if (!mutation.isPending) onClose();
      }}
      onSubmit={() => {
        setSubmitted(true);
        if (rule !== undefined) return;
        if (minor === undefined) return;
        // Sent in the usual two-decimal form: '12.5' → '12.50'.
        mutation.mutate({ action: 'capture', body: { amount: fromMinor(minor) } });
      }}
    >
      <Typography>
        Held on the card: <strong>{formatMoney(hold, detail.currency)}</strong>. A capture is done
        once; whatever is not captured is released to the customer.
      </Typography>
      <TextField
        label={`Amount to capture (${detail.currency})`}
        value={amount}
        onChange={(event) => {
          setAmount(event.target.value);
        }}
        required
        autoFocus
        disabled={outcomeUnknown || mutation.isPending}
        error={fieldError !== undefined}
        helperText={
          fieldError ??
          (released > 0n
            ? `${formatMoney(fromMinor(released), detail.currency)} of the hold will be released.`
            : 'The whole hold.')
        }
        slotProps={{ htmlInput: { inputMode: 'decimal' } }}
      />
    </FollowUpFrame>
  );
}
