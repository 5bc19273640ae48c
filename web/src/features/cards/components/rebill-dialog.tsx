import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  LARGE_AMOUNT_FIELD,
  RebillBodySchema,
  type Operation,
  type OperationResult,
  type OperationState,
  type RebillBody,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import { z } from 'zod';
import {
  LargeAmountConfirmField,
  LargeAmountNote,
  useLargeAmountConfirmation,
} from '../../../components/large-amount-confirm';
import { EndpointField, MoneyFields } from '../../../components/money-fields';
import { useAmountFormContext } from '../../../components/order-amount-limit';
import { SpokenMoney } from '../../../components/spoken-money';
import { formatMoney } from '../../../lib/format';
import { errorText } from '../../../lib/gateway-error';
import { knownOrderId, orderNumberText } from '../../../lib/order-number';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { useIdempotencyKeeper } from '../../../lib/idempotency';
import { withAmountRefusal, type AmountFormContext } from '../../../lib/amount-resolver';
import { AmountInputSchema, fromMinor, toMinor } from '../../../lib/money';
import { gatewayAnswerOf } from '../../transactions/api/gateway-answer';
import { describeOperationResult } from '../../transactions/api/operation-message';
import { useTransactionEvents } from '../../transactions/api/live-events';
import {
  transactionDetailQueryOptions,
  transactionKeys,
} from '../../transactions/api/transactions';
import { useConfirmStep } from '../../transactions/components/confirm-step';
import { LiveIndicator } from '../../transactions/components/live-indicator';
import {
  ConfirmQuestion,
  FollowUpFrame,
  serverFieldsNamed,
} from '../../transactions/components/follow-up-frame';
import { cardKeys, sendRebill } from '../api/cards';
import { UnseenRefNote } from './unseen-ref-note';
import {
  chargeTargetText,
  knownRef,
  madeOnText,
  refEndpointChoice,
  unseenRefText,
  useCardRefFormContext,
  useCurrencyFollowingRef,
  withCardRefRefusals,
  type CardRefFormContext,
} from './card-ref-endpoint';

const FIELDS = ['cardRefId', 'amount', 'currency', 'endpointId', 'orderDesc', 'reason'] as const;
/** The most a reason may hold: the rule of every reason for a money step (card info, …). */
const REASON_MAX = RebillBodySchema.shape.reason.maxLength ?? 255;

// Every field is text in the form; an empty endpoint means "the default for the currency".
const RebillFormSchema = z
  .object({
    cardRefId: z.string(),
    amount: AmountInputSchema,
    currency: z.string(),
    endpointId: z.string(),
    orderDesc: z.string(),
    reason: z.string(),
  })
  .transform(({ endpointId, ...rest }) =>
    endpointId.trim() === '' ? rest : { ...rest, endpointId },
  )
  .pipe(RebillBodySchema)
  // Sent and confirmed in the usual two-decimal form: '12.5' → '12.50'.
  .transform((body) => ({ ...body, amount: fromMinor(toMinor(body.amount) ?? 0n) }));
type RebillInput = z.input<typeof RebillFormSchema>;

/**
 * What the rebill form checks besides the shared rules: the per-order limits, and the card
 * references Paydesk knows (the Cards list) with the configured endpoints (the session's
 * settings), so that a reference charged on the wrong endpoint or in the wrong currency is said
 * at its field before the confirm step.
 */
type RebillFormContext = AmountFormContext & CardRefFormContext;

/**
 * The shared rules, with a refused amount said together with the other fields' errors; then the
 * card reference's endpoint and currency.
 */
const rebillResolver = withCardRefRefusals(
  withAmountRefusal(zodResolver(RebillFormSchema)),
  'rebill it',
);

/** The rebill's states before the gateway's final word: the dialog follows the order meanwhile. */
const AWAITING: ReadonlySet<OperationState> = new Set(['sending', 'processing', 'unknown']);

