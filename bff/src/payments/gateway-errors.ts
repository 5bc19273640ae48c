// A gateway refusal (400/401/404/409, or a 200 that is not the expected reply) as a staff-facing
// AppError carrying the gateway's error code; the raw reply stays in the redacted timeline.
import type { Unanswered } from '@paydesk/shared/api';
import type { GatewayReply } from '@paydesk/shared/protocol';
import type { GatewayOutcome } from '../gateway-client/client.js';
import { AppError } from '../errors.js';
import type { UnansweredColumns } from './migration.js';

export interface GatewayRefusalDetails {
  gatewayHttpStatus: number;
  gatewayErrorCode: string | null;
  [key: string]: unknown;
}

function quote(text: string | undefined): string {
  const clean = cleanMessage(text ?? null);
  return clean === null ? '' : `: ${clean}`;
}

export function gatewayRefusal(
  httpStatus: number,
  reply: GatewayReply,
  operation: string,
  /** what a 404 says the gateway does not know */
  unknownSubject = 'this order',
): AppError {
  const code = reply.errorCode ?? null;
  const details: GatewayRefusalDetails = { gatewayHttpStatus: httpStatus, gatewayErrorCode: code };
  const tag = code ?? `HTTP ${httpStatus}`;
  switch (httpStatus) {
    case 400:
      return new AppError(
        'GATEWAY_ERROR',
        `The gateway rejected the ${operation} request as invalid (${tag})${quote(reply.errorMessage)}. Nothing was changed.`,
        details,
      );
    case 401:
    case 403:
      return new AppError(
        'GATEWAY_ERROR',
        `The gateway did not accept Paydesk's credentials for ${operation} (${tag}). Ask an administrator to check the merchant login and keys.`,
        details,
      );
    case 404:
      return new AppError(
        'NOT_FOUND',
        `The gateway does not know ${unknownSubject} (${tag})${quote(reply.errorMessage)}.`,
        details,
      );
    case 409:
      return new AppError(
        'INVALID_STATE',
        `The gateway refused the ${operation} in the order's current state (${tag})${quote(reply.errorMessage)}.`,
        details,
      );
    default:
      return new AppError(
        'GATEWAY_ERROR',
        `The gateway answered the ${operation} request with ${reply.type} (${tag})${quote(reply.errorMessage)}.`,
        details,
      );
  }
}

/** How an operation's outcome is recorded: state, the gateway's serial and error, staff text. */
export interface RecordedOutcome {
  state: 'not_sent' | 'unknown';
  serial: null;
  /** the gateway's error-code of a 5xx reply (`HTTP_<status>` when it names none); null: no reply */
  errorCode: string | null;
  errorMessage: string | null;
  /** how the outcome went unlearned (null: not sent); stored by `unansweredColumns` */
  unanswered: Unanswered | null;
  title: string;
  message: string;
}

/** Milliseconds as staff read them: `15 s`, `1.5 s`, `800 ms`. */
function duration(ms: number): string {
  if (ms < 1000) return `${String(ms)} ms`;
  return `${String(Math.round(ms / 100) / 10)} s`;
}

/** What the gateway said in a 5xx reply: its HTTP status, error-code and error-message. */
export interface ErrorAnswer {
  httpStatus: number;
  code: string | null;
  message: string | null;
}

/** The gateway's error answer (a 5xx) of an outcome not learned; null: no reply at all. */
export function errorAnswerOf(outcome: GatewayOutcome): ErrorAnswer | null {
  if (outcome.kind !== 'unknown' || outcome.reason !== 'server-error') return null;
  const { exchange } = outcome;
  const reply = exchange.reply ?? {};
  const code = reply['error-code'];
  const message = reply['error-message'];
  return {
    httpStatus: exchange.httpStatus ?? 500,
    code: code === undefined || code.trim() === '' ? null : code.trim(),
    message: message === undefined || message.trim() === '' ? null : message,
  };
}

