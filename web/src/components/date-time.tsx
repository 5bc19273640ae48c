import { formatDateTime, formatUtc } from '../lib/format';

/**
 * An instant in the user's time zone; the UTC text is the hover tooltip (`title`) and part of the
 * accessible name. (A native tooltip rather than MUI's keeps Popper out of every table's bundle.)
 */
export function DateTime({ value }: { value: string }) {
  const local = formatDateTime(value);
  const utc = formatUtc(value);
  return (
    <time
      dateTime={value}
      title={utc}
      aria-label={`${local} (${utc})`}
      style={{ whiteSpace: 'nowrap' }}
    >
      {local}
    </time>
  );
}
