import {
  AuditFilterSchema,
  AuditListQuerySchema,
  type AuditFilter,
  type AuditListQuery,
} from '@paydesk/shared/api';

export { isoToLocalInput, localInputToIso } from '../../../lib/local-datetime';

export const FILTER_KEYS = [
  'actor',
  'action',
  'target',
  'outcome',
  'from',
  'to',
] as const satisfies readonly (keyof AuditFilter)[];
export const PAGE_SIZES = [25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 50;

/**
 * Reads the audit table's state from the URL (the URL is the state: shareable, back button works).
 * A value that does not fit the shared schema is ignored rather than sent.
 */
export function readAuditQuery(params: URLSearchParams): AuditListQuery {
  const filter: AuditFilter = {};
  for (const key of FILTER_KEYS) {
    const raw = params.get(key);
    if (raw === null || raw.trim() === '') continue;
    const parsed = AuditFilterSchema.shape[key].safeParse(raw);
    if (parsed.success && parsed.data !== undefined) Object.assign(filter, { [key]: parsed.data });
  }
  const page = AuditListQuerySchema.shape.page.safeParse(params.get('page') ?? undefined);
  const pageSize = AuditListQuerySchema.shape.pageSize.safeParse(
    params.get('pageSize') ?? undefined,
  );
  return {
    ...filter,
    page: page.success ? page.data : 1,
    pageSize: pageSize.success ? pageSize.data : DEFAULT_PAGE_SIZE,
  };
}

/** Writes filters and page back; defaults are left out so URLs stay short. */
export function writeAuditQuery(query: AuditListQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = query[key];
    if (value !== undefined && value !== '') params.set(key, value);
  }
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.pageSize !== DEFAULT_PAGE_SIZE) params.set('pageSize', String(query.pageSize));
  return params;
}

export function filterOf(query: AuditListQuery): AuditFilter {
  const filter: AuditFilter = {};
  for (const key of FILTER_KEYS) {
    const value = query[key];
    if (value !== undefined) Object.assign(filter, { [key]: value });
  }
  return filter;
}
