import { z } from 'zod';
import { EmailSchema, freeText, IdSchema, IsoDateTimeSchema, ReasonSchema } from './common.js';
import {
  ROLES_CONFLICT_MESSAGE,
  RoleSetSchema,
  moneyRoleReasonRequired,
  rolesConflict,
} from './roles.js';

/** Password rule for new passwords: 12 to 256 characters. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
export const NewPasswordSchema = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH);

export const UserNameSchema = freeText(1, 120);

/** A staff account as the API shows it (never a hash, a TOTP secret or a recovery code). */
export const UserSchema = z.object({
  id: IdSchema,
  email: z.string(),
  name: z.string(),
  roles: RoleSetSchema,
  disabled: z.boolean(),
  totpEnabled: z.boolean(),
  /**
   * The password was chosen by someone else (an administrator creating or resetting the account):
   * until its holder chooses their own (`POST /api/session/password`), a session of this account
   * may only read itself, sign out and change the password; everything else answers 403
   * `PASSWORD_CHANGE_REQUIRED`.
   */
  passwordChangeRequired: z.boolean(),
  createdAt: IsoDateTimeSchema,
  updatedAt: IsoDateTimeSchema,
  lastLoginAt: IsoDateTimeSchema.nullable(),
});
export type User = z.infer<typeof UserSchema>;

/**
 * Sign-in refused for now after too many wrong attempts (the BFF's login limiter, bff/README.md):
 * `account` when the failures from every address together reached their limit (no address can sign
 * in), `addresses` when only the addresses listed, each past its own limit, cannot. `until`: when
 * the last of them lifts by itself, if no one tries again meanwhile.
 */
export const SignInLockSchema = z.object({
  scope: z.enum(['account', 'addresses']),
  /** the addresses the failures came from (every one of them for `account`) */
  addresses: z.array(z.string()),
  until: IsoDateTimeSchema,
});
export type SignInLock = z.infer<typeof SignInLockSchema>;

/** A staff account in the users list: the account, and whether it is locked out of signing in. */
export const UserListItemSchema = UserSchema.extend({ signInLock: SignInLockSchema.nullable() });
export type UserListItem = z.infer<typeof UserListItemSchema>;

/**
 * `GET /api/users` query: none (the list is every account, unpaged); strict: a parameter is
 * refused, never ignored, as every other list refuses one it does not know.
 */
export const UserListQuerySchema = z.object({}).strict();

/** `GET /api/users` reply (every staff account, by e-mail): admins and auditors read it. */
export const UserListResponseSchema = z.object({ items: z.array(UserListItemSchema) });
export type UserListResponse = z.infer<typeof UserListResponseSchema>;

/**
 * `POST /api/users` body; reply 201 `User`. The password is temporary: the user must choose their
 * own at their first sign-in. Auditor does not go with Operations or Finance on one account
 * (`rolesConflict`: segregation of duties). An account given Finance or Operations says why
 * (`reason`, kept in the audit row: `moneyRoleReasonRequired`); any other may. Roles that conflict
 * are said alone: the reason is asked of the roles that stand.
 */
export const CreateUserRequestSchema = z
  .strictObject({
    email: EmailSchema,
    name: UserNameSchema,
    password: NewPasswordSchema,
    roles: RoleSetSchema,
    reason: ReasonSchema.optional(),
  })
  .refine((b) => rolesConflict(b.roles) === undefined, {
    path: ['roles'],
    message: ROLES_CONFLICT_MESSAGE,
    params: { rule: 'roles_conflict' },
  })
  .superRefine((b, ctx) => {
    if (b.reason !== undefined || rolesConflict(b.roles) !== undefined) return;
    const missing = moneyRoleReasonRequired(b.roles);
    if (missing === undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['reason'],
      message: missing,
      params: { rule: 'required' },
    });
  });
export type CreateUserRequest = z.infer<typeof CreateUserRequestSchema>;