/** A 5xx answer as one line: `HTTP 500, INTERNAL: Internal error`. */
export function answerText(answer: ErrorAnswer): string {
  const code = answer.code === null ? '' : `, ${answer.code}`;
  return `HTTP ${String(answer.httpStatus)}${code}${quote(answer.message ?? undefined)}`;
}

/**
 * An outcome Paydesk did not learn, in words for staff: the gateway answered with an error (its
 * HTTP status, code and message), did not answer in time, closed the connection, or sent a reply
 * that could not be read. The library's own codes stay in the timeline's data.
 */
export function unansweredText(outcome: Exclude<GatewayOutcome, { kind: 'reply' }>): string {
  if (outcome.kind === 'not-sent') return 'the request could not reach the gateway';
  const answer = errorAnswerOf(outcome);
  if (answer !== null) {
    const unread = outcome.exchange.reply === null ? ' that Paydesk could not read' : '';
    return `the gateway answered with an error (${answerText(answer)})${unread}`;
  }
  switch (outcome.reason) {
    case 'timeout':
      return `no answer within ${duration(outcome.waitedMs)}`;
    case 'connection-lost':
      return 'the connection closed before the gateway answered';
    default:
      return `the gateway's reply could not be read${outcome.exchange.httpStatus === null ? '' : ` (HTTP ${String(outcome.exchange.httpStatus)})`}`;
  }
}

/**
 * 503 for a question to the gateway (get-card-info) that got no usable answer, in words for staff:
 * an error answer as its HTTP status and error code only (`HTTP 500, code INTERNAL`: the gateway's
 * own error-message is for the logs, not for finance staff), or no answer in words (`no answer
 * within 15 s`), never the client's own reason code nor the operation's API name. `asked` is the
 * question as staff read it (`the card information request`); `consequence` what the caller did
 * not do because of it (`nothing was charged or recorded`; default: `nothing was changed`, which
 * is true of a question). Either way the request may be repeated.
 */
export function unansweredQuestion(
  outcome: Exclude<GatewayOutcome, { kind: 'reply' }>,
  asked: string,
  consequence = 'nothing was changed',
): AppError {
  const retry = `; ${consequence}. Try again in a minute.`;
  const answer = errorAnswerOf(outcome);
  if (answer !== null) {
    const code = answer.code === null ? '' : `, code ${answer.code}`;
    return new AppError(
      'GATEWAY_UNAVAILABLE',
      `The gateway could not answer ${asked} just now (HTTP ${String(answer.httpStatus)}${code})${retry}`,
      { gatewayHttpStatus: answer.httpStatus, gatewayErrorCode: answer.code },
    );
  }
  return new AppError(
    'GATEWAY_UNAVAILABLE',
    `The gateway did not answer ${asked} (${unansweredText(outcome)})${retry}`,
    { gatewayErrorCode: null },
  );
}

/** A short tag of an outcome not learned, for a timeline title: `HTTP 500, INTERNAL`, `timeout`. */
export function unansweredTag(outcome: Exclude<GatewayOutcome, { kind: 'reply' }>): string {
  const answer = errorAnswerOf(outcome);
  if (answer !== null)
    return `HTTP ${String(answer.httpStatus)}${answer.code === null ? '' : `, ${answer.code}`}`;
  return outcome.kind === 'not-sent' ? 'not sent' : outcome.reason;
}

/**
 * A status request's timeline title when no status came of it (`prefix`: 'status', 'status
 * check'): the gateway refused it (a 4xx: an answer, with its error code; QA read "no answer (HTTP
 * 404)"), answered with an error (5xx), or did not answer.
 */
export function noStatusTitle(prefix: string, outcome: GatewayOutcome): string {
  return `${prefix}: ${noStatusWords(outcome)}`;
}

/**
 * Why a status request brought no status, in words: `refused (HTTP 404, NOT_FOUND)`, `error
 * answer (HTTP 503, HTTP_503)`, `no answer (timeout)`. Also what a reconcile job keeps as its last
 * error, which the order's page says (`statusChecks`).
 */
