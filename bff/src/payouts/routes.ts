// The payouts, payment-link and card-info routes: their route-table entries (same shape as
// http/route-table.ts) and thin handlers run through the platform's runner (CSRF, session, roles,
// one audit row per attempt, refusals included).
import type express from 'express';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import {
  CardInfoBodySchema,
  CardRefListQuerySchema,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  PaymentLinkCreateBodySchema,
  PaymentLinkListQuerySchema,
  PaymentLinkRefreshBodySchema,
  PayoutApproveBodySchema,
  PayoutCreateBodySchema,
  PayoutListQuerySchema,
  PayoutRejectBodySchema,
} from '@paydesk/shared/api';
import { AppError, parseInput } from '../errors.js';
import { uuidParam } from '../http/path-id.js';
import type { RouteRule } from '../http/route-table.js';
import type { Interruption } from '../payments/idempotency.js';
import { requireAuth, type Handler, type RouteContext } from '../http/run-route.js';
import { requireAmountAccepted } from '../payments/amount-guards.js';
import { withoutConfirmation } from '../payments/large-amount.js';
import { auditAmount } from '../services/audit.js';
import { parseRoles } from '../services/users.js';
import { CARD_REF_ID } from './card-info.js';
import { PAYOUT_HISTORY, withhold } from '../payments/withheld.js';
import type { Actor } from './context.js';
import { maskDestination } from './destination.js';
import type { Payouts } from './index.js';
import { PAYOUT_ROUTES, type PayoutRouteKey } from './route-rules.js';

export { PAYOUT_ROUTES, type PayoutRouteKey } from './route-rules.js';

function idParam(ctx: RouteContext, what: 'payout' | 'link'): string {
  const id = uuidParam(
    ctx.req.params.id,
    `must be a ${what === 'link' ? 'payment link' : what} id (a UUID)`,
  );
  ctx.audit.target = `${what}:${id}`;
  return id;
}

function actorOf(ctx: RouteContext): Actor {
  const auth = requireAuth(ctx);
  return { id: auth.user.id, email: auth.user.email, roles: parseRoles(auth.user.roles) };
}

