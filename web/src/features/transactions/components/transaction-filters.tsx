import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import {
  SEARCH_CARD_NUMBER_REFUSAL,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  TransactionFilterSchema,
  transactionFilterRangeIssues,
  type CreatedPreset,
  type TransactionFilter,
  type TransactionStatus,
} from '@paydesk/shared/api';
import { useState, type SyntheticEvent } from 'react';
import { AnySelect } from '../../../components/any-select';
import { CollapsibleFilters, useFoldedFilters } from '../../../components/collapsible-filters';
import { DateTimeRangeFields } from '../../../components/date-time-range-fields';
import { useAppliedDraft } from '../../../lib/applied-draft';
import { currencyRefusal } from '../../../lib/form-errors';
import { isoToLocalInput, localInputToIso } from '../../../lib/local-datetime';
import { localAmount, localAmountExample, readAmount } from '../../../lib/money';
import { CREATED_PRESET_OPTIONS, resolveCreatedPreset } from '../api/created-presets';
import { NOT_MADE_DAYS } from '@paydesk/shared/domain';
import { TYPE_LABELS } from './labels';
import { STATUS_LOOK } from './status-chip';

/**
 * The status filter's `unknown` also takes the orders with a follow-up whose outcome is unknown,
 * whatever their own status (the BFF's `status=unknown`): its label and help say so.
 */
export const UNKNOWN_OUTCOME_FILTER = {
  label: 'Unknown outcome (order or follow-up)',
  help: 'Orders whose outcome is unknown, and orders with a capture, return, void or card reference whose outcome is unknown.',
} as const;

/** A status as the filter names it (the form, a saved view's description). */
export function statusFilterLabel(status: TransactionStatus): string {
  return status === 'unknown' ? UNKNOWN_OUTCOME_FILTER.label : STATUS_LOOK[status].label;
}

const DRIFT_OPTIONS = [
  { value: 'true', label: 'Flagged: the gateway contradicted Paydesk' },
  { value: 'false', label: 'Not flagged' },
];

/**
 * The follow-ups filter (the BFF's `notMade=true`): the orders Home's "Not made by the gateway"
 * card counts. Its label and help say which follow-ups, and over which days.
 */
export const NOT_MADE_FILTER = {
  label: 'Follow-ups',
  option: `Not made, last ${String(NOT_MADE_DAYS)} days`,
  help: `Orders with a return, capture, void, card reference or rebill staff asked for in the last ${String(NOT_MADE_DAYS)} days that the gateway did not make and no one has made again since.`,
} as const;

interface Draft {
  q: string;
  status: string;
  type: string;
  endpoint: string;
  currency: string;
  /** a relative window ('' = the dates as typed) */
  created: CreatedPreset | '';
  createdFrom: string;
  createdTo: string;
  amountMin: string;
  amountMax: string;
  drift: string;
  notMade: string;
}

type DraftKey = keyof Draft;
type TextKey = 'q' | 'endpoint' | 'currency' | 'amountMin' | 'amountMax';

interface Applied {
  filter: TransactionFilter;
  created: CreatedPreset | undefined;
}

function draftOf({ filter, created }: Applied): Draft {
  return {
    created: created ?? '',
    q: filter.q ?? '',
    status: filter.status ?? '',
    type: filter.type ?? '',
    endpoint: filter.endpoint ?? '',
    currency: filter.currency ?? '',
    createdFrom: isoToLocalInput(filter.createdFrom),
    createdTo: isoToLocalInput(filter.createdTo),
    // Shown in the user's locale ('10,5'), as typed: applying must not rewrite what was typed.
    amountMin: localAmount(filter.amountMin ?? ''),
    amountMax: localAmount(filter.amountMax ?? ''),
    drift: filter.drift ?? '',
    notMade: filter.notMade ?? '',
  };
}

/** An amount's rule, with the example in the user's locale (read when said, not at import). */
const amountRule = () =>
  `An amount with at most 2 decimals, like 10 or ${localAmountExample('19.99')}.`;

const RULES: Record<TextKey, () => string> = {
  q: () => 'At most 128 characters.',
  endpoint: () => 'An endpoint id is digits only.',
  currency: () => 'A three-letter code, e.g. EUR.',
  amountMin: amountRule,
  amountMax: amountRule,
};

/**
 * A field's text as the filter takes it: an amount typed in the user's locale ('19,99') made plain
 * and tidied ('05' → '5'), as the forms read it (`readAmount`).
 */
