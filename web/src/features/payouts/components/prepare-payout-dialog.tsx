import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  expiredCardField,
  farCardExpiryField,
  LARGE_AMOUNT_FIELD,
  PAYOUT_MODES,
  PHONE_MESSAGE,
  PayoutCreateBodySchema,
  type Payout,
  type PayoutCreateBody,
  type PayoutDestinationKind,
  type PayoutMode,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import type { z } from 'zod';
import { FormDialog } from '../../../components/form-dialog';
import {
  LargeAmountConfirmField,
  useLargeAmountConfirmation,
} from '../../../components/large-amount-confirm';
import { useNotify } from '../../../components/notifier';
import { useOrderAmountLimits } from '../../../components/order-amount-limit';
import { describeError, isApiError } from '../../../lib/api-client';
import { currencyRefusal, sentenceOf } from '../../../lib/form-errors';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../../../lib/idempotency';
import { formatDateTimeWithZone } from '../../../lib/format';
import { localAmountExample, plainAmount, readAmount } from '../../../lib/money';
import { asClause } from '../../../lib/gateway-error';
import { shortErrorText } from '../api/unanswered-words';
import { orderLimitRefusal } from '../../../lib/order-limit';
import { payoutKeys, preparePayout } from '../api/payouts';
import { DESTINATION_KIND_LABELS } from './destination-labels';
import { useHoldTime } from './hold-time';
import { payoutResultSeverity } from './result-severity';
import { useAwaitOutcome } from './outcome-follow-up';
import { similarPendingSentence } from './similar-pending';

interface Field {
  name: string;
  label: string;
  hint?: string;
  /** what to enter, said when it is left empty (rather than a bare "Required.") */
  missing: string;
  inputMode?: 'numeric' | 'tel' | 'text';
}

/** The phone rule in words, as the form's hint says it (the shared schema's reads as a rule). */
const PHONE_RULE =
  'Enter the phone number, e.g. +44 7700 900123: 6 to 15 digits and a leading +; spaces, dashes and brackets are fine.';

const DESTINATION_FIELDS: Record<PayoutDestinationKind, Field[]> = {
  card: [
    {
      name: 'cardNumber',
      label: 'Card number',
      missing: 'Enter the card number (13 to 19 digits).',
      inputMode: 'numeric',
    },
    {
      name: 'cardholderName',
      label: 'Cardholder name',
      missing: 'Enter the name as printed on the card.',
    },
    {
      name: 'expiryMonth',
      label: 'Expiry month',
      hint: '1 to 12, e.g. 9 or 09',
      missing: 'Enter the month the card expires, 1 to 12.',
      inputMode: 'numeric',
    },
    {
      name: 'expiryYear',
      label: 'Expiry year',
      hint: 'YYYY',
      missing: 'Enter the year the card expires, in 4 digits.',
      inputMode: 'numeric',
    },
  ],
  bank: [
    {
      name: 'accountNumber',
      label: 'Account number or IBAN',
      missing: 'Enter the payee’s IBAN or account number.',
    },
    { name: 'bankName', label: 'Bank name', missing: 'Enter the name of the payee’s bank.' },
    {
      name: 'bankBic',
      label: 'BIC',
      hint: '8 or 11 characters',
      missing: 'Enter the bank’s BIC (8 or 11 characters).',
    },
  ],
  ewallet: [
    {
      name: 'ewalletType',
      label: 'E-wallet type',
      hint: 'e.g. paypal',
      missing: 'Enter the kind of e-wallet, e.g. paypal.',
    },
    {
      name: 'ewalletId',
      label: 'E-wallet id',
      missing: 'Enter the payee’s id in that e-wallet (an e-mail address or account id).',
    },
  ],
  phone: [
    {
      name: 'phone',
      label: 'Phone number',
      hint: 'e.g. +44 7700 900123',
      missing: 'Enter the payee’s phone number, e.g. +44 7700 900123.',
      inputMode: 'tel',
    },
    { name: 'fpsBankId', label: 'FPS bank id', missing: 'Enter the payee’s FPS bank id.' },
  ],
};

/** What to enter in each field left empty, by path (`destination.bankName`, `orderDesc`). */
const MISSING: ReadonlyMap<string, string> = new Map([
  ...Object.values(DESTINATION_FIELDS)
    .flat()
    .map((field) => [`destination.${field.name}`, field.missing] as const),
  ['orderDesc', 'Say what the payout is for (up to 1024 characters); the approver sees it.'],
]);

