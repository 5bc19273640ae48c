import Download from '@mui/icons-material/Download';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  LookupBodySchema,
  transactionSearchCard,
  type CreatedPreset,
  type TransactionFilter,
  type TransactionListQuery,
} from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { isApiError } from '../../../lib/api-client';
import { formatCount } from '../../../lib/format';
import { RequireRoles } from '../../auth/components/require-roles';
import { SCREENS } from '../../shell/navigation';
import { readCreatedPreset } from '../api/created-presets';
import { useTransactionEvents } from '../api/live-events';
import {
  describeUnusableFilters,
  filterOf,
  PAGE_SIZES,
  readTransactionLink,
  writeTransactionQuery,
  type UnusableFilter,
} from '../api/transaction-search-params';
import { transactionExportUrl, transactionListQueryOptions } from '../api/transactions';
import { KeysetPager } from '../components/keyset-pager';
import { LiveIndicator } from '../components/live-indicator';
import { LookUpAtGateway } from '../components/look-up-at-gateway';
import { PayoutOrderNotice } from '../components/payout-order-notice';
import { TransactionFilters } from '../components/transaction-filters';
import { TransactionsTable } from '../components/transactions-table';
import { ViewsButton } from '../components/views-button';

/**
 * Whether a search term that found nothing could be an order's id at the gateway, which finds an
 * order only by its orderid or client_orderid (printable, no spaces; never a card number: the
 * lookup's own rule). An e-mail address, a name with spaces or a masked card cannot be: offering
 * the gateway look-up for them would only lead back to this empty list.
 */
export function gatewayCouldFind(term: string): boolean {
  const t = term.trim();
  if (/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(t)) return false;
  if (transactionSearchCard(t) !== null) return false;
  return LookupBodySchema.safeParse({ client_orderid: t }).success;
}

/** The cursors of the pages before this one (null = the first page), kept in the history entry. */
interface PagerState {
  trail: (string | null)[];
}

function trailOf(state: unknown): PagerState['trail'] | null {
  if (typeof state !== 'object' || state === null || !('trail' in state)) return null;
  const { trail } = state;
  if (!Array.isArray(trail)) return null;
  const cursors: unknown[] = trail;
  return cursors.every((c): c is string | null => c === null || typeof c === 'string')
    ? cursors
    : null;
}

/**
 * What a link (shared, bookmarked, typed) held that the list could not apply: said once above the
 * list, until dismissed; the rest of the link is applied. Applying filters writes a clean URL.
 */
function UnusableFiltersNotice({ unusable }: { unusable: UnusableFilter[] }) {
  const text = unusable.length === 0 ? null : describeUnusableFilters(unusable);
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (text === null || dismissed === text) return null;
  return (
    <Alert
      severity="info"
      onClose={() => {
        setDismissed(text);
      }}
      closeText="Dismiss"
    >
      {text}
    </Alert>
  );
}

/**
 * Whether the list refused only the address's page marker (`cursor`): an old bookmark, a link
 * shared from a list since changed. The first page of the same filters is the way on, not a retry
 * that fails the same way.
 */
function refusedCursor(error: unknown): boolean {
  return (
    isApiError(error) &&
    error.code === 'VALIDATION_FAILED' &&
    error.fieldErrors.length > 0 &&
    error.fieldErrors.every((field) => field.path === 'query.cursor')
  );
}

