// The payments routes: their route-table entries (same shape as http/route-table.ts), thin
// handlers (parse, call a service, reply), and the callback receiver outside /api (no session).
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  CaptureBodySchema,
  CardRefBodySchema,
  DriftReviewBodySchema,
  EventsQuerySchema,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  LookupBodySchema,
  RebillBodySchema,
  ReturnBodySchema,
  StatsQuerySchema,
  SubscriptionCreateBodySchema,
  SubscriptionListQuerySchema,
  TransactionExportQuerySchema,
  TransactionListQuerySchema,
  TransactionRefreshBodySchema,
  VoidBodySchema,
  liveEventName,
  type AuditAction,
  type OperationResult,
  type LiveEvent,
  type LookupPayoutReply,
} from '@paydesk/shared/api';
import { AppError, parseInput, refuseRepeatedParams } from '../errors.js';
import {
  errorEnvelope,
  requestIdOf,
  requireAuth,
  toAppError,
  type Handler,
  type RouteContext,
} from '../http/run-route.js';
import type { RouteRule } from '../http/route-table.js';
import { methodNotAllowed } from '../http/method-not-allowed.js';
import { RefusalThrottle, type RefusalThrottleOptions } from '../http/refusal-throttle.js';
import { uuidParam } from '../http/path-id.js';
import { noteFailure } from '../logger.js';
import { auditAmount } from '../services/audit.js';
import { parseRoles } from '../services/users.js';
import { keyRouteOf, type IdempotencyClaim } from './idempotency.js';
import { amountGuards, requireAmountAccepted } from './amount-guards.js';
import { withoutConfirmation } from './large-amount.js';
import { exportFileName } from './queries.js';
import { refusedCallbackSummary } from './callbacks.js';
import type { AttemptAudit } from './operations.js';
import { mayReadPayouts } from './payout-orders.js';
import { PAYMENT_ROUTES, type PaymentRouteKey } from './route-rules.js';
import type { Payments } from './index.js';
import { requireRsaKey } from './subscriptions.js';
import type { ActorInfo } from './transactions.js';

export { PAYMENT_ROUTES, type PaymentRouteKey } from './route-rules.js';

/** The audit action of a gateway callback (its refusals for a missing or wrong control). */
const CALLBACK_ACTION = 'gateway.callback' satisfies AuditAction;

function transactionId(ctx: RouteContext): string {
  const id = uuidParam(ctx.req.params.id, 'must be a transaction id (a UUID)');
  ctx.audit.target = `transaction:${id}`;
  return id;
}

function actorOf(ctx: RouteContext): ActorInfo {
  const auth = requireAuth(ctx);
  return { id: auth.user.id, email: auth.user.email };
}

/** Whether the caller may be led to a payout (`mayReadPayouts`: the payouts' own read rule). */
function payoutReader(ctx: RouteContext): boolean {
  return mayReadPayouts(parseRoles(requireAuth(ctx).user.roles));
}

