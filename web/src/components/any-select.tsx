import TextField from '@mui/material/TextField';

/** A filter's native select whose empty choice, "Any", means "not filtered". */
export function AnySelect({
  label,
  value,
  onChange,
  options,
  helperText,
}: {
  label: string;
  value: string;
  onChange: (event: { target: { value: string } }) => void;
  options: readonly { value: string; label: string }[];
  /** what the chosen value means, when its label cannot say it all */
  helperText?: string | undefined;
}) {
  return (
    <TextField
      select
      label={label}
      value={value}
      onChange={onChange}
      fullWidth
      size="small"
      helperText={helperText}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
    >
      <option value="">Any</option>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </TextField>
  );
}
