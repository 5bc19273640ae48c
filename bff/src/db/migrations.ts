// One set of migrations for both databases; the few dialect differences (auto ids, triggers) are
// spelled out per kind. Applied at start-up by `migrateToLatest`.
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { paymentsMigrations } from '../payments/migration.js';
import { payoutsMigrations } from '../payouts/migration.js';
import { viewsMigrations } from '../views/migration.js';
import type { DatabaseKind } from './connect.js';

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

class InCodeProvider implements MigrationProvider {
  readonly #kind: DatabaseKind;
  constructor(kind: DatabaseKind) {
    this.#kind = kind;
  }
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve({
      '0001-platform': platformMigration(this.#kind),
      ...paymentsMigrations(this.#kind),
      ...payoutsMigrations(this.#kind),
      ...viewsMigrations(this.#kind),
    });
  }
}

export async function migrateToLatest(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const migrator = new Migrator({ db, provider: new InCodeProvider(kind) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const name = failed?.migrationName ?? 'unknown';
    throw new Error(`database migration ${name} failed`, { cause: error });
  }
}
