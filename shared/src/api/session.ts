import { z } from 'zod';
import { EmailSchema, IsoDateTimeSchema } from './common.js';
import { LargeAmountSettingsSchema } from './large-amount.js';
import { OrderAmountLimitsSchema } from './order-limit.js';
import { NewPasswordSchema, UserSchema } from './users.js';

/**
 * `POST /api/session` body. `totp` is a 6-digit code or a recovery code; required when the
 * account has TOTP enabled (reply 401 `TOTP_REQUIRED` after a correct password without it).
 */
export const LoginRequestSchema = z.strictObject({
  email: EmailSchema,
  password: z.string().min(1).max(1024),
  totp: z.string().trim().min(1).max(64).optional(),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

/** Where and when a session began (shown to its user, who knows their own devices). */
export const SessionOriginSchema = z.object({
  startedAt: IsoDateTimeSchema,
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
});
export type SessionOrigin = z.infer<typeof SessionOriginSchema>;

/**
 * A configured endpoint or endpoint group. `currencies`: an endpoint's one currency; a group's
 * currencies, or null when the configuration does not say (the gateway then decides).
 */
export const EndpointChoiceSchema = z.object({
  id: z.string(),
  kind: z.enum(['endpoint', 'group']),
  currencies: z.array(z.string()).nullable(),
});
export type EndpointChoice = z.infer<typeof EndpointChoiceSchema>;

/**
 * The BFF's settings its users' screens need, the same for every user (read-only here; set at the
 * BFF's start-up).
 */
export const SessionSettingsSchema = z.object({
  /**
   * `PAYOUT_HOLD_MAX_AGE_MS`: a held single payout or payout-form link not approved this long
   * after it was prepared lapses.
   */
  payoutHoldMaxAgeMs: z.number().int().positive(),
  /**
   * `LARGE_AMOUNT_CONFIRM_ABOVE`: above these amounts an order Paydesk creates needs
   * `confirmLargeAmount: true` (large-amount.ts); absent from older instances.
   */
  largeAmount: LargeAmountSettingsSchema.optional(),
  /**
   * `ORDER_AMOUNT_LIMIT`: above these amounts an order Paydesk creates is refused, confirmed or
   * not (order-limit.ts); absent from older instances.
   */
  orderAmountLimit: OrderAmountLimitsSchema.optional(),
  /**
   * `GATEWAY_TIMEOUT_MS`: how long the BFF waits for the gateway's answer to an operation before
   * its outcome is unknown (what a follow-up dialog says while it waits); absent from older
   * instances.
   */
  gatewayTimeoutMs: z.number().int().positive().optional(),
  /**
   * `SESSION_IDLE_SECONDS`: how long a session lasts without its user's input (the warning before
   * the idle timeout counts from the user's last input the BFF was told of); absent from older
   * instances, where the SPA reads it off the session reply's `idleExpiresAt`.
   */
  sessionIdleSeconds: z.number().int().positive().optional(),
  /**
   * `MERCHANT_ENDPOINTS`: the endpoints and endpoint groups orders can be created on, with the
   * currencies each takes (ids and currencies only, nothing of the merchant's keys), so that a
   * form offers them and refuses a mismatch before sending; absent from older instances.
   */
  endpoints: z.array(EndpointChoiceSchema).optional(),
});
export type SessionSettings = z.infer<typeof SessionSettingsSchema>;

/**
 * `POST /api/session` and `GET /api/session` reply. `idleExpiresAt` moves forward on each
 * authenticated request; `absoluteExpiresAt` never does.
 */
export const SessionResponseSchema = z.object({
  user: UserSchema,
  idleExpiresAt: IsoDateTimeSchema,
  absoluteExpiresAt: IsoDateTimeSchema,
  /**
   * The user's session before this one (a sign-in, or the new session a password change gives),
   * or null: so that a sign-in the user does not recognise stands out.
   */
  previousSession: SessionOriginSchema.nullable(),
  /** absent from older instances (during an upgrade the SPA may meet one) */
  settings: SessionSettingsSchema.optional(),
});
export type SessionResponse = z.infer<typeof SessionResponseSchema>;

/**
 * `POST /api/session/password` body. Reply `SessionResponse` with a fresh session cookie: every
 * other session of the user is revoked. When the current password is a temporary one (chosen by an
 * administrator), the new one must differ from it (400 naming `newPassword`, rule `differs`), and
 * the change ends the temporary state.
 */
export const ChangePasswordRequestSchema = z.strictObject({
  currentPassword: z.string().min(1).max(1024),
  newPassword: NewPasswordSchema,
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

/**
 * `POST /api/session/totp` body (start enrolment; 409 `TOTP_ALREADY_ENABLED` when on): the current
 * password, as for a password change, so that a held session (an unattended browser, a stolen
 * cookie) cannot bind its own authenticator to the account (QA). A wrong one is 400
 * `CURRENT_PASSWORD_INVALID` naming `currentPassword` and counts against the login limit.
 */
export const TotpEnrolRequestSchema = z.strictObject({
  currentPassword: z.string().min(1).max(1024),
});
export type TotpEnrolRequest = z.infer<typeof TotpEnrolRequestSchema>;

/** `POST /api/session/totp` reply: the secret (base32) and its otpauth:// URI for a QR code. */
export const TotpEnrolResponseSchema = z.object({
  secret: z.string(),
  otpauthUri: z.string(),
});
export type TotpEnrolResponse = z.infer<typeof TotpEnrolResponseSchema>;

/** `POST /api/session/totp/confirm` body: a current code from the authenticator app. */
export const TotpConfirmRequestSchema = z.strictObject({
  /** typed as authenticator apps show it (`504 993`): spaces and hyphens are taken out */
  code: z
    .string()
    .overwrite((typed) => typed.replace(/[\s-]/g, ''))
    .regex(/^\d{6}$/, 'must be a 6-digit code'),
});
export type TotpConfirmRequest = z.infer<typeof TotpConfirmRequestSchema>;

/** `POST /api/session/totp/confirm` reply: TOTP is on; the recovery codes are shown only now. */
export const TotpConfirmResponseSchema = z.object({
  recoveryCodes: z.array(z.string()),
});
export type TotpConfirmResponse = z.infer<typeof TotpConfirmResponseSchema>;
