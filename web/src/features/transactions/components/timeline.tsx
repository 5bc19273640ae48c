import Box from '@mui/material/Box';
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
import { useEffect, useId, useRef, useState } from 'react';
import { CopyButton } from '../../../components/copyable-text';
import { DateTime } from '../../../components/date-time';
import { formatMoney } from '../../../lib/format';
import { PRINT_HIDDEN_CLASS } from '../../../theme/print-styles';
import { stageLabel } from './labels';
import { STATUS_LOOK } from './status-chip';
import {
  hasTimelineData,
  rawTimelineData,
  timelineDetailGroups,
  type DetailGroup,
} from './timeline-data';

const isStatus = (text: string): text is TransactionStatus =>
  (TRANSACTION_STATUSES as readonly string[]).includes(text);

/** A title as a heading starts: 'callback: …' → 'Callback: …'. */
function capitalized(title: string): string {
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/**
 * `text` the BFF wrote (a timeline title, a drift reason) with its amounts ('55.00 EUR') as the
 * page writes money, in the reader's locale ('€55.00'); the stored text keeps the BFF's words.
 */
export function inLocalMoney(text: string): string {
  return text.replace(/\b(\d+\.\d{2,3}) ([A-Z]{3})\b/g, (_, amount: string, currency: string) =>
    formatMoney(amount, currency),
  );
}

/**
 * An entry's title in the page's own words, with a capital first letter (the BFF's stored titles
 * start lowercase: 'callback: …', 'void requested'): it writes a status check as
 * 'status: approved (partially_returned)'; the header says 'Approved' and 'partly returned'.
 */
export function timelineTitle(title: string, holdCancelled = false): string {
  return capitalized(inPageWords(title, holdCancelled));
}

function inPageWords(title: string, holdCancelled: boolean): string {
  // The BFF names a return as sent ('return 55.00 EUR requested', 'return: accepted', 'callback:
  // return approved …'); on an order where it only cancelled a hold, it is called that.
  if (holdCancelled)
    title = title.replace(/^(callback: )?return\b/, '$1hold cancellation (return)');
  title = inLocalMoney(title);
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

const MONOSPACE = 'ui-monospace, monospace';

/** One group of an entry's details ("Request"): its fields as a description list. */
function DetailGroupRows({ group }: { group: DetailGroup }) {
  const titleId = useId();
  return (
    <Box role="group" aria-labelledby={titleId}>
      <Typography
        id={titleId}
        variant="caption"
        component="p"
        sx={{ m: 0, fontWeight: 600, ...(group.field ? { fontFamily: MONOSPACE } : {}) }}
      >
        {group.title}
      </Typography>
      <Box
        component="dl"
        sx={{
          display: 'grid',
          // minmax(0, …): a long unbroken value (a URL, a gateway message) wraps instead of
          // widening the page past a phone's screen; a long field name wraps within its 40%.
          gridTemplateColumns: {
            xs: 'fit-content(40%) minmax(0, 1fr)',
            sm: 'minmax(120px, max-content) minmax(0, 1fr)',
          },
          columnGap: 1.5,
          rowGap: 0.25,
          m: 0,
          mt: 0.25,
        }}
      >
        {group.rows.map((row, i) => (
          // A path may repeat (`a.b` beside `a: { b }`): the index keeps the keys apart.
          <Box key={`${String(i)}:${row.name}`} sx={{ display: 'contents' }}>
            <Typography
              component="dt"
              variant="caption"
              color="text.secondary"
              sx={{
                minWidth: 0,
                overflowWrap: 'anywhere',
                // A field's name as the gateway writes it, so that it can be searched for.
                ...(row.field ? { fontFamily: MONOSPACE } : {}),
              }}
            >
              {row.name}
            </Typography>
            <Typography
              component="dd"
              variant="caption"
              sx={{ m: 0, minWidth: 0, overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}
            >
              {typeof row.value === 'string'
                ? row.value
                : row.value.map((line, j) => (
                    <Box key={j} component="span" sx={{ display: 'block' }}>
                      {line}
                    </Box>
                  ))}
            </Typography>
          </Box>
        ))}
      </Box>
    </Box>
  );
}

/** The data as recorded, with a button to copy it (engineers paste it into tickets to the gateway). */
function RawData({ raw }: { raw: string }) {
  return (
    <Box sx={{ position: 'relative', mt: 0.5 }}>
      <Typography
        component="pre"
        variant="caption"
        sx={{
          m: 0,
          p: 1,
          pr: 5,
          bgcolor: 'action.hover',
          borderRadius: 1,
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          fontFamily: MONOSPACE,
        }}
      >
        {raw}
      </Typography>
      <Box className={PRINT_HIDDEN_CLASS} sx={{ position: 'absolute', top: 2, right: 2 }}>
        <CopyButton label="raw JSON" value={raw} />
      </Box>
    </Box>
  );
}

/**
 * An entry's Details: its data as labelled groups of fields (a gateway exchange's request and
 * reply, a callback's fields), with the raw JSON a disclosure further. Data of a shape the groups
 * cannot show is shown raw.
 */
function EntryDetails({ data, title }: { data: unknown; title: string }) {
  // The groups are drawn once opened: an order reconciled for days has hundreds of entries, each
  // with a few dozen fields no one reads unopened. The raw JSON is there from the start, as it
  // always was, so that the browser's find-in-page still reaches a closed entry's values.
  const [open, setOpen] = useState(false);
  const groups = timelineDetailGroups(data, title);
  const raw = rawTimelineData(data);
  return (
    <details
      onToggle={(event) => {
        setOpen(event.currentTarget.open);
      }}
    >
      <summary>
        <Typography variant="caption" component="span">
          Details
        </Typography>
      </summary>
      {groups === null ? (
        <RawData raw={raw} />
      ) : (
        <Stack spacing={1} sx={{ mt: 0.5, pl: 1.5 }}>
          {open
            ? groups.map((group, i) => (
                <DetailGroupRows key={`${String(i)}:${group.title}`} group={group} />
              ))
            : null}
          <details>
            <summary>
              <Typography variant="caption" component="span">
                Raw JSON
              </Typography>
            </summary>
            <RawData raw={raw} />
          </details>
        </Stack>
      )}
    </details>
  );
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
      {hasTimelineData(entry.data) ? <EntryDetails data={entry.data} title={look.label} /> : null}
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
