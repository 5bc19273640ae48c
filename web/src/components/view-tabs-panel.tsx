import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, LoadingState } from './page-states';

/** One tab of a list screen: its value (kept in the address), label and what it says when empty. */
export interface ListView<V extends string> {
  value: V;
  label: string;
  empty: string;
}

/** A keyset-paged list as the BFF sends it: one page, and the cursor of the next (null at the end). */
export interface ListPage<Item> {
  items: Item[];
  nextCursor: string | null;
}

/**
 * A list screen's body: tabs for its views, then the loaded list, or the loading, error (with a
 * retry) or empty state. The screen decides which views the user sees and renders the items.
 * Under the list: how many rows are shown and, while the BFF has more, "Load more" (no row is
 * ever hidden behind a page size).
 */
export function ViewTabsPanel<V extends string, Item>({
  label,
  views,
  value,
  onChange,
  list,
  loading,
  what,
  empty,
  count,
  children,
}: {
  /** the tabs' accessible name, e.g. "Which payouts" */
  label: string;
  views: readonly ListView<V>[];
  value: V;
  onChange: (next: V) => void;
  list: UseInfiniteQueryResult<InfiniteData<ListPage<Item>>>;
  /** the loading label, e.g. "Loading payouts…" */
  loading: string;
  /** the list in words for the error state, e.g. "the payouts" */
  what: string;
  /** what the empty state says */
  empty: string;
  /** the count under the list, e.g. "12 payouts shown" ("+" follows the number while more remain) */
  count: (shown: string) => string;
  children: (items: Item[]) => ReactNode;
}) {
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Paper variant="outlined">
      <Tabs
        value={value}
        onChange={(_event, next: V) => {
          onChange(next);
        }}
        aria-label={label}
        // On a phone the tabs are wider than the screen: they scroll, with arrows, never clip.
        variant="scrollable"
        scrollButtons="auto"
        allowScrollButtonsMobile
        sx={{ px: 1, borderBottom: 1, borderColor: 'divider' }}
      >
        {views.map((v) => (
          <Tab key={v.value} value={v.value} label={v.label} />
        ))}
      </Tabs>
      {list.isPending ? (
        <LoadingState label={loading} />
      ) : list.isError ? (
        <ErrorState error={list.error} what={what} onRetry={() => void list.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        <>
          {children(items)}
          <Stack direction="row" spacing={2} sx={{ p: 1.5, alignItems: 'center' }}>
            <Typography variant="body2" color="text.secondary" role="status">
              {count(`${items.length}${list.hasNextPage ? '+' : ''}`)}
            </Typography>
            {list.hasNextPage ? (
              <Button
                variant="outlined"
                size="small"
                disabled={list.isFetchingNextPage}
                onClick={() => void list.fetchNextPage()}
              >
                {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </Button>
            ) : null}
          </Stack>
        </>
      )}
    </Paper>
  );
}
