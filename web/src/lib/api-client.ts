// The one way the SPA talks to the BFF. Same-origin cookies carry the session; every state-changing
// request carries the CSRF header; every reply is parsed with the shared contract, and every error
// becomes an ApiError whose `code` comes from the shared union (screens switch on it, never on text).
import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  ErrorEnvelopeSchema,
  IDLE_HEADER,
  type ErrorCode,
  type ErrorDetails,
  type FieldError,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { fieldSentence, withFieldLabels } from './field-labels';
import { formatDuration } from './format';
import { lastUserInputAt, noteInputReported, watchUserInput } from './user-activity';

/** Failures that happen before the BFF could answer with its envelope. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'BAD_RESPONSE';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode | ClientErrorCode;
  /** HTTP status; 0 when no reply arrived. */
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  readonly requestId: string | undefined;

  constructor(init: {
    code: ErrorCode | ClientErrorCode;
    status: number;
    message: string;
    details?: ErrorDetails | undefined;
    requestId?: string | undefined;
  }) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.details = init.details;
    this.requestId = init.requestId;
  }

  /** Field errors of a VALIDATION_FAILED (or any) reply, empty when there are none. */
  get fieldErrors(): readonly FieldError[] {
    return this.details?.fields ?? [];
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/**
 * The record an address names does not exist: unknown (404), or an id so malformed that the BFF
 * refused it (400 naming the path parameter). Either way the screen says "not found".
 */
export function isNoSuchRecord(error: unknown): boolean {
  if (!isApiError(error)) return false;
  if (error.code === 'NOT_FOUND') return true;
  return (
    error.code === 'VALIDATION_FAILED' &&
    error.fieldErrors.some((field) => field.path.startsWith('params.'))
  );
}

/** The session is missing or over: the user must sign in again. */
/**
 * Why a refused request means the session is over: it expired or was revoked, or its account was
 * disabled; null when the refusal is about something else.
 */
export function sessionEndOf(error: unknown): 'expired' | 'disabled' | null {
  if (!isApiError(error)) return null;
  if (error.code === 'UNAUTHENTICATED' || error.code === 'SESSION_EXPIRED') return 'expired';
  if (error.code === 'ACCOUNT_DISABLED') return 'disabled';
  return null;
}

/**
 * The account's password was chosen by an administrator and must be replaced before anything else
 * (403 PASSWORD_CHANGE_REQUIRED): the app sends the user to "Choose your password".
 */
export function isPasswordChangeRequired(error: unknown): boolean {
  return isApiError(error) && error.code === 'PASSWORD_CHANGE_REQUIRED';
}

export function isForbidden(error: unknown): boolean {
  return isApiError(error) && error.code === 'FORBIDDEN';
}

export type QueryValue = string | number | boolean | undefined | null;

/** `/api/audit` + `{ page: 2, actor: undefined }` → `/api/audit?page=2` (empty values dropped). */
export function apiUrl(path: string, query?: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestOptions {
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** extra request headers, e.g. `Idempotency-Key` on money-moving requests */
  headers?: Readonly<Record<string, string>>;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorFromReply(response: Response, body: unknown): ApiError {
  const envelope = ErrorEnvelopeSchema.safeParse(body);
  if (envelope.success) {
    const { code, message, details, requestId } = envelope.data.error;
    return new ApiError({ code, status: response.status, message, details, requestId });
  }
  return new ApiError({
    code: 'BAD_RESPONSE',
    status: response.status,
    message: `The server answered ${response.status} without a readable error.`,
  });
}

async function send(method: Method, path: string, options: RequestOptions): Promise<Response> {
  const headers = new Headers({ Accept: 'application/json' });
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  if (method !== 'GET') headers.set(CSRF_HEADER, CSRF_HEADER_VALUE);
  // The session's idle timeout runs from the user's last input, not from this request.
  watchUserInput();
  const inputAt = lastUserInputAt();
  headers.set(IDLE_HEADER, String(Math.max(0, Math.round(Date.now() - inputAt))));
  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (options.signal) init.signal = options.signal;
  if (options.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    init.body = JSON.stringify(options.body);
  }
  try {
    const response = await fetch(apiUrl(path, options.query), init);
    if (response.ok) noteInputReported(inputAt);
    return response;
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError({
      code: 'NETWORK_ERROR',
      status: 0,
      message: 'The server could not be reached. Check the connection and try again.',
    });
  }
}

/** Sends a request and parses the JSON reply with `schema`. */
export async function apiRequest<S extends z.ZodType>(
  method: Method,
  path: string,
  schema: S,
  options: RequestOptions = {},
): Promise<z.output<S>> {
  const response = await send(method, path, options);
  const body = await readJson(response);
  if (!response.ok) throw errorFromReply(response, body);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ApiError({
      code: 'BAD_RESPONSE',
      status: response.status,
      message: 'The server answered in a shape this screen does not understand.',
    });
  }
  return parsed.data;
}

/** Sends a request whose reply body does not matter (e.g. 204 on sign-out). */
export async function apiCommand(
  method: Method,
  path: string,
  options: RequestOptions = {},
): Promise<void> {
  const response = await send(method, path, options);
  if (!response.ok) throw errorFromReply(response, await readJson(response));
}

/**
 * A lockout's wait in words, as the BFF's message says it: seconds under a minute, else whole
 * minutes rounded up ('14 minutes' for 833 s, '40 seconds'); `Retry-After` stays in seconds.
 */
function waitInWords(seconds: number): string {
  return formatDuration(
    seconds < 60 ? Math.max(1, Math.ceil(seconds)) * 1000 : Math.ceil(seconds / 60) * 60_000,
  );
}

/**
 * A sentence for a snackbar or an alert, chosen by code; the server's text is the fallback. A field
 * the refusal names is said by its label ('Card reference: …'), never by its API name: this is
 * what is shown when no field of the screen took the server's message.
 */
export function describeError(error: unknown): string {
  if (!isApiError(error)) return 'Something went wrong. Please try again.';
  switch (error.code) {
    case 'NETWORK_ERROR':
    case 'BAD_RESPONSE':
      return error.message;
    case 'UNAUTHENTICATED':
    case 'SESSION_EXPIRED':
      return 'Your session has ended. Please sign in again.';
    case 'ACCOUNT_DISABLED':
      return 'This account is disabled. Ask an administrator to enable it.';
    case 'FORBIDDEN':
      return 'Your roles do not allow this.';
    case 'PASSWORD_CHANGE_REQUIRED':
      return 'Choose your own password first: this one was set by an administrator.';
    case 'CSRF_REJECTED':
      return 'The request was refused as cross-site. Reload the page and try again.';
    case 'RATE_LIMITED': {
      const seconds = error.details?.retryAfterSeconds;
      return seconds === undefined
        ? 'Too many attempts. Wait a moment and try again.'
        : `Too many attempts. Try again in ${waitInWords(seconds)}.`;
    }
    case 'VALIDATION_FAILED':
      return error.fieldErrors.length === 0
        ? 'Some fields need attention.'
        : error.fieldErrors.map((field) => fieldSentence(field.path, field.message)).join(' ');
    case 'SERVICE_UNAVAILABLE':
    case 'INTERNAL':
      return error.requestId === undefined
        ? 'The server had a problem. Please try again.'
        : `The server had a problem (request ${error.requestId}). Please try again.`;
    default:
      return withFieldLabels(
        error.message,
        error.fieldErrors.map((field) => field.path),
      );
  }
}
