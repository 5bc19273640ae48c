// Gateway refusals for payouts, payment links and card info: the payments module's mapping, with
// a 404 that does not presume the unknown thing is an order.
import type { GatewayReply } from '@paydesk/shared/protocol';
import type { AppError } from '../errors.js';
import { gatewayRefusal as refusal } from '../payments/gateway-errors.js';

export function gatewayRefusal(
  httpStatus: number,
  reply: GatewayReply,
  operation: string,
): AppError {
  return refusal(httpStatus, reply, operation, 'it');
}
