import TextField from '@mui/material/TextField';

interface End {
  label: string;
  value: string;
  onChange: (event: { target: { value: string } }) => void;
}

/**
 * A filter bar's from/to pair of `datetime-local` fields (the user's wall clock; see
 * lib/local-datetime). The "to" field says `invertedHelp` while the range is empty or backwards.
 */
export function DateTimeRangeFields({
  from,
  to,
  inverted,
  invertedHelp,
}: {
  from: End;
  to: End;
  inverted: boolean;
  invertedHelp: string;
}) {
  return (
    <>
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
