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
  errorCode: null;
  errorMessage: string | null;
  title: string;
  message: string;
}

/**
 * The two outcomes in which Paydesk did not learn the result: the request never reached the
 * gateway, or its reply was lost (the operation may have been applied and is never sent again).
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
  return {
    state: 'unknown',
    serial: null,
    errorCode: null,
    errorMessage: outcome.exchange.error,
    title: `outcome unknown (${outcome.reason})`,
    message: `The gateway's answer to the ${label} was lost (${outcome.reason}). Paydesk is asking the gateway for the order's status and will not send it again${whileAsking}.`,
  };
}
