import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  TRANSACTION_STATUSES,
  type TimelineEntry,
  type TransactionStatus,
} from '@paydesk/shared/api';
import { useEffect, useRef, useState } from 'react';
import { DateTime } from '../../../components/date-time';
import { formatMoney } from '../../../lib/format';
import { stageLabel } from './labels';
import { STATUS_LOOK } from './status-chip';

const isStatus = (text: string): text is TransactionStatus =>
  (TRANSACTION_STATUSES as readonly string[]).includes(text);

/**
 * An entry's title in the page's own words: the BFF writes a status check as
 * 'status: approved (partially_returned)'; the header says 'Approved' and 'partially returned'.
 */
export function timelineTitle(title: string, holdCancelled = false): string {
  // The BFF names a return as sent ('return 55.00 EUR requested', 'return: accepted', 'callback:
  // return approved …'); on an order where it only cancelled a hold, it is called that.
  if (holdCancelled)
    title = title.replace(/^(callback: )?return\b/, '$1hold cancellation (return)');
  // Its amounts ('55.00 EUR') as the page writes money, in the reader's locale.
  title = title.replace(/\b(\d+\.\d{2,3}) ([A-Z]{3})\b/g, (_, amount: string, currency: string) =>
    formatMoney(amount, currency),
  );
  const match = /^status: ([a-z_]+)(?: \(([a-z_]+)\))?$/.exec(title);
  if (match === null) return title;
  const [, status = '', stage] = match;
  if (!isStatus(status)) return title;
  return `Status: ${STATUS_LOOK[status].label}${stage === undefined ? '' : ` · ${stageLabel(stage)}`}`;
}

const KIND_LOOK: Record<
  TimelineEntry['kind'],
  { label: string; color: 'default' | 'primary' | 'info' | 'secondary' | 'warning' }
> = {
  gateway: { label: 'Gateway', color: 'primary' },
  callback: { label: 'Callback', color: 'info' },
  staff: { label: 'Staff', color: 'secondary' },
  reconcile: { label: 'Reconcile', color: 'default' },
  drift: { label: 'Drift', color: 'warning' },
};

/** Consecutive automatic entries that say the same, shown as one run (first, last, the rest on demand). */
interface Run {
  entries: TimelineEntry[];
}

/** At least this many alike in a row fold (at least two hidden); fewer are shown as they are. */
const FOLD_AT = 4;

/**
 * The entries in runs: an automatic entry (no actor: the reconciler's and the poller's status
 * checks, the gateway's repeated callbacks) joins the run before it when its kind and title are
 * the same. A staff action never folds.
 */
export function timelineRuns(ordered: readonly TimelineEntry[]): Run[] {
  const runs: Run[] = [];
  for (const entry of ordered) {
    const last = runs.at(-1)?.entries.at(-1);
    const alike =
      last !== undefined &&
      entry.actor === null &&
      last.actor === null &&
      entry.kind !== 'staff' &&
      entry.kind === last.kind &&
      entry.title === last.title;
    if (alike) runs.at(-1)?.entries.push(entry);
    else runs.push({ entries: [entry] });
  }
  return runs;
}

/** `focusFirst`: take the keyboard focus when shown (the first entry a fold just showed). */
function TimelineItem({
  entry,
  holdCancelled,
  focusFirst = false,
}: {
  entry: TimelineEntry;
  holdCancelled: boolean;
  focusFirst?: boolean;
}) {
  const look = KIND_LOOK[entry.kind];
  const hasData = Object.keys(entry.data).length > 0;
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (focusFirst) ref.current?.focus();
  }, [focusFirst]);
  return (
    <ListItem
      ref={ref}
      divider
      tabIndex={focusFirst ? -1 : undefined}
      sx={{ display: 'block', px: 0 }}
    >
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Chip size="small" label={look.label} color={look.color} variant="outlined" />
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {timelineTitle(entry.title, holdCancelled)}
        </Typography>
        <Typography variant="caption" color="text.secondary">
          <DateTime value={entry.at} />
          {entry.actor ? ` · ${entry.actor}` : ''}
        </Typography>
      </Stack>
      {hasData ? (
        <details>
          <summary>
            <Typography variant="caption" component="span">
              Details
            </Typography>
          </summary>
          <Typography
            component="pre"
            variant="caption"
            sx={{
              m: 0,
              mt: 0.5,
              p: 1,
              bgcolor: 'action.hover',
              borderRadius: 1,
              overflowX: 'auto',
              fontFamily: 'ui-monospace, monospace',
            }}
          >
            {JSON.stringify(entry.data, null, 2)}
          </Typography>
        </details>
      ) : null}
    </ListItem>
  );
}

/**
 * Every request, reply and callback (redacted by the BFF) and every staff action, oldest first.
 * `holdCancelled`: the order's returns only cancelled a hold (labels.ts `returnsCancelHold`).
 * A run of identical automatic entries (an order reconciled for an hour gets one status check
 * every few minutes) shows its first and last, and the ones between on demand.
 */
export function Timeline({
  entries,
  holdCancelled = false,
}: {
  entries: TimelineEntry[];
  holdCancelled?: boolean;
}) {
  const [unfolded, setUnfolded] = useState<ReadonlySet<number>>(new Set());
  // the run just unfolded: its first hidden entry takes the focus the button had
  const [justUnfolded, setJustUnfolded] = useState<number | null>(null);
  if (entries.length === 0) {
    return <Typography color="text.secondary">Nothing recorded yet.</Typography>;
  }
  const ordered = [...entries].sort((a, b) => (a.at === b.at ? a.id - b.id : a.at < b.at ? -1 : 1));
  const item = (entry: TimelineEntry, focusFirst = false) => (
    <TimelineItem
      key={entry.id}
      entry={entry}
      holdCancelled={holdCancelled}
      focusFirst={focusFirst}
    />
  );
  return (
    <List dense aria-label="Timeline" disablePadding>
      {timelineRuns(ordered).flatMap(({ entries: run }) => {
        const [first, ...rest] = run;
        const last = rest.at(-1);
        if (first === undefined) return [];
        if (run.length < FOLD_AT || last === undefined || unfolded.has(first.id))
          return run.map((entry, i) => item(entry, i === 1 && justUnfolded === first.id));
        const between = run.length - 2;
        const hidden = run.slice(1, -1);
        return [
          item(first),
          <ListItem key={`fold-${String(first.id)}`} divider sx={{ px: 0 }}>
            <Button
              size="small"
              onClick={() => {
                setUnfolded((open) => new Set(open).add(first.id));
                setJustUnfolded(first.id);
              }}
            >
              Show {between} more identical entries
            </Button>
            {/* On paper there is no button: the page says what it leaves out. */}
            <Typography
              variant="caption"
              sx={{ display: 'none', '@media print': { display: 'block' } }}
            >
              … {between} identical entries between these two (
              <DateTime value={hidden[0]?.at ?? first.at} /> to{' '}
              <DateTime value={hidden.at(-1)?.at ?? last.at} />) not printed
            </Typography>
          </ListItem>,
          item(last),
        ];
      })}
    </List>
  );
}
