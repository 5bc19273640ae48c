import {
  CreateUserRequestSchema,
  EmailSchema,
  ResetPasswordRequestSchema,
  ResetTotpRequestSchema,
  UnlockSignInRequestSchema,
  UpdateUserRequestSchema,
  UserListQuerySchema,
} from '@paydesk/shared/api';
import { parseInput } from '../../errors.js';
import type { Services } from '../../services/index.js';
import { assertStrongPassword } from '../../services/password-strength.js';
import { uuidParam } from '../path-id.js';
import { requireAuth, type Handler, type RouteContext } from '../run-route.js';

function userId(ctx: RouteContext): string {
  const id = uuidParam(ctx.req.params.id, 'must be a user id (a UUID)');
  ctx.audit.target = `user:${id}`;
  return id;
}

export function userHandlers(s: Services) {
  // Admins manage the accounts; auditors read them (who the staff are, beside the audit log).
  const list: Handler = async (ctx) => {
    // No parameters: one sent (`limit`, `page`) is refused, never ignored, as on the other lists.
    parseInput(UserListQuerySchema, ctx.req.query, 'query');
    return { kind: 'json', status: 200, body: { items: await s.users.list() } };
  };

  const create: Handler = async (ctx) => {
    // No body reads as `{}`, as on every other route: the fields it lacks are named.
    const raw: unknown = ctx.req.body ?? {};
    // A refusal of any other field still names the account attempted, as a weak password's does:
    // its e-mail when that one is well-formed (never the password).
    const attempted = EmailSchema.safeParse(
      typeof raw === 'object' && raw !== null && 'email' in raw ? raw.email : undefined,
    );
    if (attempted.success) ctx.audit.summary = { email: attempted.data };
    const body = parseInput(CreateUserRequestSchema, raw, 'body');
    // Why, when the account is given Finance or Operations (the schema requires it then); an absent
    // reason leaves no key.
    ctx.audit.summary = {
      email: body.email,
      name: body.name,
      roles: body.roles,
      reason: body.reason,
    };
    // A temporary password still guards the account until its holder replaces it.
    await assertStrongPassword(body.password, body, 'password');
    // The admin chose the password: its holder must choose their own at the first sign-in.
    const user = await s.users.create(body, {
      temporaryPassword: true,
      auditEntry: (created) => {
        ctx.audit.target = `user:${created.id}`;
        return ctx.attemptEntry(null);
      },
    });
    // Its audit row committed with the account.
    ctx.audit.recorded = true;
    return { kind: 'json', status: 201, body: user };
  };

  /**
   * The audit row keeps the change and, beside it, why (required to disable or enable, and to give
   * Finance or Operations: the service weighs that against the current roles): four-eyes
   * (payouts/four-eyes.ts) reads what a change touched from the keys of `change` alone.
   */
  const update: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    const id = userId(ctx);
    const body = parseInput(UpdateUserRequestSchema, ctx.req.body ?? {}, 'body');
    // (An absent reason leaves no key: the audit log drops undefined values.)
    const { reason, ...change } = body;
    ctx.audit.summary = { change, reason };
    const { user } = await s.users.update(id, body, auth.user.id, (done) => {
      const { before } = done;
      ctx.audit.summary = {
        change,
        reason,
        before: { name: before.name, roles: before.roles, disabled: before.disabled },
        email: done.user.email,
      };
      return ctx.attemptEntry(null);
    });
    // Its audit row committed with the change.
    ctx.audit.recorded = true;
    return { kind: 'json', status: 200, body: user };
  };

  /** Two-step sign-in off for a user who lost their phone (never one's own: 403). */
  const resetTotp: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    const id = userId(ctx);
    const { reason } = parseInput(ResetTotpRequestSchema, ctx.req.body ?? {}, 'body');
    ctx.audit.summary = { reason };
    const user = await s.users.resetTotp(id, auth.user.id, (reset) => {
      ctx.audit.summary = { email: reset.email, reason };
      return ctx.attemptEntry(null);
    });
    // Its audit row committed with the reset.
    ctx.audit.recorded = true;
    return { kind: 'json', status: 200, body: user };
  };

  /**
   * A new temporary password for a user who forgot theirs (never one's own): their sessions end,
   * and they must choose their own at their next sign-in. The audit row names the user and why,
   * never the password; four-eyes (payouts/four-eyes.ts) counts it as the admin choosing their
   * password.
   */
  const resetPassword: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    const id = userId(ctx);
    const body = parseInput(ResetPasswordRequestSchema, ctx.req.body ?? {}, 'body');
    ctx.audit.summary = { reason: body.reason };
    const user = await s.users.resetPassword(id, body.password, auth.user.id, (reset) => {
      ctx.audit.summary = { email: reset.email, sessionsRevoked: true, reason: body.reason };
      return ctx.attemptEntry(null);
    });
    // Its audit row committed with the reset.
    ctx.audit.recorded = true;
    return { kind: 'json', status: 200, body: user };
  };

  /**
   * Lets a user locked out by failed sign-ins sign in again at once (never one's own: 403). The
   * audit row names the user, why, and how many failures went, from which addresses' lock.
   */
  const unlockSignIn: Handler = async (ctx) => {
    const auth = requireAuth(ctx);
    const id = userId(ctx);
    const { reason } = parseInput(UnlockSignInRequestSchema, ctx.req.body ?? {}, 'body');
    ctx.audit.summary = { reason };
    const result = await s.users.unlockSignIn(id, auth.user.id, ({ user, lock, cleared }) => {
      ctx.audit.summary = {
        email: user.email,
        reason,
        // Which lock stood: every address, the addresses named, or none (it had lifted by itself).
        lockedOut:
          lock === null ? 'none' : lock.scope === 'account' ? 'every address' : lock.addresses,
        failuresCleared: cleared,
      };
      return ctx.attemptEntry(null);
    });
    // Its audit row committed with the unlock.
    ctx.audit.recorded = true;
    return { kind: 'json', status: 200, body: result };
  };

  return {
    'GET /api/users': list,
    'POST /api/users': create,
    'PATCH /api/users/:id': update,
    'POST /api/users/:id/reset-totp': resetTotp,
    'POST /api/users/:id/reset-password': resetPassword,
    'POST /api/users/:id/unlock-sign-in': unlockSignIn,
  } as const;
}
