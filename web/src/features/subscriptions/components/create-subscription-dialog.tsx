import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import { useTheme } from '@mui/material/styles';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import {
  latestSubscriptionStart,
  SUBSCRIPTION_PERIODS,
  SubscriptionCreateBodySchema,
  type SubscriptionCreateBody,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm, useWatch, type Resolver } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import {
  LargeAmountConfirmField,
  LargeAmountNote,
  useLargeAmountConfirmation,
} from '../../../components/large-amount-confirm';
import { EndpointField, MoneyFields } from '../../../components/money-fields';
import { useAmountFormContext } from '../../../components/order-amount-limit';
import { useNotify } from '../../../components/notifier';
import { SpokenMoney } from '../../../components/spoken-money';
import { isApiError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { useIdempotencyKeeper } from '../../../lib/idempotency';
import { withAmountRefusal, type AmountFormContext } from '../../../lib/amount-resolver';
import { AmountInputSchema, fromMinor, toMinor } from '../../../lib/money';
import { useConfirmStep } from '../../transactions/components/confirm-step';
import { ConfirmQuestion, FollowUpFrame } from '../../transactions/components/follow-up-frame';
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
} from '../../cards/components/card-ref-endpoint';
import { UnseenRefNote } from '../../cards/components/unseen-ref-note';
import { createSubscription, subscriptionKeys } from '../api/subscriptions';
import { CREATED_STATE } from './created-state';
import { createdText, dayText, PERIOD_LABELS, periodText } from './subscription-labels';

const FIELDS = [
  'cardRefId',
  'amount',
  'currency',
  'period',
  'interval',
  'startDate',
  'maxPayments',
  'orderDesc',
  'email',
  'endpointId',
] as const;

const whole = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN);
const optional = (text: string) => (text.trim() === '' ? undefined : text);

// The form holds text; numbers and optional fields become what the shared schema expects.
const SubscriptionFormSchema = z
  .object({
    cardRefId: z.string(),
    amount: AmountInputSchema,
    currency: z.string(),
    period: z.string(),
    interval: z.string(),
    startDate: z.string(),
    maxPayments: z.string(),
    orderDesc: z.string(),
    email: z.string(),
    endpointId: z.string(),
  })
  .transform((v) => {
    const maxPayments = optional(v.maxPayments);
    return Object.fromEntries<unknown>(
      Object.entries({
        ...v,
        interval: whole(v.interval),
        startDate: optional(v.startDate),
        maxPayments: maxPayments === undefined ? undefined : whole(maxPayments),
        endpointId: optional(v.endpointId),
      }).filter(([, value]) => value !== undefined),
    );
  })
  .pipe(SubscriptionCreateBodySchema)
  .transform((body) => ({ ...body, amount: fromMinor(toMinor(body.amount) ?? 0n) }));
type SubscriptionInput = z.input<typeof SubscriptionFormSchema>;

/** Today's date by the UTC calendar, the one the BFF and the gateway go by for `start_date`. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

/**
 * The start date's rule, as the BFF says it (`must be today (…, UTC) or later`, `must be at most a
 * year ahead`), with the days said as the rest of the UI says dates.
 */
const startDateRule = () =>
  `A real date, from today (${dayText(todayUtc())}, UTC) to a year ahead (${dayText(latestSubscriptionStart(todayUtc()))}).`;

/** The BFF's refusal of a start date out of its range, said with the UI's dates; null within it. */
function startDateRefusal(startDate: string): { type: string; message: string } | null {
  const today = todayUtc();
  const latest = latestSubscriptionStart(today);
  if (startDate < today)
    return { type: 'not_in_past', message: `must be today (${dayText(today)}, UTC) or later` };
  if (startDate > latest)
    return {
      type: 'too_far_ahead',
      message: `must be at most a year ahead (${dayText(latest)}, UTC, at the latest)`,
    };
  return null;
}

const formResolver = zodResolver(SubscriptionFormSchema);

/**
 * The shared rules, and the BFF's own rule that the start date is from today to a year ahead (by
 * the UTC calendar), in the same pass: a date out of that range is refused on the form, never
 * confirmed and then refused by the server.
 */
const datedResolver: Resolver<SubscriptionInput, unknown, SubscriptionCreateBody> = async (
  values,
  context,
  options,
) => {
  const result = await formResolver(values, context, options);
  const startDate = values.startDate.trim();
  const refusal = /^\d{4}-\d{2}-\d{2}$/.test(startDate) ? startDateRefusal(startDate) : null;
  if (refusal === null) return result;
  return { values: {}, errors: { ...result.errors, startDate: refusal } };
};

