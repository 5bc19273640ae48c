import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  LARGE_AMOUNT_FIELD,
  RebillBodySchema,
  type OperationResult,
  type RebillBody,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
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
import { formatMoney } from '../../../lib/format';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { useIdempotencyKeeper } from '../../../lib/idempotency';
import { withAmountRefusal, type AmountFormContext } from '../../../lib/amount-resolver';
import { AmountInputSchema, formatMoneyInWords, fromMinor, toMinor } from '../../../lib/money';
import { describeOperationResult } from '../../transactions/api/operation-message';
import { transactionKeys } from '../../transactions/api/transactions';
import { useConfirmStep } from '../../transactions/components/confirm-step';
import {
  ConfirmQuestion,
  FollowUpFrame,
  serverFieldsNamed,
} from '../../transactions/components/follow-up-frame';
import { cardKeys, sendRebill } from '../api/cards';

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

/** The shared rules, with a refused amount said together with the other fields' errors. */
const rebillResolver = withAmountRefusal(zodResolver(RebillFormSchema));

function RebillDone({ result, onClose }: { result: OperationResult; onClose: () => void }) {
  const titleId = useId();
  const approved = result.operation.state === 'approved';
  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>Rebill sent</DialogTitle>
      <DialogContent>
        <Alert
          severity={
            approved ? 'success' : result.operation.state === 'processing' ? 'info' : 'error'
          }
        >
          {describeOperationResult(result)}
        </Alert>
        <Typography sx={{ mt: 2 }}>
          New order {result.transaction.orderid} for{' '}
          {formatMoney(result.transaction.amount, result.transaction.currency)}.
        </Typography>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button
          variant="contained"
          component={RouterLink}
          to={`/transactions/${encodeURIComponent(result.transaction.id)}`}
        >
          Open order {result.transaction.orderid}
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
  // Above its currency's per-order limit the amount is refused at its field, before sending.
  const amountContext = useAmountFormContext();
  const { register, handleSubmit, formState, setError, control } = useForm<
    RebillInput,
    AmountFormContext,
    RebillBody
  >({
    resolver: rebillResolver,
    context: amountContext,
    defaultValues: {
      cardRefId,
      amount: '',
      currency: 'EUR',
      endpointId: '',
      orderDesc: '',
      reason: '',
    },
  });
  // Above its currency's threshold the amount is typed twice (the BFF refuses it otherwise).
  const large = useLargeAmountConfirmation(
    useWatch({ control, name: 'amount' }),
    useWatch({ control, name: 'currency' }),
  );
  const mutation = useMutation({
    mutationFn: (body: RebillBody) => sendRebill(body, keeper.keyFor(body)),
    // The answer shows in the dialog (RebillDone), not also in a snackbar over it.
    onSuccess: async () => {
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
          Charge {formatMoneyInWords(confirming.amount, confirming.currency)} to the card of
          reference {confirming.cardRefId}?
        </ConfirmQuestion>
        <Typography color="text.secondary">
          A new order “{confirming.orderDesc}”
          {confirming.endpointId === undefined ? '' : ` on endpoint ${confirming.endpointId}`} ·
          reason: “{confirming.reason}”. The customer’s card is charged at once.
        </Typography>
        <LargeAmountNote large={large} confirmed={confirming.confirmLargeAmount} />
      </FollowUpFrame>
    );
  }

  return (
    <FollowUpFrame
      {...step.formFrame(mutation, large.guard(handleSubmit))}
      title="Rebill a stored card"
      what="the rebill"
      currency="EUR"
      error={refused.named.length > 0 && !refused.elsewhere ? null : mutation.error}
      dirty={formState.isDirty}
      onClose={onClose}
    >
      <TextField
        label="Card reference id"
        required
        autoComplete="off"
        error={errors.cardRefId !== undefined}
        helperText={fieldHelp(errors.cardRefId, 'Enter the card reference id (no spaces).')}
        slotProps={{ htmlInput: { spellCheck: false } }}
        {...register('cardRefId')}
      />
      <MoneyFields
        amount={register('amount')}
        currency={register('currency')}
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
      <EndpointField field={register('endpointId')} error={errors.endpointId} />
    </FollowUpFrame>
  );
}
