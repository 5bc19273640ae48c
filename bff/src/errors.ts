import { shownName, type ErrorCode, type ErrorDetails, type FieldError } from '@paydesk/shared/api';
import type { z } from 'zod';

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONFLICT: 409,
  UNAUTHENTICATED: 401,
  SESSION_EXPIRED: 401,
  INVALID_CREDENTIALS: 401,
  TOTP_REQUIRED: 401,
  TOTP_INVALID: 401,
  ACCOUNT_DISABLED: 403,
  RATE_LIMITED: 429,
  CURRENT_PASSWORD_INVALID: 400,
  TOTP_ALREADY_ENABLED: 409,
  TOTP_NOT_PENDING: 409,
  PASSWORD_CHANGE_REQUIRED: 403,
  FORBIDDEN: 403,
  CSRF_REJECTED: 403,
  EMAIL_TAKEN: 409,
  LAST_ADMIN: 409,
  IDEMPOTENCY_KEY_MISSING: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_IN_FLIGHT: 409,
  INVALID_STATE: 409,
  CAP_EXCEEDED: 409,
  FOUR_EYES_REQUIRED: 403,
  GATEWAY_ERROR: 502,
  GATEWAY_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The one application error: a code from shared, a staff-facing message, optional details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = STATUS[code];
    this.details = details;
  }
}

export function fieldErrors(error: z.ZodError, prefix?: string): FieldError[] {
  const pathOf = (parts: readonly PropertyKey[]) => {
    const path = [prefix, ...parts.map(String)]
      .filter((p) => p !== undefined && p !== '')
      .join('.');
    return path === '' ? '(body)' : path;
  };
  // A value of the wrong kind is said once: zod goes on to check a list's size against text, say,
  // and would add "must be at most 5 characters" to "must be a list".
  const wrongKind = new Set(
    error.issues.filter((i) => i.code === 'invalid_type').map((i) => pathOf(i.path)),
  );
  return error.issues.flatMap((issue) => {
    if (issue.code !== 'invalid_type' && wrongKind.has(pathOf(issue.path))) return [];
    // A strict schema's unknown names: each one named as its own field, so that a mistyped query
    // parameter (`limit` for `pageSize`) says which one, as a bad value does.
    if (issue.code === 'unrecognized_keys') {
      const message =
        prefix === 'query'
          ? 'is not a parameter of this request'
          : 'is not a field of this request';
      return issue.keys.map((key) => ({
        path: pathOf([...issue.path, shownName(key)]),
        rule: issue.code,
        message,
      }));
    }
    return [{ path: pathOf(issue.path), rule: ruleOf(issue), message: issue.message }];
  });
}

/** zod's issue code, or the rule a refinement names (`params.rule`, e.g. `card_number`). */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'custom') return issue.code;
  const rule: unknown = issue.params?.rule;
  return typeof rule === 'string' ? rule : issue.code;
}

/**
 * Refuses a query string that gives a parameter more than once (`?status=approved&status=declined`):
 * Express reads such a parameter as a list, which every schema would call missing or not one of its
 * values, naming the wrong fault. No route takes a parameter twice (the SPA sets each once), and
 * picking one of the values would act on a request nobody made, so each repeated one is named with
 * the rule `repeated`. Every query goes through here: `parseInput` for the API's routes, and the
 * gateway callback's receiver.
 */
export function refuseRepeatedParams(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  const message = 'must be given once';
  const fields = Object.entries(query)
    .filter(([, value]) => Array.isArray(value))
    .map(([name]) => ({ path: `query.${shownName(name)}`, rule: 'repeated', message }));
  const first = fields[0];
  if (first === undefined) return;
  throw new AppError('VALIDATION_FAILED', `${first.path}: ${message}`, { fields });
}

/** Parses `input` with `schema` or throws a 400 naming every bad field. */
export function parseInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
  where: 'body' | 'query',
): z.output<T> {
  if (where === 'query') refuseRepeatedParams(input);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error, where === 'query' ? 'query' : undefined);
  const first = fields[0];
  throw new AppError(
    'VALIDATION_FAILED',
    first === undefined ? 'invalid input' : `${first.path}: ${first.message}`,
    { fields },
  );
}

/**
 * 400 `VALIDATION_FAILED` naming one field (`path`) and the `rule` it broke; the error's message
 * is `path: message` unless `said` words it otherwise.
 */
export function fieldRefusal(
  path: string,
  rule: string,
  message: string,
  said = `${path}: ${message}`,
): AppError {
  return new AppError('VALIDATION_FAILED', said, { fields: [{ path, rule, message }] });
}

/**
 * A path parameter that cannot name anything (wrong shape): 400 naming `params.<name>` and the
 * rule, without echoing the value (it may be anything, a card number included).
 */
export function invalidParam(name: string, message: string): AppError {
  return fieldRefusal(`params.${name}`, 'format', message);
}
