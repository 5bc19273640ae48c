import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { CardInfoBodySchema, RebillBodySchema, type CardInfo } from '@paydesk/shared/api';
import { useMutation } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { describeError, isApiError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { applyServerFieldErrors, sentenceOf } from '../../../lib/form-errors';
import { Facts, Panel } from '../../transactions/components/amounts-panel';
import { requestCardInfo } from '../api/cards';

const LookupSchema = z.object({
  cardRefId: RebillBodySchema.shape.cardRefId,
  reason: CardInfoBodySchema.shape.reason,
});
type LookupInput = z.input<typeof LookupSchema>;
type Lookup = z.output<typeof LookupSchema>;

function CardFacts({ info }: { info: CardInfo }) {
  const expiry =
    info.expiryMonth !== null && info.expiryYear !== null
      ? `${info.expiryMonth}/${info.expiryYear}`
      : '—';
  return (
    <Panel title="Card behind the reference">
      <Facts
        rows={[
          ['Card reference', <code key="r">{info.cardRefId}</code>],
          ['Card number', <code key="n">{info.maskedNumber}</code>],
          ['Brand', info.brand ?? '—'],
          ['BIN', info.bin ?? '—'],
          ['Expires', expiry],
        ]}
      />
    </Panel>
  );
}

/** The card behind a card reference: always with a reason, which the audit log keeps. */
export function CardInfoForm({
  initialRef,
  chosenAt,
  onRefChange,
}: {
  initialRef: string;
  /** changes whenever a reference is chosen (the address's navigation key) */
  chosenAt?: string;
  onRefChange: (cardRefId: string) => void;
}) {
  const titleId = useId();
  const { register, control, handleSubmit, formState, setError, getValues, setValue, setFocus } =
    useForm<LookupInput, unknown, Lookup>({
      resolver: zodResolver(LookupSchema),
      defaultValues: { cardRefId: initialRef, reason: '' },
    });
  const mutation = useMutation({
    mutationFn: ({ cardRefId, reason }: Lookup) => requestCardInfo(cardRefId, { reason }),
    onError: (error) => {
      // The BFF names the path parameter `params.cardRefId`.
      if (isApiError(error) && error.fieldErrors.some((f) => f.path === 'params.cardRefId')) {
        const field = error.fieldErrors.find((f) => f.path === 'params.cardRefId');
        setError('cardRefId', {
          type: 'server',
          message:
            field === undefined ? 'Check this field.' : sentenceOf('cardRefId', field.message),
        });
      }
      applyServerFieldErrors(error, setError, ['cardRefId', 'reason']);
    },
  });
  const { reset: resetLookup } = mutation;
  // Each look-up has its own audited reason: another reference (chosen in the list, a link, or
  // typed) empties the reason and takes away the card shown for the one before, so that a second
  // card is never shown under the first one's reason. `chosenAt` changes with every choice, also
  // of the reference already in the address after another one was typed.
  // Emptied rather than kept: the audit log keeps one reason per card looked up, and an auditor
  // reading "Customer A disputes a charge" beside customer B's card could not tell whether anyone
  // meant it for B. Carrying it over would let one ticket's reason cover any number of cards. The
  // cost is a second typing, so the field says why it is empty (`reasonCleared`) rather than only
  // "Say why…" on the next press: derived from the reference a reason was last typed for, so that
  // no state is set by the effect below.
  const [reasonTypedFor, setReasonTypedFor] = useState<string | null>(null);
  const [watchedRef, watchedReason] = useWatch({ control, name: ['cardRefId', 'reason'] });
  const reasonCleared =
    watchedReason === '' && reasonTypedFor !== null && reasonTypedFor !== watchedRef;
  const forgetLookup = useCallback(() => {
    setValue('reason', '');
    resetLookup();
  }, [setValue, resetLookup]);
  useEffect(() => {
    if (initialRef === getValues('cardRefId')) return;
    // The field is controlled, so its label moves up for the new value like for one typed in.
    setValue('cardRefId', initialRef, { shouldDirty: true, shouldValidate: true });
    forgetLookup();
    // The reason is what is left to fill, so the keyboard goes there.
    setFocus('reason');
  }, [initialRef, chosenAt, getValues, setValue, setFocus, forgetLookup]);
  const errors = formState.errors;
  const fieldErrorsShown = errors.cardRefId !== undefined || errors.reason !== undefined;

  return (
    <Stack spacing={2}>
      <form
        noValidate
        aria-labelledby={titleId}
        onSubmit={(event) => {
          void handleSubmit((values) => {
            onRefChange(values.cardRefId);
            mutation.mutate(values);
          })(event);
        }}
      >
        <Stack spacing={2}>
          <Typography variant="h2" id={titleId}>
            Look up a card
          </Typography>
          <Controller
            name="cardRefId"
            control={control}
            render={({ field: { ref, ...field } }) => (
              <TextField
                {...field}
                onChange={(event) => {
                  field.onChange(event);
                  forgetLookup();
                }}
                inputRef={ref}
                label="Card reference id"
                required
                autoComplete="off"
                error={errors.cardRefId !== undefined}
                helperText={fieldHelp(
                  errors.cardRefId,
                  'Enter the card reference id (letters, digits, no spaces).',
                  'Choose one from the list below, or copy it from an order’s detail.',
                )}
                slotProps={{ htmlInput: { spellCheck: false } }}
              />
            )}
          />
          <TextField
            label="Reason"
            required
            multiline
            minRows={2}
            error={errors.reason !== undefined}
            helperText={fieldHelp(
              errors.reason,
              reasonCleared
                ? 'Say why you need this card’s details (3 to 255 characters): the reason was cleared when the card reference changed, because each look-up is audited with its own reason.'
                : 'Say why you need the card details (3 to 255 characters).',
              reasonCleared
                ? 'Cleared for the new card reference: each look-up is kept in the audit log with its own reason.'
                : 'Required: kept in the audit log with your name.',
            )}
            {...register('reason', {
              onChange: (event: { target: { value: string } }) => {
                setReasonTypedFor(event.target.value === '' ? null : getValues('cardRefId'));
              },
            })}
          />
          <div>
            <Button type="submit" variant="contained" loading={mutation.isPending}>
              Show card information
            </Button>
          </div>
        </Stack>
      </form>
      {mutation.isError && !fieldErrorsShown ? (
        <Alert severity="error">{describeError(mutation.error)}</Alert>
      ) : null}
      {mutation.isSuccess ? <CardFacts info={mutation.data} /> : null}
    </Stack>
  );
}
