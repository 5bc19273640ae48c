import {
  maskCardNumbers,
  transactionFilterRangeIssues,
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
  'notMade',
] as const satisfies readonly (keyof TransactionFilter)[];
export const PAGE_SIZES = [25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 50;
export const DEFAULT_SORT: TransactionSort = 'created_desc';

/** The filters as the filter form names them (the notice about a link's unusable filters). */
export const FILTER_LABELS: Record<(typeof FILTER_KEYS)[number] | 'created', string> = {
  q: 'Search',
  status: 'Status',
  type: 'Type',
  endpoint: 'Endpoint',
  currency: 'Currency',
  createdFrom: 'Created from',
  createdTo: 'Created before',
  amountMin: 'Amount from',
  amountMax: 'Amount to',
  drift: 'Drift',
  notMade: 'Follow-ups',
  created: 'Created',
};

/** Why a value of the URL does not fit its filter, for a value of the wrong form. */
const NOT_A: Record<(typeof FILTER_KEYS)[number] | 'created', string> = {
  q: 'longer than 128 characters',
  status: 'unknown',
  type: 'unknown',
  endpoint: 'not an endpoint id',
  currency: 'not a currency code',
  createdFrom: 'not a date and time',
  createdTo: 'not a date and time',
  amountMin: 'not an amount',
  amountMax: 'not an amount',
  drift: 'unknown',
  notMade: 'unknown',
  created: 'unknown',
};

/** Parameters of the list's URL that are no filter but are read (or kept) all the same. */
const OTHER_PARAMS = new Set(['created', 'sort', 'limit', 'cursor']);

/** A filter of the URL that could not be applied: its label, the value as given, and why. */
export interface UnusableFilter {
  /** the URL parameter */
  key: string;
  /** as the filter form names it ('Amount from'); the parameter itself when it is no filter */
  label: string;
  /** as the link holds it, trimmed and shortened to 40 characters */
  value: string;
  /** 'not an amount', 'unknown', 'not a filter', … */
  reason: string;
}

const shown = (text: string) => {
  // A card number in a link is never shown whole, not even to say it cannot be searched.
  const trimmed = maskCardNumbers(text.trim());
  return trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed;
};

/**
 * Reads the transactions table's state from the URL (the URL is the state: shareable, back button
 * works), and says which filters of it could not be applied. A value that does not fit the shared
 * schema is not sent (the rest of the link still applies); nor is a parameter that is no filter,
 * or the upper end of a range that would be empty or backwards (the list would refuse it). A
 * relative creation window (`created=last7d`, as a saved view holds it) is resolved to dates at
 * `now` and replaces any fixed ones. A sort or page size the list does not offer falls back to
 * the default, as the table shows.
 */
export function readTransactionLink(
  params: URLSearchParams,
  now: Date = new Date(),
): { query: TransactionListQuery; unusable: UnusableFilter[] } {
  const filter: TransactionFilter = {};
  const unusable: UnusableFilter[] = [];
  for (const key of FILTER_KEYS) {
    const raw = params.get(key);
    if (raw === null || raw.trim() === '') continue;
    const parsed = TransactionFilterSchema.shape[key].safeParse(raw);
    if (parsed.success) {
      if (parsed.data !== undefined) Object.assign(filter, { [key]: parsed.data });
      continue;
    }
    const issue = parsed.error.issues[0];
    unusable.push({
      key,
      label: FILTER_LABELS[key],
      value: shown(raw),
      reason: issue?.code === 'custom' ? issue.message : NOT_A[key],
    });
  }
  const rawCreated = params.get('created');
  const created = readCreatedPreset(params);
  if (created !== undefined) Object.assign(filter, resolveCreatedPreset(created, now));
  else if (rawCreated !== null && rawCreated.trim() !== '') {
    unusable.push({
      key: 'created',
      label: FILTER_LABELS.created,
      value: shown(rawCreated),
      reason: NOT_A.created,
    });
  }
  for (const issue of transactionFilterRangeIssues(filter)) {
    const value = filter[issue.path];
    if (value === undefined) continue;
    if (issue.path === 'createdTo') delete filter.createdTo;
    else delete filter.amountMax;
    unusable.push({
      key: issue.path,
      label: FILTER_LABELS[issue.path],
      value: shown(value),
      reason:
        issue.path === 'createdTo'
          ? `not after ${FILTER_LABELS.createdFrom}`
          : `below ${FILTER_LABELS.amountMin}`,
    });
  }
  const filterKeys: ReadonlySet<string> = new Set(FILTER_KEYS);
  for (const key of new Set(params.keys())) {
    if (filterKeys.has(key) || OTHER_PARAMS.has(key)) continue;
    unusable.push({
      key,
      label: shown(key),
      value: shown(params.get(key) ?? ''),
      reason: 'not a filter',
    });
  }
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
  // Said in the link's own order.
  const order = [...params.keys()];
  unusable.sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
  return { query, unusable };
}

/** The list's query from the URL (`readTransactionLink`, without what it could not apply). */
export function readTransactionQuery(
  params: URLSearchParams,
  now: Date = new Date(),
): TransactionListQuery {
  return readTransactionLink(params, now).query;
}

/**
 * The notice's sentence: '2 filters in the link could not be used: Amount from “abc” (not an
 * amount), Status “bogus” (unknown).'
 */
export function describeUnusableFilters(unusable: readonly UnusableFilter[]): string {
  const items = unusable.map((u) => `${u.label} “${u.value}” (${u.reason})`);
  const count =
    unusable.length === 1
      ? '1 filter in the link could not be used'
      : `${unusable.length} filters in the link could not be used`;
  return `${count}: ${items.join(', ')}.`;
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