/**
 * What the form checks besides the shared rules: the per-order limits, and the card references
 * Paydesk knows with the configured endpoints, so that a plan on the wrong endpoint or in a
 * currency the reference's endpoint does not take is said at its field before the confirm step.
 */
type SubscriptionFormContext = AmountFormContext & CardRefFormContext;

/**
 * And a refused amount said together with the other fields' errors; then the card reference's
 * endpoint and currency, in the BFF's words for a subscription.
 */
const resolver = withCardRefRefusals(withAmountRefusal(datedResolver), 'set up the subscription');

/** The BFF refuses every create until the merchant RSA key is configured (v4 is RSA-signed). */
function isRsaKeyMissing(error: unknown): boolean {
  return (
    isApiError(error) &&
    error.code === 'INVALID_STATE' &&
    error.details?.setting === 'MERCHANT_RSA_KEY_FILE'
  );
}

function RsaKeyMissing({ message }: { message: string }) {
  return (
    <Alert severity="error">
      <AlertTitle>Subscriptions are not set up on this Paydesk</AlertTitle>
      {message} An administrator sets <code>MERCHANT_RSA_KEY_FILE</code> in the BFF’s configuration
      and restarts it.
    </Alert>
  );
}

function startText(body: SubscriptionCreateBody): string {
  return body.startDate === undefined || body.startDate <= todayUtc()
    ? 'starting today (the first charge is made at once)'
    : `starting ${dayText(body.startDate)}`;
}

/**
 * A subscription (v4 create-recurring-payment) on a stored card reference. The Idempotency-Key is
 * created when the dialog opens; the gateway has no cancel, so the confirmation says it all.
 */
