// A gateway refusal (400/401/404/409, or a 200 that is not the expected reply) as a staff-facing
// AppError carrying the gateway's error code; the raw reply stays in the redacted timeline.
import type { GatewayReply } from '@paydesk/shared/protocol';
import type { GatewayOutcome } from '../gateway-client/client.js';
import { AppError } from '../errors.js';

export interface GatewayRefusalDetails {
  gatewayHttpStatus: number;
  gatewayErrorCode: string | null;
  [key: string]: unknown;
}

function quote(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '';
  const clean = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  return `: ${clean}`;
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
    case 'timeout': {
      const ms = /no reply within (\d+) ms/.exec(outcome.exchange.error ?? '')?.[1];
      return ms === undefined ? 'no answer in time' : `no answer within ${duration(Number(ms))}`;
    }
    case 'connection-lost':
      return 'the connection closed before the gateway answered';
    default:
      return `the gateway's reply could not be read${outcome.exchange.httpStatus === null ? '' : ` (HTTP ${String(outcome.exchange.httpStatus)})`}`;
  }
}

/** A short tag of an outcome not learned, for a timeline title: `HTTP 500, INTERNAL`, `timeout`. */
export function unansweredTag(outcome: Exclude<GatewayOutcome, { kind: 'reply' }>): string {
  const answer = errorAnswerOf(outcome);
  if (answer !== null)
    return `HTTP ${String(answer.httpStatus)}${answer.code === null ? '' : `, ${answer.code}`}`;
  return outcome.kind === 'not-sent' ? 'not sent' : outcome.reason;
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
      // `gateway answered 500: <the gateway's error-message>`, the form the web reads the HTTP
      // status from (web/src/features/transactions/api/gateway-answer.ts).
      errorMessage: `gateway answered ${String(answer.httpStatus)}${quote(answer.message ?? undefined)}`,
      title: `outcome unknown (${unansweredTag(outcome)})`,
      message: `The gateway answered the ${label} with an error (${answerText(answer)}); Paydesk cannot tell whether it was applied. ${checking}`,
    };
  }
  return {
    state: 'unknown',
    serial: null,
    errorCode: null,
    errorMessage: text,
    title: `outcome unknown (${unansweredTag(outcome)})`,
    message: `The gateway's answer to the ${label} was lost (${text}). ${checking}`,
  };
}
