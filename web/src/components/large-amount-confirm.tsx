import Alert from '@mui/material/Alert';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  CurrencySchema,
  LARGE_AMOUNT_FIELD,
  isAboveOrderAmountLimit,
  largeAmountThreshold,
  needsLargeAmountConfirmation,
} from '@paydesk/shared/api';
import { useRef, useState, type RefObject } from 'react';
import { useSession } from '../features/auth/components/session-context';
import { refusedField, sentenceOf } from '../lib/form-errors';
import { formatMoney } from '../lib/format';
import { fromMinor, localAmount, readAmount, toMinor } from '../lib/money';
import { useOrderAmountLimits } from './order-amount-limit';

/** The currency as the shared rule reads it ('eur ' → 'EUR'), or undefined when it is none. */
function currencyOf(typed: string): string | undefined {
  const parsed = CurrencySchema.safeParse(typed);
  return parsed.success ? parsed.data : undefined;
}

/** The typed amount in minor units and its plain text, when it is an amount at all. */
function minorOf(typed: string): { plain: string; minor: bigint } | undefined {
  const plain = readAmount(typed).amount;
  const minor = plain === undefined ? undefined : toMinor(plain);
  return plain === undefined || minor === undefined ? undefined : { plain, minor };
}

/** The server's refusal of an unconfirmed large amount, for the amount and currency it was sent. */
interface Refusal {
  amount: string;
  currency: string;
  /** its words, until the confirmation is edited */
  message: string | undefined;
}

/** A request body that may say the large amount was confirmed. */
interface Confirmable {
  confirmLargeAmount?: true | undefined;
}

export interface LargeAmountConfirmation {
  /** whether the confirmation field shows (and the body needs `confirmLargeAmount: true`) */
  shown: boolean;
  /** the threshold of the chosen currency (decimal text), when the session says it */
  threshold: string | null;
  /** the currency the amount is in, upper case, when it is one */
  currency: string | undefined;
  /** the re-typed amount */
  value: string;
  onChange: (value: string) => void;
  /** the field was left: what is typed there is judged from then on */
  onBlur: () => void;
  /** why the field is there ('Above €10,000.00, type the amount again to confirm it.') */
  why: string;
  /** what the field says is wrong, or undefined */
  error: string | undefined;
  inputRef: RefObject<HTMLInputElement | null>;
  /**
   * On submit: `body` as it is to be sent (with `confirmLargeAmount: true` when the field shows),
   * or null when the re-typed amount does not match yet (the field then says why and takes the
   * keyboard).
   */
  confirm: <Body extends Confirmable>(body: Body) => Body | null;
  /** On submit: whether the confirmation is done (or not asked); if not, the field says why. */
  check: () => boolean;
  /**
   * A react-hook-form `handleSubmit` that also checks the confirmation (said in the same pass as
   * the form's own rules) and hands on the body as `confirm` makes it.
   */
  guard: <Body extends Confirmable, Args extends unknown[]>(
    handleSubmit: (onValid: (body: Body) => void) => (...args: Args) => Promise<void>,
  ) => (onValid: (body: Body) => void) => (...args: Args) => Promise<void>;
  /**
   * On a refusal of the request: whether it named `confirmLargeAmount` (its words then show at the
   * field, e.g. when the thresholds changed since sign-in).
   */
  refused: (error: unknown) => boolean;
}

/**
 * The fat-finger guard of a form that creates an order with an amount (rebill, subscription,
 * payment link, payout): above its currency's threshold (the session's `settings.largeAmount`; an
 * older BFF does not say, and then nothing is asked here) the amount must be typed twice, and the
 * request then says `confirmLargeAmount: true`. `amount` and `currency` are the fields' text as
 * typed; a changed amount clears the re-typed one.
 */
