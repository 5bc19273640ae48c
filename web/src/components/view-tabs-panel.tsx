import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, LoadingState } from './page-states';

/** One tab of a list screen: its value (kept in the address), label and what it says when empty. */
export interface ListView<V extends string> {
  value: V;
  label: string;
  empty: string;
}

/**
 * A list screen's body: tabs for its views, then the loaded list, or the loading, error (with a
 * retry) or empty state. The screen decides which views the user sees and renders the items.
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
  children,
}: {
  /** the tabs' accessible name, e.g. "Which payouts" */
  label: string;
  views: readonly ListView<V>[];
  value: V;
  onChange: (next: V) => void;
  list: UseQueryResult<{ items: Item[] }>;
  /** the loading label, e.g. "Loading payouts…" */
  loading: string;
  /** the list in words for the error state, e.g. "the payouts" */
  what: string;
  /** what the empty state says */
  empty: string;
  children: (items: Item[]) => ReactNode;
}) {
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
      ) : list.data.items.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        children(list.data.items)
      )}
    </Paper>
  );
}
