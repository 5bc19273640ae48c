import {
  IDEMPOTENCY_KEY_HEADER,
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type PayoutCreateBody,
  type PayoutListQuery,
  type Payout,
  type PayoutDetail,
  type PayoutRejectBody,
} from '@paydesk/shared/api';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export const payoutKeys = {
  all: ['payouts'] as const,
  pages: (query: PayoutPagesQuery) => ['payouts', 'pages', query] as const,
  detail: (id: string) => ['payouts', 'detail', id] as const,
};

type PayoutPagesQuery = Omit<PayoutListQuery, 'cursor'>;

/** The list a page at a time: each next page is asked with the last one's `nextCursor`. */
export function payoutPagesQueryOptions(query: PayoutPagesQuery) {
  return infiniteQueryOptions({
    queryKey: payoutKeys.pages(query),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ signal, pageParam }) =>
      apiRequest('GET', '/api/payouts', PayoutListSchema, {
        query: { ...query, cursor: pageParam },
        signal,
      }),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** One payout with its timeline: every staff decision, gateway exchange and status check. */
export function payoutDetailQueryOptions(id: string) {
  return queryOptions({
    queryKey: payoutKeys.detail(id),
    queryFn: ({ signal }) =>
      apiRequest('GET', `/api/payouts/${encodeURIComponent(id)}`, PayoutDetailSchema, { signal }),
  });
}

const withKey = (key: string) => ({ [IDEMPOTENCY_KEY_HEADER]: key });

/** payout-check (two-step) or a held single payout; waits for a second ops user. */
export function preparePayout(body: PayoutCreateBody, idempotencyKey: string) {
  return apiRequest('POST', '/api/payouts', PayoutResultSchema, {
    body,
    headers: withKey(idempotencyKey),
  });
}

export function approvePayout(id: string, idempotencyKey: string) {
  return apiRequest('POST', `/api/payouts/${encodeURIComponent(id)}/approve`, PayoutResultSchema, {
    body: {},
    headers: withKey(idempotencyKey),
  });
}

export function rejectPayout(id: string, body: PayoutRejectBody, idempotencyKey: string) {
  return apiRequest('POST', `/api/payouts/${encodeURIComponent(id)}/reject`, PayoutResultSchema, {
    body,
    headers: withKey(idempotencyKey),
  });
}

/**
 * Pays again, on the same checked order, a two-step payout whose payment the gateway did not make
 * (judged not applied): the gateway pays it at most once. Paydesk first asks the gateway whether
 * the first payment went through after all.
 */
export function payPayoutAgain(id: string, idempotencyKey: string) {
  return apiRequest(
    'POST',
    `/api/payouts/${encodeURIComponent(id)}/pay-again`,
    PayoutResultSchema,
    { body: {}, headers: withKey(idempotencyKey) },
  );
}

/**
 * Whether someone may still pay the payout again (`canPayAgain` says whether the viewer may): a
 * checked payout judged not applied after its payment was sent, its check not lapsed at `now`.
 */
export function payAgainPossible(
  payout: Pick<Payout, 'mode' | 'state' | 'errorCode' | 'decidedBy' | 'expiresAt'>,
  now: number,
): boolean {
  return (
    payout.mode === 'two-step' &&
    mayBePaidLate(payout) &&
    payout.expiresAt !== null &&
    Date.parse(payout.expiresAt) > now
  );
}

/** A `status` check now (moves no money: no Idempotency-Key); applied as Paydesk's own checks are. */
export function refreshPayout(id: string) {
  return apiRequest('POST', `/api/payouts/${encodeURIComponent(id)}/refresh`, PayoutResultSchema, {
    body: {},
  });
}

/** Whether a status check can still tell more: the outcome is open, or a late payment is possible. */
export function mayCheckPayout(payout: Pick<Payout, 'state' | 'errorCode' | 'decidedBy'>): boolean {
  return outcomeOpen(payout) || mayBePaidLate(payout);
}

/** Whether Paydesk still waits for the gateway's final answer. */
export function outcomeOpen(payout: Pick<Payout, 'state'>): boolean {
  return payout.state === 'checking' || payout.state === 'processing' || payout.state === 'unknown';
}

/**
 * A payout whose approval was sent (payout-pay, or a single payout) and that Paydesk judged not
 * applied when the gateway still did not show it: the gateway may yet pay it, so it can be checked
 * again, and a callback for its order makes Paydesk check (bff payouts `mayBePaidLate`).
 */
export function mayBePaidLate(payout: Pick<Payout, 'state' | 'errorCode' | 'decidedBy'>): boolean {
  return (
    payout.state === 'failed' && payout.errorCode === 'NOT_APPLIED' && payout.decidedBy !== null
  );
}

/** A payout the gateway paid after Paydesk had judged it not applied: check for a repeat of it. */
export const PAID_AFTER_NOT_APPLIED = 'PAID_AFTER_NOT_APPLIED';

/** Whether Paydesk's scheduled status checks gave up on it (its timeline says so). */
export function checksStopped(payout: Pick<PayoutDetail, 'events'>): boolean {
  return payout.events.some((e) => e.title.startsWith('status checks stopped'));
}
