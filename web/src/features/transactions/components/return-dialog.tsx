import Alert from '@mui/material/Alert';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  RETURN_REASON_CODES,
  ReturnBodySchema,
  type ReturnBody,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { useEffect, useId, useRef, useState } from 'react';
import { DateTime } from '../../../components/date-time';
import { SpokenMoney } from '../../../components/spoken-money';
import { textRefusal } from '../../../lib/field-help';
import { formatMoney } from '../../../lib/format';
import { amountRule, fromMinor, readAmount, toMinor } from '../../../lib/money';
import { useFollowUp } from '../api/follow-up';
import { recentNotApplied } from '../api/gateway-answer';
import { commentHelp } from './comment-help';
import {
  COMMENT_HINT,
  ConfirmQuestion,
  FollowUpFrame,
  serverFieldsNamed,
  useServerFieldErrors,
} from './follow-up-frame';
import { RETURN_REASON_LABELS } from './labels';

type Reason = ReturnBody['reasonCode'];

/** The fields of the form, in its order, as the API names them. */
const FIELDS = ['amount', 'reasonCode', 'comment'] as const;

interface Draft {
  /** '' until the user chooses: a slip must not return the whole amount meant to be a part */
  scope: 'full' | 'partial' | '';
  amount: string;
  reasonCode: Reason | '';
  comment: string;
}

/** Said on the scope's choices when Continue is pressed before one is chosen. */
const SCOPE_REQUIRED = 'Choose whether to return all of it or part of it.';

/** The body for a valid draft, else the message of each field that needs attention. */
function check(
  draft: Draft,
  remaining: string,
  currency: string,
):
  | { body: ReturnBody; errors?: never; overCap?: never }
  | { body?: never; errors: Partial<Record<keyof Draft, string>>; overCap: boolean } {
  // Typed in the user's locale ('12,50'); the remaining amount arrives as '12.50'. Before a scope
  // is chosen there is no amount to check: the reason and comment are checked against what is
  // left, and the missing choice is said instead.
  const typed = draft.scope === 'partial' ? readAmount(draft.amount) : { amount: remaining };
  const amount = typed.amount ?? '';
  const parsed = ReturnBodySchema.safeParse({
    amount,
    reasonCode: draft.reasonCode === '' ? undefined : draft.reasonCode,
    comment: draft.comment,
  });
  const errors: Partial<Record<keyof Draft, string>> = {};
  if (draft.scope === '') errors.scope = SCOPE_REQUIRED;
  let overCap = false;
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (field === 'amount' && draft.scope !== '')
        errors.amount = amountRule(draft.scope === 'full' ? remaining : draft.amount, '12.50');
      if (field === 'reasonCode') errors.reasonCode = 'Choose why the money goes back.';
      // A refused text (a card number, a control character) says so; else the usual rule.
      if (field === 'comment')
        errors.comment =
          textRefusal(issue.message) ??
          errors.comment ??
          'Say in a few words what happened (up to 255 characters).';
    }
  }
  const minor = toMinor(amount);
  const cap = toMinor(remaining) ?? 0n;
  if (draft.scope !== '' && errors.amount === undefined && minor !== undefined && minor > cap) {
    errors.amount = `At most the remaining returnable amount, ${formatMoney(remaining, currency)}.`;
    overCap = true;
  }
  if (parsed.success && minor !== undefined && Object.keys(errors).length === 0) {
    // Sent and confirmed in the usual two-decimal form: '12.5' → '12.50'.
    return { body: { ...parsed.data, amount: fromMinor(minor) } };
  }
  return { errors, overCap };
}

/**
 * The order's returns judged not made that the order page advises to make again (no clear answer
 * came, and the gateway's status did not show them; `recentNotApplied`): should the gateway still
 * apply one late, the customer would get both (QA: following the advice refunded a customer
 * twice). Said on the confirm step, so the one who repeats it decides knowing that.
 */
function LateReturnsWarning({ detail }: { detail: TransactionDetail }) {
  const earlier = recentNotApplied(detail.operations).filter((o) => o.kind === 'return');
  if (earlier.length === 0) return null;
  return (
    <Alert severity="warning">
      {earlier.map((o) => (
        <div key={o.id}>
          A return{o.amount === null ? '' : ` of ${formatMoney(o.amount, detail.currency)}`}{' '}
          requested at <DateTime value={o.createdAt} /> was judged not made: no clear answer came
          and the gateway’s status did not show it.
        </div>
      ))}
      <div>
        Should the gateway still apply {earlier.length === 1 ? 'it' : 'one'} late, the customer gets
        this return as well; Paydesk would then flag the order.
      </div>
    </Alert>
  );
}

