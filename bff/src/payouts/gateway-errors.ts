// Gateway refusals for payouts, payment links and card info: the payments module's mapping, with
// a 404 that does not presume the unknown thing is an order. Staff read these sentences, so the
// gateway's operation names (payout-check, payout-pay, payout-form) never appear in them: only
// the redacted exchange in the timeline's data names the operation, for engineers.
import type { Unanswered } from '@paydesk/shared/api';
import type { GatewayReply } from '@paydesk/shared/protocol';
import type { GatewayOutcome } from '../gateway-client/client.js';
import type { AppError } from '../errors.js';
import {
  answerText,
  errorAnswerOf,
  gatewayRefusal as refusal,
  unansweredColumns,
  unansweredFromProse,
  unansweredOf,
  unansweredOfRow,
  unansweredText,
} from '../payments/gateway-errors.js';
import type { UnansweredColumns } from '../payments/migration.js';

/**
 * What each payout request is, in staff's words, for `the … request` and `refused the …`
 * sentences: the two-step check, the pay that follows it, the single payout, the payee's form.
 */
export const PAYOUT_REQUEST_WORDS = {
  check: "check of the payee's details",
  pay: 'payout',
  single: 'payout',
  form: 'payout form',
} as const;

export function gatewayRefusal(
  httpStatus: number,
  reply: GatewayReply,
  operation: string,
): AppError {
  return refusal(httpStatus, reply, operation, 'it');
}

/**
 * The first sentence when a request's outcome was not learned (`subject`: `the payout`): the
 * gateway answered with an error, with its HTTP status and own code said once (`The gateway
 * answered the payout with an error (HTTP 500, INTERNAL: Internal error).`), or its answer was
 * lost, said in words (`The gateway's answer to the payout was lost (no answer within 15 s).`).
 * The payments module's words (`unansweredText`, `answerText`); never the client's reason codes.
 */
export function unlearnedSentence(
  outcome: Extract<GatewayOutcome, { kind: 'unknown' }>,
  subject: string,
): string {
  const answer = errorAnswerOf(outcome);
  if (answer !== null)
    return `The gateway answered ${subject} with an error (${answerText(answer)}).`;
  return `The gateway's answer to ${subject} was lost (${unansweredText(outcome)}).`;
}

/**
 * Why a payout's outcome is not known, as a short clause for staff: `the gateway answered 500` (its
 * HTTP status said once: the gateway's own code and words stay in the timeline's exchange), or the
 * answer lost, in words (`no answer within 15 s`).
 */
export function unlearnedWhy(outcome: Extract<GatewayOutcome, { kind: 'unknown' }>): string {
  const answer = errorAnswerOf(outcome);
  if (answer !== null) return `the gateway answered ${String(answer.httpStatus)}`;
  return unansweredText(outcome);
}

/**
 * The columns of how an outcome went unlearned, for a payout's or a link's write: the outcome's
 * (`unansweredOf`), or, for any other write that changes its state or its recorded error, null
 * (the outcome is learned, or the error is a refusal or Paydesk's own words).
 */
export function unansweredSet(
  outcome: Extract<GatewayOutcome, { kind: 'unknown' }> | null,
): UnansweredColumns {
  return unansweredColumns(outcome === null ? null : unansweredOf(outcome));
}

/**
 * A payout's or link's `unanswered` from its columns only (0026 filled those of older rows from
 * their words once): the recorded error is never read again.
 */
export function unansweredOfColumns(row: UnansweredColumns): Unanswered | null {
  return unansweredOfRow({ ...row, error_code: null, error_message: null });
}

/** A link's words for an error answer (`unansweredText`): `the gateway answered with an error …` */
const LINK_ERROR_WORDS =
  /^the gateway answered with an error \(HTTP (\d{3})(.*)\)(?: that Paydesk could not read)?$/s;

/** A link's code for a lost reply: its client's reason (`SERVER-ERROR`), not the gateway's. */
const LINK_REASON_CODES = new Set([
  'CONNECTION-LOST',
  'SERVER-ERROR',
  'TIMEOUT',
  'UNREADABLE-REPLY',
]);

/**
 * For migration 0026 only: how a payout's or link's outcome went unlearned, from the words it
 * recorded before it kept `unanswered` (null: they do not say). The client's own words and the
 * payments' (`unansweredFromProse`: `gateway answered 500`, `no reply within 15000 ms`, …), and a
 * link's `unansweredText` of an error answer (`the gateway answered with an error (HTTP 500,
 * INTERNAL: Internal error)`, the gateway's code in `error_code`).
 */
export function unansweredOfRecorded(
  errorCode: string | null,
  errorMessage: string | null,
): Unanswered | null {
  const code = errorCode === null || LINK_REASON_CODES.has(errorCode) ? null : errorCode;
  const prose = unansweredFromProse(code, errorMessage);
  if (prose !== null) return prose;
  const answered = LINK_ERROR_WORDS.exec(errorMessage?.trim() ?? '');
  if (answered?.[1] === undefined) return null;
  const httpStatus = Number(answered[1]);
  let rest = answered[2] ?? '';
  const named =
    code !== null && code !== `HTTP_${String(httpStatus)}` && rest.startsWith(`, ${code}`);
  if (named) rest = rest.slice(code.length + 2);
  const message = rest.startsWith(': ') ? rest.slice(2).trim() : '';
  return {
    kind: 'error',
    httpStatus,
    code: named ? code : null,
    message: message === '' ? null : message,
  };
}

/**
 * For migration 0026 only: a link whose oldest words kept only the client's reason (`the reply was
 * lost (server-error)`), from the exchange its timeline kept of the create (`events`: the link's
 * gateway entries' data, newest first): the client's words and the gateway's code and message.
 * Without it, what the reason alone says (a closed connection, an unreadable reply); null for an
 * error answer or a wait whose status or length it does not keep.
 */
export function unansweredOfLostLink(
  errorMessage: string,
  events: readonly string[],
): Unanswered | null {
  for (const data of events) {
    let exchange: unknown;
    try {
      exchange = JSON.parse(data);
    } catch {
      continue;
    }
    if (typeof exchange !== 'object' || exchange === null) continue;
    const { outcome, error, reply } = exchange as Record<string, unknown>;
    if (outcome !== 'unknown' || typeof error !== 'string') continue;
    const fields =
      typeof reply === 'object' && reply !== null ? (reply as Record<string, unknown>) : {};
    const code = typeof fields['error-code'] === 'string' ? fields['error-code'] : null;
    const message = typeof fields['error-message'] === 'string' ? fields['error-message'] : '';
    const said =
      /^gateway answered \d{3}$/.test(error) && message.trim() !== ''
        ? `${error}: ${message}`
        : error;
    const found = unansweredFromProse(code, said);
    if (found !== null) return found;
  }
  switch (/^the reply was lost \(([a-z-]+)\)$/.exec(errorMessage)?.[1]) {
    case 'connection-lost':
      return { kind: 'connection-closed' };
    case 'unreadable-reply':
      return { kind: 'unreadable', httpStatus: null };
    default:
      return null;
  }
}
