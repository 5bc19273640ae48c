// Migration 0024: how an operation's (or a plan's create's) outcome went unlearned, recorded when
// it happens (gateway-errors.ts `unansweredOf`, `unansweredColumns`) rather than only in words.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const UNANSWERED_OUTCOMES_MIGRATION_NAME = '0024-unanswered-outcomes';

/** The columns of `UnansweredColumns` (migration.ts), in every table that records an outcome. */
const COLUMNS = [
  ['unanswered_kind', 'text'],
  ['unanswered_http_status', 'integer'],
  ['unanswered_code', 'text'],
  ['unanswered_message', 'text'],
  ['unanswered_waited_ms', 'integer'],
] as const;

/** Adds the `UnansweredColumns` to `table`: nullable, no default, so no row is rewritten. */
export async function addUnansweredColumns(db: Kysely<unknown>, table: string): Promise<void> {
  for (const [column, type] of COLUMNS) {
    await sql.raw(`alter table ${table} add column ${column} ${type}`).execute(db);
  }
}

/**
 * Nullable columns without a default: on PostgreSQL (11+) adding one only changes the catalog, and
 * on SQLite only the schema text, so neither database rewrites `transaction_operations` however
 * large it is. Rows already there keep null: the BFF reads their `error_message` once
 * (gateway-errors.ts `unansweredFromProse`); nothing is backfilled.
 */
export function unansweredOutcomesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['transaction_operations', 'subscriptions']) {
        await addUnansweredColumns(db, table);
      }
    },
  };
}
