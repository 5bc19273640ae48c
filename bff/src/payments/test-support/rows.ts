// Rows of `transactions` and `transaction_operations` written straight to the database, as the
// ledger and the reconciler would leave them: the data of the tests of what is read from them
// (the list, its export, the statistics, the ledger's own checks).
import { unansweredColumns } from '../gateway-errors.js';
import type { TransactionOperationsTable, TransactionsTable } from '../migration.js';

/** A test row's id: `prefix` (8 hex digits) and `n`, e.g. `0a000000-0000-4000-8000-000000000007`. */
export function rowId(prefix: string, n: number, variant = '8000'): string {
  return `${prefix}-0000-4000-${variant}-${String(n).padStart(12, '0')}`;
}

/** The card of an order paid by the sandbox's test Visa. */
export const VISA_COLUMNS = {
  card_bin: '411111',
  card_last4: '1111',
  card_brand: 'VISA',
} as const satisfies Partial<TransactionsTable>;

/**
 * An order: an approved EUR sale of 10.00 on endpoint 1001, captured in full and learned by
 * callback, with no card, customer or drift; what makes it one of its own (ids, times) given.
 */
export function transactionRow(
  fields: Pick<
    TransactionsTable,
    'id' | 'orderid' | 'client_orderid' | 'created_at' | 'updated_at'
  > &
    Partial<TransactionsTable>,
): TransactionsTable {
  return {
    endpoint_id: '1001',
    type: 'sale',
    status: 'approved',
    stage: null,
    currency: 'EUR',
    amount_minor: 1000,
    authorized_minor: 1000,
    captured_minor: 1000,
    returned_minor: 0,
    card_bin: null,
    card_last4: null,
    card_brand: null,
    card_ref_id: null,
    customer_email: null,
    customer_name: null,
    drift: 0,
    drift_details: null,
    source: 'callback',
    last_checked_at: null,
    ...fields,
  };
}

/**
 * An operation on an order, sent by staff (origin paydesk), of no amount, with no gateway serial,
 * key, requester, reason or error, not sent yet; its id, order, kind, state and times given.
 */
export function operationRow(
  fields: Pick<
    TransactionOperationsTable,
    'id' | 'transaction_id' | 'kind' | 'state' | 'created_at' | 'updated_at'
  > &
    Partial<TransactionOperationsTable>,
): TransactionOperationsTable {
  return {
    origin: 'paydesk',
    amount_minor: 0,
    reserved_minor: 0,
    gateway_serial: null,
    idempotency_key: null,
    requested_by: null,
    reason_code: null,
    comment: null,
    error_code: null,
    error_message: null,
    ...unansweredColumns(null),
    sent_at: null,
    ...fields,
  };
}
