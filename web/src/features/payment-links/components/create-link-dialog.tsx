import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  PaymentLinkCreateBodySchema,
  type PaymentLinkCreateBody,
  type PaymentLinkKind,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm, useWatch, type FieldError } from 'react-hook-form';
import { z } from 'zod';
import {
  LargeAmountConfirmField,
  useLargeAmountConfirmation,
} from '../../../components/large-amount-confirm';
import { EndpointField, MoneyFields } from '../../../components/money-fields';
import { useAmountFormContext } from '../../../components/order-amount-limit';
import { FormDialog } from '../../../components/form-dialog';
import { describeError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../../../lib/idempotency';
import { withAmountRefusal, type AmountFormContext } from '../../../lib/amount-resolver';
import { readAmount } from '../../../lib/money';
import { useHoldTime } from '../../payouts/components/hold-time';
import { createLink, linkKeys } from '../api/payment-links';
import { KIND_LABELS } from './link-labels';
import { LinkResultDialog } from './link-result-dialog';

/**
 * `span`: how much of the two-column grid a field takes: the whole row, half of it (first and last
 * name sit side by side on every screen), or half from 600 px and the whole row on a phone.
 */
const CUSTOMER_FIELDS = [
  {
    name: 'email',
    label: 'E-mail',
    rule: 'An e-mail address of up to 50 characters.',
    span: 'row',
  },
  { name: 'firstName', label: 'First name (optional)', rule: 'Up to 50 characters.', span: 'half' },
  { name: 'lastName', label: 'Last name (optional)', rule: 'Up to 50 characters.', span: 'half' },
  {
    name: 'phone',
    label: 'Phone',
    rule: 'Enter the phone number, e.g. +44 7700 900123: 6 to 15 digits and a leading +; spaces, dashes and brackets are fine.',
    span: 'wide',
  },
  { name: 'address1', label: 'Address', rule: 'Required, up to 50 characters.', span: 'wide' },
  { name: 'city', label: 'City', rule: 'Required, up to 50 characters.', span: 'wide' },
  { name: 'zipCode', label: 'Postal code', rule: 'Required, up to 10 characters.', span: 'wide' },
  { name: 'country', label: 'Country', rule: 'A 2-letter ISO code, e.g. DE.', span: 'wide' },
] as const;
const SPAN = {
  row: { gridColumn: '1 / -1' },
  half: {},
  wide: { gridColumn: { xs: '1 / -1', sm: 'auto' } },
} as const;

/**
 * What each form does, said under the choice: which step of the gateway the customer's page takes
 * (spec: sale-form, preauth-form, payment-form, account-verification-form).
 */
const KIND_HELP: Record<Exclude<PaymentLinkKind, 'payout-form'>, string> = {
  'sale-form':
    'The customer enters the card on the gateway’s page and is charged at once (authorization and capture in one step).',
  'preauth-form':
    'The customer enters the card on the gateway’s page; the amount is only held. Capture it (or release it) later from the order.',
  'payment-form':
    'The gateway’s universal payment page, for when neither the sale form nor the preauthorization form fits; the customer pays the amount there.',
  'account-verification-form':
    'The customer enters the card on the gateway’s page; it is verified, not charged.',
};

type CustomerField = (typeof CUSTOMER_FIELDS)[number]['name'];

const SERVER_FIELDS = [
  'kind',
  'amount',
  'currency',
  'endpointId',
  'orderDesc',
  'redirectUrl',
  ...CUSTOMER_FIELDS.map((f) => `customer.${f.name}` as const),
] as const;

const optional = (text: string) => (text.trim() === '' ? undefined : text);
const defined = (record: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));

