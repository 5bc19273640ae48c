import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { CreateUserRequest, Role, UpdateUserRequest, User } from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import type { Db } from '../db/connect.js';
import type { UsersTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { AuditEntry, AuditLog } from './audit.js';
import type { Passwords } from './passwords.js';

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
  constructor(db: Db, clock: Clock, passwords: Passwords, audit: AuditLog) {
    this.#db = db;
    this.#clock = clock;
    this.#passwords = passwords;
    this.#audit = audit;
  }

  async list(): Promise<User[]> {
    const rows = await this.#db.k.selectFrom('users').selectAll().orderBy('email').execute();
    return rows.map(toUser);
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
  async create(input: CreateUserRequest, options: { temporaryPassword: boolean }): Promise<User> {
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
    const inserted = await this.#db.k
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
    return toUser(row);
  }

  /** Applies a change; refuses one that would leave no active admin. Disabling revokes sessions. */
  async update(id: string, patch: UpdateUserRequest): Promise<{ user: User; before: User }> {
    return this.#db.k.transaction().execute(async (trx) => {
      if (this.#db.kind === 'postgres') {
        // Serialise admin-set changes so two concurrent demotions cannot both pass the check.
        await sql`select pg_advisory_xact_lock(7231005)`.execute(trx);
      }
      const row = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      if (row === undefined) throw new AppError('NOT_FOUND', 'no such user');
      const now = this.#clock.now();
      const next: UsersTable = {
        ...row,
        name: patch.name ?? row.name,
        roles: patch.roles === undefined ? row.roles : JSON.stringify(orderRoles(patch.roles)),
        disabled_at:
          patch.disabled === undefined
            ? row.disabled_at
            : patch.disabled
              ? (row.disabled_at ?? now)
              : null,
        updated_at: now,
      };
      if (isActiveAdmin(row) && !isActiveAdmin(next)) {
        const admins = await trx
          .selectFrom('users')
          .selectAll()
          .where('disabled_at', 'is', null)
          .execute();
        if (admins.filter(isActiveAdmin).length <= 1) {
          throw new AppError('LAST_ADMIN', 'this change would leave no active administrator');
        }
      }
      await trx
        .updateTable('users')
        .set({ name: next.name, roles: next.roles, disabled_at: next.disabled_at, updated_at: now })
        .where('id', '=', id)
        .execute();
      if (next.disabled_at !== null && row.disabled_at === null) {
        await trx
          .updateTable('sessions')
          .set({ revoked_at: now })
          .where('user_id', '=', id)
          .where('revoked_at', 'is', null)
          .execute();
      }
      return { user: toUser(next), before: toUser(row) };
    });
  }

  /** Turns TOTP off (a lost phone), drops the recovery codes and revokes the user's sessions. */
  async resetTotp(id: string): Promise<User> {
    return this.#db.k.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      if (row === undefined) throw new AppError('NOT_FOUND', 'no such user');
      const now = this.#clock.now();
      await trx
        .updateTable('users')
        .set({
          totp_secret: null,
          totp_pending_secret: null,
          totp_enabled_at: null,
          totp_last_step: null,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      await trx.deleteFrom('recovery_codes').where('user_id', '=', id).execute();
      await trx
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('user_id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
      return toUser({
        ...row,
        totp_secret: null,
        totp_pending_secret: null,
        totp_enabled_at: null,
        totp_last_step: null,
        updated_at: now,
      });
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
    // Hashed before the transaction: argon2 takes a while, and no lock need wait for it.
    const passwordHash = await this.#passwords.hash(password);
    return this.#db.k.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      if (row === undefined) throw new AppError('NOT_FOUND', 'no such user');
      const now = this.#clock.now();
      await trx
        .updateTable('users')
        .set({ password_hash: passwordHash, password_temporary_at: now, updated_at: now })
        .where('id', '=', id)
        .execute();
      await trx
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('user_id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
      // The user may have locked the account by guessing the password they forgot: the new one
      // works at once. (Failures counted against an address stay.)
      await trx
        .deleteFrom('login_failures')
        .where('subject', '=', `account:${row.email}`)
        .execute();
      const user = toUser({
        ...row,
        password_hash: passwordHash,
        password_temporary_at: now,
        updated_at: now,
      });
      await this.#audit.appendIn(trx, auditEntry(user));
      return user;
    });
  }

  /** Creates the first admin (admin + auditor) when there are no users at all. */
  async bootstrapAdmin(admin: { email: string; password: string }): Promise<boolean> {
    const existing = await this.#db.k.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (existing !== undefined) return false;
    try {
      // Its operator chose its password (PAYDESK_ADMIN_PASSWORD): not a temporary one.
      const user = await this.create(
        {
          email: admin.email,
          name: 'Administrator',
          password: admin.password,
          roles: ['admin', 'auditor'],
        },
        { temporaryPassword: false },
      );
      await this.#audit.append({
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
      });
      return true;
    } catch (err) {
      // Another instance created it first.
      if (err instanceof AppError && err.code === 'EMAIL_TAKEN') return false;
      throw err;
    }
  }
}

const ROLE_ORDER: readonly Role[] = ['support', 'finance', 'ops', 'admin', 'auditor'];
function orderRoles(roles: readonly Role[]): Role[] {
  return ROLE_ORDER.filter((r) => roles.includes(r));
}