interface Draft {
  kind: PayoutDestinationKind;
  destination: Record<string, string>;
  amount: string;
  currency: string;
  orderDesc: string;
  endpointId: string;
  mode: PayoutMode;
}

const EMPTY: Draft = {
  kind: 'card',
  destination: {},
  amount: '',
  currency: 'EUR',
  orderDesc: '',
  endpointId: '',
  mode: 'two-step',
};

/** Whether closing would lose something typed or chosen. */
function isDirty(draft: Draft): boolean {
  return (
    draft.kind !== EMPTY.kind ||
    Object.values(draft.destination).some((value) => value !== '') ||
    draft.amount !== EMPTY.amount ||
    draft.currency !== EMPTY.currency ||
    draft.orderDesc !== EMPTY.orderDesc ||
    draft.endpointId !== EMPTY.endpointId ||
    draft.mode !== EMPTY.mode
  );
}

/**
 * A prepare whose payout-check's outcome is not known yet (its reply lost, or the gateway's answer
 * not confirmed yet), in words that promise nothing: the check may never have been made (an HTTP
 * 500 is refused before it is applied), and the payout then fails rather than awaiting approval.
 */
function checkNotKnownMessage(
  payout: Pick<Payout, 'errorCode' | 'errorMessage' | 'unanswered'>,
): string {
  const why = shortErrorText(payout);
  return `Not known yet whether the gateway checked the payee’s details${why === '' ? '' : `: ${asClause(why)}`}. Paydesk is asking the gateway. Nothing was paid. If the gateway made the check, the payout then waits for approval; if it never did, the payout is marked failed and must be prepared again. Do not prepare it again meanwhile.`;
}

/**
 * What each mode does, in the words of the one who chooses it. `holdTime`: how long a held payout
 * waits for approval (`useHoldTime`).
 */
function modes(holdTime: string): Record<PayoutMode, { label: string; help: string }> {
  return {
    'two-step': {
      label: 'Two-step (checked now)',
      help: 'The gateway checks the payee’s details now; approving then pays it. The check lapses after 24 hours.',
    },
    single: {
      label: 'Single (not checked)',
      // The date itself is said once the payout is prepared.
      help: `Nothing goes to the gateway now: Paydesk holds the payout encrypted and sends it as a one-step payout when approved, without any check of the destination first. It lapses if not approved ${holdTime}.`,
    },
  };
}

function candidateOf(draft: Draft): unknown {
  const destination: Record<string, string> = { kind: draft.kind };
  for (const field of DESTINATION_FIELDS[draft.kind]) {
    destination[field.name] = draft.destination[field.name] ?? '';
  }
  return {
    destination,
    // Typed in the user's locale ('250,00'); thousands separators are refused beside the field.
    amount: plainAmount(draft.amount).amount ?? draft.amount,
    currency: draft.currency,
    orderDesc: draft.orderDesc,
    mode: draft.mode,
    ...(draft.endpointId.trim() === '' ? {} : { endpointId: draft.endpointId }),
  };
}

/**
 * A rule said in words, whoever refused it (this form or the BFF): what to enter in a field left
 * empty, and the phone number's characters.
 */
function plainRule(path: string, message: string): string | undefined {
  if (message.trim() === 'is required') return MISSING.get(path);
  if (path === 'destination.phone' && message === PHONE_MESSAGE) return PHONE_RULE;
  return undefined;
}

/**
 * The schema's words where the other forms say it differently: the currency as the money fields
 * say it (MoneyFields), and a card number's check digit as an IBAN's is said, without the
 * algorithm's name.
 */
function fieldSentence(path: string, message: string): string | undefined {
  const plain = plainRule(path, message);
  if (plain !== undefined) return plain;
  if (path === 'currency') return currencyRefusal(message) ?? 'A 3-letter ISO code, e.g. EUR.';
  if (path === 'destination.cardNumber' && /\bLuhn\b/.test(message))
    return 'This is not a valid card number: its check digit does not match (look for a typing error).';
  return undefined;
}

/** What is typed in a field that says what to enter when empty (`MISSING`); else ''. */
function typedAt(draft: Draft, path: string): string {
  if (path === 'orderDesc') return draft.orderDesc;
  return path.startsWith('destination.')
    ? (draft.destination[path.slice('destination.'.length)] ?? '')
    : '';
}

