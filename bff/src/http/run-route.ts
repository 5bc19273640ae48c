// Runs one API route: CSRF, authentication (a session whose password someone else chose may only
// change it) and authorization from the route table, then the handler, then one audit row for the
// attempt (refusals included), then the reply.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  IDLE_HEADER,
  type AuditOutcome,
  type ErrorEnvelope,
  type Role,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { noteFailure } from '../logger.js';
import type { AuditEntry } from '../services/audit.js';
import type { AuthenticatedSession, ClientInfo } from '../services/auth.js';
import type { Services } from '../services/index.js';
import { parseRoles } from '../services/users.js';
import { readCookie, sessionCookieName } from './cookies.js';
import { idleMsOf } from './idle-header.js';
import { RefusalThrottle, type RefusalThrottleOptions } from './refusal-throttle.js';
import { allows, allowsTemporaryPassword, type RouteRule } from './route-table.js';

export interface Actor {
  id: string;
  email: string;
  roles: Role[];
}

export interface RouteContext {
  req: Request;
  res: Response;
  requestId: string;
  client: ClientInfo;
  /** null only on public routes */
  auth: AuthenticatedSession | null;
  /** what the audit row records; handlers fill in target, summary and (for login) the actor */
  audit: {
    /** the action recorded when it is not the route's own (a preparer's reject is a withdrawal) */
    action?: string;
    target: string | null;
    summary: Record<string, unknown>;
    actor: Actor | null;
    /**
     * Set by a handler once the attempt's audit row (`attemptEntry`) has committed with its work,
     * in the work's own transaction: the runner then appends none.
     */
    recorded: boolean;
  };
  /**
   * The audit row of this attempt as it stands, with the outcome `err` gives (null: success) and
   * `summary` instead of `audit.summary` when given.
   */
  attemptEntry(err: AppError | null, summary?: Record<string, unknown>): AuditEntry;
  /**
   * Whether the request's session is still valid and its user's roles still allow the route (a
   * long-lived reply, such as an event stream, asks now and then and ends when it is not).
   */
  stillAuthorized: () => Promise<boolean>;
}

export type Reply =
  | { kind: 'json'; status: number; body: unknown; cookie?: string }
  | { kind: 'empty'; status: number; cookie?: string }
  /** the body is written by `write` after the audit row is stored */
  | {
      kind: 'stream';
      contentType: string;
      filename: string;
      write: (res: Response) => Promise<void>;
    };

export type Handler = (ctx: RouteContext) => Promise<Reply>;

/**
 * Refuses a session whose password someone else chose (an administrator, at creation or a reset)
 * every route but reading the session, signing out and changing the password.
 */
function requireOwnPassword(rule: RouteRule, auth: AuthenticatedSession): void {
  if (auth.user.password_temporary_at !== null && !allowsTemporaryPassword(rule)) {
    throw new AppError(
      'PASSWORD_CHANGE_REQUIRED',
      'choose your own password first: this one was set by an administrator',
    );
  }
}

export function requireAuth(ctx: RouteContext): AuthenticatedSession {
  if (ctx.auth === null) throw new AppError('UNAUTHENTICATED', 'sign in to continue');
  return ctx.auth;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const jsonBody: RequestHandler = express.json({ limit: '100kb' });

/** Whether `raw` (the text a parse error kept) is JSON after all. */
function isJson(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

/** body-parser's error types, as staff- and client-facing errors naming the body. */
export function bodyError(err: unknown): AppError {
  const type = (err as { type?: unknown } | null)?.type;
  const unreadable = (rule: string, message: string) =>
    new AppError('VALIDATION_FAILED', message, { fields: [{ path: '(body)', rule, message }] });
  switch (type) {
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'the body is larger than 100 kB');
    case 'entity.parse.failed':
      // The parser takes only an object or an array: `null`, a number or a string is valid JSON
      // all the same, and is told what the body must be rather than that it is not JSON.
      return isJson((err as { body?: unknown }).body)
        ? unreadable('object', 'the body must be a JSON object')
        : unreadable('json', 'the body is not valid JSON');
    case 'charset.unsupported':
      return unreadable('charset', 'the body must be UTF-8 JSON');
    case 'encoding.unsupported':
      return unreadable('encoding', 'the body must not use an unsupported Content-Encoding');
    default:
      return unreadable('readable', 'the body could not be read');
  }
}

/**
 * Reads a JSON body inside the route runner (after CSRF, session and role checks), so an
 * unreadable body is refused like any other bad input: with a field, and with an audit row.
 */
function readJsonBody(req: Request, res: Response): Promise<void> {
  // A body of another type would be skipped by the JSON parser and the route would act as if
  // none was sent (a partial capture taken for a full one): refused instead. A request with no
  // body (none, or an empty one) is left to the route, which accepts it when no field is required.
  const empty = req.get('Content-Length') === '0' && req.get('Transfer-Encoding') === undefined;
  if (!empty && req.is('application/json') === false) {
    return Promise.reject(
      new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'the body must be JSON (Content-Type: application/json)',
        {
          fields: [
            {
              path: '(body)',
              rule: 'content_type',
              message: 'must be sent with Content-Type: application/json',
            },
          ],
        },
      ),
    );
  }
  return new Promise((resolve, reject) => {
    jsonBody(req, res, (err?: unknown) => {
      if (err === undefined || err === null) resolve();
      else reject(bodyError(err));
    });
  });
}

