// One set of migrations for both databases; the few dialect differences (auto ids, triggers) are
// spelled out per kind. Applied at start-up by `migrateToLatest`.
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import {
  CLIENT_ORDERID_CASE_INDEX_MIGRATION_NAME,
  clientOrderidCaseIndexMigration,
} from '../payments/client-orderid-index-migration.js';
import { paymentsMigrations } from '../payments/migration.js';
import {
  NOT_APPLIED_OPERATIONS_INDEX_MIGRATION_NAME,
  notAppliedOperationsIndexMigration,
} from '../payments/not-applied-index-migration.js';
import {
  UNANSWERED_OUTCOMES_MIGRATION_NAME,
  unansweredOutcomesMigration,
} from '../payments/unanswered-migration.js';
import { payoutsMigrations } from '../payouts/migration.js';
import { viewsMigrations } from '../views/migration.js';
import type { DatabaseKind } from './connect.js';
import { GENESIS_HASH } from '../services/audit.js';
import { hashedContentSql } from './schema.js';

function platformMigration(kind: DatabaseKind): Migration {
  const autoId =
    kind === 'postgres' ? 'bigserial primary key' : 'integer primary key autoincrement';
  const ms = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      const run = async (text: string) => {
        await sql.raw(text).execute(db);
      };
      await run(`create table users (
        id text primary key,
        email text not null unique,
        name text not null,
        password_hash text not null,
        roles text not null,
        disabled_at ${ms},
        totp_secret text,
        totp_pending_secret text,
        totp_enabled_at ${ms},
        totp_last_step ${ms},
        created_at ${ms} not null,
        updated_at ${ms} not null,
        last_login_at ${ms}
      )`);
      await run(`create table sessions (
        id text primary key,
        user_id text not null references users(id),
        created_at ${ms} not null,
        last_seen_at ${ms} not null,
        absolute_expires_at ${ms} not null,
        revoked_at ${ms},
        ip text,
        user_agent text
      )`);
      await run(`create index sessions_user on sessions (user_id)`);
      await run(`create table recovery_codes (
        id ${autoId},
        user_id text not null references users(id),
        code_hash text not null,
        used_at ${ms}
      )`);
      await run(`create index recovery_codes_user on recovery_codes (user_id)`);
      await run(`create table login_failures (
        id ${autoId},
        subject text not null,
        at ${ms} not null
      )`);
      await run(`create index login_failures_subject_at on login_failures (subject, at)`);
      await run(`create table audit_log (
        seq ${ms} primary key,
        at ${ms} not null,
        actor_id text,
        actor_email text,
        actor_roles text not null,
        action text not null,
        target text,
        summary text not null,
        outcome text not null,
        error_code text,
        request_id text,
        ip text,
        user_agent text,
        prev_hash text not null,
        hash text not null
      )`);
      await run(`create index audit_log_at on audit_log (at)`);
      await run(`create index audit_log_actor on audit_log (actor_email)`);
      await run(`create index audit_log_action on audit_log (action)`);
      if (kind === 'postgres') {
        await run(`create function audit_log_refuse() returns trigger language plpgsql as $$
          begin raise exception 'audit_log is append-only'; end $$`);
        await run(`create trigger audit_log_no_change before update or delete on audit_log
          for each row execute function audit_log_refuse()`);
        await run(`create trigger audit_log_no_truncate before truncate on audit_log
          for each statement execute function audit_log_refuse()`);
      } else {
        await run(`create trigger audit_log_no_update before update on audit_log
          begin select raise(abort, 'audit_log is append-only'); end`);
        await run(`create trigger audit_log_no_delete before delete on audit_log
          begin select raise(abort, 'audit_log is append-only'); end`);
      }
    },
  };
}

/** The arbitrary constant key of the PostgreSQL advisory lock that serialises chain appends. */
const AUDIT_LOCK_KEY = 7_231_004;

/**
 * On PostgreSQL the database links each new audit row into the chain itself: a BEFORE INSERT
 * trigger takes the chain's lock, reads the head (a fresh snapshot: trigger functions are
 * volatile) and sets `seq`, `prev_hash` and `hash`, the hash computed from the same text as
 * services/audit.ts `hashedContent`. An append is then one insert, with no round trips for the
 * lock and the head, and the lock is held only from the insert to the commit. Whatever the
 * inserting statement put in those three columns is overwritten. Should the hashed columns ever
 * change, a later migration replaces the function.
 */
function auditChainMigration(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (kind !== 'postgres') return;
      await sql
        .raw(
          `create function audit_log_chain() returns trigger language plpgsql as $$
          declare
            head_seq bigint;
            head_hash text;
          begin
            perform pg_advisory_xact_lock(${AUDIT_LOCK_KEY});
            select seq, hash into head_seq, head_hash from audit_log order by seq desc limit 1;
            new.seq := coalesce(head_seq, 0) + 1;
            new.prev_hash := coalesce(head_hash, '${GENESIS_HASH}');
            new.hash := encode(sha256(convert_to(${hashedContentSql('postgres', 'new.')}, 'UTF8')), 'hex');
            return new;
          end $$`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger audit_log_chain before insert on audit_log
          for each row execute function audit_log_chain()`,
        )
        .execute(db);
    },
  };
}

/**
 * Temporary passwords: `users.password_temporary_at` (see db/schema.ts). Existing accounts stay as
 * they were (null: not temporary), whoever chose their password.
 */
function temporaryPasswordsMigration(kind: DatabaseKind): Migration {
  const ms = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw(`alter table users add column password_temporary_at ${ms}`).execute(db);
    },
  };
}

export const TEMPORARY_PASSWORDS_MIGRATION_NAME = '0011-temporary-passwords';

/**
 * Key checks: per secret the BFF keeps data under (by name, `session`), an HMAC of a fixed label
 * under it, never the secret. The first instance to start writes it; every later start compares
 * (db/secret-check.ts), so that an instance given another secret stops at once instead of failing
 * later in ways that look like tampering.
 */
function secretChecksMigration(kind: DatabaseKind): Migration {
  const ms = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table secret_checks (
          name text primary key,
          check_value text not null,
          created_at ${ms} not null
        )`,
        )
        .execute(db);
    },
  };
}

