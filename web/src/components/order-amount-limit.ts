// The session's per-order limits (the BFF's ORDER_AMOUNT_LIMIT) for the forms that create an order
// with an amount: a rebill, a subscription, a payment link, a payout.
import type { OrderAmountLimits } from '@paydesk/shared/api';
import { useSession } from '../features/auth/components/session-context';
import type { AmountFormContext } from '../lib/amount-resolver';

/** The limits the session says; undefined from an older BFF (nothing is refused here then). */
export function useOrderAmountLimits(): OrderAmountLimits | undefined {
  return useSession().settings?.orderAmountLimit;
}

/**
 * The `context` of a react-hook-form amount form whose resolver is `withAmountRefusal`: an amount
 * above its currency's limit is refused at the field with the other fields' rules.
 */
export function useAmountFormContext(): AmountFormContext {
  return { orderAmountLimit: useOrderAmountLimits() };
}