/**
 * Sentences a person can act on, by field path (`destination.cardNumber`). A field left empty
 * says what to enter, whichever rule the schema broke first ("must be 13-19 digits" for an empty
 * card number), as its neighbours do.
 */
function messagesOf(issues: readonly z.core.$ZodIssue[], draft: Draft): Map<string, string> {
  const messages = new Map<string, string>();
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (!messages.has(path)) {
      const missing = typedAt(draft, path).trim() === '' ? MISSING.get(path) : undefined;
      messages.set(
        path,
        missing ??
          fieldSentence(path, issue.message) ??
          (/^(Invalid|Too|Expected)/.test(issue.message)
            ? 'Check this field.'
            : sentenceOf(path, issue.message, issue.code)),
      );
    }
  }
  return messages;
}

/**
 * A card that has expired by the browser's clock, said at its expiry field (the BFF refuses it by
 * its own clock; the schema cannot know the date), on the same submit as every other field's
 * refusal (whatever else is wrong). With a valid month and year, as the BFF says it; with a year
 * already past, at the year even while the month is still wrong; likewise a year too far ahead.
 */
function expiredCard(draft: Draft, messages: ReadonlyMap<string, string>): [string, string] | null {
  if (draft.kind !== 'card') return null;
  const expiryYear = (draft.destination.expiryYear ?? '').trim();
  if (messages.has('destination.expiryYear') || !/^\d{4}$/.test(expiryYear)) return null;
  // As the schema takes it: '9' is September, '09'.
  const typedMonth = (draft.destination.expiryMonth ?? '').trim();
  const expiryMonth = /^[1-9]$/.test(typedMonth) ? `0${typedMonth}` : typedMonth;
  const now = Date.now();
  // A year no card has (9999, a slip for this decade): said at the year, as the BFF says it.
  const far = farCardExpiryField({ expiryYear }, now);
  if (far !== null) return [`destination.${far.path}`, sentenceOf('', far.message)];
  if (messages.has('destination.expiryMonth') || !/^(0[1-9]|1[0-2])$/.test(expiryMonth)) {
    // The month says nothing yet (it has its own refusal); a past year alone says it expired.
    return Number(expiryYear) < new Date(now).getUTCFullYear()
      ? ['destination.expiryYear', `The card expired in ${expiryYear}.`]
      : null;
  }
  const expired = expiredCardField({ expiryMonth, expiryYear }, now);
  return expired === null ? null : [`destination.${expired.path}`, sentenceOf('', expired.message)];
}

/** A field that says it is refused (MUI's `error`); the first in the document is the first shown. */
const FIRST_REFUSED = [
  'input:not([disabled])[aria-invalid="true"]',
  'select:not([disabled])[aria-invalid="true"]',
  'textarea:not([disabled])[aria-invalid="true"]',
].join(', ');

/** Whether `path` is `changed` or lies under it (`destination` holds `destination.cardNumber`). */
function isUnder(path: string, changed: ReadonlySet<string>): boolean {
  for (const prefix of changed) if (path === prefix || path.startsWith(`${prefix}.`)) return true;
  return false;
}

/**
 * Prepare a payout: two-step (payout-check now) or single (held, sent on approval). Either way it
 * waits for a second ops user to approve it. `onPrepared`: once it is prepared (before closing),
 * e.g. to show the list it is in.
 */