export function checkCsrf(req: Request, allowedOrigins: readonly string[]): void {
  if (req.get(CSRF_HEADER) !== CSRF_HEADER_VALUE) {
    throw new AppError(
      'CSRF_REJECTED',
      `state-changing requests need the ${CSRF_HEADER}: ${CSRF_HEADER_VALUE} header`,
    );
  }
  const origin = req.get('Origin');
  if (origin !== undefined) {
    if (!allowedOrigins.includes(origin))
      throw new AppError('CSRF_REJECTED', 'request from another origin');
    return;
  }
  if (req.get('Sec-Fetch-Site') !== 'same-origin') {
    throw new AppError(
      'CSRF_REJECTED',
      'request without a same-origin Origin or Sec-Fetch-Site header',
    );
  }
}

export function errorEnvelope(err: AppError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details === undefined ? {} : { details: err.details }),
      requestId,
    },
  };
}

/** The id pino-http gave the request (always a string here: see genReqId in app.ts). */
export function requestIdOf(req: Request): string {
  return typeof req.id === 'string'
    ? req.id
    : typeof req.id === 'number'
      ? String(req.id)
      : 'unknown';
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError(
    'INTERNAL',
    'an unexpected error occurred; the request id identifies it in the logs',
  );
}

/**
 * Refusals of an unidentified client that are still audited one by one: each used up an attempt of
 * the login limiter, which bounds them (and says which accounts were tried).
 */
const LIMITER_COUNTED_CODES: ReadonlySet<string> = new Set(['INVALID_CREDENTIALS', 'TOTP_INVALID']);

export function makeRunner(
  services: Services,
  logger: Logger,
  refusalAudit: Partial<RefusalThrottleOptions> = {},
) {
  const throttle = new RefusalThrottle(services.clock, refusalAudit);
  const allowedOrigins = [
    services.config.publicOrigin,
    ...(services.config.devOrigin === null ? [] : [services.config.devOrigin]),
  ];
  const cookieName = sessionCookieName(services.config);

  return (rule: RouteRule, handler: Handler) =>
    async (req: Request, res: Response): Promise<void> => {
      const requestId = requestIdOf(req);
      const ctx: RouteContext = {
        req,
        res,
        requestId,
        client: { ip: req.ip ?? null, userAgent: req.get('User-Agent') ?? null },
        auth: null,
        audit: { target: null, summary: {}, actor: null, recorded: false },
        attemptEntry: (err, summary) => attemptEntry(ctx, rule, err, summary),
        stillAuthorized: async () => {
          if (rule.access === 'public') return true;
          if (ctx.auth === null) return false;
          const user = await services.auth.current(ctx.auth.session.id);
          return (
            user !== null &&
            allows(rule.access, parseRoles(user.roles)) &&
            (user.password_temporary_at === null || allowsTemporaryPassword(rule))
          );
        },
      };
      let reply: Reply;
      const token = readCookie(req.get('Cookie'), cookieName);
      try {
        if (!SAFE_METHODS.has(req.method)) checkCsrf(req, allowedOrigins);
        if (rule.access !== 'public') {
          if (token === undefined || token === '')
            throw new AppError('UNAUTHENTICATED', 'sign in to continue');
          // A route that is not activity (the live-event stream) leaves the idle timeout alone.
          const idleMs = rule.notActivity === true ? null : idleMsOf(req.get(IDLE_HEADER));
          ctx.auth = await services.auth.authenticate(token, idleMs);
          ctx.audit.actor = {
            id: ctx.auth.user.id,
            email: ctx.auth.user.email,
            roles: parseRoles(ctx.auth.user.roles),
          };
          // Before the roles: whatever the route, such a session has one thing to do first.
          requireOwnPassword(rule, ctx.auth);
          if (!allows(rule.access, ctx.audit.actor.roles)) {
            throw new AppError('FORBIDDEN', 'your roles do not allow this');
          }
        }
        if (!SAFE_METHODS.has(req.method)) await readJsonBody(req, res);
        reply = await handler(ctx);
      } catch (caught) {
        const err = toAppError(caught);
        // The request logger's line for this request says why (app.ts): no line of its own.
        if (err.status >= 500) noteFailure(res, caught);
        const quietProbe = req.method === 'GET' && err.status === 401;
        if (err.code === 'CSRF_REJECTED' && token !== undefined && token !== '')
          ctx.audit.actor = await actorOf(token);
        if (!quietProbe && !ctx.audit.recorded) await auditRefusal(ctx, rule, err);
        if (err.code === 'RATE_LIMITED' && err.details?.retryAfterSeconds !== undefined) {
          res.set('Retry-After', String(err.details.retryAfterSeconds));
        }
        res.status(err.status).json(errorEnvelope(err, requestId));
        return;
      }
      if (rule.auditSuccess && !ctx.audit.recorded) await auditAttempt(ctx, rule, null);
      send(res, reply);
    };

  /**
   * Who a refused request's session cookie names (the CSRF check comes before authentication), so
   * that a cross-site attempt is audited against the user whose browser sent it.
   */
  async function actorOf(token: string): Promise<Actor | null> {
    const user = await services.auth.identify(token).catch((err: unknown) => {
      logger.warn({ err }, 'could not identify the session of a refused request');
      return null;
    });
    return user === null ? null : { id: user.id, email: user.email, roles: parseRoles(user.roles) };
  }

  /**
   * Audits a refused or failed request. A refusal with nobody identified behind it (no valid
   * session, not a login attempt the limiter counted) is anyone's to send: at most one row per
   * client and code per window, carrying how many were left out since; those left out are logged.
   */
  async function auditRefusal(ctx: RouteContext, rule: RouteRule, err: AppError): Promise<void> {
    const anonymous =
      ctx.audit.actor === null && err.status < 500 && !LIMITER_COUNTED_CODES.has(err.code);
    if (!anonymous) {
      await auditAttempt(ctx, rule, err);
      return;
    }
    const summary = throttle.summaryToAudit(
      { ip: ctx.client.ip, code: err.code, requestId: ctx.requestId, action: rule.action },
      ctx.audit.summary,
      logger,
    );
    if (summary !== null) await auditAttempt(ctx, rule, err, summary);
  }

  async function auditAttempt(
    ctx: RouteContext,
    rule: RouteRule,
    err: AppError | null,
    summary?: Record<string, unknown>,
  ): Promise<void> {
    try {
      await services.audit.append(attemptEntry(ctx, rule, err, summary));
    } catch (auditErr) {
      logger.error({ err: auditErr, requestId: ctx.requestId }, 'audit append failed');
      throw auditErr;
    }
  }
}