export function noStatusWords(outcome: GatewayOutcome): string {
  if (outcome.kind === 'reply') {
    const code = outcome.reply.errorCode?.trim() ?? '';
    return `refused (HTTP ${String(outcome.httpStatus)}${code === '' ? '' : `, ${code}`})`;
  }
  return `${errorAnswerOf(outcome) === null ? 'no answer' : 'error answer'} (${unansweredTag(outcome)})`;
}

/**
 * The two outcomes in which Paydesk did not learn the result: the request never reached the
 * gateway, or its reply was lost (the operation may have been applied and is never sent again).
 * A 5xx is an answer: its error-code (`HTTP_<status>` when it names none) and error-message are
 * recorded, and the text says the gateway answered with an error, not that the answer was lost.
 * No reply is recorded in words (`no answer within 15 s`); the client's own codes stay in the
 * exchange (the timeline's data).
 */
export function lostOutcome(
  outcome: Exclude<GatewayOutcome, { kind: 'reply' }>,
  label: string,
  whileAsking = '',
): RecordedOutcome {
  if (outcome.kind === 'not-sent') {
    return {
      state: 'not_sent',
      serial: null,
      errorCode: null,
      errorMessage: outcome.reason,
      unanswered: null,
      title: 'not sent',
      message: 'not sent',
    };
  }
  const answer = errorAnswerOf(outcome);
  const text = unansweredText(outcome);
  const checking = `Paydesk is asking the gateway for the order's status and will not send it again${whileAsking}.`;
  if (answer !== null) {
    return {
      state: 'unknown',
      serial: null,
      errorCode: answer.code ?? `HTTP_${String(answer.httpStatus)}`,
      // `gateway answered 500: <the gateway's error-message>`, for the timeline and the audit; the
      // web reads `unanswered`, never this text.
      errorMessage: `gateway answered ${String(answer.httpStatus)}${quote(answer.message ?? undefined)}`,
      unanswered: unansweredOf(outcome),
      title: `outcome unknown (${unansweredTag(outcome)})`,
      message: `The gateway answered the ${label} with an error (${answerText(answer)}); Paydesk cannot tell whether it was applied. ${checking}`,
    };
  }
  return {
    state: 'unknown',
    serial: null,
    errorCode: null,
    errorMessage: text,
    unanswered: unansweredOf(outcome),
    title: `outcome unknown (${unansweredTag(outcome)})`,
    message: `The gateway's answer to the ${label} was lost (${text}). ${checking}`,
  };
}