export const SECRET_CHECKS_MIGRATION_NAME = '0015-secret-checks';

export const AUDIT_TARGET_INDEX_MIGRATION_NAME = '0021-audit-target-index';

/**
 * The audit screen's Target filter (services/audit.ts, `target in (...)`) reads the rows of a few
 * targets, newest first, from a log that only grows: without an index every page and its count
 * read the whole log. With `seq` after `target` the rows of one target come in list order, so a
 * page stops at its last row and the count reads the index alone. The append-only triggers guard
 * the rows, not their indexes: building one changes no row.
 */
function auditTargetIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index audit_log_target on audit_log (target, seq)`.execute(db);
    },
  };
}

export const AUDIT_PREFIX_INDEX_MIGRATION_NAME = '0022-audit-prefix-index';

/**
 * The audit screen's Actor and Action filters match a beginning (services/audit.ts,
 * `startsWith`). On PostgreSQL that is a range under `collate "C"`, which the indexes of 0001 (in
 * the database's collation) cannot answer: without these, every filtered page and its count read
 * the whole log. SQLite's range uses 0001's indexes: nothing to add there.
 */
function auditPrefixIndexMigration(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (kind !== 'postgres') return;
      await sql`create index audit_log_actor_c on audit_log (actor_email collate "C")`.execute(db);
      await sql`create index audit_log_action_c on audit_log (action collate "C")`.execute(db);
    },
  };
}

/** Every migration by name (the Migrator applies them in name order). */
export function allMigrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    '0001-platform': platformMigration(kind),
    ...paymentsMigrations(kind),
    ...payoutsMigrations(kind),
    ...viewsMigrations(kind),
    '0008-audit-chain': auditChainMigration(kind),
    [TEMPORARY_PASSWORDS_MIGRATION_NAME]: temporaryPasswordsMigration(kind),
    [SECRET_CHECKS_MIGRATION_NAME]: secretChecksMigration(kind),
    [AUDIT_TARGET_INDEX_MIGRATION_NAME]: auditTargetIndexMigration(),
    [AUDIT_PREFIX_INDEX_MIGRATION_NAME]: auditPrefixIndexMigration(kind),
    [NOT_APPLIED_OPERATIONS_INDEX_MIGRATION_NAME]: notAppliedOperationsIndexMigration(),
    [UNANSWERED_OUTCOMES_MIGRATION_NAME]: unansweredOutcomesMigration(),
    [CLIENT_ORDERID_CASE_INDEX_MIGRATION_NAME]: clientOrderidCaseIndexMigration(),
  };
}

class InCodeProvider implements MigrationProvider {
  readonly #kind: DatabaseKind;
  constructor(kind: DatabaseKind) {
    this.#kind = kind;
  }
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(allMigrations(this.#kind));
  }
}

/** Network failures as an operator reads them (`ECONNREFUSED` → `connection refused`). */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
};

/** A connection string's password (`postgres://user:password@host`), wherever it shows. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi;

interface NetworkError {
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

/**
 * Why the database (or start-up) failed, for an operator: where a connection failed and why, or
 * the database's own message (`database "x" does not exist`, `password authentication failed for
 * user "y"`), followed by what its causes add; never a password, even one that a message quotes in
 * a connection string.
 */
export function describeDatabaseError(err: unknown): string {
  const reason = describeOne(err);
  const cause =
    err instanceof Error && err.cause !== undefined ? describeDatabaseError(err.cause) : '';
  return cause === '' || reason.includes(cause) ? reason : `${reason}: ${cause}`;
}

function describeOne(err: unknown): string {
  // Several addresses (localhost as ::1 and 127.0.0.1) fail together as one AggregateError.
  const first = err instanceof AggregateError ? (err.errors[0] as unknown) : err;
  if (first instanceof Error) {
    const { code, address, port, hostname } = first as NetworkError;
    const reason = typeof code === 'string' ? NETWORK_REASONS[code] : undefined;
    if (reason !== undefined) {
      const host =
        typeof address === 'string'
          ? `${address}${typeof port === 'number' ? `:${port}` : ''}`
          : typeof hostname === 'string'
            ? hostname
            : null;
      return `cannot connect to the database${host === null ? '' : ` at ${host}`}: ${reason}`;
    }
  }
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.replace(URL_PASSWORD, '$1***@');
}

export async function migrateToLatest(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const migrator = new Migrator({ db, provider: new InCodeProvider(kind) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const reason = describeDatabaseError(error);
    // No migration ran: the database could not be reached or locked (nothing to name but why).
    throw new Error(
      failed === undefined
        ? reason
        : `database migration ${failed.migrationName} failed: ${reason}`,
      { cause: error },
    );
  }
}
