import type { OrderAmountLimits } from '@paydesk/shared/api';
import type { FieldError, FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import { readAmount } from './money';
import { orderLimitRefusal } from './order-limit';

/**
 * What an amount form gives its resolver (react-hook-form's `context`, see
 * `useAmountFormContext`): the session's per-order limits; absent, none is checked here.
 */
export interface AmountFormContext {
  orderAmountLimit?: OrderAmountLimits | undefined;
}

/**
 * A form's resolver that says a refused amount (`readAmount`: thousands separators, a decimal
 * comma, above the largest amount the API takes; or above its currency's per-order limit, given in
 * the form's context) in the same pass as every other field's rule. The form's schema stops at
 * such an amount (a zod pipe ends at its first issue), so the other fields are checked with an
 * amount that passes, and the refusal is put on `amount`. `withAmount`: whether the form shows an
 * amount for these values (a link kind without one).
 */
export function withAmountRefusal<
  TInput extends FieldValues & { amount: string; currency: string },
  TOutput,
>(
  resolver: Resolver<TInput, unknown, TOutput>,
  withAmount: (values: TInput) => boolean = () => true,
): Resolver<TInput, AmountFormContext, TOutput> {
  return async (values, context, options) => {
    const refusal = withAmount(values)
      ? (readAmount(values.amount).refusal ??
        orderLimitRefusal(context?.orderAmountLimit, values.amount, values.currency))
      : undefined;
    if (refusal === undefined) return resolver(values, context, options);
    const others = await resolver({ ...values, amount: '1.00' }, context, options);
    const amount: FieldError = { type: 'custom', message: refusal };
    // (`amount` is a field of every TInput; TypeScript cannot see it through the generic errors.)
    return { values: {}, errors: { ...others.errors, amount } as FieldErrors<TInput> };
  };
}
