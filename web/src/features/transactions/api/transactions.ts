import {
  IDEMPOTENCY_KEY_HEADER,
  LookupReplySchema,
  OperationResultSchema,
  TransactionDetailSchema,
  TransactionPageSchema,
  type CaptureBody,
  type DriftReviewBody,
  type LookupBody,
  type ReturnBody,
  type TransactionExportQuery,
  type TransactionListQuery,
  type VoidBody,
} from '@paydesk/shared/api';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { apiRequest, apiUrl } from '../../../lib/api-client';
import { csvDelimiterFor } from '../../audit/api/audit';

export const transactionKeys = {
  all: ['transactions'] as const,
  lists: ['transactions', 'list'] as const,
  list: (query: TransactionListQuery) => ['transactions', 'list', query] as const,
  detail: (id: string) => ['transactions', 'detail', id] as const,
};

export function transactionListQueryOptions(query: TransactionListQuery) {
  return queryOptions({
    queryKey: transactionKeys.list(query),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/transactions', TransactionPageSchema, { query, signal }),
    // Keep the previous page on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
}

export function transactionDetailQueryOptions(id: string) {
  return queryOptions({
    queryKey: transactionKeys.detail(id),
    queryFn: ({ signal }) =>
      apiRequest('GET', `/api/transactions/${encodeURIComponent(id)}`, TransactionDetailSchema, {
        signal,
      }),
  });
}

/**
 * The export streams from the BFF straight into a download: the whole filtered set, as CSV, in the
 * list's order (its sort is always sent, so the file follows what the screen shows).
 */
export function transactionExportUrl(query: Omit<TransactionExportQuery, 'delimiter'>): string {
  // in the reader's spreadsheet convention: `;` and decimal commas where the locale uses them
  return apiUrl('/api/transactions/export', { ...query, delimiter: csvDelimiterFor() });
}

/** The order, learned or refreshed; or (`{ payout }`) the payout whose order it is, nothing recorded. */
export function lookupTransaction(body: LookupBody) {
  return apiRequest('POST', '/api/transactions/lookup', LookupReplySchema, { body });
}

export function refreshTransaction(id: string) {
  return apiRequest(
    'POST',
    `/api/transactions/${encodeURIComponent(id)}/refresh`,
    TransactionDetailSchema,
    { body: {} },
  );
}

/** Marks the order's drift reviewed (finance): the flag clears, the comment is kept. */
export function reviewDrift(id: string, body: DriftReviewBody) {
  return apiRequest(
    'POST',
    `/api/transactions/${encodeURIComponent(id)}/drift/review`,
    TransactionDetailSchema,
    { body },
  );
}

/** A follow-up that moves money (or creates a card reference): always under an Idempotency-Key. */
export type FollowUpRequest =
  | { action: 'capture'; body: CaptureBody }
  | { action: 'return'; body: ReturnBody }
  | { action: 'void'; body: VoidBody }
  | { action: 'card-ref'; body: Record<string, never> };

export function sendFollowUp(id: string, request: FollowUpRequest, idempotencyKey: string) {
  return apiRequest(
    'POST',
    `/api/transactions/${encodeURIComponent(id)}/${request.action}`,
    OperationResultSchema,
    { body: request.body, headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey } },
  );
}
