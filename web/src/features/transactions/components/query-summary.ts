import { formatDateTime } from '../../../lib/format';
import { CREATED_PRESET_LABELS, readCreatedPreset } from '../api/created-presets';
import { NOT_MADE_DAYS } from '@paydesk/shared/domain';
import { filterOf, readTransactionQuery } from '../api/transaction-search-params';
import { TYPE_LABELS } from './labels';
import { statusFilterLabel } from './transaction-filters';

const SORT_WORDS = {
  created_desc: 'newest first',
  created_asc: 'oldest first',
  amount_desc: 'largest amount first',
  amount_asc: 'smallest amount first',
} as const;

/**
 * A transactions view's query text ('status=approved&sort=amount_asc') in words, as the filter
 * form names things: 'Status Approved · smallest amount first'.
 */
export function describeTransactionQuery(text: string): string {
  const params = new URLSearchParams(text);
  const query = readTransactionQuery(params);
  const filter = filterOf(query);
  const parts: string[] = [];
  if (filter.q !== undefined) parts.push(`Search “${filter.q}”`);
  if (filter.status !== undefined) parts.push(`Status ${statusFilterLabel(filter.status)}`);
  if (filter.type !== undefined) parts.push(`Type ${TYPE_LABELS[filter.type]}`);
  if (filter.drift !== undefined) {
    parts.push(filter.drift === 'true' ? 'Drift flagged' : 'Drift not flagged');
  }
  if (filter.notMade === 'true') {
    parts.push(`Follow-up not made by the gateway (${String(NOT_MADE_DAYS)} days)`);
  }
  if (filter.endpoint !== undefined) parts.push(`Endpoint ${filter.endpoint}`);
  if (filter.currency !== undefined) parts.push(`Currency ${filter.currency}`);
  if (filter.amountMin !== undefined || filter.amountMax !== undefined) {
    parts.push(
      filter.amountMax === undefined
        ? `Amount from ${filter.amountMin ?? ''}`
        : filter.amountMin === undefined
          ? `Amount up to ${filter.amountMax}`
          : `Amount ${filter.amountMin} to ${filter.amountMax}`,
    );
  }
  const created = readCreatedPreset(params);
  if (created !== undefined) {
    // Said as the window it is, not as today's dates: the view keeps up with the calendar.
    parts.push(`Created ${CREATED_PRESET_LABELS[created].toLowerCase()}`);
  } else {
    if (filter.createdFrom !== undefined) {
      parts.push(`Created from ${formatDateTime(filter.createdFrom)}`);
    }
    if (filter.createdTo !== undefined) {
      parts.push(`Created before ${formatDateTime(filter.createdTo)}`);
    }
  }
  const all = parts.length === 0 ? 'All transactions' : parts.join(' · ');
  return `${all} · ${SORT_WORDS[query.sort]}`;
}