function valueOf(draft: Draft, key: TextKey): string {
  const value = draft[key].trim();
  if (key !== 'amountMin' && key !== 'amountMax') return value;
  return readAmount(value).amount ?? value;
}

/** The shared rules across fields (the BFF's own): which upper bounds are out of range. */
function rangeIssuesOf(draft: Draft): Set<'createdTo' | 'amountMax'> {
  const issues = transactionFilterRangeIssues({
    createdFrom: localInputToIso(draft.createdFrom),
    createdTo: localInputToIso(draft.createdTo),
    amountMin: valueOf(draft, 'amountMin'),
    amountMax: valueOf(draft, 'amountMax'),
  });
  return new Set(issues.map((issue) => issue.path));
}

/** Each field checked with the shared schema's own rule; the message says what to type. */
function errorsOf(draft: Draft): Partial<Record<TextKey, string>> {
  const errors: Partial<Record<TextKey, string>> = {};
  for (const key of Object.keys(RULES) as TextKey[]) {
    const value = valueOf(draft, key);
    if (value === '') continue;
    // An amount refused for its separators or its size says so (readAmount), not the usual rule.
    // A currency without cents (JPY) or no real one (XXX) says that rule, not the code's form.
    const parsed = TransactionFilterSchema.shape[key].safeParse(value);
    if (!parsed.success)
      errors[key] =
        (key === 'amountMin' || key === 'amountMax' ? readAmount(draft[key]).refusal : undefined) ??
        (key === 'currency' ? currencyRefusal(parsed.error.issues[0]?.message) : undefined) ??
        (key === 'q' && parsed.error.issues[0]?.message === SEARCH_CARD_NUMBER_REFUSAL
          ? 'Not a whole card number: search by its last four digits or the masked card (411111******1111).'
          : undefined) ??
        RULES[key]();
  }
  if (errors.amountMax === undefined && rangeIssuesOf(draft).has('amountMax')) {
    errors.amountMax = 'Must not be below the minimum.';
  }
  return errors;
}

function filterOfDraft(draft: Draft): TransactionFilter {
  const candidate: Record<string, string> = {};
  for (const key of [
    'q',
    'status',
    'type',
    'endpoint',
    'currency',
    'amountMin',
    'amountMax',
    'drift',
    'notMade',
  ] as const) {
    const value =
      key === 'amountMin' || key === 'amountMax' ? valueOf(draft, key) : draft[key].trim();
    if (value !== '') candidate[key] = value;
  }
  const from = localInputToIso(draft.createdFrom);
  if (from !== undefined) candidate.createdFrom = from;
  const to = localInputToIso(draft.createdTo);
  if (to !== undefined) candidate.createdTo = to;
  const parsed = TransactionFilterSchema.safeParse(candidate);
  return parsed.success ? parsed.data : {};
}

/**
 * Edits a draft; the URL (and so the table) changes only on "Apply", so typing does not fire
 * requests. The draft follows the applied filter (back/forward, a view) without a remount, so the
 * keyboard focus stays in the form after "Apply". "Clear" empties the form and the applied filters,
 * if any.
 */
/**
 * The transactions' filter bar (a `CollapsibleFilters`): on a phone the search stays in view above
 * the folded filters, since finding an order is what support comes for.
 */