export function paymentHandlers(p: Payments): Record<PaymentRouteKey, Handler> {
  const { services } = p;

  /**
   * A money-moving route: body validated first, then the Idempotency-Key, then the service, which
   * takes the key in its reservation's transaction and stores the reply in its outcome's.
   */
  const idempotent =
    <S extends z.ZodType>(
      schema: S,
      operation: string,
      call: (
        id: string,
        body: z.output<S>,
        actor: ActorInfo,
        claim: IdempotencyClaim,
        audit: AttemptAudit,
      ) => Promise<OperationResult>,
    ): Handler =>
    async (ctx) => {
      const id = transactionId(ctx);
      const body = parseInput(schema, ctx.req.body ?? {}, 'body');
      const actor = actorOf(ctx);
      const key = ctx.req.get(IDEMPOTENCY_KEY_HEADER);
      ctx.audit.summary = {
        operation,
        transactionId: id,
        body: audited(body),
        idempotencyKey: key ?? null,
      };
      const claim = services.idempotency.claim(actor.id, key, keyRouteOf(operation, id), body);
      const summaryOf = (result: OperationResult) => ({
        ...ctx.audit.summary,
        replayed: claim.replayed,
        result: result.operation.state,
        gatewaySerial: result.operation.gatewaySerial,
      });
      // The attempt's audit row goes into the operation's last transaction (a stored reply or a
      // refusal before sending is audited by the runner as usual).
      const audit: AttemptAudit = {
        entry: (reply) =>
          reply instanceof AppError
            ? ctx.attemptEntry(reply)
            : ctx.attemptEntry(null, summaryOf(reply)),
        committed: () => {
          ctx.audit.recorded = true;
        },
      };
      const result = await call(id, body, actor, claim, audit);
      if (claim.replayed) ctx.res.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
      ctx.audit.summary = summaryOf(result);
      return { kind: 'json', status: 200, body: result };
    };

  return {
    'GET /api/transactions': async (ctx) => {
      const q = parseInput(TransactionListQuerySchema, ctx.req.query, 'query');
      return {
        kind: 'json',
        status: 200,
        body: await services.queries.list(q, { payouts: payoutReader(ctx) }),
      };
    },
    'GET /api/transactions/export': (ctx) => {
      const query = parseInput(TransactionExportQuerySchema, ctx.req.query, 'query');
      const { sort, delimiter, ...filter } = query;
      ctx.audit.summary = { filter, sort, delimiter };
      return Promise.resolve({
        kind: 'stream',
        contentType: 'text/csv; charset=utf-8',
        filename: exportFileName(filter, p.clock.now()),
        write: async (res: Response) => {
          await services.queries.writeCsv(query, res);
        },
      });
    },
    'POST /api/transactions/lookup': async (ctx) => {
      const body = parseInput(LookupBodySchema, ctx.req.body ?? {}, 'body');
      ctx.audit.summary = { ...body };
      const result = await services.transactions.lookup(
        body,
        actorOf(ctx),
        // the stop under way (shutdown.ts ends the streams first): no further endpoint is asked
        () => p.streams.closed,
        { payouts: payoutReader(ctx) },
      );
      if (result.kind === 'payout') {
        const { payout } = result;
        ctx.audit.target = `payout:${payout.id}`;
        ctx.audit.summary = { ...body, payout: payout.id, state: payout.state, created: false };
        return { kind: 'json', status: 200, body: { payout } satisfies LookupPayoutReply };
      }
      const { detail, created } = result;
      ctx.audit.target = `transaction:${detail.id}`;
      ctx.audit.summary = { ...body, status: detail.status, created };
      return { kind: 'json', status: 200, body: detail };
    },
    'GET /api/transactions/:id': async (ctx) => ({
      kind: 'json',
      status: 200,
      body: await services.transactions.get(transactionId(ctx)),
    }),
    'POST /api/transactions/:id/refresh': async (ctx) => {
      const id = transactionId(ctx);
      // Nothing to send but an empty body (or none): a field is refused, as a payout's refresh does.
      parseInput(TransactionRefreshBodySchema, ctx.req.body ?? {}, 'body');
      const detail = await services.transactions.refresh(id, actorOf(ctx));
      ctx.audit.summary = { status: detail.status, drift: detail.drift };
      return { kind: 'json', status: 200, body: detail };
    },
    'POST /api/transactions/:id/drift/review': async (ctx) => {
      const id = transactionId(ctx);
      const body = parseInput(DriftReviewBodySchema, ctx.req.body ?? {}, 'body');
      ctx.audit.summary = { comment: body.comment };
      // The audit row commits with the review (drift.ts): one transaction, or nothing.
      const detail = await services.transactions.reviewDrift(id, body, actorOf(ctx), {
        entry: (summary) => {
          ctx.audit.summary = summary;
          return ctx.attemptEntry(null, summary);
        },
        committed: () => {
          ctx.audit.recorded = true;
        },
      });
      return { kind: 'json', status: 200, body: detail };
    },
    'POST /api/transactions/:id/capture': idempotent(
      CaptureBodySchema,
      'capture',
      (id, body, actor, claim, audit) => services.operations.capture(id, body, actor, claim, audit),
    ),
    'POST /api/transactions/:id/return': idempotent(
      ReturnBodySchema,
      'return',
      (id, body, actor, claim, audit) => services.operations.return(id, body, actor, claim, audit),
    ),
    'POST /api/transactions/:id/void': idempotent(
      VoidBodySchema,
      'void',
      (id, body, actor, claim, audit) => services.operations.void(id, body, actor, claim, audit),
    ),
    'POST /api/transactions/:id/card-ref': idempotent(
      CardRefBodySchema,
      'card-ref',
      (id, _body, actor, claim, audit) => services.operations.cardRef(id, actor, claim, audit),
    ),
    'POST /api/rebills': async (ctx) => {
      const body = parseInput(RebillBodySchema, ctx.req.body ?? {}, 'body');
      const actor = actorOf(ctx);
      const key = ctx.req.get(IDEMPOTENCY_KEY_HEADER);
      ctx.audit.summary = { operation: 'rebill', body: audited(body), idempotencyKey: key ?? null };
      // Before the key is taken: a refusal stores no reply, the confirmed (or corrected) repeat may
      // reuse the key.
      requireAmountAccepted(amountGuards(p.config), body);
      const reply = await services.idempotency.run(
        actor.id,
        key,
        keyRouteOf('rebill', ''),
        withoutConfirmation(body),
        async () => ({
          status: 200,
          body: await services.rebills.rebill(body, actor, ctx.client.ip, key ?? null, (id) => {
            ctx.audit.target = `transaction:${id}`;
          }),
        }),
      );
      if (reply.replayed) ctx.res.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
      const result = reply.body as {
        operation?: { state?: string; gatewaySerial?: string | null };
        transaction?: { id?: string; orderid?: string; clientOrderId?: string };
      };
      if (result.transaction?.id !== undefined)
        ctx.audit.target = `transaction:${result.transaction.id}`;
      ctx.audit.summary = {
        ...ctx.audit.summary,
        replayed: reply.replayed,
        result: result.operation?.state ?? null,
        gatewaySerial: result.operation?.gatewaySerial ?? null,
        clientOrderId: result.transaction?.clientOrderId ?? null,
        orderid: result.transaction?.orderid ?? null,
      };
      return { kind: 'json', status: reply.status, body: reply.body };
    },
    'GET /api/subscriptions': async (ctx) => {
      const q = parseInput(SubscriptionListQuerySchema, ctx.req.query, 'query');
      return { kind: 'json', status: 200, body: await services.subscriptions.list(q) };
    },
    'POST /api/subscriptions': async (ctx) => {
      const body = parseInput(SubscriptionCreateBodySchema, ctx.req.body ?? {}, 'body');
      const actor = actorOf(ctx);
      const key = ctx.req.get(IDEMPOTENCY_KEY_HEADER);
      ctx.audit.summary = {
        operation: 'create-recurring-payment',
        body: audited(body),
        idempotencyKey: key ?? null,
      };
      // Before the key is taken: once the key is configured (or the amount confirmed or
      // corrected), the same request may be repeated.
      requireAmountAccepted(amountGuards(p.config), body);
      requireRsaKey(p.config);
      const reply = await services.idempotency.run(
        actor.id,
        key,
        'subscription',
        withoutConfirmation(body),
        async () => ({
          status: 200,
          body: await services.subscriptions.create(
            body,
            actor,
            ctx.client.ip,
            key ?? null,
            (id) => {
              ctx.audit.target = `subscription:${id}`;
            },
          ),
        }),
      );
      if (reply.replayed) ctx.res.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
      const result = reply.body as {
        subscription?: { id?: string; state?: string; recurringPaymentId?: string | null };
      };
      if (result.subscription?.id !== undefined)
        ctx.audit.target = `subscription:${result.subscription.id}`;
      ctx.audit.summary = {
        ...ctx.audit.summary,
        replayed: reply.replayed,
        result: result.subscription?.state ?? null,
        recurringPaymentId: result.subscription?.recurringPaymentId ?? null,
      };
      return { kind: 'json', status: reply.status, body: reply.body };
    },
    'GET /api/subscriptions/:id': async (ctx) => {
      const id = uuidParam(ctx.req.params.id, 'must be a subscription id (a UUID)');
      return { kind: 'json', status: 200, body: await services.subscriptions.get(id) };
    },
    'GET /api/events': (ctx) => {
      const auth = requireAuth(ctx);
      // The stream takes no parameters (the SPA's EventSource opens the bare address): one sent is
      // refused, as on every other route, rather than a stream opened that ignores it.
      parseInput(EventsQuerySchema, ctx.req.query, 'query');
      // EventSource always asks for an event stream; anything else would wait forever for a reply.
      if (!(ctx.req.get('Accept') ?? '').includes('text/event-stream')) {
        throw new AppError(
          'VALIDATION_FAILED',
          'header.Accept: must accept text/event-stream (use EventSource)',
          {
            fields: [
              {
                path: 'header.Accept',
                rule: 'text/event-stream',
                message: 'must accept text/event-stream',
              },
            ],
          },
        );
      }
      if (p.streams.closed) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'this instance is shutting down; reconnect (EventSource does so by itself)',
        );
      }
      const release = p.streams.take(auth.session.id);
      if (release === null) {
        throw new AppError(
          'RATE_LIMITED',
          `this session already has ${p.streams.limit} live-event streams open; close some Paydesk tabs`,
          { retryAfterSeconds: 60 },
        );
      }
      return Promise.resolve({
        kind: 'stream',
        contentType: 'text/event-stream; charset=utf-8',
        filename: 'events',
        write: (res: Response) =>
          streamEvents(p, ctx.req, res, ctx.stillAuthorized).finally(release),
      });
    },
    'GET /api/stats': async (ctx) => {
      const q = parseInput(StatsQuerySchema, ctx.req.query, 'query');
      return { kind: 'json', status: 200, body: await services.queries.stats(q) };
    },
  };
}