/** How often the order is asked for while its outcome is awaited, besides its live events. */
const FOLLOW_MS = 4_000;

interface RebillOutcome {
  title: string;
  severity: 'success' | 'info' | 'warning' | 'error';
  /** the alert's heading, for what must not be missed */
  heading: string | null;
  text: string;
}

/**
 * What the result dialog says of the rebill `operation` on its new order. An outcome not known yet
 * is a warning (the card may or may not have been charged), never an error: a user who read it as
 * a failure and rebilled again could charge the card twice.
 */
function rebillOutcome(operation: Operation, order: TransactionDetail): RebillOutcome {
  const amount =
    operation.amount === null ? '' : ` of ${formatMoney(operation.amount, order.currency)}`;
  const said = describeOperationResult({ operation, transaction: order, message: '' });
  // What went wrong, in words: the gateway's error answer with its HTTP status, code and message
  // (the operation's `unanswered`), no answer in time, or what was recorded, without a network
  // library's code ("… (UND_ERR_SOCKET)"): staff read it.
  const answer = gatewayAnswerOf(operation);
  const gateway =
    answer.kind === 'error'
      ? `the gateway answered with an error${answer.words === '' ? '' : `: ${answer.words}`}`
      : answer.kind === 'timeout'
        ? `no answer within ${String(answer.seconds)} s`
        : errorText(
            operation.errorCode,
            operation.errorMessage?.replace(/\s*\([A-Z][A-Z0-9]*_[A-Z0-9_]+\)\s*$/, '') ?? null,
          );
  const gatewayWords = gateway === '' ? '' : ` (${gateway})`;
  switch (operation.state) {
    case 'approved':
      return {
        title: 'Rebill approved',
        severity: 'success',
        heading: null,
        text: `${said} The card was charged.`,
      };
    case 'sending':
    case 'processing':
      return {
        title: 'Rebill sent',
        severity: 'info',
        heading: 'Awaiting the gateway’s final status',
        text: `The gateway accepted the rebill${amount}; its final status follows. Do not rebill again: this dialog shows the result as soon as it comes.`,
      };
    case 'unknown':
      return {
        title: 'Rebill sent: outcome not known yet',
        severity: 'warning',
        heading: 'Outcome not known yet — do not rebill again',
        text: `Paydesk cannot tell yet whether the gateway made the rebill${amount} and charged the card${gatewayWords}. Paydesk is asking the gateway for the order’s status and will never send the rebill again; this dialog shows the result as soon as it is known.`,
      };
    case 'declined':
      return {
        title: 'Rebill declined',
        severity: 'error',
        heading: null,
        text: `${said} The card was not charged.`,
      };
    case 'filtered':
      return {
        title: 'Rebill stopped',
        severity: 'error',
        heading: null,
        text: `${said} The card was not charged.`,
      };
    case 'error':
      return { title: 'Rebill failed', severity: 'error', heading: null, text: said };
    case 'refused':
      return { title: 'Rebill refused', severity: 'error', heading: null, text: said };
    case 'not_applied':
      return {
        title: 'Not charged',
        severity: 'error',
        heading: null,
        text: `The gateway has no order for the rebill${amount}: it was never created, and the card was not charged. Rebill again if the charge is still due.`,
      };
    case 'not_sent':
      return {
        title: 'Not charged',
        severity: 'error',
        heading: null,
        text: `The rebill${amount} was never sent to the gateway: the card was not charged. Rebill again if the charge is still due.`,
      };
  }
}

/**
 * The rebill's result. While its outcome is awaited (processing, or its reply lost) the dialog
 * follows the new order, by its live events and by asking for it every few seconds, and turns into
 * the final result when it comes. The gateway's order number is shown once known, never the BFF's
 * `pending:` placeholder.
 */
