// Logins, sessions and TOTP. A session is a row (server-side revocation, idle and absolute
// expiry) named by an HS256 JWT in an HttpOnly cookie.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { sql, type Kysely, type Transaction } from 'kysely';
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';
import type { User } from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import { queryTemplate } from '../db/query-template.js';
import type { Database, SessionsTable, UsersTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import {
  ACCOUNT_ALL_ADDRESSES_FACTOR,
  accountAddressSubject,
  accountSubject,
} from './login-subjects.js';
import { weakPasswordError } from './password-strength.js';
import type { Passwords } from './passwords.js';
import type { Sealer } from './sealing.js';
import { toUser } from './users.js';

export const JWT_AUDIENCE = 'paydesk-staff';
const TOUCH_EVERY_MS = 15_000;
/** how many verified session tokens `authenticate` remembers (oldest forgotten first) */
const VERIFIED_TOKENS_KEPT = 10_000;
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/**
 * The first key of the PostgreSQL advisory locks that serialise the login limiter's attempts (the
 * second is the subject's `lockKeyOf`); two-key locks never meet the one-key locks used elsewhere.
 */
const LOGIN_LIMIT_LOCK = 7_231_006;

/** A limiter subject's 32-bit advisory lock key. */
function lockKeyOf(subject: string): number {
  return createHash('sha256').update(subject).digest().readInt32BE(0);
}

export interface AuthenticatedSession {
  user: UsersTable;
  session: SessionsTable;
}

export interface IssuedSession {
  token: string;
  session: SessionsTable;
  user: UsersTable;
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

const INVALID_CREDENTIALS = 'e-mail or password is wrong';

/**
 * How long a locked-out login waits, in words for its message ('14 minutes', '40 seconds', '1 hour
 * and 5 minutes'): seconds under a minute, else whole minutes rounded up (never sooner than
 * `Retry-After`, which stays in seconds).
 */
export function waitInWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${String(n)} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return plural(Math.max(1, Math.ceil(seconds)), 'second');
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0
    ? plural(hours, 'hour')
    : `${plural(hours, 'hour')} and ${plural(rest, 'minute')}`;
}

function hashCode(code: string): string {
  return createHash('sha256')
    .update(code.toUpperCase().replace(/[^A-Z0-9]/g, ''))
    .digest('hex');
}

/** A session by id with its user: every authenticated request's query. */
const sessionWithUser = queryTemplate((k: Kysely<Database>, v: { sid: string }) =>
  k
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .select([
      'sessions.id as s_id',
      'sessions.created_at as s_created_at',
      'sessions.last_seen_at as s_last_seen_at',
      'sessions.absolute_expires_at as s_absolute_expires_at',
      'sessions.revoked_at as s_revoked_at',
      'sessions.ip as s_ip',
      'sessions.user_agent as s_user_agent',
    ])
    .where('sessions.id', '=', v.sid),
);

type SessionRow = UsersTable & {
  s_id: string;
  s_created_at: number;
  s_last_seen_at: number;
  s_absolute_expires_at: number;
  s_revoked_at: number | null;
  s_ip: string | null;
  s_user_agent: string | null;
};

/** The session and its user, from one row of `sessionWithUser`. */
function splitSessionRow(row: SessionRow): { session: SessionsTable; user: UsersTable } {
  const {
    s_id,
    s_created_at,
    s_last_seen_at,
    s_absolute_expires_at,
    s_revoked_at,
    s_ip,
    s_user_agent,
    ...user
  } = row;
  return {
    user,
    session: {
      id: s_id,
      user_id: user.id,
      created_at: s_created_at,
      last_seen_at: s_last_seen_at,
      absolute_expires_at: s_absolute_expires_at,
      revoked_at: s_revoked_at,
      ip: s_ip,
      user_agent: s_user_agent,
    },
  };
}

export class Auth {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #config: Config;
  readonly #passwords: Passwords;
  readonly #sealer: Sealer;
  constructor(db: Db, clock: Clock, config: Config, passwords: Passwords, sealer: Sealer) {
    this.#db = db;
    this.#clock = clock;
    this.#config = config;
    this.#passwords = passwords;
    this.#sealer = sealer;
  }

  // ---- login ---------------------------------------------------------------------------------

  async login(
    input: { email: string; password: string; totp?: string | undefined },
    client: ClientInfo,
  ): Promise<IssuedSession> {
    const email = input.email.toLowerCase();
    // The attempt is counted before the password is checked: parallel guesses wait for a free slot
    // in the window instead of all passing a check none of them has been counted in yet.
    const reserved = await this.#reserveAttempt(
      [
        ...this.#accountLimits(email, client),
        { subject: `ip:${client.ip ?? 'unknown'}`, limit: this.#config.login.maxFailuresPerIp },
      ],
      (retryAfterSeconds) =>
        `too many failed logins; try again in ${waitInWords(retryAfterSeconds)}`,
    );

    const user = await this.#db.k
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    let passwordOk = false;
    if (user === undefined) {
      await this.#passwords.verifyDummy(input.password);
    } else {
      passwordOk = await this.#passwords.verify(user.password_hash, input.password);
    }
    if (user === undefined || !passwordOk) {
      // The reserved attempt stays: it is this failure.
      await this.#pruneFailures();
      throw new AppError('INVALID_CREDENTIALS', INVALID_CREDENTIALS);
    }
    if (user.disabled_at !== null) {
      await this.#release(reserved);
      throw new AppError('ACCOUNT_DISABLED', 'this account is disabled');
    }
    if (user.totp_enabled_at !== null && user.totp_secret !== null) {
      if (input.totp === undefined) {
        await this.#release(reserved);
        throw new AppError('TOTP_REQUIRED', 'enter the code from your authenticator app', {
          fields: [
            { path: 'totp', rule: 'required', message: 'a TOTP or recovery code is required' },
          ],
        });
      }
      // Authenticator apps show a code as '504 993'; a recovery code is `XXXXX-XXXXX`. Spaces and
      // hyphens are left out before telling them apart (and a recovery code's hash ignores them
      // and the case), so either is taken however it was typed.
      const code = input.totp.replace(/[\s-]/g, '');
      const verdict = /^\d{6}$/.test(code)
        ? await this.#consumeTotp(user, this.#sealer.open(user.totp_secret), code)
        : (await this.#consumeRecoveryCode(user.id, code))
          ? 'ok'
          : 'wrong';
      if (verdict !== 'ok') {
        await this.#pruneFailures();
        // Said only to someone who gave the right password (checked above): a code that is right
        // but was used already (the sign-in before, in the same 30 seconds) is not a mistyped one,
        // and the cure is to wait for the next. It still counts as a failed attempt.
        const message =
          verdict === 'used'
            ? 'this code was already used: wait for the next code in your app'
            : 'the code is wrong or was already used';
        throw new AppError('TOTP_INVALID', message, {
          fields: [
            { path: 'totp', rule: verdict === 'used' ? 'already_used' : 'wrong_code', message },
          ],
        });
      }
    }
    // Success: this attempt was no failure, and this address's failures are forgiven.
    await this.#forgiveAddress(this.#db.k, email, client, reserved);
    const now = this.#clock.now();
    await this.#db.k
      .updateTable('users')
      .set({ last_login_at: now })
      .where('id', '=', user.id)
      .execute();
    return this.#issue({ ...user, last_login_at: now }, client);
  }

  /**
   * An account's two limits for an attempt from `client`: its address's (the configured limit, so
   * failures from elsewhere never lock this address out) and every address's together
   * (`ACCOUNT_ALL_ADDRESSES_FACTOR` times it).
   */
  #accountLimits(email: string, client: ClientInfo): { subject: string; limit: number }[] {
    const limit = this.#config.login.maxFailuresPerAccount;
    return [
      { subject: accountAddressSubject(email, client.ip ?? 'unknown'), limit },
      { subject: accountSubject(email), limit: limit * ACCOUNT_ALL_ADDRESSES_FACTOR },
    ];
  }

  /**
   * After the right password from `client`: the `reserved` attempt was no failure, and the
   * account's failures from this address are forgiven. Not those from other addresses (QA: a
   * holder's sign-in lifted the lock of an address guessing their password, which could then go on
   * guessing), nor their share of the every-address count, which lapses with the window.
   */
  async #forgiveAddress(
    db: Kysely<Database> | Transaction<Database>,
    email: string,
    client: ClientInfo,
    reserved: readonly number[],
  ): Promise<void> {
    const subject = accountAddressSubject(email, client.ip ?? 'unknown');
    await db
      .deleteFrom('login_failures')
      .where((eb) =>
        reserved.length === 0
          ? eb('subject', '=', subject)
          : eb.or([eb('subject', '=', subject), eb('id', 'in', reserved)]),
      )
      .execute();
  }

  /**
   * Counts one attempt against each subject's limit within the window, or refuses with
   * RATE_LIMITED when a subject has no attempt left: the count and the insert are one transaction
   * under a database lock per subject (PostgreSQL: advisory locks, so it holds across instances;
   * SQLite: BEGIN IMMEDIATE), so concurrent attempts cannot all see the same free slot. The rows
   * it inserts (their ids returned) stand as failures unless `#release`d.
   */
  async #reserveAttempt(
    subjects: readonly { subject: string; limit: number }[],
    message: (retryAfterSeconds: number) => string,
  ): Promise<number[]> {
    const now = this.#clock.now();
    const windowMs = this.#config.login.windowSeconds * 1000;
    return this.#db.k.transaction().execute(async (trx) => {
      if (this.#db.kind === 'postgres') {
        // Taken in ascending key order, so two attempts can never deadlock on each other's locks.
        const keys = [...new Set(subjects.map((s) => lockKeyOf(s.subject)))].sort((a, b) => a - b);
        for (const key of keys)
          await sql`select pg_advisory_xact_lock(${sql.lit(LOGIN_LIMIT_LOCK)}, ${sql.lit(key)})`.execute(
            trx,
          );
      }
      for (const { subject, limit } of subjects) {
        const rows = await trx
          .selectFrom('login_failures')
          .select('at')
          .where('subject', '=', subject)
          .where('at', '>', now - windowMs)
          .orderBy('at', 'desc')
          .limit(limit)
          .execute();
        const oldest = rows.at(-1);
        if (rows.length >= limit && oldest !== undefined) {
          const retryAfterSeconds = Math.max(1, Math.ceil((oldest.at + windowMs - now) / 1000));
          throw new AppError('RATE_LIMITED', message(retryAfterSeconds), { retryAfterSeconds });
        }
      }
      const inserted = await trx
        .insertInto('login_failures')
        .values(subjects.map(({ subject }) => ({ subject, at: now })))
        .returning('id')
        .execute();
      return inserted.map((r) => r.id);
    });
  }

  /** Gives back attempts reserved by `#reserveAttempt` that turned out not to be failures. */
  async #release(reserved: readonly number[]): Promise<void> {
    if (reserved.length === 0) return;
    await this.#db.k.deleteFrom('login_failures').where('id', 'in', reserved).execute();
  }

  /** Forgets failures older than the window. */
  async #pruneFailures(): Promise<void> {
    await this.#db.k
      .deleteFrom('login_failures')
      .where('at', '<=', this.#clock.now() - this.#config.login.windowSeconds * 1000)
      .execute();
  }

  /**
   * `ok` when `code` is valid now and its time step is later than any used before (and it is now
   * the last used); `used` when it is valid now but its step was used already; else `wrong`.
   */
  async #consumeTotp(
    user: UsersTable,
    secret: string,
    code: string,
  ): Promise<'ok' | 'used' | 'wrong'> {
    // Checked without the last used step, to tell a code used already from a wrong one.
    const result = await verifyTotp({
      secret,
      token: code,
      epoch: Math.floor(this.#clock.now() / 1000),
      epochTolerance: 30,
    });
    if (!result.valid || !('timeStep' in result)) return 'wrong';
    const step = result.timeStep;
    if (user.totp_last_step !== null && step <= user.totp_last_step) return 'used';
    // Compare-and-set in the database: two concurrent logins with one code cannot both pass.
    const updated = await this.#db.k
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('id', '=', user.id)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    // None updated: a concurrent sign-in used this step (or a later one) first.
    return Number(updated.numUpdatedRows) === 1 ? 'ok' : 'used';
  }

  async #consumeRecoveryCode(userId: string, code: string): Promise<boolean> {
    const updated = await this.#db.k
      .updateTable('recovery_codes')
      .set({ used_at: this.#clock.now() })
      .where('user_id', '=', userId)
      .where('code_hash', '=', hashCode(code))
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  // ---- sessions ------------------------------------------------------------------------------

  async #issue(user: UsersTable, client: ClientInfo): Promise<IssuedSession> {
    const now = this.#clock.now();
    const session: SessionsTable = {
      id: randomUUID(),
      user_id: user.id,
      created_at: now,
      last_seen_at: now,
      absolute_expires_at: now + this.#config.session.absoluteSeconds * 1000,
      revoked_at: null,
      ip: client.ip,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
    };
    await this.#db.k.insertInto('sessions').values(session).execute();
    const token = await new SignJWT({ sid: session.id })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(this.#config.publicOrigin)
      .setAudience(JWT_AUDIENCE)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(session.absolute_expires_at / 1000))
      .sign(this.#config.sessionSecret);
    return { token, session, user };
  }

  /**
   * Tokens whose signature and claims verified, with the time claims to check again on each use.
   * jose verifies HS256 through WebCrypto (a thread-pool round trip per request); a token is the
   * same bytes on every request of a session, so its signature needs checking once. The session
   * row is still read on every request (revocation, idle expiry, roles).
   */
  readonly #verified = new Map<
    string,
    { sid: string; sub: string; exp: number; nbf: number | null }
  >();

  async #verifyToken(token: string, now: number): Promise<{ sid: string; sub: string }> {
    const seconds = Math.floor(now / 1000);
    const known = this.#verified.get(token);
    if (known !== undefined) {
      // The same time checks as jose's (no clock tolerance): expired at `exp`, valid from `nbf`.
      if (known.exp <= seconds)
        throw new AppError('SESSION_EXPIRED', 'your session has expired; sign in again');
      if (known.nbf !== null && known.nbf > seconds)
        throw new AppError('UNAUTHENTICATED', 'sign in to continue');
      return known;
    }
    let claims: { sid: string; sub: string; exp: number; nbf: number | null };
    try {
      const { payload } = await jwtVerify(token, this.#config.sessionSecret, {
        algorithms: ['HS256'],
        issuer: this.#config.publicOrigin,
        audience: JWT_AUDIENCE,
        currentDate: new Date(now),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      if (typeof payload.sid !== 'string' || payload.sub === undefined || payload.exp === undefined)
        throw new AppError('UNAUTHENTICATED', 'sign in to continue');
      claims = { sid: payload.sid, sub: payload.sub, exp: payload.exp, nbf: payload.nbf ?? null };
    } catch (err) {
      // A genuine token past its absolute end says "expired"; anything else is just refused.
      if (err instanceof joseErrors.JWTExpired)
        throw new AppError('SESSION_EXPIRED', 'your session has expired; sign in again');
      throw new AppError('UNAUTHENTICATED', 'sign in to continue');
    }
    if (this.#verified.size >= VERIFIED_TOKENS_KEPT) {
      const oldest = this.#verified.keys().next();
      if (oldest.done !== true) this.#verified.delete(oldest.value);
    }
    this.#verified.set(token, claims);
    return claims;
  }

  /**
   * Resolves a session cookie; throws UNAUTHENTICATED, SESSION_EXPIRED or ACCOUNT_DISABLED.
   * `idleMs`: how long ago the user last acted (the SPA's `Paydesk-Idle-Ms`; 0, the request itself,
   * from other clients): the idle timeout restarts from then, never from a request an idle screen
   * made by itself. null: the request is no activity at all (the live-event stream).
   */
  async authenticate(token: string, idleMs: number | null = 0): Promise<AuthenticatedSession> {
    const now = this.#clock.now();
    const { sid, sub } = await this.#verifyToken(token, now);
    const { k } = this.#db;
    const [row] = (await k.executeQuery(sessionWithUser(k, { sid }))).rows;
    if (row?.id !== sub) throw new AppError('UNAUTHENTICATED', 'sign in to continue');
    const { session, user } = splitSessionRow(row);
    // The holder of this user's own session is told why it stopped working, so the screen can say so.
    if (user.disabled_at !== null) {
      throw new AppError(
        'ACCOUNT_DISABLED',
        'this account is disabled; ask an administrator to enable it',
      );
    }
    if (session.revoked_at !== null) throw new AppError('UNAUTHENTICATED', 'sign in to continue');
    if (this.#expired(session, now)) {
      await this.revoke(session.id);
      throw new AppError('SESSION_EXPIRED', 'your session has expired; sign in again');
    }
    const activeAt = idleMs === null ? null : Math.max(0, now - idleMs);
    if (activeAt !== null && activeAt - session.last_seen_at >= TOUCH_EVERY_MS) {
      await this.#db.k
        .updateTable('sessions')
        .set({ last_seen_at: activeAt })
        .where('id', '=', session.id)
        .execute();
      session.last_seen_at = activeAt;
    }
    return { user, session };
  }

  /**
   * The user of a session authenticated earlier, as it is now (its roles may have changed), or null
   * once the session is revoked or expired or its user disabled. Unlike `authenticate` it is not
   * activity: a live-event stream held open does not keep an idle session alive.
   */
  async current(sessionId: string): Promise<UsersTable | null> {
    const now = this.#clock.now();
    const { k } = this.#db;
    const [row] = (await k.executeQuery(sessionWithUser(k, { sid: sessionId }))).rows;
    if (row === undefined) return null;
    const { session, user } = splitSessionRow(row);
    const ended =
      session.revoked_at !== null || user.disabled_at !== null || this.#expired(session, now);
    return ended ? null : user;
  }

  /**
   * The user a session cookie names while its session is valid, or null; not activity, and never
   * an error. For the audit row of a request refused before authentication (a cross-site one).
   */
  async identify(token: string): Promise<UsersTable | null> {
    try {
      const { sid, sub } = await this.#verifyToken(token, this.#clock.now());
      const user = await this.current(sid);
      return user?.id === sub ? user : null;
    } catch (err) {
      if (err instanceof AppError) return null;
      throw err;
    }
  }

  /** The user's latest session begun before `session`, or null. */
  async previousSession(session: SessionsTable): Promise<SessionsTable | null> {
    const row = await this.#db.k
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', session.user_id)
      .where('id', '!=', session.id)
      .where('created_at', '<=', session.created_at)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ?? null;
  }

  /** Past its absolute lifetime, or idle for longer than allowed. */
  #expired(session: SessionsTable, now: number): boolean {
    return now >= session.absolute_expires_at || now >= this.idleExpiresAt(session);
  }

  idleExpiresAt(session: SessionsTable): number {
    return Math.min(
      session.last_seen_at + this.#config.session.idleSeconds * 1000,
      session.absolute_expires_at,
    );
  }

  async revoke(sessionId: string): Promise<void> {
    await this.#db.k
      .updateTable('sessions')
      .set({ revoked_at: this.#clock.now() })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  // ---- self-service --------------------------------------------------------------------------

  /**
   * Checks the current password a signed-in user typed to confirm a step (a password change, two-step
   * enrolment): 400 `CURRENT_PASSWORD_INVALID` naming `currentPassword` when wrong. Guesses count
   * against the account's login limit (429 past it): a held session (a stolen cookie, an unattended
   * browser) must not be a way around it. Answers the attempt reserved, standing as a failure unless
   * the caller `#release`s it or forgives the account's failures.
   */
  async #checkCurrentPassword(
    auth: AuthenticatedSession,
    currentPassword: string,
    client: ClientInfo,
  ): Promise<number[]> {
    const reserved = await this.#reserveAttempt(
      this.#accountLimits(auth.user.email.toLowerCase(), client),
      (retryAfterSeconds) =>
        `too many wrong passwords; try again in ${waitInWords(retryAfterSeconds)}`,
    );
    if (!(await this.#passwords.verify(auth.user.password_hash, currentPassword))) {
      await this.#pruneFailures();
      throw new AppError('CURRENT_PASSWORD_INVALID', 'the current password is wrong', {
        fields: [
          { path: 'currentPassword', rule: 'matches', message: 'the current password is wrong' },
        ],
      });
    }
    return reserved;
  }

  /** Changes the password, revokes every session of the user and issues a fresh one. */
  async changePassword(
    auth: AuthenticatedSession,
    currentPassword: string,
    newPassword: string,
    client: ClientInfo,
  ): Promise<IssuedSession> {
    const email = auth.user.email.toLowerCase();
    const reserved = await this.#checkCurrentPassword(auth, currentPassword, client);
    // A temporary password kept would still be known to the administrator who chose it.
    if (auth.user.password_temporary_at !== null && newPassword === currentPassword) {
      await this.#release(reserved);
      const message =
        'choose a password of your own: it must differ from the one an administrator set';
      throw new AppError('VALIDATION_FAILED', `newPassword: ${message}`, {
        fields: [{ path: 'newPassword', rule: 'differs', message }],
      });
    }
    const weak = await weakPasswordError(newPassword, auth.user, 'newPassword');
    if (weak !== null) {
      // The current password was right: a weak new one is no guess to count.
      await this.#release(reserved);
      throw weak;
    }
    const passwordHash = await this.#passwords.hash(newPassword);
    const now = this.#clock.now();
    await this.#db.k.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('users')
        // The holder chose it: no longer temporary.
        .set({ password_hash: passwordHash, password_temporary_at: null, updated_at: now })
        .where('id', '=', auth.user.id)
        // Compare-and-set: a password an administrator reset meanwhile (which also revoked this
        // session) is not overwritten by one checked against the password before it.
        .where('password_hash', '=', auth.user.password_hash)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) !== 1)
        throw new AppError('UNAUTHENTICATED', 'sign in to continue');
      await trx
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('user_id', '=', auth.user.id)
        .where('revoked_at', 'is', null)
        .execute();
      // The right password: this attempt was no failure, and this address's are forgiven.
      await this.#forgiveAddress(trx, email, client, reserved);
    });
    return this.#issue(
      { ...auth.user, password_hash: passwordHash, password_temporary_at: null, updated_at: now },
      client,
    );
  }

  /**
   * Starts two-step enrolment once the current password is confirmed (`#checkCurrentPassword`): a
   * held session alone cannot bind its own authenticator to the account.
   */
  async totpEnrol(
    auth: AuthenticatedSession,
    currentPassword: string,
    client: ClientInfo,
  ): Promise<{ secret: string; otpauthUri: string }> {
    const user = auth.user;
    if (user.totp_enabled_at !== null) {
      throw new AppError(
        'TOTP_ALREADY_ENABLED',
        'two-factor sign-in is already on; an administrator can reset it',
      );
    }
    const reserved = await this.#checkCurrentPassword(auth, currentPassword, client);
    // The right password: this attempt was no failure.
    await this.#release(reserved);
    const secret = generateSecret();
    await this.#db.k
      .updateTable('users')
      .set({ totp_pending_secret: this.#sealer.seal(secret) })
      .where('id', '=', user.id)
      .execute();
    const otpauthUri = generateURI({ issuer: 'Paydesk', label: user.email, secret });
    return { secret, otpauthUri };
  }

  async totpConfirm(user: UsersTable, code: string): Promise<{ recoveryCodes: string[] }> {
    if (user.totp_enabled_at !== null) {
      throw new AppError('TOTP_ALREADY_ENABLED', 'two-factor sign-in is already on');
    }
    if (user.totp_pending_secret === null) {
      throw new AppError('TOTP_NOT_PENDING', 'start enrolment first');
    }
    const secret = this.#sealer.open(user.totp_pending_secret);
    if ((await this.#consumeTotp(user, secret, code)) !== 'ok') {
      throw new AppError('TOTP_INVALID', 'the code is wrong or was already used', {
        fields: [
          { path: 'code', rule: 'wrong_code', message: 'the code is wrong or was already used' },
        ],
      });
    }
    const recoveryCodes = Array.from({ length: 10 }, () => {
      const bytes = randomBytes(10);
      const chars = Array.from(
        bytes,
        (b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length] ?? 'A',
      ).join('');
      return `${chars.slice(0, 5)}-${chars.slice(5)}`;
    });
    const now = this.#clock.now();
    await this.#db.k.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({
          totp_secret: user.totp_pending_secret,
          totp_pending_secret: null,
          totp_enabled_at: now,
          updated_at: now,
        })
        .where('id', '=', user.id)
        .execute();
      await trx.deleteFrom('recovery_codes').where('user_id', '=', user.id).execute();
      await trx
        .insertInto('recovery_codes')
        .values(
          recoveryCodes.map((c) => ({ user_id: user.id, code_hash: hashCode(c), used_at: null })),
        )
        .execute();
    });
    return { recoveryCodes };
  }

  toUser(user: UsersTable): User {
    return toUser(user);
  }
}
