import { z } from 'zod';

/**
 * Every error code the BFF may answer with. The SPA switches on these, never on message text.
 * Later issues only add codes; none is ever renamed or removed.
 */
export const ERROR_CODES = [
  // request shape and protocol
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'CONFLICT',
  // authentication and sessions
  'UNAUTHENTICATED',
  'SESSION_EXPIRED',
  'INVALID_CREDENTIALS',
  'TOTP_REQUIRED',
  'TOTP_INVALID',
  'ACCOUNT_DISABLED',
  'RATE_LIMITED',
  'CURRENT_PASSWORD_INVALID',
  'TOTP_ALREADY_ENABLED',
  'TOTP_NOT_PENDING',
  /** the account's password was chosen by someone else (an administrator): choose one first */
  'PASSWORD_CHANGE_REQUIRED',
  // authorization and CSRF
  'FORBIDDEN',
  'CSRF_REJECTED',
  // users
  'EMAIL_TAKEN',
  'LAST_ADMIN',
  // idempotency (payments routes)
  'IDEMPOTENCY_KEY_MISSING',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_FLIGHT',
  // gateway and money movement (payments routes)
  'INVALID_STATE',
  'CAP_EXCEEDED',
  'FOUR_EYES_REQUIRED',
  'GATEWAY_ERROR',
  'GATEWAY_UNAVAILABLE',
  // server
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** One invalid input field: `path` is dotted (`roles.1`, `destination.cardNumber`). */
export const FieldErrorSchema = z.object({
  path: z.string(),
  rule: z.string(),
  message: z.string(),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

/**
 * Extra, code-specific facts. `fields` for VALIDATION_FAILED, `retryAfterSeconds` for
 * RATE_LIMITED; other codes may add keys (e.g. `remaining` for CAP_EXCEEDED).
 */
export const ErrorDetailsSchema = z
  .object({
    fields: z.array(FieldErrorSchema).optional(),
    retryAfterSeconds: z.number().int().nonnegative().optional(),
  })
  .catchall(z.unknown());
export type ErrorDetails = z.infer<typeof ErrorDetailsSchema>;

/** The one error body: `{ error: { code, message, details?, requestId } }`. */
export const ErrorEnvelopeSchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    details: ErrorDetailsSchema.optional(),
    requestId: z.string(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;
