import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import {
  moneyRoleReasonRequired,
  rolesConflict,
  rolesRefusal,
  type CreateUserRequest,
  type Role,
  type RolesRefusal,
  type UpdateUserRequest,
  type SignInLock,
  type User,
  type UserListItem,
} from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import type { Db } from '../db/connect.js';
import type { Database, UsersTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { AuditEntry, AuditLog } from './audit.js';
import { assertStrongPassword } from './password-strength.js';
import type { Passwords } from './passwords.js';
import {
  accountFailures,
  accountSubject,
  signInLocks,
  type AccountLoginLimits,
} from './login-subjects.js';

export function toUser(row: UsersTable): User {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    roles: parseRoles(row.roles),
    disabled: row.disabled_at !== null,
    totpEnabled: row.totp_enabled_at !== null,
    passwordChangeRequired: row.password_temporary_at !== null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastLoginAt: row.last_login_at === null ? null : iso(row.last_login_at),
  };
}

export function parseRoles(text: string): Role[] {
  return JSON.parse(text) as Role[];
}

const isActiveAdmin = (row: UsersTable) =>
  row.disabled_at === null && parseRoles(row.roles).includes('admin');

export class Users {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #passwords: Passwords;
  readonly #audit: AuditLog;
  readonly #loginLimits: AccountLoginLimits;
  constructor(
    db: Db,
    clock: Clock,
    passwords: Passwords,
    audit: AuditLog,
    loginLimits: AccountLoginLimits,
  ) {
    this.#db = db;
    this.#clock = clock;
    this.#passwords = passwords;
    this.#audit = audit;
    this.#loginLimits = loginLimits;
  }

