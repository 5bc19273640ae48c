import {
  ChangePasswordRequestSchema,
  LoginRequestSchema,
  TotpConfirmRequestSchema,
  TotpEnrolRequestSchema,
  type SessionResponse,
  type SessionSettings,
} from '@paydesk/shared/api';
import { parseInput } from '../../errors.js';
import { largeAmountSettings } from '../../payments/large-amount.js';
import { orderAmountLimits } from '../../payments/order-limit.js';
import { resolvePayoutsOptions } from '../../payouts/context.js';
import type { IssuedSession } from '../../services/auth.js';
import type { Services } from '../../services/index.js';
import { parseRoles, toUser } from '../../services/users.js';
import { clearedSessionCookie, sessionCookie } from '../cookies.js';
import { requireAuth, type Handler } from '../run-route.js';

export function sessionHandlers(s: Services) {
  // What the SPA says of held payouts ("lapses if not approved within 3 days"): the setting the
  // payouts module runs with (PAYOUT_HOLD_MAX_AGE_MS, else its default). Which amounts the SPA
  // asks to confirm before sending: the thresholds the routes enforce (LARGE_AMOUNT_CONFIRM_ABOVE).
  // Which amounts the SPA refuses before sending: the limits the routes enforce (ORDER_AMOUNT_LIMIT).
  // How long a follow-up dialog says Paydesk waits for the gateway: the wait the payments and
  // payouts modules run with (GATEWAY_TIMEOUT_MS; a duration, nothing of where the gateway is).
  // When the idle warning comes: the session's idle timeout (SESSION_IDLE_SECONDS).
  // Which endpoints a form offers and which currencies each takes: MERCHANT_ENDPOINTS, ids and
  // currencies only (never the merchant's login or keys). A group whose currencies are not
  // configured says null: the gateway decides.
  const settings: SessionSettings = {
    payoutHoldMaxAgeMs: s.config.payoutHoldMaxAgeMs ?? resolvePayoutsOptions().holdMaxAgeMs,
    largeAmount: largeAmountSettings(s.config),
    orderAmountLimit: orderAmountLimits(s.config),
    gatewayTimeoutMs: s.config.gatewayTimeoutMs,
    sessionIdleSeconds: s.config.session.idleSeconds,
    endpoints: s.config.merchant.endpoints.map((e) =>
      e.kind === 'endpoint'
        ? { id: e.id, kind: 'endpoint', currencies: [e.currency] }
        : { id: e.id, kind: 'group', currencies: e.currencies ?? null },
    ),
  };
  const sessionBody = async (
    issued: Pick<IssuedSession, 'user' | 'session'>,
  ): Promise<SessionResponse> => {
    const previous = await s.auth.previousSession(issued.session);
    return {
      user: toUser(issued.user),
      idleExpiresAt: new Date(s.auth.idleExpiresAt(issued.session)).toISOString(),
      absoluteExpiresAt: new Date(issued.session.absolute_expires_at).toISOString(),
      previousSession:
        previous === null
          ? null
          : {
              startedAt: new Date(previous.created_at).toISOString(),
              ip: previous.ip,
              userAgent: previous.user_agent,
            },
      settings,
    };
  };
  const cookieFor = (issued: IssuedSession) =>
    sessionCookie(
      s.config,
      issued.token,
      (issued.session.absolute_expires_at - s.clock.now()) / 1000,
    );

  const login: Handler = async (ctx) => {
    const body = parseInput(LoginRequestSchema, ctx.req.body ?? {}, 'body');
    ctx.audit.summary = { email: body.email, secondFactorGiven: body.totp !== undefined };
    ctx.audit.target = `account:${body.email}`;
    const issued = await s.auth.login(body, ctx.client);
    ctx.audit.actor = {
      id: issued.user.id,
      email: issued.user.email,
      roles: parseRoles(issued.user.roles),
    };
    ctx.audit.target = `user:${issued.user.id}`;
    return {
      kind: 'json',
      status: 200,
      body: await sessionBody(issued),
      cookie: cookieFor(issued),
    };
  };

  const me: Handler = async (ctx) => ({
    kind: 'json',
    status: 200,
    body: await sessionBody(requireAuth(ctx)),
  });

  const logout: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    await s.auth.revoke(auth.session.id);
    ctx.audit.target = `user:${auth.user.id}`;
    return { kind: 'empty', status: 204, cookie: clearedSessionCookie(s.config) };
  };

  const changePassword: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    ctx.audit.target = `user:${auth.user.id}`;
    const body = parseInput(ChangePasswordRequestSchema, ctx.req.body ?? {}, 'body');
    const issued = await s.auth.changePassword(
      auth,
      body.currentPassword,
      body.newPassword,
      ctx.client,
    );
    return {
      kind: 'json',
      status: 200,
      body: await sessionBody(issued),
      cookie: cookieFor(issued),
    };
  };

  const totpEnrol: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    ctx.audit.target = `user:${auth.user.id}`;
    const body = parseInput(TotpEnrolRequestSchema, ctx.req.body ?? {}, 'body');
    const enrolment = await s.auth.totpEnrol(auth, body.currentPassword, ctx.client);
    return { kind: 'json', status: 200, body: enrolment };
  };

  const totpConfirm: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    ctx.audit.target = `user:${auth.user.id}`;
    const body = parseInput(TotpConfirmRequestSchema, ctx.req.body ?? {}, 'body');
    const result = await s.auth.totpConfirm(auth.user, body.code);
    return { kind: 'json', status: 200, body: result };
  };

  return {
    'POST /api/session': login,
    'GET /api/session': me,
    'DELETE /api/session': logout,
    'POST /api/session/password': changePassword,
    'POST /api/session/totp': totpEnrol,
    'POST /api/session/totp/confirm': totpConfirm,
  } as const;
}