/**
 * `PATCH /api/users/:id` body (at least one of name, roles, disabled); reply `User`. The roles are
 * weighed against the account's current ones by `rolesRefusal` (the BFF refuses a self-granted
 * money role, 409, and a change into Auditor with a money role, 400, both naming `roles`). Disabling
 * locks someone out, and enabling lets someone back in and ties the admin to the account for
 * four-eyes: both say why (`reason`, kept in the audit row). So does a change of roles that adds
 * Finance or Operations (`moneyRoleReasonRequired` against the current roles: the BFF refuses it
 * without one, 400 naming `reason`, rule `required`); keeping or removing one needs none. Any other
 * change may.
 */
export const UpdateUserRequestSchema = z
  .strictObject({
    name: UserNameSchema.optional(),
    roles: RoleSetSchema.optional(),
    disabled: z.boolean().optional(),
    reason: ReasonSchema.optional(),
  })
  .refine((b) => b.name !== undefined || b.roles !== undefined || b.disabled !== undefined, {
    message: 'at least one of name, roles, disabled is required',
  })
  .refine((b) => b.disabled !== true || b.reason !== undefined, {
    path: ['reason'],
    message: 'is required to disable a user (say why)',
    params: { rule: 'required' },
  })
  .refine((b) => b.disabled !== false || b.reason !== undefined, {
    path: ['reason'],
    message: 'is required to enable a user (say why)',
    params: { rule: 'required' },
  });
export type UpdateUserRequest = z.infer<typeof UpdateUserRequestSchema>;

/**
 * A reason the request needs: missing, it says what it is for (`is required to reset a password
 * (say why)`, as disabling does), not zod's "expected string".
 */
function requiredReason(forWhat: string) {
  return ReasonSchema.optional().transform((reason, ctx) => {
    if (reason !== undefined) return reason;
    ctx.addIssue({
      code: 'custom',
      message: `is required ${forWhat} (say why)`,
      params: { rule: 'required' },
    });
    return z.NEVER;
  });
}

/**
 * `POST /api/users/:id/reset-totp` body: why (kept in the audit row). Someone who lost their
 * phone asked, or an account is suspected: the reset signs its holder in with the password alone.
 */
export const ResetTotpRequestSchema = z.strictObject({
  reason: requiredReason('to reset two-step sign-in'),
});
export type ResetTotpRequest = z.infer<typeof ResetTotpRequestSchema>;

/** `POST /api/users/:id/reset-totp` reply: the user, TOTP off, their sessions revoked. */
export const ResetTotpResponseSchema = UserSchema;

/**
 * `POST /api/users/:id/reset-password` body (admin only, not for one's own account): a new
 * temporary password, under the same rules as at creation, and why (kept in the audit row, as for
 * a two-step reset: whoever knows the new password can sign in as the user until they choose their
 * own; QA). Reply `User` (`passwordChangeRequired` true); every session of the user is revoked.
 */
export const ResetPasswordRequestSchema = z.strictObject({
  password: NewPasswordSchema,
  reason: requiredReason('to reset a password'),
});
export type ResetPasswordRequest = z.infer<typeof ResetPasswordRequestSchema>;

/** `POST /api/users/:id/reset-password` reply. */
export const ResetPasswordResponseSchema = UserSchema;

/**
 * `POST /api/users/:id/unlock-sign-in` body (admin only, not for one's own account): why (kept in
 * the audit row). Clears the account's failed sign-ins from every address, so a colleague locked
 * out by mistyping (or by someone failing on purpose) can sign in again at once. Failures counted
 * against an address across accounts stay.
 */
export const UnlockSignInRequestSchema = z.strictObject({
  reason: requiredReason('to unlock sign-in'),
});
export type UnlockSignInRequest = z.infer<typeof UnlockSignInRequestSchema>;

/**
 * `POST /api/users/:id/unlock-sign-in` reply: the account as listed now, and how many failed
 * sign-ins were cleared (0 when the lock had lifted by itself).
 */
export const UnlockSignInResponseSchema = z.object({
  user: UserListItemSchema,
  cleared: z.number().int().nonnegative(),
});
export type UnlockSignInResponse = z.infer<typeof UnlockSignInResponseSchema>;
