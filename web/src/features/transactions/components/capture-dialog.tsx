import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AmountSchema, type TransactionDetail } from '@paydesk/shared/api';
import { useRef, useState } from 'react';
import { formatMoney } from '../../../lib/format';
import {
  amountRule,
  formatMoneyInWords,
  fromMinor,
  localAmount,
  plainAmount,
  readAmount,
  toMinor,
} from '../../../lib/money';
import { useFollowUp } from '../api/follow-up';
import {
  ConfirmQuestion,
  FollowUpFrame,
  serverFieldsNamed,
  useServerFieldErrors,
} from './follow-up-frame';

/**
 * Capture of a preauth: partial allowed, defaulting to the whole remaining hold. Like a return,
 * it is confirmed in words before it is sent: a capture is done once.
 */
export default function CaptureDialog({
  detail,
  onClose,
}: {
  detail: TransactionDetail;
  onClose: () => void;
}) {
  const { mutation, outcomeUnknown } = useFollowUp(detail, onClose);
  const server = useServerFieldErrors(mutation.error);
  const hold = detail.amounts.remainingCapturable;
  // Prefilled in the user's locale ('65,00'), as the hint and the page show amounts.
  const [amount, setAmount] = useState(() => localAmount(hold));
  const [submitted, setSubmitted] = useState(false);
  const [step, setStep] = useState<'form' | 'confirm'>('form');
  const amountRef = useRef<HTMLInputElement>(null);
  const holdMinor = toMinor(hold) ?? 0n;
  // Typed in the user's locale ('12,50'); a point is read as the decimal mark too.
  const typed = readAmount(amount);
  const minor = typed.amount === undefined ? undefined : toMinor(typed.amount);
  // A well-formed amount above the hold is refused for the hold, the cap that helps here, even
  // when it is also above the largest amount the API takes (readAmount's refusal).
  const plain = plainAmount(amount).amount;
  const wellFormed =
    typed.refusal === undefined
      ? AmountSchema.safeParse(typed.amount).success
      : plain !== undefined;
  const plainMinor = plain === undefined ? undefined : toMinor(plain);
  const rule =
    wellFormed && plainMinor !== undefined && plainMinor > holdMinor
      ? `At most the remaining hold, ${formatMoney(hold, detail.currency)}.`
      : typed.refusal !== undefined || !AmountSchema.safeParse(typed.amount).success
        ? amountRule(amount, '19.99')
        : undefined;
  const fieldError = (submitted ? rule : undefined) ?? server.messageFor('amount', detail.currency);
  // A refusal that names the amount goes back to the form and is said under it, not in the alert.
  const refused = serverFieldsNamed(mutation.error, ['amount'] as const);
  const released = minor !== undefined && rule === undefined ? holdMinor - minor : 0n;
  const close = () => {
    if (!mutation.isPending) onClose();
  };

  if (step === 'confirm' && rule === undefined && minor !== undefined) {
    // Sent in the usual two-decimal form: '12.5' → '12.50'.
    const captured = fromMinor(minor);
    return (
      <FollowUpFrame
        title="Confirm the capture"
        what="the capture"
        currency={detail.currency}
        pending={mutation.isPending}
        error={mutation.error}
        outcomeUnknown={outcomeUnknown}
        submitLabel={`Capture ${formatMoney(captured, detail.currency)}`}
        dirty
        confirming
        onClose={close}
        onBack={() => {
          mutation.reset();
          setStep('form');
        }}
        onSubmit={() => {
          mutation.mutate(
            { action: 'capture', body: { amount: captured } },
            {
              onError: (error) => {
                if (serverFieldsNamed(error, ['amount']).named.length > 0) setStep('form');
              },
            },
          );
        }}
      >
        <ConfirmQuestion>
          Capture {formatMoneyInWords(captured, detail.currency)} from the customer’s card?
        </ConfirmQuestion>
        <Typography color="text.secondary">
          Order {detail.orderid} ·{' '}
          {released > 0n
            ? `${formatMoney(fromMinor(released), detail.currency)} of the hold is released to the customer.`
            : 'the whole hold.'}{' '}
          A capture is done once and cannot be changed.
        </Typography>
      </FollowUpFrame>
    );
  }

  return (
    <FollowUpFrame
      title="Capture"
      what="the capture"
      currency={detail.currency}
      pending={mutation.isPending}
      error={refused.named.length > 0 && !refused.elsewhere ? null : mutation.error}
      outcomeUnknown={outcomeUnknown}
      resumeAt={refused.named.length > 0 ? amountRef : null}
      dirty={typed.amount !== hold}
      submitLabel="Continue"
      onClose={close}
      onSubmit={() => {
        setSubmitted(true);
        if (rule === undefined && minor !== undefined) {
          mutation.reset();
          setStep('confirm');
          return;
        }
        amountRef.current?.focus();
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
          server.edited('amount');
          setAmount(event.target.value);
        }}
        required
        autoFocus
        inputRef={amountRef}
        disabled={outcomeUnknown || mutation.isPending}
        error={fieldError !== undefined}
        helperText={
          fieldError ??
          // Not yet an amount that can be captured: the hint says the cap, not "the whole hold".
          (rule !== undefined
            ? `Up to the remaining hold, ${formatMoney(hold, detail.currency)}.`
            : released > 0n
              ? `${formatMoney(fromMinor(released), detail.currency)} of the hold will be released.`
              : 'The whole hold.')
        }
        slotProps={{ htmlInput: { inputMode: 'decimal' } }}
      />
    </FollowUpFrame>
  );
}
