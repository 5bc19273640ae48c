import Alert from '@mui/material/Alert';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AmountSchema, type TransactionDetail } from '@paydesk/shared/api';
import { useRef, useState } from 'react';
import { SpokenMoney } from '../../../components/spoken-money';
import { isApiError } from '../../../lib/api-client';
import { formatDateAndTime, formatMoney } from '../../../lib/format';
import {
  amountRule,
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
import { STATUS_LOOK } from './status-chip';

/** When an operation was done, as the sentence says it: '10:44:24 PM UTC'. */
function timeOf(at: string): string {
  const { time, zone } = formatDateAndTime(at);
  return `${time} ${zone}`;
}

/**
 * Why nothing is left to capture on `detail`, from its operations: the capture that took the hold
 * (how much, when, by whom, and what of the hold was released), the void that released it, or the
 * order's status when the gateway ended it.
 */
export function nothingLeftToCapture(detail: TransactionDetail): string {
  const latest = (kind: 'capture' | 'void') =>
    detail.operations
      .filter(
        (operation) =>
          operation.kind === kind &&
          ['approved', 'processing', 'sending', 'unknown'].includes(operation.state),
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const by = (who: string | null) => (who === null ? '' : ` by ${who}`);
  const capture = latest('capture');
  if (capture !== undefined && capture.amount !== null) {
    const taken = formatMoney(capture.amount, detail.currency);
    const releasedMinor =
      (toMinor(detail.amounts.authorized) ?? 0n) - (toMinor(capture.amount) ?? 0n);
    const released =
      releasedMinor > 0n && capture.state === 'approved'
        ? ` ${formatMoney(fromMinor(releasedMinor), detail.currency)} of the hold was released to the customer.`
        : '';
    const verb = capture.state === 'approved' ? 'was captured' : 'was sent for capture';
    const pending = capture.state === 'approved' ? '' : ' Its outcome is not final yet.';
    return `Nothing left to capture: ${taken} ${verb} at ${timeOf(capture.createdAt)}${by(capture.requestedBy)}.${released}${pending} A preauth is captured once.`;
  }
  const voided = latest('void');
  if (voided !== undefined) {
    return `Nothing left to capture: the hold was released (voided at ${timeOf(voided.createdAt)}${by(voided.requestedBy)}).`;
  }
  if (detail.status !== 'approved') {
    return `Nothing left to capture: the order is now ${STATUS_LOOK[detail.status].label}, and the hold was released.`;
  }
  return 'Nothing left to capture: the hold was released or captured meanwhile.';
}

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
  // The hold may change while the dialog is open (a colleague's capture or void, another tab, a
  // status from the gateway): the order's live data says so. Our own capture's change (while it is
  // on its way, or done) is not news: the BFF reserves the amount at once, and the dialog keeps the
  // hold it was sent against (QA: "Held on the card: €0.00" and "At most the remaining hold,
  // €0.00" under the capture being sent). An unknown outcome keeps "Send again", which is safe.
  const own = mutation.isPending || mutation.isSuccess || outcomeUnknown;
  const [step, setStep] = useState<'form' | 'confirm'>('form');
  const [hold, setHold] = useState(detail.amounts.remainingCapturable);
  const [changedFrom, setChangedFrom] = useState<string | null>(null);
  if (!own && detail.amounts.remainingCapturable !== hold) {
    setChangedFrom(changedFrom ?? hold);
    setHold(detail.amounts.remainingCapturable);
    setStep('form');
  }
  // Prefilled in the user's locale ('65,00'), as the hint and the page show amounts.
  const [amount, setAmount] = useState(() => localAmount(hold));
  const [submitted, setSubmitted] = useState(false);
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
  if (!own && (holdMinor === 0n || !detail.allowedActions.includes('capture'))) {
    // Nothing can be captured any more: said plainly, and only Close is offered. A refusal by the
    // BFF (409: it never reached the gateway) gave the reason as it stood then ("a capture is still
    // awaiting its outcome"), which what happened since replaces: one current message says both
    // (QA: the two read as contradictory). Any other error is said as it came.
    const refusedHere = isApiError(mutation.error) && mutation.error.status === 409;
    const tried = minor === undefined ? null : formatMoney(fromMinor(minor), detail.currency);
    return (
      <FollowUpFrame
        title="Capture"
        what="the capture"
        currency={detail.currency}
        pending={false}
        error={refusedHere ? null : mutation.error}
        outcomeUnknown={false}
        submitLabel="Continue"
        closeOnly
        onClose={close}
        onSubmit={close}
      >
        <Alert severity="info">
          {nothingLeftToCapture(detail)}
          {refusedHere
            ? ` Your capture${tried === null ? '' : ` of ${tried}`} was not sent: Paydesk refused it before it reached the gateway.`
            : ''}
        </Alert>
      </FollowUpFrame>
    );
  }

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
          Capture <SpokenMoney amount={captured} currency={detail.currency} /> from the customer’s
          card?
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
      {changedFrom !== null && changedFrom !== hold ? (
        <Alert severity="warning">
          While this was open, the hold changed from {formatMoney(changedFrom, detail.currency)} to{' '}
          {formatMoney(hold, detail.currency)}. Check the amount before you go on.
        </Alert>
      ) : null}
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