/**
 * An error's status says refused (4xx) or failed (5xx). An answered request whose gateway reply
 * was lost says so in its summary (`result: 'unknown'`, as every route that sends a gateway
 * request records its result): not a success until the reconciler learns the verdict.
 */
function outcomeOf(err: AppError | null, summary: Record<string, unknown>): AuditOutcome {
  if (err !== null) return err.status >= 500 ? 'failed' : 'refused';
  return summary.result === 'unknown' ? 'unknown' : 'success';
}

/** The kind of record each API collection's `:id` names, as the handlers record targets. */
const TARGET_KINDS: Readonly<Record<string, string>> = {
  transactions: 'transaction',
  payouts: 'payout',
  'payment-links': 'link',
  subscriptions: 'subscription',
  users: 'user',
  cards: 'card-ref',
  views: 'view',
};

/**
 * The record a request's address names (`POST /api/payouts/:id/approve` → `payout:ID`), for an
 * attempt refused before its handler recorded a target (a role, CSRF, a session): the audit log
 * then still says which payout someone without the role tried to approve (QA). An id that is not
 * a plain one (long, odd characters) is not recorded.
 */
function targetFromAddress(req: Request): string | null {
  const collection = `${req.baseUrl}${req.path}`.split('/')[2] ?? '';
  const kind = TARGET_KINDS[collection];
  const params = req.params as Record<string, string | undefined>;
  const id = params.id ?? params.cardRefId;
  if (kind === undefined || id === undefined || !/^[A-Za-z0-9._-]{1,128}$/.test(id)) return null;
  return `${kind}:${id}`;
}

function attemptEntry(
  ctx: RouteContext,
  rule: RouteRule,
  err: AppError | null,
  summary: Record<string, unknown> = ctx.audit.summary,
): AuditEntry {
  const actor = ctx.audit.actor;
  // A refusal for bad input says which fields and rules (never the values), so that the audit
  // log tells a mistyped amount from a probe.
  const fields = err?.details?.fields;
  if (fields !== undefined && fields.length > 0)
    summary = { ...summary, invalid: fields.map((f) => `${f.path}: ${f.rule}`).slice(0, 20) };
  return {
    actorId: actor?.id ?? null,
    actorEmail: actor?.email ?? null,
    actorRoles: actor?.roles ?? [],
    action: ctx.audit.action ?? rule.action,
    target: ctx.audit.target ?? targetFromAddress(ctx.req),
    summary,
    outcome: outcomeOf(err, summary),
    errorCode: err?.code ?? null,
    requestId: ctx.requestId,
    ip: ctx.client.ip,
    userAgent: ctx.client.userAgent,
  };
}

function send(res: Response, reply: Reply): void {
  if (reply.kind === 'stream') {
    res.status(200);
    res.set('Content-Type', reply.contentType);
    res.set('Content-Disposition', `attachment; filename="${reply.filename}"`);
    reply.write(res).then(
      () => res.end(),
      () => res.destroy(),
    );
    return;
  }
  if (reply.cookie !== undefined) res.append('Set-Cookie', reply.cookie);
  if (reply.kind === 'empty') {
    res.status(reply.status).end();
    return;
  }
  res.status(reply.status).json(reply.body);
}