/** Return (refund) of a captured amount: full or partial, never more than what is left. */
export default function ReturnDialog({
  detail,
  onClose,
}: {
  detail: TransactionDetail;
  onClose: () => void;
}) {
  const { mutation, outcomeUnknown } = useFollowUp(detail, onClose);
  const server = useServerFieldErrors(mutation.error);
  const remaining = detail.amounts.remainingReturnable;
  const scopeId = useId();
  const scopeHelpId = useId();
  const [draft, setDraft] = useState<Draft>({
    scope: '',
    amount: '',
    reasonCode: '',
    comment: '',
  });
  const [step, setStep] = useState<'form' | 'confirm'>('form');
  const [submitted, setSubmitted] = useState(false);
  // What can be returned may change while the dialog is open (someone else's return, a status the
  // gateway sent): the form says from what to what, and a confirm step goes back to the form, so
  // "All of it" never confirms another amount than the one the user read. Our own return's change
  // (while it is on its way) is not news.
  const [seenRemaining, setSeenRemaining] = useState(remaining);
  const [changedFrom, setChangedFrom] = useState<string | null>(null);
  if (remaining !== seenRemaining) {
    setSeenRemaining(remaining);
    if (!mutation.isPending && !mutation.isSuccess) {
      setChangedFrom(changedFrom ?? seenRemaining);
      setStep('form');
    }
  }
  // The first choice, where the keyboard goes when none was made.
  const scopeRef = useRef<HTMLInputElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  // "Part" chosen with a click or Space: the amount it asks for appears under it and takes the
  // keyboard. Not with the arrow keys, which move between the choices and keep the focus there.
  const byArrow = useRef(false);
  const amountWanted = useRef(false);
  useEffect(() => {
    if (!amountWanted.current || draft.scope !== 'partial') return;
    amountWanted.current = false;
    amountRef.current?.focus();
  }, [draft.scope]);
  const reasonRef = useRef<HTMLSelectElement>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const result = check(draft, remaining, detail.currency);
  const errors = submitted ? (result.errors ?? {}) : {};
  // Going over the cap is said at once, while typing; the other rules after "Continue".
  const amountError =
    (result.overCap === true ? result.errors.amount : errors.amount) ??
    server.messageFor('amount', detail.currency);
  const scopeError = errors.scope;
  const reasonError = errors.reasonCode ?? server.messageFor('reasonCode');
  const commentError = errors.comment ?? server.messageFor('comment');
  // The fields the form shows (the amount only for part of it), in its order: a refusal that
  // names one goes back to the form and is said under it, not in the alert.
  const shown = draft.scope === 'partial' ? FIELDS : FIELDS.filter((field) => field !== 'amount');
  const refused = serverFieldsNamed(mutation.error, shown);
  const refusedRef = { amount: amountRef, reasonCode: reasonRef, comment: commentRef };
  const firstRefused = refused.named[0];
  const set =
    (key: 'amount' | 'reasonCode' | 'comment') => (event: { target: { value: string } }) => {
      server.edited(key);
      setDraft((current) => ({ ...current, [key]: event.target.value }));
    };
  const locked = outcomeUnknown || mutation.isPending;
  // The choice's message is also each choice's description: the keyboard lands on a choice, and a
  // screen reader says why there.
  const scopeDescribed = scopeError === undefined ? undefined : { 'aria-describedby': scopeHelpId };
  const amountText = result.body?.amount ?? remaining;

  if (step === 'confirm' && result.body !== undefined) {
    const body = result.body;
    return (
      <FollowUpFrame
        title="Confirm the return"
        what="the return"
        currency={detail.currency}
        pending={mutation.isPending}
        error={mutation.error}
        outcomeUnknown={outcomeUnknown}
        submitLabel={`Return ${formatMoney(amountText, detail.currency)}`}
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
            { action: 'return', body },
            {
              onError: (error) => {
                if (serverFieldsNamed(error, shown).named.length > 0) setStep('form');
              },
            },
          );
        }}
      >
        <ConfirmQuestion>
          Return <SpokenMoney amount={amountText} currency={detail.currency} /> to the customer?
        </ConfirmQuestion>
        <Typography color="text.secondary">
          Order {detail.orderid} · reason: {RETURN_REASON_LABELS[body.reasonCode]} · “{body.comment}
          ”. Money sent back cannot be taken back.
        </Typography>
        <LateReturnsWarning detail={detail} />
      </FollowUpFrame>
    );
  }

  return (
    <FollowUpFrame
      title="Return"
      what="the return"
      currency={detail.currency}
      pending={mutation.isPending}
      error={refused.named.length > 0 && !refused.elsewhere ? null : mutation.error}
      outcomeUnknown={outcomeUnknown}
      resumeAt={firstRefused === undefined ? null : refusedRef[firstRefused]}
      submitLabel="Continue"
      dirty={
        draft.scope !== '' || draft.amount !== '' || draft.reasonCode !== '' || draft.comment !== ''
      }
      onClose={onClose}
      onSubmit={() => {
        setSubmitted(true);
        if (result.body !== undefined) {
          mutation.reset();
          setStep('confirm');
          return;
        }
        // The keyboard goes to the first field that needs attention, as the sign-in form does.
        const errors = result.errors;
        const first =
          errors.scope !== undefined
            ? scopeRef.current
            : errors.amount !== undefined
              ? amountRef.current
              : errors.reasonCode !== undefined
                ? reasonRef.current
                : errors.comment !== undefined
                  ? commentRef.current
                  : null;
        first?.focus();
      }}
    >
      {changedFrom !== null && changedFrom !== remaining ? (
        <Alert severity="warning">
          While this was open, what can be returned changed from{' '}
          {formatMoney(changedFrom, detail.currency)} to {formatMoney(remaining, detail.currency)}{' '}
          (another return, or a status from the gateway). Check the amount before you go on.
        </Alert>
      ) : null}
      <Typography>
        Returnable: <strong>{formatMoney(remaining, detail.currency)}</strong> (captured{' '}
        {formatMoney(detail.amounts.captured, detail.currency)}, returned{' '}
        {formatMoney(detail.amounts.returned, detail.currency)}
        {detail.amounts.reserved !== '0.00'
          ? `, ${formatMoney(detail.amounts.reserved, detail.currency)} awaiting an outcome`
          : ''}
        ).
      </Typography>
      <FormControl required error={scopeError !== undefined}>
        <FormLabel id={scopeId}>How much</FormLabel>
        <RadioGroup
          aria-labelledby={scopeId}
          aria-required
          aria-describedby={scopeError === undefined ? undefined : scopeHelpId}
          aria-invalid={scopeError === undefined ? undefined : true}
          row
          value={draft.scope}
          onKeyDown={(event) => {
            byArrow.current = event.key.startsWith('Arrow');
          }}
          onChange={(event) => {
            // Another scope is another amount: what the server said of the one sent is past.
            server.edited('amount');
            const scope = event.target.value === 'partial' ? 'partial' : 'full';
            setDraft((current) => ({ ...current, scope }));
            amountWanted.current = scope === 'partial' && !byArrow.current;
            byArrow.current = false;
          }}
        >
          <FormControlLabel
            value="full"
            control={<Radio slotProps={{ input: { ref: scopeRef, ...scopeDescribed } }} />}
            label={`All of it (${formatMoney(remaining, detail.currency)})`}
            disabled={locked}
          />
          <FormControlLabel
            value="partial"
            control={<Radio slotProps={{ input: scopeDescribed }} />}
            label="Part"
            disabled={locked}
          />
        </RadioGroup>
        {scopeError !== undefined ? (
          <FormHelperText id={scopeHelpId}>{scopeError}</FormHelperText>
        ) : null}
      </FormControl>
      {draft.scope === 'partial' ? (
        <TextField
          label={`Amount to return (${detail.currency})`}
          value={draft.amount}
          onChange={set('amount')}
          required
          inputRef={amountRef}
          disabled={locked}
          error={amountError !== undefined}
          helperText={amountError ?? `Up to ${formatMoney(remaining, detail.currency)}.`}
          slotProps={{ htmlInput: { inputMode: 'decimal' } }}
        />
      ) : null}
      <TextField
        select
        label="Reason"
        value={draft.reasonCode}
        onChange={set('reasonCode')}
        required
        inputRef={reasonRef}
        disabled={locked}
        error={reasonError !== undefined}
        helperText={reasonError}
        slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
      >
        <option value="" disabled>
          Choose a reason
        </option>
        {RETURN_REASON_CODES.map((code) => (
          <option key={code} value={code}>
            {RETURN_REASON_LABELS[code]}
          </option>
        ))}
      </TextField>
      <TextField
        label="Comment"
        value={draft.comment}
        onChange={set('comment')}
        required
        inputRef={commentRef}
        multiline
        minRows={2}
        disabled={locked}
        {...commentHelp(draft.comment, commentError, COMMENT_HINT)}
      />
    </FollowUpFrame>
  );
}