  /** Every account, by e-mail, each with its sign-in lock now (null when it has none). */
  async list(): Promise<UserListItem[]> {
    const rows = await this.#db.k.selectFrom('users').selectAll().orderBy('email').execute();
    const locks = await signInLocks(this.#db.k, this.#loginLimits, this.#clock.now());
    return rows.map((row) => ({ ...toUser(row), signInLock: locks.get(row.email) ?? null }));
  }

  async byId(id: string): Promise<UsersTable | undefined> {
    return this.#db.k.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async byEmail(email: string): Promise<UsersTable | undefined> {
    return this.#db.k
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst();
  }

  /**
   * Creates an account. `temporaryPassword` says who chose the password: true when someone other
   * than its holder did (an administrator's `POST /api/users`), so that its holder must choose their
   * own at their first sign-in; false only where the holder chose it (the bootstrap admin, whose
   * password its operator configures).
   */
  async create(
    input: CreateUserRequest,
    options: {
      temporaryPassword: boolean;
      /**
       * The audit row of the creation, appended in its transaction: four-eyes reads "this account
       * chose the new one's password" from it, so the account never stands without it. (Absent
       * only for the test fixtures' accounts, which no one created.)
       */
      auditEntry?: (user: User) => AuditEntry;
    },
  ): Promise<User> {
    // The route's schema says it first; here too, so that no caller makes such an account.
    refuseRoles(rolesConflict(input.roles));
    const passwordHash = await this.#passwords.hash(input.password);
    const now = this.#clock.now();
    const row: UsersTable = {
      id: randomUUID(),
      email: input.email.toLowerCase(),
      name: input.name,
      password_hash: passwordHash,
      roles: JSON.stringify(orderRoles(input.roles)),
      disabled_at: null,
      totp_secret: null,
      totp_pending_secret: null,
      totp_enabled_at: null,
      totp_last_step: null,
      created_at: now,
      updated_at: now,
      last_login_at: null,
      password_temporary_at: options.temporaryPassword ? now : null,
    };
    return this.#db.k.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('users')
        .values(row)
        .onConflict((oc) => oc.column('email').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
        throw new AppError('EMAIL_TAKEN', 'a user with this e-mail already exists', {
          fields: [
            { path: 'email', rule: 'unique', message: 'a user with this e-mail already exists' },
          ],
        });
      }
      const user = toUser(row);
      if (options.auditEntry !== undefined) {
        await this.#audit.appendIn(trx, options.auditEntry(user));
      }
      return user;
    });
  }

  /**
   * Applies a change by the administrator `byUserId`; refuses one that takes the administrator role
   * from its own holder or disables them (409 CONFLICT naming the field: they would lock themselves
   * out of the screen they did it on; another administrator may), one by which they give themselves
   * a money role (409 CONFLICT naming `roles`: four eyes would be two of one person's; another
   * administrator may), one that adds a role into Auditor with a money role (400 naming `roles`:
   * segregation of duties; an account that already holds such a mix keeps it, see
   * `rolesConflict`), one that adds Finance or Operations without a `reason` (400 naming `reason`,
   * rule `required`: `moneyRoleReasonRequired`, weighed against the roles read here), and one that
   * would leave no active admin. Disabling revokes sessions.
   */
  async update(
    id: string,
    patch: UpdateUserRequest,
    byUserId: string,
    /**
     * The audit row of the change, appended in its transaction: four-eyes reads which roles and
     * which enabling an admin chose from it, so the change never stands without it.
     */
    auditEntry: (change: { user: User; before: User }) => AuditEntry,
  ): Promise<{ user: User; before: User }> {
    // Serialise admin-set changes so two concurrent demotions cannot both pass the check.
    return this.#change(id, { serialise: true }, async (trx, row, now) => {
      if (id === byUserId) refuseSelfLockout(row, patch);
      // Weighed against the roles read in this transaction (the lock above orders changes).
      if (patch.roles !== undefined) {
        const before = parseRoles(row.roles);
        refuseRoles(rolesRefusal({ roles: patch.roles, before, self: id === byUserId }));
        // Giving Finance or Operations says why, as disabling does: the audit row keeps it.
        const missing = moneyRoleReasonRequired(patch.roles, before);
        if (missing !== undefined && patch.reason === undefined) {
          throw new AppError('VALIDATION_FAILED', `reason: ${missing}`, {
            fields: [{ path: 'reason', rule: 'required', message: missing }],
          });
        }
      }
      const changes = {
        name: patch.name ?? row.name,
        roles: patch.roles === undefined ? row.roles : JSON.stringify(orderRoles(patch.roles)),
        disabled_at:
          patch.disabled === undefined
            ? row.disabled_at
            : patch.disabled
              ? (row.disabled_at ?? now)
              : null,
      };
      if (isActiveAdmin(row) && !isActiveAdmin({ ...row, ...changes })) {
        const admins = await trx
          .selectFrom('users')
          .selectAll()
          .where('disabled_at', 'is', null)
          .execute();
        if (admins.filter(isActiveAdmin).length <= 1) {
          throw new AppError('LAST_ADMIN', 'this change would leave no active administrator');
        }
      }
      const next = await save(trx, row, changes, now, {
        endSessions: changes.disabled_at !== null && row.disabled_at === null,
      });
      const change = { user: toUser(next), before: toUser(row) };
      await this.#audit.appendIn(trx, auditEntry(change));
      return change;
    });
  }

  /**
   * Turns TOTP off (a lost phone), drops the recovery codes and revokes the user's sessions. The
   * administrator `byUserId` may not be the user: a second factor switched off by the account it
   * guards would guard nothing, so another administrator does it. An account without two-step
   * sign-in (never turned on, or reset already) is refused with 409 and left as it is: a "success"
   * row for a reset that reset nothing, and its sessions ended for it, would mislead (QA).
   */
  async resetTotp(
    id: string,
    byUserId: string,
    /**
     * The audit row of the reset, appended in its transaction: an account's second factor is
     * never switched off without the row saying who did it and why.
     */
    auditEntry: (user: User) => AuditEntry,
  ): Promise<User> {
    if (id === byUserId) {
      throw new AppError(
        'FORBIDDEN',
        'you cannot reset your own two-step sign-in: ask another administrator',
      );
    }
    return this.#change(id, {}, async (trx, row, now) => {
      if (row.totp_enabled_at === null) {
        throw new AppError(
          'CONFLICT',
          `${row.email} has no two-step sign-in to reset: it is off (never turned on, or reset already)`,
        );
      }
      const next = await save(
        trx,
        row,
        {
          totp_secret: null,
          totp_pending_secret: null,
          totp_enabled_at: null,
          totp_last_step: null,
        },
        now,
        { endSessions: true },
      );
      await trx.deleteFrom('recovery_codes').where('user_id', '=', id).execute();
      const user = toUser(next);
      await this.#audit.appendIn(trx, auditEntry(user));
      return user;
    });
  }

  /**
   * Sets a new temporary password chosen by the administrator `byUserId` (who may not be the user:
   * their own password is changed with the current one, `POST /api/session/password`) and revokes
   * every session of the user: they sign in with it and must choose their own.
   */
  async resetPassword(
    id: string,
    password: string,
    byUserId: string,
    /**
     * The audit row of the reset, appended in its transaction: four-eyes reads "the admin chose this
     * account's password" from it, so the reset never stands without it.
     */
    auditEntry: (user: User) => AuditEntry,
  ): Promise<User> {
    if (id === byUserId) {
      throw new AppError(
        'FORBIDDEN',
        'you cannot reset your own password here: change it under My account, with your current password',
      );
    }
    // Weighed against the account's own e-mail and name, read here (an unknown id: the 404 below).
    const target = await this.byId(id);
    if (target !== undefined) await assertStrongPassword(password, target, 'password');
    // Hashed before the transaction: argon2 takes a while, and no lock need wait for it.
    const passwordHash = await this.#passwords.hash(password);
    return this.#change(id, {}, async (trx, row, now) => {
      const next = await save(
        trx,
        row,
        { password_hash: passwordHash, password_temporary_at: now },
        now,
        { endSessions: true },
      );
      // The user may have locked the account by guessing the password they forgot: the new one
      // works at once, from any address. (Failures counted against an address alone stay.)
      await trx
        .deleteFrom('login_failures')
        .where((eb) => accountFailures(eb, row.email))
        .execute();
      const user = toUser(next);
      await this.#audit.appendIn(trx, auditEntry(user));
      return user;
    });
  }

  /**
   * Clears the account's failed sign-ins from every address (an administrator `byUserId` who is
   * not its holder: someone guessing their password keeps a lock on it, and lifting it helps them
   * alone). Its sessions stay: a lock only held back sign-ins. Answers with the account as listed
   * now and how many failed attempts went; none is no error (the lock may have lifted by itself).
   */
  async unlockSignIn(
    id: string,
    byUserId: string,
    /**
     * The audit row of the unlock, appended in its transaction, with the lock it lifted (null when
     * none stood) and how many failures went.
     */
    auditEntry: (unlocked: { user: User; lock: SignInLock | null; cleared: number }) => AuditEntry,
  ): Promise<{ user: UserListItem; cleared: number }> {
    if (id === byUserId) {
      throw new AppError(
        'FORBIDDEN',
        'you cannot unlock your own sign-in: ask another administrator',
      );
    }
    return this.#change(id, {}, async (trx, row, now) => {
      const lockOf = async () =>
        (await signInLocks(trx, this.#loginLimits, now, row.email)).get(row.email) ?? null;
      const lock = await lockOf();
      const deleted = await trx
        .deleteFrom('login_failures')
        .where((eb) => accountFailures(eb, row.email))
        .returning('subject')
        .execute();
      // A failed attempt is one row of the account's own subject (and one of its address's).
      const cleared = deleted.filter((d) => d.subject === accountSubject(row.email)).length;
      const user = toUser(row);
      await this.#audit.appendIn(trx, auditEntry({ user, lock, cleared }));
      // Read again: a failure counted meanwhile from another request stands (none on SQLite, whose
      // write lock this transaction holds).
      return { user: { ...user, signInLock: await lockOf() }, cleared };
    });
  }

  /**
   * The frame of every change to an existing account: one transaction, the row read in it (404
   * when there is none) and one clock reading for all it writes. `serialise` takes, on PostgreSQL,
   * the lock that orders changes to the set of admins before the row is read.
   */
  async #change<T>(
    id: string,
    options: { serialise?: true },
    apply: (trx: Transaction<Database>, row: UsersTable, now: number) => Promise<T>,
  ): Promise<T> {
    return this.#db.k.transaction().execute(async (trx) => {
      if (options.serialise === true && this.#db.kind === 'postgres') {
        await sql`select pg_advisory_xact_lock(7231005)`.execute(trx);
      }
      const row = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      if (row === undefined) throw new AppError('NOT_FOUND', 'no such user');
      return apply(trx, row, this.#clock.now());
    });
  }

  /** Creates the first admin (admin + auditor) when there are no users at all. */
  async bootstrapAdmin(admin: { email: string; password: string }): Promise<boolean> {
    const existing = await this.#db.k.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (existing !== undefined) return false;
    try {
      // Its operator chose its password (PAYDESK_ADMIN_PASSWORD): not a temporary one.
      await this.create(
        {
          email: admin.email,
          name: 'Administrator',
          password: admin.password,
          roles: ['admin', 'auditor'],
        },
        {
          temporaryPassword: false,
          // In the creation's transaction: once any user exists no start creates it again, so
          // a row written after it could be lost for good.
          auditEntry: (user) => ({
            actorId: null,
            actorEmail: null,
            actorRoles: [],
            action: 'user.create',
            target: `user:${user.id}`,
            summary: { email: user.email, roles: user.roles, bootstrap: true },
            outcome: 'success',
            errorCode: null,
            requestId: null,
            ip: null,
            userAgent: null,
          }),
        },
      );
      return true;
    } catch (err) {
      // Another instance created it first.
      if (err instanceof AppError && err.code === 'EMAIL_TAKEN') return false;
      throw err;
    }
  }
}

