import Button from '@mui/material/Button';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { AUDIT_OUTCOMES, type AuditFilter, type AuditOutcome } from '@paydesk/shared/api';
import { type SyntheticEvent } from 'react';
import { AnySelect } from '../../../components/any-select';
import { DateTimeRangeFields } from '../../../components/date-time-range-fields';
import { isoToLocalInput, localInputToIso } from '../api/audit-search-params';
import { useAppliedDraft } from '../../../lib/applied-draft';
import { formatDateAndTime } from '../../../lib/format';

interface Draft {
  actor: string;
  action: string;
  target: string;
  outcome: AuditOutcome | '';
  from: string;
  to: string;
}

function draftOf(filter: AuditFilter): Draft {
  return {
    actor: filter.actor ?? '',
    action: filter.action ?? '',
    target: filter.target ?? '',
    outcome: filter.outcome ?? '',
    from: isoToLocalInput(filter.from),
    to: isoToLocalInput(filter.to),
  };
}

function filterOfDraft(draft: Draft): AuditFilter {
  const filter: AuditFilter = {};
  if (draft.actor.trim() !== '') filter.actor = draft.actor.trim();
  if (draft.action.trim() !== '') filter.action = draft.action.trim();
  if (draft.target.trim() !== '') filter.target = draft.target.trim();
  if (draft.outcome !== '') filter.outcome = draft.outcome;
  const from = localInputToIso(draft.from);
  if (from !== undefined) filter.from = from;
  const to = localInputToIso(draft.to);
  if (to !== undefined) filter.to = to;
  return filter;
}

/** An outcome in words: the filter's options and the table's chips say it alike. */
export const OUTCOME_LABELS: Record<AuditOutcome, string> = {
  success: 'Success',
  refused: 'Refused',
  failed: 'Failed',
  unknown: 'Unknown (reply lost)',
};

/**
 * Edits a draft; the URL (and so the table) changes only on "Apply", so typing does not fire requests.
 * The draft follows the applied filter (back/forward) without a remount, so the keyboard focus
 * stays in the form after "Apply". "Clear" empties the form and the applied filters, if any.
 */
export function AuditFilters({
  value,
  onApply,
}: {
  value: AuditFilter;
  onApply: (filter: AuditFilter) => void;
}) {
  const [draft, setDraft, resetTo] = useAppliedDraft(value, draftOf);
  const set = (key: keyof Draft) => (event: { target: { value: string } }) => {
    setDraft((current) => ({ ...current, [key]: event.target.value }));
  };
  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    onApply(filterOfDraft(draft));
  };
  const rangeInverted = draft.from !== '' && draft.to !== '' && draft.from >= draft.to;
  // The dates are typed on the reader's clock: named by the zone the table's times show ('UTC',
  // 'CET', 'GMT+1'), so that a time copied from a row means the same here.
  const zone = formatDateAndTime(new Date()).zone;

  return (
    <form aria-label="Audit filters" onSubmit={submit} noValidate>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: '1fr 1fr 1fr' },
        }}
      >
        <TextField
          label="Actor"
          placeholder="e-mail or user id"
          helperText="An e-mail or its beginning (support finds support@…), or a user id."
          value={draft.actor}
          onChange={set('actor')}
          fullWidth
          size="small"
        />
        <TextField
          label="Action"
          placeholder="user.create, or user for all"
          helperText="The name under an action’s words in the table, or its beginning: payout finds every payout action."
          value={draft.action}
          onChange={set('action')}
          fullWidth
          size="small"
        />
        <TextField
          label="Target"
          // What the Target column shows finds its rows, as does the target as stored (the BFF's
          // services/audit-targets.ts).
          placeholder="id, order number, e-mail, or as stored"
          helperText="A record’s id as in its page’s address (payout: before it or not), its order number at the gateway or our order reference, an e-mail, or a card reference."
          value={draft.target}
          onChange={set('target')}
          fullWidth
          size="small"
        />
        <AnySelect
          label="Outcome"
          value={draft.outcome}
          onChange={set('outcome')}
          options={AUDIT_OUTCOMES.map((outcome) => ({
            value: outcome,
            label: OUTCOME_LABELS[outcome],
          }))}
        />
        <DateTimeRangeFields
          from={{ label: `From (${zone})`, value: draft.from, onChange: set('from') }}
          to={{ label: `To (${zone})`, value: draft.to, onChange: set('to') }}
          inverted={rangeInverted}
          invertedHelp="Must be after “From”."
        />
      </Box>
      <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
        <Button type="submit" variant="contained" disabled={rangeInverted}>
          Apply filters
        </Button>
        <Button
          onClick={() => {
            // The form empties even when nothing was applied (a draft that was never applied).
            resetTo({});
            onApply({});
          }}
        >
          Clear
        </Button>
      </Stack>
    </form>
  );
}
