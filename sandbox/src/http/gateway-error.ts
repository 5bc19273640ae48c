import type { Response } from 'express';
import { GATEWAY_CONTENT_TYPE } from '@paydesk/shared/protocol';

export interface FieldProblem {
  name: string;
  message: string;
}

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'AUTHENTICATION_FAILED'
  | 'NOT_FOUND'
  | 'INVALID_STATE'
  | 'NOT_ACCEPTABLE'
  | 'INTERNAL';

/** An error the gateway answers with (design §3), thrown by handlers and rendered by the router. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';

  constructor(
    readonly httpStatus: number,
    readonly code: ErrorCode,
    message: string,
    readonly fields: FieldProblem[] = [],
  ) {
    super(message);
  }

  static validation(fields: FieldProblem[]): GatewayError {
    const names = fields.map((f) => f.name).join(', ');
    return new GatewayError(400, 'VALIDATION_FAILED', `invalid fields: ${names}`, fields);
  }

  static auth(reason: string): GatewayError {
    return new GatewayError(401, 'AUTHENTICATION_FAILED', reason);
  }

  static notFound(reason: string): GatewayError {
    return new GatewayError(404, 'NOT_FOUND', reason);
  }

  static invalidState(reason: string): GatewayError {
    return new GatewayError(409, 'INVALID_STATE', reason);
  }
}

export type ReplyBody = Record<string, string | FieldProblem[]>;

export function sendGateway(res: Response, status: number, body: ReplyBody): void {
  res.status(status).type(GATEWAY_CONTENT_TYPE).send(JSON.stringify(body));
}

export function errorBody(error: GatewayError, serial: string): ReplyBody {
  const body: ReplyBody = {
    type: error.code === 'VALIDATION_FAILED' ? 'validation-error' : 'error',
    'serial-number': serial,
    'error-message': error.message,
    'error-code': error.code,
  };
  if (error.code === 'VALIDATION_FAILED') body.fields = error.fields;
  return body;
}