export default function CreateSubscriptionDialog({
  cardRefId,
  onClose,
}: {
  cardRefId: string;
  onClose: () => void;
}) {
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const notify = useNotify();
  const navigate = useNavigate();
  const step = useConfirmStep<SubscriptionCreateBody>();
  // The Cards screen's list and the configured endpoints: the endpoint and currency of a reference.
  const { cardRefs, endpoints } = useCardRefFormContext();
  // Above its currency's per-order limit the amount is refused at its field, before sending.
  const context: SubscriptionFormContext = { ...useAmountFormContext(), cardRefs, endpoints };
  const { register, handleSubmit, formState, setError, control, resetField } = useForm<
    SubscriptionInput,
    SubscriptionFormContext,
    SubscriptionCreateBody
  >({
    resolver,
    context,
    defaultValues: {
      cardRefId,
      amount: '',
      currency: knownRef(cardRefs, cardRefId)?.currency ?? 'EUR',
      period: 'month',
      interval: '1',
      startDate: '',
      maxPayments: '',
      orderDesc: '',
      email: '',
      endpointId: '',
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
    mutationFn: (body: SubscriptionCreateBody) => createSubscription(body, keeper.keyFor(body)),
    onSuccess: async (result) => {
      // Said from the plan returned, in the user's locale (the server's message is English).
      notify(
        createdText(result.subscription),
        result.subscription.state === 'active' ? 'success' : 'info',
      );
      await client.invalidateQueries({ queryKey: subscriptionKeys.all });
      onClose();
      // The keyboard goes on from the new plan's heading, not from the page's body.
      await navigate(`/subscriptions/${encodeURIComponent(result.subscription.id)}`, {
        state: CREATED_STATE,
      });
    },
    // A failure is said once, in the dialog: beside the fields it names, else in its alert.
    onError: (error) => {
      const besideAmount = large.refused(error);
      if (applyServerFieldErrors(error, setError, FIELDS) || besideAmount) step.edit();
    },
  });
  const theme = useTheme();
  // noSsr: the first render already has the screen's columns (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const rsaMissing = mutation.isError && isRsaKeyMissing(mutation.error);
  const errors = formState.errors;

  if (step.confirming !== null) {
    const body = step.confirming;
    return (
      <FollowUpFrame
        {...step.confirmFrame(mutation, body)}
        title="Confirm the subscription"
        what="creating the subscription"
        currency={body.currency}
        error={rsaMissing ? null : mutation.error}
        submitLabel={`Create: ${formatMoney(body.amount, body.currency)} ${periodText(body.period, body.interval)}`}
        dirty
        onClose={onClose}
      >
        {rsaMissing && isApiError(mutation.error) ? (
          <RsaKeyMissing message={mutation.error.message} />
        ) : null}
        <ConfirmQuestion>
          Charge <SpokenMoney amount={body.amount} currency={body.currency} />{' '}
          {periodText(body.period, body.interval)} to the card of reference {body.cardRefId},{' '}
          {startText(body)}
          {body.maxPayments === undefined
            ? ', until further notice'
            : `, ${body.maxPayments} ${body.maxPayments === 1 ? 'charge' : 'charges'} at most`}
          ?
        </ConfirmQuestion>
        <Typography color="text.secondary">
          “{body.orderDesc}”
          {chargeTargetText(body.endpointId, knownRef(cardRefs, body.cardRefId), endpoints)} ·
          receipts to {body.email}. The gateway cannot cancel or change a plan once it exists.
        </Typography>
        <UnseenRefNote text={unseenRefText(cardRefs, body.cardRefId)} />
        <LargeAmountNote large={large} confirmed={body.confirmLargeAmount} />
      </FollowUpFrame>
    );
  }

  return (
    <FollowUpFrame
      {...step.formFrame(mutation, large.guard(handleSubmit))}
      title="New subscription"
      what="creating the subscription"
      currency={currency}
      dirty={formState.isDirty}
      onClose={onClose}
    >
      {/* The keyboard starts in the first field to fill: the reference, unless it came given. */}
      <TextField
        label="Card reference id"
        required
        autoFocus={cardRefId === ''}
        autoComplete="off"
        error={errors.cardRefId !== undefined}
        helperText={fieldHelp(
          errors.cardRefId,
          'Enter the card reference id (no spaces).',
          ref === undefined
            ? (unseenRefText(cardRefs, cardRefIdTyped) ??
                'Created on an approved order’s detail (Create card reference).')
            : madeOnText(ref),
        )}
        slotProps={{ htmlInput: { spellCheck: false } }}
        {...register('cardRefId')}
      />
      <MoneyFields
        amount={register('amount')}
        currency={register('currency', { onChange: currencyChosen })}
        amountError={errors.amount}
        currencyError={errors.currency}
        amountLabel="Amount per charge"
        example="9.99"
        autoFocus={cardRefId !== ''}
      >
        <LargeAmountConfirmField large={large} />
        <TextField
          label="Every"
          required
          error={errors.interval !== undefined}
          helperText={fieldHelp(errors.interval, 'A whole number from 1 to 365.', 'e.g. 1')}
          slotProps={{ htmlInput: { inputMode: 'numeric' } }}
          {...register('interval')}
        />
        <TextField
          select
          label="Period"
          required
          error={errors.period !== undefined}
          helperText={fieldHelp(errors.period, 'Choose days, weeks or months.')}
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          {...register('period')}
        >
          {SUBSCRIPTION_PERIODS.map((period) => (
            <option key={period} value={period}>
              {PERIOD_LABELS[period]}
            </option>
          ))}
        </TextField>
        {/*
          When the plan starts and ends, in halves of a row of their own (one above the other on a
          phone): in the money grid's narrow third, "Charges at most (optional)" was cut off.
        */}
        <Box
          role="group"
          aria-label="Start and end"
          sx={{
            gridColumn: '1 / -1',
            display: 'grid',
            gap: 2,
            gridTemplateColumns: phone ? '1fr' : '1fr 1fr',
          }}
        >
          <TextField
            label="Start date (optional)"
            type="date"
            error={errors.startDate !== undefined}
            helperText={fieldHelp(
              errors.startDate,
              startDateRule(),
              'Empty: today, charged at once.',
            )}
            slotProps={{ inputLabel: { shrink: true } }}
            {...register('startDate')}
          />
          {/* A short label (it shows whole while the field is empty); optional said beneath. */}
          <TextField
            label="Charges at most"
            error={errors.maxPayments !== undefined}
            helperText={fieldHelp(
              errors.maxPayments,
              'A whole number from 1 to 10000.',
              'Optional. Empty: no end.',
            )}
            slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            {...register('maxPayments')}
          />
        </Box>
      </MoneyFields>
      <TextField
        label="Description"
        required
        error={errors.orderDesc !== undefined}
        helperText={fieldHelp(
          errors.orderDesc,
          'Say what the plan is for (up to 1024 characters).',
          'e.g. Monthly membership',
        )}
        {...register('orderDesc')}
      />
      <TextField
        label="Customer e-mail"
        type="email"
        required
        autoComplete="off"
        error={errors.email !== undefined}
        helperText={fieldHelp(errors.email, 'Enter a valid e-mail address.')}
        {...register('email')}
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