export function payoutHandlers(p: Payouts): Record<PayoutRouteKey, Handler> {
  const { payouts, links, cardInfo } = p.services;

  /**
   * Runs `work` under the caller's Idempotency-Key; `hashed` is what the key is bound to;
   * `interruption`, how a repeat of an interrupted request learns its outcome.
   */
  const idempotent = async (
    ctx: RouteContext,
    route: string,
    hashed: unknown,
    work: () => Promise<unknown>,
    interruption?: Interruption,
  ): Promise<{ kind: 'json'; status: number; body: unknown }> => {
    const actor = actorOf(ctx);
    const key = ctx.req.get(IDEMPOTENCY_KEY_HEADER);
    ctx.audit.summary = { ...ctx.audit.summary, idempotencyKey: key ?? null };
    const reply = await p.idempotency.run(
      actor.id,
      key,
      route,
      hashed,
      async () => ({ status: 200, body: await work() }),
      interruption,
    );
    if (reply.replayed) ctx.res.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
    ctx.audit.summary = { ...ctx.audit.summary, replayed: reply.replayed };
    return { kind: 'json', status: reply.status, body: reply.body };
  };

  const note = (ctx: RouteContext, result: unknown) => {
    const r = result as {
      payout?: { state?: string; orderid?: string | null };
      link?: { state?: string; orderid?: string | null };
    };
    const item = r.payout ?? r.link;
    ctx.audit.summary = {
      ...ctx.audit.summary,
      result: item?.state ?? null,
      orderid: item?.orderid ?? null,
    };
  };

  const decide =
    <S extends z.ZodType>(
      what: 'payout' | 'link',
      decision: 'approve' | 'reject',
      schema: S,
      call: (id: string, body: z.output<S>, actor: Actor) => Promise<unknown>,
      interruption?: (id: string, actor: Actor) => Interruption,
      withdrawal?: (id: string, actor: Actor) => Promise<boolean>,
    ): Handler =>
    async (ctx) => {
      const id = idParam(ctx, what);
      const actor = actorOf(ctx);
      // A preparer's reject is a withdrawal, audited as one (refusals too), so that the log tells
      // it from a second person's rejection.
      let operation: string = decision;
      if (withdrawal !== undefined && (await withdrawal(id, actor))) {
        operation = 'withdraw';
        ctx.audit.action = `${what === 'link' ? 'payment_link' : 'payout'}.withdraw`;
      }
      const body = parseInput(schema, ctx.req.body ?? {}, 'body');
      ctx.audit.summary = { operation, ...(body as Record<string, unknown>) };
      return idempotent(
        ctx,
        `${what}.${decision} ${id}`,
        body,
        async () => {
          const result = await call(id, body, actor);
          note(ctx, result);
          return result;
        },
        interruption?.(id, actor),
      );
    };

  return {
    'GET /api/payouts': async (ctx) => {
      const q = parseInput(PayoutListQuerySchema, ctx.req.query, 'query');
      return { kind: 'json', status: 200, body: await payouts.list(q, actorOf(ctx)) };
    },
    'POST /api/payouts': async (ctx) => {
      const body = parseInput(PayoutCreateBodySchema, ctx.req.body ?? {}, 'body');
      // The audit log is read by auditors: a card's holder and expiry stay out, as in the timeline.
      const masked = withhold(maskDestination(body.destination), PAYOUT_HISTORY);
      ctx.audit.summary = {
        mode: body.mode,
        amount: auditAmount(body.amount),
        currency: body.currency,
        endpointId: body.endpointId ?? null,
        orderDesc: body.orderDesc,
        destination: masked,
        confirmLargeAmount: body.confirmLargeAmount ?? false,
      };
      // Before the key is taken: a refusal stores no reply, the confirmed (or corrected) repeat may
      // reuse the key.
      requireAmountAccepted(p, body);
      const actor = actorOf(ctx);
      // The key is bound to the request with the destination as its keyed hash: never a plain hash of a card number.
      const hashed = {
        ...withoutConfirmation(body),
        destination: { kind: body.destination.kind, hash: p.hasher.hash(body.destination) },
      };
      // The payout keeps the key: a repeat of an interrupted request finds what it prepared.
      const key = ctx.req.get(IDEMPOTENCY_KEY_HEADER) ?? null;
      const reply = await idempotent(
        ctx,
        'payout.prepare',
        hashed,
        async () => {
          const result = await payouts.prepare(
            body,
            actor,
            ctx.client.ip,
            (id) => {
              ctx.audit.target = `payout:${id}`;
            },
            key,
          );
          note(ctx, result);
          return result;
        },
        key === null ? undefined : payouts.prepareInterruption(key, actor),
      );
      const created = reply.body as { payout?: { id?: string } };
      if (created.payout?.id !== undefined) ctx.audit.target = `payout:${created.payout.id}`;
      return reply;
    },
    'GET /api/payouts/:id': async (ctx) => ({
      kind: 'json',
      status: 200,
      body: await payouts.get(idParam(ctx, 'payout'), actorOf(ctx)),
    }),
    'POST /api/payouts/:id/approve': decide(
      'payout',
      'approve',
      PayoutApproveBodySchema,
      (id, _body, actor) => payouts.approve(id, actor),
      (id, actor) => payouts.approvalInterruption(id, actor),
    ),
    'POST /api/payouts/:id/reject': decide(
      'payout',
      'reject',
      PayoutRejectBodySchema,
      (id, body, actor) => payouts.reject(id, body.reason, actor),
      undefined,
      (id, actor) => payouts.isWithdrawal(id, actor),
    ),
    'POST /api/payouts/:id/pay-again': async (ctx) => {
      // Moves money, as an approval: CSRF, session and roles are the runner's; the Idempotency-Key
      // is required, and a repeat of an interrupted one learns what it did from the payout.
      const id = idParam(ctx, 'payout');
      const actor = actorOf(ctx);
      const body = parseInput(PayoutApproveBodySchema, ctx.req.body ?? {}, 'body'); // an empty body
      ctx.audit.summary = { operation: 'pay_again' };
      return idempotent(
        ctx,
        `payout.pay_again ${id}`,
        body,
        async () => {
          const result = await payouts.payAgain(id, actor);
          note(ctx, result);
          return result;
        },
        payouts.payAgainInterruption(id, actor),
      );
    },
    'POST /api/payouts/:id/refresh': async (ctx) => {
      // A status check moves no money: no Idempotency-Key; CSRF, session, roles and the audit row
      // are the runner's.
      const id = idParam(ctx, 'payout');
      parseInput(PayoutApproveBodySchema, ctx.req.body ?? {}, 'body'); // an empty body, as approval's
      const result = await p.poller.refresh(id, actorOf(ctx));
      note(ctx, result);
      return { kind: 'json', status: 200, body: result };
    },
    'GET /api/payment-links': async (ctx) => {
      const q = parseInput(PaymentLinkListQuerySchema, ctx.req.query, 'query');
      return { kind: 'json', status: 200, body: await links.list(q, actorOf(ctx)) };
    },
    'POST /api/payment-links': async (ctx) => {
      const body = parseInput(PaymentLinkCreateBodySchema, ctx.req.body ?? {}, 'body');
      ctx.audit.summary = {
        kind: body.kind,
        amount: body.amount === undefined ? null : auditAmount(body.amount),
        currency: body.currency ?? null,
        endpointId: body.endpointId ?? null,
        orderDesc: body.orderDesc,
        confirmLargeAmount: body.confirmLargeAmount ?? false,
      };
      // Before the key is taken: a refusal stores no reply, the confirmed (or corrected) repeat may
      // reuse the key.
      requireAmountAccepted(p, body);
      const actor = actorOf(ctx);
      const roles = parseRoles(requireAuth(ctx).user.roles);
      const hashed = withoutConfirmation(body);
      const reply = await idempotent(ctx, 'payment_link.create', hashed, async () => {
        const result = await links.create(body, actor, roles, ctx.client.ip, (id) => {
          ctx.audit.target = `link:${id}`;
        });
        note(ctx, result);
        return result;
      });
      const created = reply.body as { link?: { id?: string } };
      if (created.link?.id !== undefined) ctx.audit.target = `link:${created.link.id}`;
      return reply;
    },
    'GET /api/payment-links/:id': async (ctx) => ({
      kind: 'json',
      status: 200,
      body: await links.get(idParam(ctx, 'link'), actorOf(ctx)),
    }),
    'POST /api/payment-links/:id/refresh': async (ctx) => {
      // A status check moves no money: no Idempotency-Key; CSRF, session, roles and the audit row
      // are the runner's.
      const id = idParam(ctx, 'link');
      parseInput(PaymentLinkRefreshBodySchema, ctx.req.body ?? {}, 'body');
      const result = await links.refresh(id, actorOf(ctx));
      ctx.audit.summary = {
        result: result.outcome,
        orderid: result.link.order?.orderid ?? result.link.orderid,
        orderStatus: result.link.order?.status ?? null,
      };
      return { kind: 'json', status: 200, body: result };
    },
    'POST /api/payment-links/:id/approve': decide(
      'link',
      'approve',
      PayoutApproveBodySchema,
      (id, _body, actor) => links.approve(id, actor),
      (id, actor) => links.approvalInterruption(id, actor),
    ),
    'POST /api/payment-links/:id/reject': decide(
      'link',
      'reject',
      PayoutRejectBodySchema,
      (id, body, actor) => links.reject(id, body.reason, actor),
      undefined,
      (id, actor) => links.isWithdrawal(id, actor),
    ),
    'GET /api/cards': async (ctx) => {
      const q = parseInput(CardRefListQuerySchema, ctx.req.query, 'query');
      return { kind: 'json', status: 200, body: await cardInfo.list(q.limit) };
    },
    'POST /api/cards/:cardRefId/info': async (ctx) => {
      const cardRefId = ctx.req.params.cardRefId;
      if (typeof cardRefId !== 'string' || !CARD_REF_ID.test(cardRefId)) {
        throw new AppError(
          'VALIDATION_FAILED',
          'cardRefId: must be 1-64 letters, digits, dots, dashes or underscores',
          {
            fields: [
              {
                path: 'params.cardRefId',
                rule: 'format',
                message: 'must be 1-64 letters, digits, dots, dashes or underscores',
              },
            ],
          },
        );
      }
      ctx.audit.target = `card-ref:${cardRefId}`;
      const body = parseInput(CardInfoBodySchema, ctx.req.body ?? {}, 'body');
      ctx.audit.summary = { reason: body.reason, endpointId: body.endpointId ?? null };
      const info = await cardInfo.info(cardRefId, body.endpointId);
      ctx.audit.summary = { ...ctx.audit.summary, bin: info.bin, brand: info.brand };
      return { kind: 'json', status: 200, body: info };
    },
  };
}

/** Mounts every payouts route on `router` (paths without `/api`), through the platform's runner. */
export function mountPayoutRoutes(
  router: express.Router,
  run: (rule: RouteRule, handler: Handler) => (req: Request, res: Response) => Promise<void>,
  p: Payouts,
): void {
  const handlers = payoutHandlers(p);
  for (const key of Object.keys(PAYOUT_ROUTES) as PayoutRouteKey[]) {
    const [method = '', path = ''] = key.split(' ');
    const route = path.replace(/^\/api/, '');
    const handler = run(PAYOUT_ROUTES[key], handlers[key]);
    if (method === 'GET') router.get(route, handler);
    else router.post(route, handler);
  }
}
