import {
  AuditListResponseSchema,
  AuditVerifyResponseSchema,
  type AuditExportQueryInput,
  type AuditListQuery,
  type AuditVerifyCheck,
  type CsvDelimiter,
} from '@paydesk/shared/api';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { apiRequest, apiUrl } from '../../../lib/api-client';
import { userLocale } from '../../../lib/format';

export const auditKeys = {
  all: ['audit'] as const,
  /** every page and filter of the list */
  lists: ['audit', 'list'] as const,
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

/**
 * Verifies the chain, and with `anchor` (`<seq>:<hash>`) that the recorded head still holds.
 * `check` says who asked: a person (`explicit`, always recorded in the log) or the page itself
 * (`automatic`, recorded only when it finds a problem). Both answer the same query.
 */
export function auditVerifyQueryOptions(
  anchor: string | null = null,
  check: AuditVerifyCheck = 'explicit',
) {
  return queryOptions({
    queryKey: auditKeys.verifyAgainst(anchor),
    queryFn: ({ signal }) =>
      apiRequest('GET', '/api/audit/verify', AuditVerifyResponseSchema, {
        // Explicit is the BFF's default: said only when it is not.
        query: { anchor, check: check === 'automatic' ? 'automatic' : null },
        signal,
      }),
    staleTime: 60_000,
  });
}

/** The export streams from the BFF straight into a download: no copy of the whole set in memory. */
export function auditExportUrl(query: AuditExportQueryInput): string {
  return apiUrl('/api/audit/export', query);
}

/**
 * The CSV separator a spreadsheet in `locale` splits on: a semicolon where the decimal mark is a
 * comma (de-DE, fr-FR: a comma-separated file would land in column A), else a comma.
 */
export function csvDelimiterFor(locale: string = userLocale()): CsvDelimiter {
  const decimal = new Intl.NumberFormat(locale)
    .formatToParts(1.5)
    .find((part) => part.type === 'decimal')?.value;
  return decimal === ',' ? 'semicolon' : 'comma';
}
