import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import IconButton from '@mui/material/IconButton';
import ListItemText from '@mui/material/ListItemText';
import ListSubheader from '@mui/material/ListSubheader';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Divider from '@mui/material/Divider';
import { ROLE_LABELS, type Role, type SavedView } from '@paydesk/shared/api';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useNotify } from '../../../components/notifier';
import { describeError } from '../../../lib/api-client';
import { readCreatedPreset } from '../api/created-presets';
import { deleteView, savedViewKeys, savedViewsQueryOptions } from '../api/saved-views';
import { readTransactionQuery, writeTransactionQuery } from '../api/transaction-search-params';
import type { ViewsMode } from './saved-views-mode';
import { SaveViewDialog } from './save-view-dialog';

/** A view's query as the screen would write it, so "is this the view on screen?" compares like with like. */
export function canonicalQuery(query: string): string {
  const params = new URLSearchParams(query);
  const read = readTransactionQuery(params);
  delete read.cursor;
  return writeTransactionQuery(read, readCreatedPreset(params)).toString();
}

function byRole(views: SavedView[]): [Role, SavedView[]][] {
  const groups = new Map<Role, SavedView[]>();
  for (const view of views) groups.set(view.role, [...(groups.get(view.role) ?? []), view]);
  return [...groups];
}

/**
 * The Views menu: saved views by role (apply, delete), then "Save current view…". A view its
 * creator may delete is deleted with the bin beside it, or from the keyboard with Delete (or
 * Backspace) on the view; either way after a confirmation.
 */
export default function SavedViewsMenu({
  id,
  mode,
  anchor,
  currentQuery,
  onModeChange,
}: {
  id: string;
  mode: Exclude<ViewsMode, 'closed'>;
  anchor: HTMLElement | null;
  currentQuery: string;
  onModeChange: (mode: ViewsMode) => void;
}) {
  const [, setParams] = useSearchParams();
  const client = useQueryClient();
  const notify = useNotify();
  const views = useQuery(savedViewsQueryOptions('transactions'));
  const [deleting, setDeleting] = useState<SavedView | null>(null);
  // A view kept at the confirmation (or not deleted): the menu comes back with the keyboard on it.
  const [keptId, setKeptId] = useState<string | null>(null);
  const keptRef = useRef<HTMLLIElement>(null);
  // Each question is a new dialog: one asked again at once (Cancel, then Delete) is not the
  // closing one, and its safe choice takes the focus again.
  const [asked, setAsked] = useState(0);
  const ask = (view: SavedView) => {
    setAsked((count) => count + 1);
    setKeptId(null);
    setDeleting(view);
  };
  const remove = useMutation({
    mutationFn: (view: SavedView) => deleteView(view.id),
    onSuccess: (_data, view) => {
      notify(`Deleted the view “${view.name}”.`);
      setDeleting(null);
      // done: the Views button takes the keyboard back (ViewsButton)
      onModeChange('closed');
    },
    onError: (error, view) => {
      notify(`The view was not deleted: ${describeError(error)}`, 'error');
      setKeptId(view.id);
      setDeleting(null);
    },
    onSettled: () => client.invalidateQueries({ queryKey: savedViewKeys.all }),
  });
  const close = () => {
    onModeChange('closed');
  };
  const current = canonicalQuery(currentQuery);

  let items;
  if (views.isPending) {
    items = [
      <MenuItem key="loading" disabled>
        Loading views…
      </MenuItem>,
    ];
  } else if (views.isError) {
    items = [
      <MenuItem key="error" onClick={() => void views.refetch()}>
        <ListItemText
          primary="Could not load the views"
          secondary={`${describeError(views.error)} Choose to retry.`}
        />
      </MenuItem>,
    ];
  } else if (views.data.items.length === 0) {
    items = [
      <MenuItem key="empty" disabled>
        <ListItemText
          primary="No saved views yet"
          secondary="Views saved for your roles appear here."
        />
      </MenuItem>,
    ];
  } else {
    // Menu takes its items as direct children (no fragments): subheader, then the role's views.
    items = byRole(views.data.items).flatMap(([role, group]) => [
      // Presentational: a menu may own only menu items; the role is in each item's text too.
      <ListSubheader key={`role-${role}`} role="presentation">
        {`For ${ROLE_LABELS[role]}`}
      </ListSubheader>,
      ...group.map((view) => (
        <MenuItem
          key={view.id}
          selected={canonicalQuery(view.query) === current}
          ref={view.id === keptId ? keptRef : undefined}
          aria-keyshortcuts={view.canDelete ? 'Delete' : undefined}
          onKeyDown={(event) => {
            if (!view.canDelete || (event.key !== 'Delete' && event.key !== 'Backspace')) return;
            event.preventDefault();
            ask(view);
          }}
          onClick={() => {
            // A view starts at the first page, as any change of filters does.
            setParams(new URLSearchParams(view.query), { state: { trail: [] } });
            close();
          }}
          sx={{ pr: view.canDelete ? 7 : 2 }}
        >
          <ListItemText
            primary={view.name}
            secondary={`${ROLE_LABELS[view.role]} · by ${view.createdBy.email}`}
          />
          {view.canDelete ? (
            <IconButton
              edge="end"
              size="small"
              aria-label={`Delete view ${view.name}`}
              title="Delete this view (Delete key)"
              // Tab leaves a menu; the keyboard deletes with Delete on the view itself.
              tabIndex={-1}
              onClick={(event) => {
                event.stopPropagation();
                ask(view);
              }}
              sx={{ position: 'absolute', right: 12 }}
            >
              <DeleteOutlined fontSize="small" />
            </IconButton>
          ) : null}
        </MenuItem>
      )),
    ]);
  }

  return (
    <>
      <Menu
        id={id}
        anchorEl={anchor}
        open={mode === 'menu' && deleting === null}
        onClose={close}
        slotProps={{
          list: { 'aria-label': 'Saved views', dense: true },
          // After the menu's own first focus (the first view), which it gives as it opens.
          transition: {
            onEntering: () => {
              keptRef.current?.focus();
            },
          },
        }}
      >
        {items}
        <Divider />
        <MenuItem
          onClick={() => {
            onModeChange('save');
          }}
        >
          Save current view…
        </MenuItem>
      </Menu>
      {mode === 'save' ? <SaveViewDialog currentQuery={currentQuery} onClose={close} /> : null}
      <ConfirmDialog
        key={asked}
        open={deleting !== null}
        title="Delete this view?"
        confirmLabel="Delete view"
        destructive
        busy={remove.isPending}
        onConfirm={() => {
          if (deleting !== null) remove.mutate(deleting);
        }}
        onClose={() => {
          setKeptId(deleting?.id ?? null);
          setDeleting(null);
        }}
      >
        {deleting === null
          ? null
          : `“${deleting.name}” disappears for everyone with the ${ROLE_LABELS[deleting.role]} role.`}
      </ConfirmDialog>
    </>
  );
}
