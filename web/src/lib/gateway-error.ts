/**
 * A refusal's code and message as one line. The BFF's messages often name the code already
 * ("The gateway rejected … (VALIDATION_FAILED): …"); the code is then not said twice.
 */
export function errorText(code: string | null, message: string | null): string {
  const text = message?.trim() ?? '';
  if (code === null || code === '') return text;
  if (text === '') return code;
  return text.includes(code) ? text : `${code}: ${text}`;
}

/**
 * Codes that are Paydesk's own or its gateway client's, not the gateway's: kept in the API's
 * `errorCode` (for filters and support) but never said to staff as a `CODE:` prefix, since the
 * message beside them already says what happened.
 */
const OWN_CODES = new Set([
  'NOT_APPLIED',
  'PAID_AFTER_NOT_APPLIED',
  'NOT_SENT',
  'INTERRUPTED',
  // a payment link whose reply was lost keeps its client's reason as its code
  'CONNECTION-LOST',
  'SERVER-ERROR',
  'TIMEOUT',
  'UNREADABLE-REPLY',
]);

/**
 * A payout's or payment link's recorded error as one sentence for staff (`errorText`'s rules): a
 * gateway refusal with its code said once, or Paydesk's own words without its own code leading
 * them (NOT_APPLIED, PAID_AFTER_NOT_APPLIED, …). How an outcome went unlearned is not read from
 * these words: the record's `unanswered` says it (payouts' `recordedErrorText`). Starts with a
 * capital; '' when nothing is recorded.
 */
export function staffErrorText(code: string | null, message: string | null): string {
  const text = message?.trim() ?? '';
  const shown = code !== null && OWN_CODES.has(code) ? null : code;
  if (text === '' && shown === null) return '';
  const said = errorText(shown, text === '' ? null : text);
  return said.charAt(0).toUpperCase() + said.slice(1);
}

/**
 * `staffErrorText` to follow a colon inside a sentence (`The outcome is not known yet: the
 * gateway answered …`): its first letter lower-cased unless it starts a code or acronym, without
 * its closing full stop.
 */
export function asClause(text: string): string {
  const bare = text.replace(/\.\s*$/, '');
  return /^[A-Z][a-z’']/.test(bare) ? bare.charAt(0).toLowerCase() + bare.slice(1) : bare;
}
