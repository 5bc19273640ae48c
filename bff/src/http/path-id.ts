// The `:id` of an API address. Paydesk's ids are UUIDs, written in lower case: one copied in upper
// case (a spreadsheet, an e-mail) names the same record, as the list's `q` and the SPA's look-up
// read it; anything not UUID-shaped (8-4-4-4-12 hex digits) names nothing and is refused before a
// query, never echoed back in a 404.
import { TRANSACTION_ID_PATTERN } from '@paydesk/shared/api';
import { invalidParam } from '../errors.js';

/** `raw` as the id it names, in lower case; 400 naming `params.id` with `message` otherwise. */
export function uuidParam(raw: unknown, message: string): string {
  if (typeof raw !== 'string' || !TRANSACTION_ID_PATTERN.test(raw))
    throw invalidParam('id', message);
  return raw.toLowerCase();
}
