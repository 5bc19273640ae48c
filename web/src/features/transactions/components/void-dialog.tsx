import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { VoidBodySchema, type TransactionDetail } from '@paydesk/shared/api';
import { useState } from 'react';
import { textRefusalIn } from '../../../lib/field-help';
import { formatMoney } from '../../../lib/format';
import { useFollowUp } from '../api/follow-up';
import { FollowUpFrame, serverFieldError } from './follow-up-frame';

/** Void: cancels the whole authorized, unsettled order; always the full amount. */
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
  const parsed = VoidBodySchema.safeParse({ comment });
  const fieldError =
    (submitted && !parsed.success
      ? (textRefusalIn(parsed.error.issues) ?? 'Say in a few words why (up to 255 characters).')
      : undefined) ?? serverFieldError(mutation.error, 'comment');
  const isPreauth = detail.type === 'preauth' && detail.amounts.captured === '0.00';
  // A captured preauth voids what was captured: the rest of its hold was released at capture.
  const voided = isPreauth ? detail.amounts.authorized : detail.amounts.captured;

  return (
    <FollowUpFrame
      title="Void the order"
      what="the void"
      currency={detail.currency}
      pending={mutation.isPending}
      error={mutation.error}
      outcomeUnknown={outcomeUnknown}
      submitLabel="Void the order"
      destructive
      dirty={comment !== ''}
      onClose={onClose}
      onSubmit={() => {
        setSubmitted(true);
        if (parsed.success) mutation.mutate({ action: 'void', body: parsed.data });
      }}
    >
      <Typography>
        Void order {detail.orderid} for its whole amount,{' '}
        <strong>{formatMoney(voided, detail.currency)}</strong>?{' '}
        {isPreauth
          ? 'The hold on the customer’s card is released.'
          : 'The payment is cancelled before it settles.'}{' '}
        A void cannot be undone.
      </Typography>
      <TextField
        label="Comment"
        value={comment}
        onChange={(event) => {
          setComment(event.target.value);
        }}
        required
        autoFocus
        multiline
        minRows={2}
        disabled={outcomeUnknown || mutation.isPending}
        error={fieldError !== undefined}
        helperText={fieldError ?? 'Kept in the order’s timeline and the audit log.'}
      />
    </FollowUpFrame>
  );
}