// The form holds text for every kind; what a kind does not take is left out before the shared
// schema's rules (amount for all but account verification, customer for all but payout-form).
// What a kind requires stays in even when empty, so that its field's own rule refuses it in the
// same pass as every other field: the shared schema's per-kind "is required" rule runs only once
// all fields pass, which would reveal the errors in two waves.
const LinkFormSchema = z
  .object({
    kind: z.string(),
    amount: z.string(),
    currency: z.string(),
    endpointId: z.string(),
    orderDesc: z.string(),
    redirectUrl: z.string(),
    customer: z.record(z.enum(CUSTOMER_FIELDS.map((f) => f.name)), z.string()),
  })
  .transform((v, ctx) => {
    const withAmount = v.kind !== 'account-verification-form';
    // Typed in the user's locale ('49,90'); a hidden amount (no amount for this kind) is not read.
    // Thousands separators and a size above the largest amount are refused by name (readAmount);
    // the form's resolver says so together with the other fields' errors.
    const amount = withAmount ? readAmount(v.amount) : undefined;
    if (amount?.refusal !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: amount.refusal });
      return z.NEVER;
    }
    const withCustomer = v.kind !== 'payout-form';
    const needsPhone = withCustomer && v.kind !== 'account-verification-form';
    return {
      kind: v.kind,
      orderDesc: v.orderDesc,
      ...defined({
        amount: amount?.amount,
        currency: withAmount ? v.currency : undefined,
        endpointId: optional(v.endpointId),
        redirectUrl: optional(v.redirectUrl),
      }),
      ...(withCustomer
        ? {
            customer: defined(
              Object.fromEntries(
                Object.entries(v.customer).map(([k, t]) => [
                  k,
                  k === 'phone' && needsPhone ? t : optional(t),
                ]),
              ),
            ),
          }
        : {}),
    };
  })
  .pipe(PaymentLinkCreateBodySchema);
type LinkInput = z.input<typeof LinkFormSchema>;

/** The shared rules, with a refused amount said together with the other fields' errors. */
const resolver = withAmountRefusal(
  zodResolver(LinkFormSchema),
  (values) => values.kind !== 'account-verification-form',
);

/**
 * A hosted form link: finance creates card forms (sent at once), ops a payout-form (held until a
 * second ops user approves it). The Idempotency-Key is created when the dialog opens.
 */
