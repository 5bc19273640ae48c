import {
  IDEMPOTENCY_KEY_HEADER,
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkRefreshResultSchema,
  PaymentLinkResultSchema,
  type PaymentLink,
  type PaymentLinkCreateBody,
  type PaymentLinkListQuery,
  type PayoutRejectBody,
} from '@paydesk/shared/api';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export const linkKeys = {
  all: ['payment-links'] as const,
  pages: (query: LinkPagesQuery) => ['payment-links', 'pages', query] as const,
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

type LinkPagesQuery = Omit<PaymentLinkListQuery, 'cursor'>;

/** The list a page at a time: each next page is asked with the last one's `nextCursor`. */
export function linkPagesQueryOptions(query: LinkPagesQuery) {
  return infiniteQueryOptions({
    queryKey: linkKeys.pages(query),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ signal, pageParam }) =>
      apiRequest('GET', '/api/payment-links', PaymentLinkListSchema, {
        query: { ...query, cursor: pageParam },
        signal,
      }),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
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

/**
 * Asks the gateway now whether a sent link's page was used (`status`; moves no money, so no
 * Idempotency-Key): the order it made, learned as if its callback had come, or "not paid yet". For
 * a link whose outcome is unknown: whether its order was created (never sent again).
 */
export function refreshLink(id: string) {
  return apiRequest(
    'POST',
    `/api/payment-links/${encodeURIComponent(id)}/refresh`,
    PaymentLinkRefreshResultSchema,
    { body: {} },
  );
}

/**
 * Whether a status check can tell more: a link whose outcome is unknown (was its order created?),
 * or a sent link whose order is not learned, or not final.
 */
export function mayCheckPayment(link: Pick<PaymentLink, 'state' | 'order'>): boolean {
  if (link.state === 'unknown') return true;
  if (link.state !== 'sent') return false;
  return (
    link.order === null || link.order.status === 'processing' || link.order.status === 'unknown'
  );
}

/** The payment links an ops user's approval queue holds (payout forms another prepared). */
export const AWAITING_LINKS_HREF = '/payment-links?view=awaiting-my-approval';

/** The count's page: "at least" beyond it. */
export const AWAITING_LINKS_LIMIT = 200;

/**
 * An ops user's payout-form links waiting for their approval, counted on Home and beside the
 * payouts' approval queue (QA: they lapsed unseen, as both counted payouts alone): the links
 * list's own view, one page. Keyed under the links' key, so that what changes a link refreshes
 * the count.
 */
export function awaitingLinksQueryOptions() {
  const query = { view: 'awaiting-my-approval', limit: AWAITING_LINKS_LIMIT } as const;
  return queryOptions({
    queryKey: [...linkKeys.all, 'awaiting-count'] as const,
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/payment-links', PaymentLinkListSchema, { query, signal }),
  });
}