/**
 * An administrator's change to their own account may rename them and change their other roles,
 * never take their administrator role or disable them: the refusal names the field and why.
 */
function refuseSelfLockout(row: UsersTable, patch: UpdateUserRequest): void {
  const refuse = (path: string, rule: string, message: string) => {
    throw new AppError('CONFLICT', message, { fields: [{ path, rule, message }] });
  };
  if (patch.disabled === true && row.disabled_at === null) {
    refuse(
      'disabled',
      'not_self',
      'you cannot disable your own account: ask another administrator',
    );
  }
  if (
    patch.roles !== undefined &&
    parseRoles(row.roles).includes('admin') &&
    !patch.roles.includes('admin')
  ) {
    refuse(
      'roles',
      'keeps_own_admin',
      'you cannot remove your own Administrator role: ask another administrator',
    );
  }
}

/**
 * Refuses a roles change the shared rule refuses, naming `roles` and the rule in the same words the
 * web says at the roles field: a self-granted money role or Auditor is a conflict with who holds
 * the change (409, as keeping one's own Administrator role), a segregation-of-duties mix bad input
 * (400).
 */
function refuseRoles(refusal: RolesRefusal | undefined): void {
  if (refusal === undefined) return;
  const fields = [{ path: 'roles', rule: refusal.rule, message: refusal.message }];
  throw refusal.rule === 'no_self_grant'
    ? new AppError('CONFLICT', refusal.message, { fields })
    : new AppError('VALIDATION_FAILED', `roles: ${refusal.message}`, { fields });
}

/**
 * Writes `changes` to the account's row (and `updated_at`) and returns the row as it now stands.
 * `endSessions` revokes every open session of the account in the same transaction: a disabled
 * account, a reset password or two-step sign-in never leaves a session signed in the old way.
 */
async function save(
  trx: Transaction<Database>,
  row: UsersTable,
  changes: Partial<Omit<UsersTable, 'id'>>,
  now: number,
  options: { endSessions: boolean },
): Promise<UsersTable> {
  const next: UsersTable = { ...row, ...changes, updated_at: now };
  await trx
    .updateTable('users')
    .set({ ...changes, updated_at: now })
    .where('id', '=', row.id)
    .execute();
  if (options.endSessions) {
    await trx
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', row.id)
      .where('revoked_at', 'is', null)
      .execute();
  }
  return next;
}

const ROLE_ORDER: readonly Role[] = ['support', 'finance', 'ops', 'admin', 'auditor'];
function orderRoles(roles: readonly Role[]): Role[] {
  return ROLE_ORDER.filter((r) => roles.includes(r));
}