export function useLargeAmountConfirmation(
  amount: string,
  currency: string,
): LargeAmountConfirmation {
  const settings = useSession().settings?.largeAmount;
  const limits = useOrderAmountLimits();
  const inputRef = useRef<HTMLInputElement | null>(null);
  // The re-typed text belongs to the amount it confirmed: another amount starts it afresh.
  const [retyped, setRetyped] = useState({ amount, value: '' });
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  // A submit refused for this amount: an empty field says so from then on.
  const [submittedFor, setSubmittedFor] = useState<string | null>(null);
  const submitted = submittedFor === amount;
  // The field left with something typed: judged from then on, not at each key while typing ('2'
  // on the way to '25000' is no mistake).
  const [leftFor, setLeftFor] = useState<string | null>(null);
  const judged = submitted || leftFor === amount;
  const value = retyped.amount === amount ? retyped.value : '';
  const code = currencyOf(currency);
  const typed = minorOf(amount);
  const refusedHere =
    refusal !== null && refusal.amount === amount && refusal.currency === currency;
  const above =
    code !== undefined &&
    typed !== undefined &&
    needsLargeAmountConfirmation(settings, typed.plain, code);
  // Above the per-order limit the amount is refused whatever is confirmed (the amount field says
  // so): asking for it twice would only be in the way.
  const overLimit =
    code !== undefined && typed !== undefined && isAboveOrderAmountLimit(limits, typed.plain, code);
  const shown = typed !== undefined && code !== undefined && !overLimit && (above || refusedHere);

  const threshold = above ? largeAmountThreshold(settings, code) : null;
  // Why the field is there, said from the start; and, in red, after a submit with it empty.
  const why =
    threshold === null || code === undefined
      ? 'Paydesk asks for a large amount twice: type it again to confirm it.'
      : `Above ${formatMoney(threshold, code)}, type the amount again to confirm it.`;
  let error: string | undefined;
  if (shown) {
    const again = minorOf(value);
    if (refusedHere && refusal.message !== undefined) error = refusal.message;
    // Nothing is wrong before the user typed here or tried to go on.
    else if (value.trim() === '') error = submitted ? why : undefined;
    else if (!judged) error = undefined;
    else if (again === undefined)
      // The example obeys the rule it gives: the amount plain, as the amount field takes it.
      error = `Type the amount as above, without thousands separators, e.g. ${localAmount(fromMinor(typed.minor))}.`;
    else if (again.minor !== typed.minor)
      error = `You typed ${formatMoney(again.plain, code)} here but ${formatMoney(typed.plain, code)} above.`;
  }
  const matches = shown && value.trim() !== '' && minorOf(value)?.minor === typed.minor;

  const check = (): boolean => {
    if (!shown || matches) return true;
    setSubmittedFor(amount);
    inputRef.current?.focus();
    return false;
  };
  const confirm = <Body extends Confirmable>(body: Body): Body | null => {
    if (!check()) return null;
    return shown ? { ...body, confirmLargeAmount: true as const } : body;
  };

  return {
    shown,
    // Asked by the server alone (its thresholds changed since sign-in): the session's is stale.
    threshold,
    currency: code,
    value,
    onChange: (next) => {
      setRetyped({ amount, value: next });
      setRefusal((current) => (current === null ? null : { ...current, message: undefined }));
    },
    onBlur: () => {
      if (value.trim() !== '') setLeftFor(amount);
    },
    why,
    error,
    inputRef,
    confirm,
    check,
    guard:
      (handleSubmit) =>
      (onValid) =>
      (...args) => {
        if (shown && !matches) setSubmittedFor(amount);
        return handleSubmit((body) => {
          const sent = confirm(body);
          if (sent !== null) onValid(sent);
        })(...args);
      },
    refused: (refusedError) => {
      const field = refusedField(refusedError, LARGE_AMOUNT_FIELD);
      if (field === undefined) return false;
      const message = sentenceOf(field.path, field.message, field.rule);
      setRefusal({ amount, currency, message });
      return true;
    },
  };
}

/** The threshold in words: '€10,000.00', or a plain phrase when the session does not say it. */
function thresholdText(large: LargeAmountConfirmation): string | undefined {
  return large.threshold === null || large.currency === undefined
    ? undefined
    : formatMoney(large.threshold, large.currency);
}

/**
 * The field that asks for the amount again, right under the amount (it spans the money fields'
 * grid). Nothing while the amount is not above its threshold.
 */
export function LargeAmountConfirmField({
  large,
  disabled,
}: {
  large: LargeAmountConfirmation;
  disabled?: boolean;
}) {
  if (!large.shown) return null;
  return (
    <TextField
      label="Type the amount again to confirm"
      required
      autoComplete="off"
      disabled={disabled}
      value={large.value}
      onChange={(event) => {
        large.onChange(event.target.value);
      }}
      onBlur={large.onBlur}
      inputRef={large.inputRef}
      error={large.error !== undefined}
      helperText={large.error ?? large.why}
      sx={{ gridColumn: '1 / -1' }}
      slotProps={{ htmlInput: { inputMode: 'decimal', spellCheck: false } }}
    />
  );
}

/** For a confirmation step: the amount was typed twice, being above its currency's threshold. */
export function LargeAmountNote({
  large,
  confirmed,
}: {
  large: LargeAmountConfirmation;
  /** whether the body to be sent carries `confirmLargeAmount: true` */
  confirmed: boolean | undefined;
}) {
  if (confirmed !== true) return null;
  const threshold = thresholdText(large);
  return (
    <Typography color="warning.main">
      {threshold === undefined
        ? 'This is a large amount: check it once more.'
        : `This is above ${threshold}: check the amount once more.`}
    </Typography>
  );
}

/**
 * For the second person approving what someone prepared (a payout, a payout-form link): the amount
 * is above its currency's threshold, which the preparer confirmed by typing it twice. Nothing when
 * it is not, or when the BFF does not say its thresholds.
 */
export function LargeAmountApprovalWarning({
  amount,
  currency,
  preparer,
}: {
  amount: string;
  currency: string;
  /**
   * who confirmed it, as a sentence's subject ("The ops user who prepared it"): in Paydesk by typing
   * it twice, through the API with `confirmLargeAmount` (QA: "typed it twice" was not always so)
   */
  preparer: string;
}) {
  const settings = useSession().settings?.largeAmount;
  const threshold = largeAmountThreshold(settings, currency);
  if (threshold === null || !needsLargeAmountConfirmation(settings, amount, currency)) return null;
  return (
    <Alert severity="warning">
      A large amount: above {formatMoney(threshold, currency)}. {preparer} confirmed it (in Paydesk
      by typing it twice); check it against what was agreed before you approve.
    </Alert>
  );
}