function RebillDone({ result, onClose }: { result: OperationResult; onClose: () => void }) {
  const titleId = useId();
  const live = useTransactionEvents();
  const { data } = useQuery({
    ...transactionDetailQueryOptions(result.transaction.id),
    refetchInterval: (query) => {
      const order = query.state.data ?? result.transaction;
      const operation = order.operations.find((o) => o.id === result.operation.id);
      return AWAITING.has((operation ?? result.operation).state) ? FOLLOW_MS : false;
    },
  });
  const order = data ?? result.transaction;
  const operation = order.operations.find((o) => o.id === result.operation.id) ?? result.operation;
  const awaiting = AWAITING.has(operation.state);
  const outcome = rebillOutcome(operation, order);
  const number = knownOrderId(order.orderid);
  const money = formatMoney(order.amount, order.currency);
  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>{outcome.title}</DialogTitle>
      <DialogContent>
        <Alert severity={outcome.severity}>
          {outcome.heading === null ? null : <AlertTitle>{outcome.heading}</AlertTitle>}
          {outcome.text}
        </Alert>
        <Typography sx={{ mt: 2 }}>
          {number !== null
            ? `New order ${number} for ${money}.`
            : operation.state === 'not_applied' || operation.state === 'not_sent'
              ? `No order was created for ${money} (client order ${order.clientOrderId}).`
              : `New order for ${money}: ${orderNumberText(order)}.`}
        </Typography>
        {awaiting ? (
          <Stack direction="row" spacing={1} sx={{ mt: 2, alignItems: 'center' }}>
            <LiveIndicator state={live} />
            <Typography variant="body2" color="text.secondary">
              Following the order: the result shows here when the gateway’s answer is known.
            </Typography>
          </Stack>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button
          variant="contained"
          component={RouterLink}
          to={`/transactions/${encodeURIComponent(order.id)}`}
        >
          {number === null ? 'Open the order' : `Open order ${number}`}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * Rebill (make-rebill) of a stored card: a new order under a new client_orderid. The dialog's
 * Idempotency-Key is created when it opens, so a double click or a retry never charges twice.
 */
export default function RebillDialog({
  cardRefId,
  onClose,
}: {
  cardRefId: string;
  onClose: () => void;
}) {
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const step = useConfirmStep<RebillBody>();
  // The Cards screen's list and the configured endpoints: the endpoint and currency of a reference.
  const { cardRefs, endpoints } = useCardRefFormContext();
  // Above its currency's per-order limit the amount is refused at its field, before sending.
  const context: RebillFormContext = { ...useAmountFormContext(), cardRefs, endpoints };
  const { register, handleSubmit, formState, setError, control, resetField } = useForm<
    RebillInput,
    RebillFormContext,
    RebillBody
  >({
    resolver: rebillResolver,
    context,
    defaultValues: {
      cardRefId,
      amount: '',
      currency: knownRef(cardRefs, cardRefId)?.currency ?? 'EUR',
      endpointId: '',
      orderDesc: '',
      reason: '',
    },
  });
  const currency = useWatch({ control, name: 'currency' });
  const cardRefIdTyped = useWatch({ control, name: 'cardRefId' });
  const ref = knownRef(cardRefs, cardRefIdTyped);
  // The currency follows a known reference until the user types one.
  const currencyChosen = useCurrencyFollowingRef(ref, resetField);
  // Above its currency's threshold the amount is typed twice (the BFF refuses it otherwise).
  const large = useLargeAmountConfirmation(useWatch({ control, name: 'amount' }), currency);
  const mutation = useMutation({
    mutationFn: (body: RebillBody) => sendRebill(body, keeper.keyFor(body)),
    // The answer shows in the dialog (RebillDone), not also in a snackbar over it; the dialog then
    // follows the new order, starting from the reply's.
    onSuccess: async (result) => {
      client.setQueryData(transactionKeys.detail(result.transaction.id), result.transaction);
      await Promise.all([
        client.invalidateQueries({ queryKey: transactionKeys.all }),
        client.invalidateQueries({ queryKey: cardKeys.all }),
      ]);
    },
    // A failure is said once, in the dialog: beside the fields it names, else in its alert.
    onError: (error) => {
      const besideAmount = large.refused(error);
      if (applyServerFieldErrors(error, setError, FIELDS) || besideAmount) step.edit();
    },
  });
  const errors = formState.errors;
  // A refusal that names only fields of the form is said under them (and goes once the field is
  // edited), not again in the alert.
  const refused = serverFieldsNamed(mutation.error, [...FIELDS, LARGE_AMOUNT_FIELD]);

  if (mutation.isSuccess) return <RebillDone result={mutation.data} onClose={onClose} />;

  const confirming = step.confirming;
  if (confirming !== null) {
    // Where the rebill goes, when known: the endpoint chosen, or the reference's own.
    const target = chargeTargetText(
      confirming.endpointId,
      knownRef(cardRefs, confirming.cardRefId),
      endpoints,
    );
    return (
      <FollowUpFrame
        {...step.confirmFrame(mutation, confirming)}
        title="Confirm the rebill"
        what="the rebill"
        currency={confirming.currency}
        submitLabel={`Charge ${formatMoney(confirming.amount, confirming.currency)}`}
        destructive
        dirty
        onClose={onClose}
      >
        <ConfirmQuestion>
          Charge <SpokenMoney amount={confirming.amount} currency={confirming.currency} /> to the
          card of reference {confirming.cardRefId}?
        </ConfirmQuestion>
        <Typography color="text.secondary">
          A new order “{confirming.orderDesc}”{target} · reason: “{confirming.reason}”. The
          customer’s card is charged at once.
        </Typography>
        <UnseenRefNote text={unseenRefText(cardRefs, confirming.cardRefId)} />
        <LargeAmountNote large={large} confirmed={confirming.confirmLargeAmount} />
      </FollowUpFrame>
    );
  }

  return (
    <FollowUpFrame
      {...step.formFrame(mutation, large.guard(handleSubmit))}
      title="Rebill a stored card"
      what="the rebill"
      currency={currency}
      error={refused.named.length > 0 && !refused.elsewhere ? null : mutation.error}
      dirty={formState.isDirty}
      onClose={onClose}
    >
      <TextField
        label="Card reference id"
        required
        autoComplete="off"
        error={errors.cardRefId !== undefined}
        helperText={fieldHelp(
          errors.cardRefId,
          'Enter the card reference id (no spaces).',
          ref === undefined ? unseenRefText(cardRefs, cardRefIdTyped) : madeOnText(ref),
        )}
        slotProps={{ htmlInput: { spellCheck: false } }}
        {...register('cardRefId')}
      />
      <MoneyFields
        amount={register('amount')}
        currency={register('currency', { onChange: currencyChosen })}
        amountError={errors.amount}
        currencyError={errors.currency}
        example="12.50"
        autoFocus
      >
        <LargeAmountConfirmField large={large} />
      </MoneyFields>
      <TextField
        label="Description"
        required
        error={errors.orderDesc !== undefined}
        helperText={fieldHelp(
          errors.orderDesc,
          'Say what the charge is for (up to 1024 characters).',
          'The order description the customer’s statement may show.',
        )}
        {...register('orderDesc')}
      />
      <TextField
        label="Reason"
        required
        multiline
        minRows={2}
        error={errors.reason !== undefined}
        helperText={fieldHelp(
          errors.reason,
          `Say why the card is charged again (3 to ${String(REASON_MAX)} characters).`,
          `3 to ${String(REASON_MAX)} characters, kept in the audit log.`,
        )}
        {...register('reason')}
      />
      {/*
        Whether the currency is refused depends on the endpoint: once the form has been checked,
        another endpoint checks the currency again (its refusal does not stay until it is edited).
      */}
      <EndpointField
        field={register('endpointId', { deps: 'currency' })}
        error={errors.endpointId}
        currency={currency}
        defaultChoice={refEndpointChoice(ref)}
      />
    </FollowUpFrame>
  );
}
