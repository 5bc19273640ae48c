// A gateway refusal (400/401/404/409, or a 200 that is not the expected reply) as a staff-facing
// AppError carrying the gateway's error code; the raw reply stays in the redacted timeline.
import type { GatewayReply } from '@paydesk/shared/protocol';
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
