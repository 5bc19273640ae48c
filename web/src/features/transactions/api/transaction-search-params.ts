import {
  TransactionFilterSchema,
  TransactionListQuerySchema,
  type TransactionFilter,
  type TransactionListQuery,
  type CreatedPreset,
  type TransactionSort,
} from '@paydesk/shared/api';
import { readCreatedPreset, resolveCreatedPreset } from './created-presets';

export const FILTER_KEYS = [
  'q',
  'status',
  'type',
  'endpoint',
  'currency',
  'createdFrom',
  'createdTo',
  'amountMin',
  'amountMax',
  'drift',
] as const satisfies readonly (keyof TransactionFilter)[];
export const PAGE_SIZES = [25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 50;
export const DEFAULT_SORT: TransactionSort = 'created_desc';

/**
 * Reads the transactions table's state from the URL (the URL is the state: shareable, back button
 * works). A value that does not fit the shared schema is ignored rather than sent. A relative
 * creation window (`created=last7d`, as a saved view holds it) is resolved to dates at `now` and
 * replaces any fixed ones.
 */
export function readTransactionQuery(
  params: URLSearchParams,
  now: Date = new Date(),
): TransactionListQuery {
  const filter: TransactionFilter = {};
  for (const key of FILTER_KEYS) {
    const raw = params.get(key);
    if (raw === null || raw.trim() === '') continue;
    const parsed = TransactionFilterSchema.shape[key].safeParse(raw);
    if (parsed.success && parsed.data !== undefined) Object.assign(filter, { [key]: parsed.data });
  }
  const created = readCreatedPreset(params);
  if (created !== undefined) Object.assign(filter, resolveCreatedPreset(created, now));
  const shape = TransactionListQuerySchema.shape;
  const sort = shape.sort.safeParse(params.get('sort') ?? undefined);
  const limit = shape.limit.safeParse(params.get('limit') ?? undefined);
  const cursor = shape.cursor.safeParse(params.get('cursor') ?? undefined);
  const query: TransactionListQuery = {
    ...filter,
    sort: sort.success ? sort.data : DEFAULT_SORT,
    limit:
      limit.success && PAGE_SIZES.some((size) => size === limit.data)
        ? limit.data
        : DEFAULT_PAGE_SIZE,
  };
  if (cursor.success && cursor.data !== undefined) query.cursor = cursor.data;
  return query;
}

/**
 * Writes filters, sort, page size and cursor back; defaults are left out so URLs stay short. With
 * a relative creation window, the window is written instead of the dates it stands for today.
 */
export function writeTransactionQuery(
  query: TransactionListQuery,
  created?: CreatedPreset,
): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    if (created !== undefined && (key === 'createdFrom' || key === 'createdTo')) {
      if (key === 'createdFrom') params.set('created', created);
      continue;
    }
    const value = query[key];
    if (value !== undefined && value !== '') params.set(key, value);
  }
  if (query.sort !== DEFAULT_SORT) params.set('sort', query.sort);
  if (query.limit !== DEFAULT_PAGE_SIZE) params.set('limit', String(query.limit));
  if (query.cursor !== undefined) params.set('cursor', query.cursor);
  return params;
}

export function filterOf(query: TransactionListQuery): TransactionFilter {
  const filter: TransactionFilter = {};
  for (const key of FILTER_KEYS) {
    const value = query[key];
    if (value !== undefined) Object.assign(filter, { [key]: value });
  }
  return filter;
}