export function TransactionFilters({
  value,
  created,
  appliedKey,
  onApply,
}: {
  value: TransactionFilter;
  /** the applied relative window, whose dates `value` holds as of today */
  created: CreatedPreset | undefined;
  /** the applied filter in some stable text form: the folded bar closes when it changes */
  appliedKey: string;
  onApply: (filter: TransactionFilter, created: CreatedPreset | undefined) => void;
}) {
  const folded = useFoldedFilters();
  const [touched, setTouched] = useState(false);
  const [draft, setDraft, resetTo] = useAppliedDraft({ filter: value, created }, draftOf, () => {
    setTouched(false);
  });
  const set = (key: Exclude<DraftKey, 'created'>) => (event: { target: { value: string } }) => {
    setDraft((current) => ({ ...current, [key]: event.target.value }));
  };
  // Typing a date makes the window fixed; choosing a relative one shows its dates as of today.
  const setDate = (key: 'createdFrom' | 'createdTo') => (event: { target: { value: string } }) => {
    setDraft((current) => ({ ...current, created: '', [key]: event.target.value }));
  };
  const choosePreset = (event: { target: { value: string } }) => {
    const preset = CREATED_PRESET_OPTIONS.find((option) => option.value === event.target.value);
    if (preset === undefined) {
      setDraft((current) => ({ ...current, created: '' }));
      return;
    }
    const window = resolveCreatedPreset(preset.value);
    setDraft((current) => ({
      ...current,
      created: preset.value,
      createdFrom: isoToLocalInput(window.createdFrom),
      createdTo: isoToLocalInput(window.createdTo),
    }));
  };
  const errors = errorsOf(draft);
  const rangeInverted = rangeIssuesOf(draft).has('createdTo');
  const invalid = Object.keys(errors).length > 0 || rangeInverted;
  const shown = (key: TextKey) => (touched || draft[key] !== '' ? errors[key] : undefined);

  // An Apply refused for a field in error: said until the draft is right again, since the list
  // below still shows the filters applied before (QA read an earlier search's results as this one's).
  const [refused, setRefused] = useState(false);
  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    setRefused(invalid);
    if (invalid) return;
    onApply(filterOfDraft(draft), draft.created === '' ? undefined : draft.created);
  };

  const text = (
    key: TextKey,
    label: string,
    extra: { placeholder?: string; inputMode?: 'decimal' | 'numeric' } = {},
  ) => (
    <TextField
      label={label}
      value={draft[key]}
      onChange={set(key)}
      fullWidth
      size="small"
      error={shown(key) !== undefined}
      helperText={shown(key)}
      {...(extra.placeholder === undefined ? {} : { placeholder: extra.placeholder })}
      slotProps={extra.inputMode === undefined ? {} : { htmlInput: { inputMode: extra.inputMode } }}
    />
  );

  const search = text('q', 'Search', {
    placeholder: 'orderid, client order id, e-mail or last four',
  });
  const active = Object.keys(value).filter((key) => !folded || key !== 'q').length;
  return (
    <form aria-label="Transaction filters" onSubmit={submit} noValidate role="search">
      <CollapsibleFilters
        appliedKey={appliedKey}
        active={active}
        {...(folded ? { lead: search } : {})}
      >
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: 'repeat(4, 1fr)' },
          }}
        >
          {folded ? null : <Box sx={{ gridColumn: { sm: 'span 2' } }}>{search}</Box>}
          <AnySelect
            label="Status"
            value={draft.status}
            onChange={set('status')}
            options={TRANSACTION_STATUSES.map((status) => ({
              value: status,
              label: statusFilterLabel(status),
            }))}
            helperText={draft.status === 'unknown' ? UNKNOWN_OUTCOME_FILTER.help : undefined}
          />
          <AnySelect
            label="Type"
            value={draft.type}
            onChange={set('type')}
            options={TRANSACTION_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }))}
          />
          <AnySelect
            label="Drift"
            value={draft.drift}
            onChange={set('drift')}
            options={DRIFT_OPTIONS}
          />
          <AnySelect
            label={NOT_MADE_FILTER.label}
            value={draft.notMade}
            onChange={set('notMade')}
            options={[{ value: 'true', label: NOT_MADE_FILTER.option }]}
            helperText={draft.notMade === 'true' ? NOT_MADE_FILTER.help : undefined}
          />
          {text('endpoint', 'Endpoint', { inputMode: 'numeric' })}
          {text('currency', 'Currency', { placeholder: 'EUR' })}
          {text('amountMin', 'Amount from', { inputMode: 'decimal' })}
          {text('amountMax', 'Amount to', { inputMode: 'decimal' })}
          <DateTimeRangeFields
            presets={{
              label: 'Created (your time)',
              value: draft.created,
              onChange: choosePreset,
              options: CREATED_PRESET_OPTIONS,
            }}
            from={{
              label: 'Created from (your time)',
              value: draft.createdFrom,
              onChange: setDate('createdFrom'),
            }}
            to={{
              label: 'Created before (your time)',
              value: draft.createdTo,
              onChange: setDate('createdTo'),
            }}
            inverted={rangeInverted}
            invertedHelp="Must be after “Created from”."
          />
        </Box>
        <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
          <Button type="submit" variant="contained">
            Apply filters
          </Button>
          <Button
            onClick={() => {
              // The form empties even when nothing was applied (a draft that was never applied).
              resetTo({ filter: {}, created: undefined });
              onApply({}, undefined);
            }}
          >
            Clear
          </Button>
        </Stack>
      </CollapsibleFilters>
      {refused && invalid ? (
        <Alert severity="warning" sx={{ mt: 2 }}>
          Not applied: correct the field marked in red. The list below still shows the filters
          applied before.
        </Alert>
      ) : null}
    </form>
  );
}