export default function CreateLinkDialog({
  kinds,
  onClose,
  onCreated,
}: {
  /** the kinds the user's roles may create, the first one preselected */
  kinds: readonly PaymentLinkKind[];
  onClose: () => void;
  /** once the link is created (its answer still showing in the dialog) */
  onCreated?: () => void;
}) {
  const titleId = useId();
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  // How long a held payout-form waits for approval (the BFF's PAYOUT_HOLD_MAX_AGE_MS).
  const holdTime = useHoldTime();
  // Above its currency's per-order limit the amount is refused at its field, before sending.
  const amountContext = useAmountFormContext();
  const { register, handleSubmit, formState, setError, control } = useForm<
    LinkInput,
    AmountFormContext,
    PaymentLinkCreateBody
  >({
    resolver,
    context: amountContext,
    defaultValues: {
      kind: kinds[0] ?? 'sale-form',
      amount: '',
      currency: 'EUR',
      endpointId: '',
      orderDesc: '',
      redirectUrl: '',
      customer: Object.fromEntries(CUSTOMER_FIELDS.map((f) => [f.name, ''])),
    },
  });
  const kind = useWatch({ control, name: 'kind' });
  // Above its currency's threshold the amount is typed twice (the BFF refuses it otherwise); a
  // kind without an amount asks nothing.
  const typedAmount = useWatch({ control, name: 'amount' });
  const currency = useWatch({ control, name: 'currency' });
  const large = useLargeAmountConfirmation(
    kind === 'account-verification-form' ? '' : typedAmount,
    currency,
  );
  const [besideFields, setBesideFields] = useState(false);
  const mutation = useMutation({
    mutationFn: (body: PaymentLinkCreateBody) => createLink(body, keeper.keyFor(body)),
    // The answer shows in the dialog (LinkResultDialog), with the page address it speaks of.
    onSuccess: async () => {
      onCreated?.();
      await client.invalidateQueries({ queryKey: linkKeys.all });
    },
    // A refusal is said once: beside the fields it names, else in the dialog's alert.
    onError: (error) => {
      const besideAmount = large.refused(error);
      setBesideFields(applyServerFieldErrors(error, setError, SERVER_FIELDS) || besideAmount);
    },
  });
  const [sent, setSent] = useState<PaymentLinkCreateBody | null>(null);
  const errors = formState.errors;
  const customerError = (name: CustomerField): FieldError | undefined => {
    return errors.customer?.[name];
  };
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  const locked = outcomeUnknown || mutation.isPending;

  if (mutation.isSuccess) return <LinkResultDialog result={mutation.data} onClose={onClose} />;

  const withAmount = kind !== 'account-verification-form';
  const withCustomer = kind !== 'payout-form';
  const needsPhone = withCustomer && kind !== 'account-verification-form';
  return (
    <FormDialog
      open
      dirty={formState.isDirty}
      busy={mutation.isPending}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form
        noValidate
        aria-labelledby={titleId}
        onSubmit={(event) => {
          // After a lost reply only the very same request may go again (same body, same key).
          if (outcomeUnknown && sent !== null) {
            event.preventDefault();
            mutation.mutate(sent);
            return;
          }
          void large.guard(handleSubmit)((body) => {
            setSent(body);
            mutation.mutate(body);
          })(event);
        }}
      >
        <DialogTitle id={titleId}>New payment link</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeError(mutation.error)} Sending again is safe: it is the same request, and
                Paydesk will not create the link twice.
              </Alert>
            ) : mutation.isError && !besideFields ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            <TextField
              select
              label="Form"
              disabled={locked}
              helperText={
                kind === 'payout-form'
                  ? `The payee enters where the money goes. A second ops user must approve it first; it lapses if not approved ${holdTime}.`
                  : KIND_HELP[kind as Exclude<PaymentLinkKind, 'payout-form'>]
              }
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
              {...register('kind')}
            >
              {kinds.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]}
                </option>
              ))}
            </TextField>
            {withAmount ? (
              <MoneyFields
                amount={register('amount')}
                currency={register('currency')}
                amountError={errors.amount}
                currencyError={errors.currency}
                example="49.90"
                disabled={locked}
              >
                <LargeAmountConfirmField large={large} disabled={locked} />
              </MoneyFields>
            ) : null}
            <TextField
              label="Description"
              required
              disabled={locked}
              error={errors.orderDesc !== undefined}
              helperText={fieldHelp(
                errors.orderDesc,
                'Say what the link is for (up to 1024 characters).',
                'Shown on the gateway’s page.',
              )}
              {...register('orderDesc')}
            />
            {withCustomer ? (
              <>
                <Typography variant="subtitle2" component="h3">
                  Customer
                </Typography>
                <Box
                  sx={{
                    display: 'grid',
                    gap: 2,
                    gridTemplateColumns: '1fr 1fr',
                  }}
                >
                  {CUSTOMER_FIELDS.filter((f) => f.name !== 'phone' || needsPhone).map((f) => {
                    const error = customerError(f.name);
                    return (
                      <TextField
                        key={f.name}
                        sx={SPAN[f.span]}
                        label={f.label}
                        required={!f.label.endsWith('(optional)')}
                        autoComplete="off"
                        disabled={locked}
                        error={error !== undefined}
                        helperText={fieldHelp(error, f.rule)}
                        {...register(`customer.${f.name}`)}
                      />
                    );
                  })}
                </Box>
              </>
            ) : null}
            <TextField
              label="Return address (optional)"
              disabled={locked}
              error={errors.redirectUrl !== undefined}
              helperText={fieldHelp(
                errors.redirectUrl,
                'An https address (plain http only for localhost).',
                `Where the gateway sends the ${kind === 'payout-form' ? 'payee' : 'customer'} afterwards.`,
              )}
              slotProps={{ htmlInput: { inputMode: 'url', spellCheck: false } }}
              {...register('redirectUrl')}
            />
            <EndpointField
              field={register('endpointId')}
              error={errors.endpointId}
              disabled={locked}
              // The endpoints that do not take the link's currency are marked; a kind without an
              // amount has no currency to take.
              currency={withAmount ? currency : undefined}
              noCurrency={!withAmount}
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
              : kind === 'payout-form'
                ? 'Submit for approval'
                : 'Create link'}
          </Button>
        </DialogActions>
      </form>
    </FormDialog>
  );
}
