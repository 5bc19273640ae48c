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
  /** a verification against a recorded head (`<seq>:<hash>`), or of the chain alone (null) */
  verifyAgainst: (anchor: string | null) => ['audit', 'verify', anchor] as const,
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

/** Verifies the chain, and with `anchor` (`<seq>:<hash>`) that the recorded head still holds. */
export function auditVerifyQueryOptions(anchor: string | null = null) {
  return queryOptions({
    queryKey: auditKeys.verifyAgainst(anchor),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/audit/verify', AuditVerifyResponseSchema, {
        query: { anchor },
        signal,
      }),
    staleTime: 60_000,
  });
}

/** The export streams from the BFF straight into a download: no copy of the whole set in memory. */
export function auditExportUrl(query: AuditExportQuery): string {
  return apiUrl('/api/audit/export', query);
}
