import {
  SavedViewListSchema,
  SavedViewSchema,
  type ViewCreateBody,
  type ViewScreen,
} from '@paydesk/shared/api';
import { queryOptions } from '@tanstack/react-query';
import { apiCommand, apiRequest } from '../../../lib/api-client';

export const savedViewKeys = {
  all: ['saved-views'] as const,
  list: (screen: ViewScreen) => ['saved-views', screen] as const,
};

export function savedViewsQueryOptions(screen: ViewScreen) {
  return queryOptions({
    queryKey: savedViewKeys.list(screen),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/views', SavedViewListSchema, { query: { screen }, signal }),
  });
}

export function saveView(body: ViewCreateBody) {
  return apiRequest('POST', '/api/views', SavedViewSchema, { body });
}

export function deleteView(id: string) {
  return apiCommand('DELETE', `/api/views/${encodeURIComponent(id)}`);
}
