import Typography from '@mui/material/Typography';
import { formatDateAndTime, formatDateTime, formatUtc } from '../lib/format';

/**
 * An instant in the user's time zone; the UTC text is the hover tooltip (`title`) and part of the
 * accessible name. (A native tooltip rather than MUI's keeps Popper out of every table's bundle.)
 * `stacked` puts the time under the date, for narrow table columns.
 */
export function DateTime({ value, stacked = false }: { value: string; stacked?: boolean }) {
  const local = formatDateTime(value);
  const utc = formatUtc(value);
  const parts = stacked ? formatDateAndTime(value) : null;
  return (
    <time
      dateTime={value}
      title={utc}
      aria-label={`${local} (${utc})`}
      style={{ whiteSpace: 'nowrap' }}
    >
      {parts === null ? (
        local
      ) : (
        <>
          {parts.date}
          <Typography
            variant="caption"
            component="span"
            color="text.secondary"
            sx={{ display: 'block' }}
          >
            {parts.time}
          </Typography>
        </>
      )}
    </time>
  );
}