/**
 * Server-sent events until the client goes away, or until its session ends (signed out, revoked,
 * expired, the user disabled or no longer in a reading role): at each heartbeat, a comment line
 * that keeps proxies open, the session is checked again, so a stream outlives its session by at
 * most one heartbeat. A check that cannot be made (the database unreachable) ends the stream too;
 * the browser reconnects and is authenticated afresh.
 */
function streamEvents(
  p: Payments,
  req: Request,
  res: Response,
  stillAuthorized: () => Promise<boolean>,
): Promise<void> {
  // The runner's stream reply names a download; an event stream is not one.
  res.removeHeader('Content-Disposition');
  res.set('Cache-Control', 'no-store');
  res.set('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write(': connected\n\n');
  return new Promise<void>((resolve) => {
    // The browser went away while the request was being authenticated: nothing to stream.
    if (req.destroyed || res.destroyed) {
      resolve();
      return;
    }
    const send = (event: LiveEvent) => {
      res.write(`event: ${liveEventName(event)}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    // Changes may have gone by unstreamed (this instance stopped hearing the others for a while):
    // the stream ends, and the browser reconnects and refetches what it shows.
    const unsubscribe = p.bus.subscribe(send, () => {
      res.end();
    });
    let checking = false;
    const heartbeat = setInterval(() => {
      res.write(': keep-alive\n\n');
      if (checking) return;
      checking = true;
      void stillAuthorized()
        .catch(() => false)
        .then((allowed) => {
          checking = false;
          if (!allowed) res.end();
        });
    }, p.options.sseHeartbeatMs);
    heartbeat.unref();
    // At shutdown the stream ends, and its connection with it: a kept-alive connection would
    // otherwise stay open for the browser's next request.
    const untrack = p.streams.track(() => {
      const socket = res.socket;
      res.end(() => socket?.end());
    });
    const done = () => {
      clearInterval(heartbeat);
      unsubscribe();
      untrack();
      resolve();
    };
    req.on('close', done);
    res.on('close', done);
  });
}

/** Mounts every payments route on `router` (paths without `/api`), through the platform's runner. */
export function mountPaymentRoutes(
  router: express.Router,
  run: (rule: RouteRule, handler: Handler) => (req: Request, res: Response) => Promise<void>,
  p: Payments,
): void {
  const handlers = paymentHandlers(p);
  for (const key of Object.keys(PAYMENT_ROUTES) as PaymentRouteKey[]) {
    const [method = '', path = ''] = key.split(' ');
    const route = path.replace(/^\/api/, '');
    const handler = run(PAYMENT_ROUTES[key], handlers[key]);
    if (method === 'GET') router.get(route, handler);
    else router.post(route, handler);
  }
}

/**
 * `GET /gateway/callback?endpoint=ID`: the server_callback_url receiver (no session, no CSRF).
 * `refusalAudit` (`createApp`'s) bounds the audit rows of callbacks refused for their control.
 */
export function callbackRouter(
  p: Payments,
  logger: Logger,
  refusalAudit: Partial<RefusalThrottleOptions> = {},
): express.Router {
  const router = express.Router();
  // Anyone who holds a callback URL can send it with a wrong control or none: such refusals are
  // audited as the runner audits other unidentified clients' (http/run-route.ts), one row per
  // client and code a window, so that they cannot grow the append-only log without bound.
  const throttle = new RefusalThrottle(p.clock, refusalAudit);

  /** The audit row of a callback refused for its control (403), unless the throttle holds it. */
  const auditControlRefusal = async (
    req: Request,
    query: Readonly<Record<string, string>>,
    err: AppError,
  ): Promise<void> => {
    const requestId = requestIdOf(req);
    const ip = req.ip ?? null;
    const summary = throttle.summaryToAudit(
      { ip, code: err.code, requestId, action: CALLBACK_ACTION },
      { ...refusedCallbackSummary(query), reason: err.message },
      logger,
    );
    if (summary === null) return;
    try {
      await p.audit.append({
        actorId: null,
        actorEmail: null,
        actorRoles: [],
        action: CALLBACK_ACTION,
        target: null,
        summary,
        outcome: 'refused',
        errorCode: err.code,
        requestId,
        ip,
        userAgent: req.get('User-Agent') ?? null,
      });
    } catch (auditErr) {
      // As the runner does: a refusal whose row cannot be written is answered 500.
      logger.error({ err: auditErr, requestId }, 'audit append failed');
      throw auditErr;
    }
  };

  router.get('/gateway/callback', async (req: Request, res: Response) => {
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.query)) {
      if (typeof value === 'string') query[name] = value;
    }
    res.set('Cache-Control', 'no-store');
    try {
      // A parameter given twice is named as such (not as missing): which one the gateway meant
      // cannot be told, and the control signs only one.
      refuseRepeatedParams(req.query);
      const result = await p.services.callbacks.receive(query);
      res.status(200).type('text/plain').send('OK');
      logger.info(
        { outcome: result.outcome, transactionId: result.transactionId },
        'gateway callback',
      );
    } catch (caught) {
      const err = toAppError(caught);
      // The receiver refuses a missing or wrong control, and only that, with 403.
      if (err.code === 'FORBIDDEN') await auditControlRefusal(req, query, err);
      if (err.code === 'SERVICE_UNAVAILABLE') res.set('Retry-After', '5');
      // The request logger's line says why (a shed callback at warn): no line of its own.
      if (err.status >= 500) noteFailure(res, caught);
      res.status(err.status).json(errorEnvelope(err, requestIdOf(req)));
    }
  });
  router.all('/gateway/callback', methodNotAllowed(['GET']));
  return router;
}

/** A request body as its audit row keeps it: its amount written as money ('10' as '10.00'). */
function audited(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('amount' in body)) return body;
  return typeof body.amount === 'string' ? { ...body, amount: auditAmount(body.amount) } : body;
}
