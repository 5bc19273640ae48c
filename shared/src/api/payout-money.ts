// Where a payout order's money stands, in the gateway's record of the order alone (its type as the
// list shows it, status and stage): what the order's Amounts and the CSV export say was paid out.
import type { TransactionStatus, TransactionType } from './payments.js';
import { FAILED_STATUSES } from './transactions-failure.js';

/**
 * - `paid`: the payout (or a two-step payout's payout-pay) was approved: the money left
 * - `pending`: it is on its way (`processing`), or its outcome is not known yet (`unknown`)
 * - `failed`: declined, error or filtered: nothing was paid out
 * - `not_sent`: a payout-check that registered the payout (or lapsed): no money order was sent
 */
export type PayoutMoney = 'paid' | 'pending' | 'failed' | 'not_sent';

/** Whether the order is a payout's (money out): a single-step payout or a two-step one's order. */
export function isPayoutOrder(type: TransactionType): boolean {
  return type === 'payout' || type === 'payout-check';
}

/**
 * `order.type` as listed (a two-step payout once paid is a `payout`: `records.listedType`); null on
 * an order that is not a payout's. A two-step payout whose payout-pay is under way keeps its
 * payout-check's `approved` with the stage `processing`.
 */
export function payoutMoneyOf(order: {
  type: TransactionType;
  status: TransactionStatus;
  stage: string | null;
}): PayoutMoney | null {
  if (!isPayoutOrder(order.type)) return null;
  if (FAILED_STATUSES.has(order.status)) return 'failed';
  if (order.status === 'processing' || order.status === 'unknown') return 'pending';
  if (order.type === 'payout-check' && order.stage === 'processing') return 'pending';
  return order.type === 'payout' && order.status === 'approved' ? 'paid' : 'not_sent';
}

/** What was paid out, in minor units: the order's amount once paid, else 0; null: not a payout's. */
export function paidOutMinor(
  order: Parameters<typeof payoutMoneyOf>[0],
  amountMinor: bigint,
): bigint | null {
  const money = payoutMoneyOf(order);
  if (money === null) return null;
  return money === 'paid' ? amountMinor : 0n;
}
