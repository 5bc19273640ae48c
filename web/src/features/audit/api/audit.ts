import {
  AuditListResponseSchema,
  AuditVerifyResponseSchema,
  type AuditExportQuery,
  type AuditListQuery,
} from '@paydesk/shared/api';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { apiRequest, apiUrl } from '../../../lib/api-client';

export const auditKeys = {
  all: ['audit'] as const,
  list: (query: AuditListQuery) => ['audit', 'list', query] as const,
  verify: ['audit', 'verify'] as const,
};

export function auditListQueryOptions(query: AuditListQuery) {
  return queryOptions({
    queryKey: auditKeys.list(query),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/audit', AuditListResponseSchema, { query, signal }),
    // Keep the previous page on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
}

export function auditVerifyQueryOptions() {
  return queryOptions({
    queryKey: auditKeys.verify,
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/audit/verify', AuditVerifyResponseSchema, { signal }),
    staleTime: 60_000,
  });
}

/** The export streams from the BFF straight into a download: no copy of the whole set in memory. */
export function auditExportUrl(query: AuditExportQuery): string {
  return apiUrl('/api/audit/export', query);
}
