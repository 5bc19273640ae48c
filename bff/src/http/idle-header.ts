// The SPA's word on when its user last acted (shared IDLE_HEADER), read for the session's idle
// timeout (services/auth.ts `authenticate`).
import { IDLE_HEADER } from '@paydesk/shared/api';
import { fieldRefusal } from '../errors.js';

const PATH = `header.${IDLE_HEADER}`;

/**
 * How long ago (ms) the user last acted, by the request's `Paydesk-Idle-Ms` header: 0 (the
 * request itself is the activity) when it is absent, as from a client other than the SPA.
 */
export function idleMsOf(header: string | undefined): number {
  if (header === undefined) return 0;
  // Node joins a header sent several times with ", ": several values, said as such.
  if (header.includes(','))
    throw fieldRefusal(PATH, 'single', `send one ${IDLE_HEADER} header, not several`);
  const text = header.trim();
  if (!/^\d{1,15}$/.test(text))
    throw fieldRefusal(PATH, 'format', 'must be a whole number of milliseconds (digits only)');
  return Number(text);
}
