import type { OperationKind, OperationState, TransactionType } from '@paydesk/shared/api';

export const TYPE_LABELS: Record<TransactionType, string> = {
  sale: 'Sale',
  preauth: 'Preauth',
  rebill: 'Rebill',
  payout: 'Payout',
  'payout-check': 'Payout check',
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
  'payout-check': 'Payout check',
  'payout-pay': 'Payout pay',
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
  not_applied: 'Not applied',
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

/** An order's stage in words, as its page's header says it: 'partially_returned' → 'partially returned'. */
export function stageLabel(stage: string): string {
  return stage.replace(/_/g, ' ');
}
