import type {
  OperationKind,
  OperationState,
  TransactionDetail,
  TransactionType,
} from '@paydesk/shared/api';
import { isPartlyCaptured } from '@paydesk/shared/domain';
import { toMinor } from '../../../lib/money';

export const TYPE_LABELS: Record<TransactionType, string> = {
  sale: 'Sale',
  preauth: 'Preauth',
  rebill: 'Rebill',
  payout: 'Payout',
  // a two-step payout the gateway checked and nobody paid (a paid one lists as Payout)
  'payout-check': 'Payout (checked, not paid)',
  'account-verification': 'Account verification',
  transfer: 'Transfer',
  'pan-eligibility': 'PAN eligibility',
  unknown: 'Unknown',
};

export const OPERATION_LABELS: Record<OperationKind, string> = {
  sale: 'Sale',
  preauth: 'Preauth',
  capture: 'Capture',
  return: 'Return',
  void: 'Void',
  'card-ref': 'Card reference',
  rebill: 'Rebill',
  payout: 'Payout',
  // the gateway's check of the payee's details, then the payment that follows the approval
  'payout-check': 'Payee check',
  'payout-pay': 'Payout payment',
  'account-verification': 'Account verification',
  transfer: 'Transfer',
  'pan-eligibility': 'PAN eligibility',
};

export const OPERATION_STATE_LABELS: Record<OperationState, string> = {
  sending: 'Sending',
  processing: 'Processing',
  approved: 'Approved',
  declined: 'Declined',
  error: 'Error',
  filtered: 'Filtered',
  unknown: 'Unknown outcome',
  not_applied: 'Not made',
  not_sent: 'Not sent',
  refused: 'Refused',
};

export const RETURN_REASON_LABELS = {
  customer_request: 'Customer request',
  duplicate: 'Duplicate payment',
  fraud: 'Fraud',
  product_not_received: 'Product not received',
  product_unacceptable: 'Product unacceptable',
  other: 'Other',
} as const;

/**
 * The stages that undo an approved order or send its money back, in the words of their chip: one
 * source for the chip beside the status (status-chip.tsx, in the list and the order's header), the
 * header's line under it, the timeline and a payment link's chip, which all said it differently
 * ('Partly returned' beside 'partially returned').
 */
export const STAGE_LABELS = {
  voided: 'Voided',
  hold_cancelled: 'Hold released',
  partially_returned: 'Partly returned',
  returned: 'Returned',
} as const;

function hasStageLabel(stage: string): stage is keyof typeof STAGE_LABELS {
  return Object.hasOwn(STAGE_LABELS, stage);
}

/**
 * An order's stage in words within a line, as its page's header says it: a stage with a chip in
 * its chip's words ('partially_returned' → 'partly returned'), any other as the gateway names it
 * ('captured').
 */
export function stageLabel(stage: string): string {
  if (!hasStageLabel(stage)) return stage.replace(/_/g, ' ');
  const label: string = STAGE_LABELS[stage];
  return label.charAt(0).toLowerCase() + label.slice(1);
}

/**
 * An order's `stage` in its page header's line, beside its chips: `stageLabel`, but a preauth of
 * which only part was captured is 'partly captured', as its chip says, not 'captured' (QA: the
 * chip said "Partly captured" over a line saying "Preauth · captured").
 */
export function headerStageLabel(
  detail: Pick<TransactionDetail, 'type' | 'amounts'>,
  stage: string,
): string {
  const partly = isPartlyCaptured({
    type: detail.type,
    authorizedMinor: toMinor(detail.amounts.authorized) ?? 0n,
    capturedMinor: toMinor(detail.amounts.captured) ?? 0n,
  });
  return stage === 'captured' && partly ? 'partly captured' : stageLabel(stage);
}

/**
 * Whether the order's returns (if it has any) only cancelled a hold: a preauth of which nothing was
 * captured. The gateway takes a return there and releases the hold, as a void does; no money had
 * come in, so none went back. Paydesk no longer sends such a return (it offers Void), but older
 * orders, or one the merchant's shop returned at the gateway, have them.
 */
export function returnsCancelHold(detail: Pick<TransactionDetail, 'type' | 'amounts'>): boolean {
  return detail.type === 'preauth' && toMinor(detail.amounts.captured) === 0n;
}

export const HOLD_CANCELLATION_LABEL = 'Hold cancellation';

/** An operation's name on its order: a return that only cancelled a hold says so. */
export function operationLabel(kind: OperationKind, holdCancelled: boolean): string {
  return kind === 'return' && holdCancelled ? HOLD_CANCELLATION_LABEL : OPERATION_LABELS[kind];
}
