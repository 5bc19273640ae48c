// A gateway refusal (400/401/404/409/500 or an unexpected 200) as a staff-facing AppError that
// names the gateway's error code; the raw reply stays in the payout's redacted history.
import type { GatewayReply } from '@paydesk/shared/protocol';
import { AppError } from '../errors.js';

function quote(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '';
  return `: ${text.replace(/\s+/g, ' ').trim().slice(0, 300)}`;
}

export function gatewayRefusal(
  httpStatus: number,
  reply: GatewayReply,
  operation: string,
): AppError {
  const code = reply.errorCode ?? null;
  const details = { gatewayHttpStatus: httpStatus, gatewayErrorCode: code };
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
        `The gateway does not know it (${tag})${quote(reply.errorMessage)}.`,
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
