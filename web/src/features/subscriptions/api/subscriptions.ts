import {
  IDEMPOTENCY_KEY_HEADER,
  SubscriptionDetailSchema,
  SubscriptionPageSchema,
  SubscriptionResultSchema,
  type SubscriptionCreateBody,
  type SubscriptionListQuery,
} from '@paydesk/shared/api';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export const subscriptionKeys = {
  all: ['subscriptions'] as const,
  list: (query: SubscriptionListQuery) => ['subscriptions', 'list', query] as const,
  detail: (id: string) => ['subscriptions', 'detail', id] as const,
};

export function subscriptionListQueryOptions(query: SubscriptionListQuery) {
  return queryOptions({
    queryKey: subscriptionKeys.list(query),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/subscriptions', SubscriptionPageSchema, { query, signal }),
    placeholderData: keepPreviousData,
  });
}

export function subscriptionDetailQueryOptions(id: string) {
  return queryOptions({
    queryKey: subscriptionKeys.detail(id),
    queryFn: ({ signal }) =>
      apiRequest('GET', `/api/subscriptions/${encodeURIComponent(id)}`, SubscriptionDetailSchema, {
        signal,
      }),
  });
}

/** v4 create-recurring-payment on a card reference, under the dialog's Idempotency-Key. */
export function createSubscription(body: SubscriptionCreateBody, idempotencyKey: string) {
  return apiRequest('POST', '/api/subscriptions', SubscriptionResultSchema, {
    body,
    headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
  });
}
