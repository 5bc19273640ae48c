import type { ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';
import { formatAuditAnchor } from '@paydesk/shared/api';
import { AppError } from './errors.js';
import type { AuditLog } from './services/audit.js';

/** Every path that may hold a secret, a card number, a CVV, a password, a cookie or a token. */
const SECRET_KEYS = [
  'password',
  'currentPassword',
  'newPassword',
  'totp',
  'secret',
  'recoveryCodes',
  'otpauthUri',
  'controlKey',
  'control',
  'privateKey',
  'privateKeyPem',
  'sessionSecret',
  'cardNumber',
  'card_number',
  'credit_card_number',
  'cvv',
  'cvv2',
  'pan',
  'token',
  'authorization',
  'cookie',
];

export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  ...SECRET_KEYS.map((k) => k),
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
];

/**
 * The BFF's logger. `instanceId` (main.ts: the one its job leases hold) is on every line, so that
 * the lines of several instances can be told apart and matched with `lease_owner` in the database.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  instanceId?: string,
): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'paydesk-bff', ...(instanceId === undefined ? {} : { instanceId }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** What pino-http reads as the error of a response it logs (its `res.err`). */
type NotedResponse = ServerResponse & { err?: Error };

/**
 * Hands the cause of a failed request (5xx) to the request logger (pino-http, app.ts), whose one
 * line for the request then says why: where the failure is answered, instead of a line of its own.
 */
export function noteFailure(res: ServerResponse, cause: unknown): void {
  (res as NotedResponse).err = cause instanceof Error ? cause : new Error(String(cause));
}

/**
 * The request logger's line for a failed request: at warn for a 503 (something is unavailable:
 * the gateway, the database, this instance), at error for any other failure.
 */
export function failureLevel(statusCode: number): 'warn' | 'error' {
  return statusCode === 503 ? 'warn' : 'error';
}

/**
 * The fields the request logger adds for a failed request, from its noted cause: an AppError's
 * code and message (no stack: it was answered on purpose), an unexpected error whole; a response
 * whose cause nobody noted says so.
 */
export function failureFields(err: Error): Record<string, unknown> {
  if (err instanceof AppError) return { errorCode: err.code, cause: err.message };
  // pino-http's stand-in when a 5xx was sent without a noted cause
  if (err.message.startsWith('failed with status code ')) return { cause: 'not recorded' };
  return { errorCode: 'INTERNAL', cause: err.message, err };
}

/**
 * Logs the audit chain's head (last seq and hash) once at start: a copy outside the database, so
 * that a later verification anchored on it (`GET /api/audit/verify?anchor=`) proves the chain up to
 * there was not rewritten between restarts. One read by the primary key.
 */
export async function logAuditHead(audit: Pick<AuditLog, 'head'>, logger: Logger): Promise<void> {
  const head = await audit.head();
  logger.info(
    {
      head: head === null ? null : { seq: head.seq, hash: head.hash },
      anchor: head === null ? null : formatAuditAnchor(head),
      at: 'start',
    },
    'audit chain head',
  );
}
