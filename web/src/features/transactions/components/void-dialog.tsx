import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { VoidBodySchema, type TransactionDetail } from '@paydesk/shared/api';
import { useRef, useState } from 'react';
import { textRefusalIn } from '../../../lib/field-help';
import { formatMoney } from '../../../lib/format';
import { formatMoneyInWords } from '../../../lib/money';
import { useFollowUp } from '../api/follow-up';
import { ConfirmQuestion, FollowUpFrame, serverFieldError } from './follow-up-frame';

/**
 * Void: cancels the whole authorized, unsettled order; always the full amount. The comment is
 * asked first, then the void is confirmed in words, as a return is.
 */
export default function VoidDialog({
  detail,
  onClose,
}: {
  detail: TransactionDetail;
  onClose: () => void;
}) {
  const { mutation, outcomeUnknown } = useFollowUp(detail, onClose);
  const [comment, setComment] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [step, setStep] = useState<'form' | 'confirm'>('form');
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const parsed = VoidBodySchema.safeParse({ comment });
  const fieldError =
    (submitted && !parsed.success
      ? (textRefusalIn(parsed.error.issues) ?? 'Say in a few words why (up to 255 characters).')
      : undefined) ?? serverFieldError(mutation.error, 'comment');
  const isPreauth = detail.type === 'preauth' && detail.amounts.captured === '0.00';
  // A captured preauth voids what was captured: the rest of its hold was released at capture.
  const voided = isPreauth ? detail.amounts.authorized : detail.amounts.captured;
  const consequence = isPreauth
    ? 'The hold on the customer’s card is released.'
    : 'The payment is cancelled before it settles.';

  if (step === 'confirm' && parsed.success) {
    const body = parsed.data;
    return (
      <FollowUpFrame
        title="Confirm the void"
        what="the void"
        currency={detail.currency}
        pending={mutation.isPending}
        error={mutation.error}
        outcomeUnknown={outcomeUnknown}
        submitLabel={`Void ${formatMoney(voided, detail.currency)}`}
        destructive
        dirty
        confirming
        onClose={onClose}
        onBack={() => {
          mutation.reset();
          setStep('form');
        }}
        onSubmit={() => {
          mutation.mutate({ action: 'void', body });
        }}
      >
        <ConfirmQuestion>
          Void order {detail.orderid} for its whole amount,{' '}
          {formatMoneyInWords(voided, detail.currency)}?
        </ConfirmQuestion>
        <Typography color="text.secondary">
          {consequence} Comment: “{body.comment}”. A void cannot be undone.
        </Typography>
      </FollowUpFrame>
    );
  }

  return (
    <FollowUpFrame
      title="Void the order"
      what="the void"
      currency={detail.currency}
      pending={mutation.isPending}
      error={mutation.error}
      outcomeUnknown={outcomeUnknown}
      submitLabel="Continue"
      dirty={comment !== ''}
      onClose={onClose}
      onSubmit={() => {
        setSubmitted(true);
        if (parsed.success) {
          mutation.reset();
          setStep('confirm');
          return;
        }
        commentRef.current?.focus();
      }}
    >
      <Typography>
        Void order {detail.orderid} for its whole amount,{' '}
        <strong>{formatMoney(voided, detail.currency)}</strong>. {consequence} A void cannot be
        undone.
      </Typography>
      <TextField
        label="Comment"
        value={comment}
        onChange={(event) => {
          setComment(event.target.value);
        }}
        required
        autoFocus
        inputRef={commentRef}
        multiline
        minRows={2}
        disabled={outcomeUnknown || mutation.isPending}
        error={fieldError !== undefined}
        helperText={fieldError ?? 'Kept in the order’s timeline and the audit log.'}
      />
    </FollowUpFrame>
  );
}
