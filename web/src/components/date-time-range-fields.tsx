import TextField from '@mui/material/TextField';

interface End {
  label: string;
  value: string;
  onChange: (event: { target: { value: string } }) => void;
}

/** A choice of windows relative to today ('Last 7 days'); the empty one means the dates typed. */
interface Presets {
  label: string;
  value: string;
  onChange: (event: { target: { value: string } }) => void;
  options: readonly { value: string; label: string }[];
}

/**
 * A filter bar's from/to pair of `datetime-local` fields (the user's wall clock; see
 * lib/local-datetime). The "to" field says `invertedHelp` while the range is empty or backwards.
 * With `presets`, a select before them offers relative windows (the caller fills the dates).
 */
export function DateTimeRangeFields({
  from,
  to,
  inverted,
  invertedHelp,
  presets,
}: {
  from: End;
  to: End;
  inverted: boolean;
  invertedHelp: string;
  presets?: Presets;
}) {
  return (
    <>
      {presets === undefined ? null : (
        <TextField
          select
          label={presets.label}
          value={presets.value}
          onChange={presets.onChange}
          fullWidth
          size="small"
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
        >
          <option value="">Fixed dates</option>
          {presets.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </TextField>
      )}
      <TextField
        label={from.label}
        type="datetime-local"
        value={from.value}
        onChange={from.onChange}
        fullWidth
        size="small"
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        label={to.label}
        type="datetime-local"
        value={to.value}
        onChange={to.onChange}
        fullWidth
        size="small"
        error={inverted}
        helperText={inverted ? invertedHelp : undefined}
        slotProps={{ inputLabel: { shrink: true } }}
      />
    </>
  );
}
