import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { VoidBodySchema, type TransactionDetail } from '@paydesk/shared/api';
import { useRef, useState } from 'react';
import { SpokenMoney } from '../../../components/spoken-money';
import { textRefusalIn } from '../../../lib/field-help';
import { formatMoney } from '../../../lib/format';
import { fromMinor, toMinor } from '../../../lib/money';
import { useFollowUp } from '../api/follow-up';
import { commentHelp } from './comment-help';
import {
  COMMENT_HINT,
  ConfirmQuestion,
  FollowUpFrame,
  serverFieldsNamed,
  useServerFieldErrors,
} from './follow-up-frame';

/**
 * Void: cancels the whole authorized, unsettled order; always the full amount. On a captured
 * preauth that is the captured amount (the gateway's void cancels the capture before it settles;
 * the rest of the hold was released at the capture), and the dialog says both. The comment is
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
  const server = useServerFieldErrors(mutation.error);
  const [comment, setComment] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [step, setStep] = useState<'form' | 'confirm'>('form');
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const parsed = VoidBodySchema.safeParse({ comment });
  const fieldError =
    (submitted && !parsed.success
      ? (textRefusalIn(parsed.error.issues) ?? 'Say in a few words why (up to 255 characters).')
      : undefined) ?? server.messageFor('comment');
  // A refusal that names the comment goes back to the form and is said under it, not in the alert.
  const refused = serverFieldsNamed(mutation.error, ['comment'] as const);
  const isPreauth = detail.type === 'preauth' && detail.amounts.captured === '0.00';
  // A captured preauth voids what was captured: the rest of its hold was released at capture.
  const voided = isPreauth ? detail.amounts.authorized : detail.amounts.captured;
  const money = (amount: string) => formatMoney(amount, detail.currency);
  const capturedPreauth = detail.type === 'preauth' && !isPreauth;
  const released = fromMinor(
    (toMinor(detail.amounts.authorized) ?? 0n) - (toMinor(detail.amounts.captured) ?? 0n),
  );
  const consequence = isPreauth
    ? 'The hold on the customer’s card is released.'
    : capturedPreauth
      ? `The captured ${money(voided)} is cancelled before it settles. ${
          released === '0.00'
            ? 'The whole hold was captured, so nothing else is held.'
            : `The rest of the hold, ${money(released)} of the ${money(detail.amounts.authorized)} authorized, was already released at the capture and is not affected.`
        }`
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
          mutation.mutate(
            { action: 'void', body },
            {
              onError: (error) => {
                if (serverFieldsNamed(error, ['comment']).named.length > 0) setStep('form');
              },
            },
          );
        }}
      >
        <ConfirmQuestion>
          {capturedPreauth ? (
            <>
              Void the <SpokenMoney amount={voided} currency={detail.currency} /> captured on order{' '}
              {detail.orderid}?
            </>
          ) : (
            <>
              Void order {detail.orderid} for its whole amount,{' '}
              <SpokenMoney amount={voided} currency={detail.currency} />?
            </>
          )}
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
      error={refused.named.length > 0 && !refused.elsewhere ? null : mutation.error}
      outcomeUnknown={outcomeUnknown}
      resumeAt={refused.named.length > 0 ? commentRef : null}
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
        {capturedPreauth
          ? `Void what was captured on order ${detail.orderid}: `
          : `Void order ${detail.orderid} for its whole amount, `}
        <strong>{money(voided)}</strong>. {consequence} A void cannot be undone.
      </Typography>
      <TextField
        label="Comment"
        value={comment}
        onChange={(event) => {
          server.edited('comment');
          setComment(event.target.value);
        }}
        required
        autoFocus
        inputRef={commentRef}
        multiline
        minRows={2}
        disabled={outcomeUnknown || mutation.isPending}
        {...commentHelp(comment, fieldError, COMMENT_HINT)}
      />
    </FollowUpFrame>
  );
}
