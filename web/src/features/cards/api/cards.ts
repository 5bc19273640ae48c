import {
  CardInfoSchema,
  CardRefListSchema,
  IDEMPOTENCY_KEY_HEADER,
  OperationResultSchema,
  type CardInfoBody,
  type RebillBody,
} from '@paydesk/shared/api';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export const cardKeys = {
  all: ['cards'] as const,
  list: (limit: number) => ['cards', 'list', limit] as const,
};

/**
 * How many card references the Cards screen lists; the rebill dialog asks for the same list (the
 * same query, usually cached already) to know the endpoint and currency of a reference.
 */
export const CARD_REF_LIST_LIMIT = 100;

/** The card references Paydesk knows (orders carrying one), most recently used first. */
export function cardRefListQueryOptions(limit: number) {
  return queryOptions({
    queryKey: cardKeys.list(limit),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/cards', CardRefListSchema, { query: { limit }, signal }),
  });
}

/** get-card-info: masked number, brand, BIN and expiry; the reason is audited. */
export function requestCardInfo(cardRefId: string, body: CardInfoBody) {
  return apiRequest('POST', `/api/cards/${encodeURIComponent(cardRefId)}/info`, CardInfoSchema, {
    body,
  });
}

/** make-rebill: charges the stored card as a new order, under the dialog's Idempotency-Key. */
export function sendRebill(body: RebillBody, idempotencyKey: string) {
  return apiRequest('POST', '/api/rebills', OperationResultSchema, {
    body,
    headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
  });
}