/** The gateway's error-message as recorded: one line, at most 300 characters; null: none. */
function cleanMessage(text: string | null): string | null {
  if (text === null || text.trim() === '') return null;
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * How an outcome went unlearned, as the operation (or plan) records it and the web reads it: the
 * gateway's error answer (a 5xx; its code and message when it sent them and they could be read),
 * no answer within the client's wait, the connection closed, or a reply that could not be read.
 * Null: the request was not sent (its outcome is known: nothing happened).
 */
export function unansweredOf(
  outcome: Exclude<GatewayOutcome, { kind: 'reply' }>,
): Unanswered | null {
  if (outcome.kind === 'not-sent') return null;
  const answer = errorAnswerOf(outcome);
  if (answer !== null) {
    return {
      kind: 'error',
      httpStatus: answer.httpStatus,
      code: answer.code,
      message: cleanMessage(answer.message),
    };
  }
  switch (outcome.reason) {
    case 'timeout':
      return { kind: 'timeout', waitedMs: outcome.waitedMs };
    case 'connection-lost':
      return { kind: 'connection-closed' };
    default:
      return { kind: 'unreadable', httpStatus: outcome.exchange.httpStatus };
  }
}

/** `unanswered` as its row's columns (0024-unanswered-outcomes); all null for null. */
export function unansweredColumns(unanswered: Unanswered | null): UnansweredColumns {
  const none: UnansweredColumns = {
    unanswered_kind: null,
    unanswered_http_status: null,
    unanswered_code: null,
    unanswered_message: null,
    unanswered_waited_ms: null,
  };
  if (unanswered === null) return none;
  switch (unanswered.kind) {
    case 'error':
      return {
        ...none,
        unanswered_kind: 'error',
        unanswered_http_status: unanswered.httpStatus,
        unanswered_code: unanswered.code,
        unanswered_message: unanswered.message,
      };
    case 'timeout':
      return { ...none, unanswered_kind: 'timeout', unanswered_waited_ms: unanswered.waitedMs };
    case 'connection-closed':
      return { ...none, unanswered_kind: 'connection-closed' };
    case 'unreadable':
      return {
        ...none,
        unanswered_kind: 'unreadable',
        unanswered_http_status: unanswered.httpStatus,
      };
  }
}

/**
 * An operation's (or plan's) `unanswered` from its row: its columns, or, for a row recorded before
 * they were kept (0024), what its recorded error says (`unansweredFromProse`).
 */
export function unansweredOfRow(
  row: UnansweredColumns & { error_code: string | null; error_message: string | null },
): Unanswered | null {
  switch (row.unanswered_kind) {
    case null:
      return unansweredFromProse(row.error_code, row.error_message);
    case 'error':
      return row.unanswered_http_status === null
        ? null
        : {
            kind: 'error',
            httpStatus: row.unanswered_http_status,
            code: row.unanswered_code,
            message: row.unanswered_message,
          };
    case 'timeout':
      return row.unanswered_waited_ms === null
        ? null
        : { kind: 'timeout', waitedMs: row.unanswered_waited_ms };
    case 'connection-closed':
      return { kind: 'connection-closed' };
    case 'unreadable':
      return { kind: 'unreadable', httpStatus: row.unanswered_http_status };
    default:
      return null;
  }
}

const PROSE_ANSWERED = /^gateway answered (\d{3})(?:: (.*))?$/s;
const PROSE_TIMEOUT = /^no (?:answer|reply) within (\d+(?:\.\d+)?) (ms|s)$/;
const PROSE_DROPPED =
  /^(?:the connection closed before the gateway answered|connection lost before a reply(?: \([A-Z0-9_]+\))?)$/;
const PROSE_UNREADABLE = /^the gateway(?:'s reply| reply) could not be read(?: \(HTTP (\d{3})\))?$/;

/**
 * The one place that reads the words Paydesk recorded before 0024 kept `unanswered` in columns,
 * so that older orders still say how their outcome went unlearned. The forms `lostOutcome` wrote
 * (and, before it, the client's own `exchange.error`): `gateway answered 500[: message]` with the
 * gateway's code in `error_code` (`HTTP_500` when it named none; null in the oldest rows), `no
 * answer within 15 s` (`1.5 s`, `800 ms`; older: `no reply within 15000 ms`), `the connection
 * closed before the gateway answered` (older: `connection lost before a reply (UND_ERR_SOCKET)`),
 * `the gateway's reply could not be read (HTTP 200)` (older: `the gateway reply could not be
 * read`). Anything else (a reply's own words, `no answer in time` without its wait): null.
 */
export function unansweredFromProse(
  errorCode: string | null,
  errorMessage: string | null,
): Unanswered | null {
  const text = errorMessage?.trim() ?? '';
  const answered = PROSE_ANSWERED.exec(text);
  if (answered?.[1] !== undefined) {
    const httpStatus = Number(answered[1]);
    const code = errorCode?.trim() ?? '';
    return {
      kind: 'error',
      httpStatus,
      code: code === '' || code === `HTTP_${String(httpStatus)}` ? null : code,
      message: cleanMessage(answered[2] ?? null),
    };
  }
  const timeout = PROSE_TIMEOUT.exec(text);
  if (timeout?.[1] !== undefined) {
    const amount = Number(timeout[1]);
    return { kind: 'timeout', waitedMs: Math.round(timeout[2] === 's' ? amount * 1000 : amount) };
  }
  if (PROSE_DROPPED.test(text)) return { kind: 'connection-closed' };
  const unreadable = PROSE_UNREADABLE.exec(text);
  if (unreadable !== null) {
    return {
      kind: 'unreadable',
      httpStatus: unreadable[1] === undefined ? null : Number(unreadable[1]),
    };
  }
  return null;
}
