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
  // a payment link whose reply was lost kept its client's reason as its code
  'CONNECTION-LOST',
  'SERVER-ERROR',
  'TIMEOUT',
  'UNREADABLE-REPLY',
]);

/** An HTTP status and the gateway's code as said once: `HTTP 500, INTERNAL`. */
function answered(status: string, code: string | null, message?: string): string {
  const own = code !== null && code !== '' && !OWN_CODES.has(code) && code !== `HTTP_${status}`;
  const said = message?.trim() ?? '';
  return `The gateway answered with an error (HTTP ${status}${own ? `, ${code}` : ''}${said === '' ? '' : `: ${said}`})`;
}

/** A wait recorded in milliseconds as staff read it: `15 s`, `800 ms`. */
function waited(ms: number): string {
  return ms < 1000 ? `${String(ms)} ms` : `${String(Math.round(ms / 100) / 10)} s`;
}

/**
 * What the gateway client recorded when an outcome went unlearned, as payouts and payment links
 * keep it (`gateway answered 500`, `connection lost before a reply (UND_ERR_SOCKET)`, `no reply
 * within 15000 ms`, a link's `the reply was lost (connection-lost)`), in the payments' words
 * (`unansweredText`); null for anything else.
 */
function unlearnedWords(code: string | null, text: string): string | null {
  const answer = /^gateway answered (\d{3})(?::\s*(.*))?$/s.exec(text);
  if (answer?.[1] !== undefined) return answered(answer[1], code, answer[2]);
  if (
    /^(?:connection lost before a reply\b|the connection closed before the gateway answered)/.test(
      text,
    )
  )
    return 'The gateway’s answer was lost: the connection closed before it answered';
  const noReply = /^no (?:reply|answer) within (\d+(?:\.\d+)?) (ms|s)$/.exec(text);
  if (noReply?.[1] !== undefined) {
    const ms = noReply[2] === 's' ? Number(noReply[1]) * 1000 : Number(noReply[1]);
    return `No answer came from the gateway within ${waited(Math.round(ms))}`;
  }
  if (/^the gateway(?:'s|’s)? reply could not be read/.test(text))
    return 'The gateway’s reply could not be read';
  const link = /^the reply was lost \(([a-z-]+)\)$/.exec(text);
  switch (link?.[1]) {
    case undefined:
      return null;
    case 'server-error':
      return code === null || OWN_CODES.has(code)
        ? 'The gateway answered with an error'
        : `The gateway answered with an error (${code})`;
    case 'timeout':
      return 'No answer came from the gateway in time';
    case 'connection-lost':
      return 'The gateway’s answer was lost: the connection closed before it answered';
    default:
      return 'The gateway’s reply could not be read';
  }
}

/**
 * A payout's or payment link's recorded error as one sentence for staff (`errorText`'s rules,
 * and more): what the gateway client recorded about an answer not learned is said in words, never
 * its reason codes (`connection-lost`, `server-error`); the gateway's own code is said once; and
 * Paydesk's own codes (NOT_APPLIED, PAID_AFTER_NOT_APPLIED, …) do not lead the message, which says
 * what they mean. Starts with a capital; '' when nothing is recorded.
 */
export function staffErrorText(code: string | null, message: string | null): string {
  const text = message?.trim() ?? '';
  const words = unlearnedWords(code, text);
  if (words !== null) return words;
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
