/** Transaction statuses of the gateway (design §3); `processing` is the only non-final one. */
export const TRANSACTION_STATUSES = [
  'processing',
  'approved',
  'declined',
  'error',
  'filtered',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** What a client records when it could not learn the outcome; never a reason to send again. */
export const UNKNOWN_STATUS = 'unknown';

export const FINAL_STATUSES: readonly TransactionStatus[] = [
  'approved',
  'declined',
  'error',
  'filtered',
];

export function isTransactionStatus(value: string): value is TransactionStatus {
  return (TRANSACTION_STATUSES as readonly string[]).includes(value);
}

export function isFinalStatus(value: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(value);
}

export const GATEWAY_CONTENT_TYPE = 'application/vnd.pay+json';
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
