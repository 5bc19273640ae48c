import {
  IDEMPOTENCY_KEY_HEADER,
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkResultSchema,
  type PaymentLinkCreateBody,
  type PaymentLinkListQuery,
  type PayoutRejectBody,
} from '@paydesk/shared/api';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export const linkKeys = {
  all: ['payment-links'] as const,
  list: (query: PaymentLinkListQuery) => ['payment-links', 'list', query] as const,
  detail: (id: string) => ['payment-links', 'detail', id] as const,
};

/** One link with its history: created, approved or rejected, the gateway's reply. */
export function linkDetailQueryOptions(id: string) {
  return queryOptions({
    queryKey: linkKeys.detail(id),
    queryFn: ({ signal }) =>
      apiRequest('GET', `/api/payment-links/${encodeURIComponent(id)}`, PaymentLinkDetailSchema, {
        signal,
      }),
  });
}

export function linkListQueryOptions(query: PaymentLinkListQuery) {
  return queryOptions({
    queryKey: linkKeys.list(query),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/payment-links', PaymentLinkListSchema, { query, signal }),
  });
}

const withKey = (key: string) => ({ [IDEMPOTENCY_KEY_HEADER]: key });

/** A hosted form: card forms are sent at once; a payout-form waits for a second ops user. */
export function createLink(body: PaymentLinkCreateBody, idempotencyKey: string) {
  return apiRequest('POST', '/api/payment-links', PaymentLinkResultSchema, {
    body,
    headers: withKey(idempotencyKey),
  });
}

export function approveLink(id: string, idempotencyKey: string) {
  return apiRequest(
    'POST',
    `/api/payment-links/${encodeURIComponent(id)}/approve`,
    PaymentLinkResultSchema,
    { body: {}, headers: withKey(idempotencyKey) },
  );
}

export function rejectLink(id: string, body: PayoutRejectBody, idempotencyKey: string) {
  return apiRequest(
    'POST',
    `/api/payment-links/${encodeURIComponent(id)}/reject`,
    PaymentLinkResultSchema,
    { body, headers: withKey(idempotencyKey) },
  );
}