export default function PreparePayoutDialog({
  onClose,
  onPrepared,
}: {
  onClose: () => void;
  onPrepared?: (payout: Payout) => void;
}) {
  const titleId = useId();
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const notify = useNotify();
  const modeLabelId = useId();
  const modeTexts = modes(useHoldTime());
  const limits = useOrderAmountLimits();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [submitted, setSubmitted] = useState(false);
  // Each refused submit moves the keyboard to the first field that says what is wrong, in the
  // dialog's order, as the react-hook-form dialogs do (shouldFocusError).
  const formRef = useRef<HTMLFormElement>(null);
  const [refusedSubmits, setRefusedSubmits] = useState(0);
  useEffect(() => {
    if (refusedSubmits === 0) return;
    formRef.current?.querySelector<HTMLElement>(FIRST_REFUSED)?.focus();
  }, [refusedSubmits]);
  // Fields changed since the server's last refusal: its words about them no longer apply.
  const [changed, setChanged] = useState<ReadonlySet<string>>(new Set());
  const markChanged = (path: string) => {
    setChanged((current) => (current.has(path) ? current : new Set([...current, path])));
  };
  const parsed = PayoutCreateBodySchema.safeParse(candidateOf(draft));
  const clientMessages =
    submitted && !parsed.success
      ? messagesOf(parsed.error.issues, draft)
      : new Map<string, string>();
  // Thousands separators, a decimal comma, or more than the API takes (said with the locale's
  // decimal mark); or more than the BFF's per-order limit, which it would refuse.
  const amountRefusal =
    readAmount(draft.amount).refusal ?? orderLimitRefusal(limits, draft.amount, draft.currency);
  if (submitted && amountRefusal !== undefined) clientMessages.set('amount', amountRefusal);
  const expired = submitted ? expiredCard(draft, clientMessages) : null;
  if (expired !== null) clientMessages.set(...expired);

  // Above its currency's threshold the amount is typed twice (the BFF refuses it otherwise).
  const large = useLargeAmountConfirmation(draft.amount, draft.currency);

  const awaitOutcome = useAwaitOutcome();
  const mutation = useMutation({
    mutationFn: (body: PayoutCreateBody) => preparePayout(body, keeper.keyFor(body)),
    onSuccess: async ({ payout, message }) => {
      const said =
        payout.mode === 'single' && payout.state === 'pending_approval' && payout.expiresAt
          ? // When the hold lapses, in the user's time zone (the BFF's message says it in UTC).
            `The payout is held until a second ops user approves it; it lapses ${formatDateTimeWithZone(payout.expiresAt)} if not approved. Nothing was sent yet.`
          : payout.state === 'checking'
            ? checkNotKnownMessage(payout)
            : message;
      // Another like it waits (same amount, currency, destination), was paid lately or may still
      // be paid late: the preparer is told at once, as a warning, not only the approver later. The
      // BFF's own message already cautions of one that may be paid late: said once.
      const duplicate = similarPendingSentence(
        said === message ? { ...payout, similarNotApplied: [] } : payout,
      );
      const twins = duplicate !== null || payout.similarNotApplied.length > 0;
      notify(
        duplicate === null ? said : `${duplicate} ${said}`,
        twins ? 'warning' : payoutResultSeverity(payout.state),
      );
      // "Not known yet whether the gateway checked": replaced once it is known.
      awaitOutcome(payout, 'check');
      onPrepared?.(payout);
      onClose();
      await client.invalidateQueries({ queryKey: payoutKeys.all });
    },
    // A failure is said once, inline in the dialog (a snackbar would cover its buttons); a
    // refused unconfirmed large amount at the confirmation field.
    onError: (error) => {
      large.refused(error);
    },
  });
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  const serverFields = isApiError(mutation.error) ? mutation.error.fieldErrors : [];
  // The BFF names a rule ("must be …") or says what is wrong; said as a sentence, like the checks
  // made here, until the field is changed.
  const serverMessages = new Map(
    serverFields
      .filter((f) => !isUnder(f.path, changed))
      .map(
        (f) =>
          [f.path, plainRule(f.path, f.message) ?? sentenceOf(f.path, f.message, f.rule)] as const,
      ),
  );
  const messageFor = (path: string) => clientMessages.get(path) ?? serverMessages.get(path);
  // A refusal is said beside the fields it names; anything else in the alert above them.
  const shownPaths = new Set([
    'mode',
    'amount',
    'currency',
    'orderDesc',
    'endpointId',
    ...(large.shown ? [LARGE_AMOUNT_FIELD] : []),
    ...DESTINATION_FIELDS[draft.kind].map((field) => `destination.${field.name}`),
  ]);
  const besideFields = serverFields.some((f) => shownPaths.has(f.path));
  const locked = outcomeUnknown || mutation.isPending;

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const confirmed = large.check();
    const body =
      parsed.success &&
      confirmed &&
      amountRefusal === undefined &&
      expiredCard(draft, new Map()) === null
        ? large.confirm(parsed.data)
        : null;
    if (body !== null) {
      setChanged(new Set());
      mutation.mutate(body);
    } else {
      setRefusedSubmits((count) => count + 1);
    }
  };
  const set =
    (key: 'amount' | 'currency' | 'orderDesc' | 'endpointId') =>
    (event: { target: { value: string } }) => {
      markChanged(key);
      setDraft((current) => ({ ...current, [key]: event.target.value }));
    };

  return (
    <FormDialog
      open
      dirty={isDirty(draft)}
      busy={mutation.isPending}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form ref={formRef} noValidate aria-labelledby={titleId} onSubmit={submit}>
        <DialogTitle id={titleId}>Prepare a payout</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeError(mutation.error)} Sending again is safe: it is the same request, and
                Paydesk will not prepare it twice.
              </Alert>
            ) : mutation.isError && !besideFields ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            <FormControl disabled={locked} error={messageFor('mode') !== undefined}>
              <FormLabel id={modeLabelId}>How it is paid</FormLabel>
              <RadioGroup
                aria-labelledby={modeLabelId}
                value={draft.mode}
                onChange={(event) => {
                  const mode = PAYOUT_MODES.find((m) => m === event.target.value) ?? 'two-step';
                  markChanged('mode');
                  setDraft((current) => ({ ...current, mode }));
                }}
              >
                {PAYOUT_MODES.map((mode) => (
                  <FormControlLabel
                    key={mode}
                    value={mode}
                    control={<Radio />}
                    sx={{ alignItems: 'flex-start', mb: 0.5, '& .MuiRadio-root': { mt: -0.75 } }}
                    label={
                      <>
                        {modeTexts[mode].label}
                        <Typography
                          variant="body2"
                          component="span"
                          color="text.secondary"
                          sx={{ display: 'block' }}
                        >
                          {modeTexts[mode].help}
                        </Typography>
                      </>
                    }
                  />
                ))}
              </RadioGroup>
              {messageFor('mode') !== undefined ? (
                <FormHelperText>{messageFor('mode')}</FormHelperText>
              ) : null}
            </FormControl>
            <TextField
              select
              label="Destination"
              value={draft.kind}
              onChange={(event) => {
                const kind = event.target.value as PayoutDestinationKind;
                markChanged('destination');
                setDraft((current) => ({ ...current, kind, destination: {} }));
              }}
              disabled={locked}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              {(Object.keys(DESTINATION_FIELDS) as PayoutDestinationKind[]).map((kind) => (
                <option key={kind} value={kind}>
                  {DESTINATION_KIND_LABELS[kind]}
                </option>
              ))}
            </TextField>
            <Box
              sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}
            >
              {DESTINATION_FIELDS[draft.kind].map((field) => {
                const message = messageFor(`destination.${field.name}`);
                return (
                  <TextField
                    key={`${draft.kind}-${field.name}`}
                    label={field.label}
                    value={draft.destination[field.name] ?? ''}
                    onChange={(event) => {
                      const value = event.target.value;
                      markChanged(`destination.${field.name}`);
                      setDraft((current) => ({
                        ...current,
                        destination: { ...current.destination, [field.name]: value },
                      }));
                    }}
                    required
                    autoComplete="off"
                    disabled={locked}
                    error={message !== undefined}
                    helperText={message ?? field.hint}
                    slotProps={{
                      htmlInput: { inputMode: field.inputMode ?? 'text', spellCheck: false },
                    }}
                  />
                );
              })}
              <TextField
                label="Amount"
                value={draft.amount}
                onChange={set('amount')}
                required
                disabled={locked}
                error={messageFor('amount') !== undefined}
                helperText={messageFor('amount') ?? `e.g. ${localAmountExample('250.00')}`}
                slotProps={{ htmlInput: { inputMode: 'decimal' } }}
              />
              <TextField
                label="Currency"
                value={draft.currency}
                onChange={set('currency')}
                required
                disabled={locked}
                error={messageFor('currency') !== undefined}
                helperText={messageFor('currency') ?? 'ISO code, e.g. EUR'}
              />
              <LargeAmountConfirmField large={large} disabled={locked} />
            </Box>
            <TextField
              label="Description"
              value={draft.orderDesc}
              onChange={set('orderDesc')}
              required
              disabled={locked}
              error={messageFor('orderDesc') !== undefined}
              helperText={
                messageFor('orderDesc') ?? 'What the payout is for; the approver sees it.'
              }
            />
            <TextField
              label="Endpoint (optional)"
              value={draft.endpointId}
              onChange={set('endpointId')}
              disabled={locked}
              error={messageFor('endpointId') !== undefined}
              helperText={
                messageFor('endpointId') ?? 'Leave empty for the default payout endpoint.'
              }
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            {outcomeUnknown
              ? 'Send again'
              : draft.mode === 'two-step'
                ? 'Check and submit for approval'
                : 'Submit for approval'}
          </Button>
        </DialogActions>
      </form>
    </FormDialog>
  );
}
