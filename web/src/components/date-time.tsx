import Typography from '@mui/material/Typography';
import { formatDateAndTime, formatDateTime, formatUtc } from '../lib/format';

const ZONE_SX = { color: 'text.secondary', fontSize: '0.85em' } as const;

/**
 * An instant in the user's time zone, whose short name follows the time ('… 5:48:21 PM UTC'); the
 * UTC text is the hover tooltip (`title`) and part of the accessible name. (A native tooltip rather
 * than MUI's keeps Popper out of every table's bundle.) The date and the time each stay whole, but
 * the line may break between them in a narrow column. `stacked` puts the time under the date, for
 * narrow table columns.
 */
export function DateTime({ value, stacked = false }: { value: string; stacked?: boolean }) {
  const local = formatDateTime(value);
  const utc = formatUtc(value);
  const parts = formatDateAndTime(value);
  const zone = (
    <Typography component="span" sx={ZONE_SX}>
      {parts.zone}
    </Typography>
  );
  if (stacked) {
    return (
      <time dateTime={value} title={utc} aria-label={`${local} ${parts.zone} (${utc})`}>
        <span style={{ whiteSpace: 'nowrap' }}>{parts.date}</span>
        <Typography
          variant="caption"
          component="span"
          color="text.secondary"
          sx={{ display: 'block', whiteSpace: 'nowrap' }}
        >
          {parts.time} {parts.zone}
        </Typography>
      </time>
    );
  }
  // The date with the locale's separator ('Nov 25, 2026,'), then the time, as formatDateTime
  // writes them together.
  const at = local.lastIndexOf(parts.time);
  const datePart = at > 0 ? local.slice(0, at).trimEnd() : null;
  return (
    <time dateTime={value} title={utc} aria-label={`${local} ${parts.zone} (${utc})`}>
      {datePart === null ? null : (
        <>
          <span style={{ whiteSpace: 'nowrap' }}>{datePart}</span>{' '}
        </>
      )}
      <span style={{ whiteSpace: 'nowrap' }}>
        {datePart === null ? local : parts.time} {zone}
      </span>
    </time>
  );
}