function TransactionsScreen() {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const { query, unusable } = readTransactionLink(params);
  // A relative window ('Last 7 days') stays one in the URL, so a saved or shared view keeps up.
  const created = readCreatedPreset(params);
  const filter = filterOf(query);
  const filtered = Object.keys(filter).length > 0;
  const list = useQuery(transactionListQueryOptions(query));
  const live = useTransactionEvents();
  const trail = trailOf(location.state) ?? [];
  const pageNumber =
    query.cursor === undefined ? 1 : trailOf(location.state) === null ? null : trail.length + 1;

  /**
   * `window`: the relative "Created" window the new URL keeps; left out, the current one (paging,
   * sorting); given as undefined, none (Clear, fixed dates).
   */
  const go = (
    next: TransactionListQuery,
    nextTrail: PagerState['trail'],
    ...window: [CreatedPreset | undefined] | []
  ) => {
    const state: PagerState = { trail: nextTrail };
    const nextCreated = window.length === 0 ? created : window[0];
    setParams(writeTransactionQuery(next, nextCreated), { state });
  };
  const firstPage = (next: Omit<TransactionListQuery, 'cursor'>) => {
    go(next, []);
  };
  const applyFilter = (next: TransactionFilter, nextCreated: CreatedPreset | undefined) => {
    // New filters start at the first page and push a history entry, so Back returns to the
    // previous view.
    go({ ...next, sort: query.sort, limit: query.limit }, [], nextCreated);
  };
  const withoutCursor: TransactionListQuery = { ...query };
  delete withoutCursor.cursor;
  const currentQuery = writeTransactionQuery(withoutCursor, created).toString();

  return (
    <>
      <PageHeader
        title="Transactions"
        actions={
          <>
            <LiveIndicator state={live} />
            <ViewsButton currentQuery={currentQuery} />
            <Button
              component="a"
              href={transactionExportUrl({ ...filter, sort: query.sort })}
              download
              startIcon={<Download />}
              variant="outlined"
            >
              Export CSV
            </Button>
          </>
        }
      >
        Every order Paydesk knows. The export holds{' '}
        {filtered ? 'every matching transaction' : 'every transaction'}, not only this page.
      </PageHeader>
      <Stack spacing={2}>
        {/* Not remounted on a change (the focus would drop to the page): the form follows the
            applied filter, and on a phone the bar folds away again once filters are applied. */}
        <TransactionFilters
          value={filter}
          created={created}
          appliedKey={currentQuery}
          onApply={applyFilter}
        />
        <UnusableFiltersNotice unusable={unusable} />
        {list.isPending ? (
          <LoadingState label="Loading transactions…" />
        ) : list.isError && refusedCursor(list.error) ? (
          <Alert
            severity="warning"
            action={
              <Button
                color="inherit"
                size="small"
                onClick={() => {
                  firstPage(withoutCursor);
                }}
              >
                Go to the first page
              </Button>
            }
          >
            This address names a page the list no longer has (an old bookmark or a shared link,
            say). Its filters still apply from the first page.
          </Alert>
        ) : list.isError ? (
          <ErrorState
            error={list.error}
            what="the transactions"
            onRetry={() => void list.refetch()}
          />
        ) : list.data.items.length === 0 && query.cursor === undefined ? (
          <>
            {/* The search named a payout's order (one awaiting approval is no transaction yet):
                the payout is where to go, and the gateway lookup would only lead there too. */}
            {filter.q === undefined ? null : (
              <PayoutOrderNotice term={filter.q} payouts={list.data.payouts ?? []} />
            )}
            <EmptyState
              title={filtered ? 'No transactions match these filters' : 'No transactions yet'}
            >
              {filtered
                ? 'Change or clear the filters to see more.'
                : 'Orders appear here as the storefront sends them or as support looks them up.'}
              {/* How a search matches, only when one was made. */}
              {filter.q === undefined
                ? null
                : ' Search matches an orderid, a client order id, Paydesk’s id, an e-mail, the last four digits or a masked card (411111******1111) exactly, a client order id or an e-mail in any case.'}
              {/* The gateway is offered only for what could be an order's id; for anything else
                  (an e-mail, a name, a card) it would find nothing either. */}
              {filter.q === undefined ||
              (list.data.payouts ?? []).length > 0 ||
              gatewayCouldFind(filter.q) ? null : (
                <>
                  {' '}
                  Check the spelling of “{filter.q}”. The gateway cannot be searched for it: it
                  finds an order only by its orderid or client order id, not by an e-mail, a name or
                  a card.
                </>
              )}
              {filter.q === undefined ||
              (list.data.payouts ?? []).length > 0 ||
              !gatewayCouldFind(filter.q) ? null : (
                <LookUpAtGateway term={filter.q} />
              )}
            </EmptyState>
          </>
        ) : (
          <Paper variant="outlined">
            <Typography sx={{ px: 2, pt: 1.5 }} aria-live="polite">
              {formatCount(list.data.total)}
              {list.data.totalCapped ? '+' : ''}{' '}
              {list.data.total === 1 && !list.data.totalCapped
                ? `transaction${filtered ? ' matches' : ''}`
                : `transactions${filtered ? ' match' : ''}`}
            </Typography>
            <TransactionsTable
              items={list.data.items}
              busy={list.isPlaceholderData}
              sort={query.sort}
              onSortChange={(sort) => {
                firstPage({ ...withoutCursor, sort });
              }}
            />
            <KeysetPager
              pageNumber={pageNumber}
              shown={list.data.items.length}
              pageSize={query.limit}
              pageSizes={PAGE_SIZES}
              hasNext={list.data.nextCursor !== null && !list.isPlaceholderData}
              hasPrevious={trail.length > 0}
              onFirst={() => {
                firstPage(withoutCursor);
              }}
              onPrevious={() => {
                const previous = trail.at(-1) ?? null;
                go(
                  previous === null ? withoutCursor : { ...withoutCursor, cursor: previous },
                  trail.slice(0, -1),
                );
              }}
              onNext={() => {
                const next = list.data.nextCursor;
                if (next === null) return;
                go({ ...withoutCursor, cursor: next }, [...trail, query.cursor ?? null]);
              }}
              onPageSizeChange={(limit) => {
                firstPage({ ...withoutCursor, limit });
              }}
            />
          </Paper>
        )}
      </Stack>
    </>
  );
}

export default function TransactionsRoute() {
  return (
    <RequireRoles roles={SCREENS.transactions.roles} what="the transactions">
      <TransactionsScreen />
    </RequireRoles>
  );
}
