// Migration tests: a database as an earlier version of Paydesk left it, then the migration under
// test on top, as the platform's migrator runs it.
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import type { Config } from '../config.js';
import { allMigrations } from '../db/migrations.js';
import { NodeSqliteDatabase, NodeSqliteDialect } from '../db/node-sqlite-dialect.js';
import type { DbVariant } from './harness.js';

/** A Kysely instance on a test database that knows no schema: what a migration itself sees. */
export function bareKysely(database: Config['database']): Kysely<unknown> {
  if (database.kind === 'sqlite')
    return new Kysely({ dialect: new NodeSqliteDialect(new NodeSqliteDatabase(database.file)) });
  return new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }),
  });
}

/**
 * A new database of `variant` migrated by every migration before `migration` (by name, as the
 * migrator orders them): the database as an earlier version left it. `drop` closes it and removes
 * it.
 */
export async function databaseBefore(
  variant: DbVariant,
  migration: string,
): Promise<{ k: Kysely<unknown>; drop: () => Promise<void> }> {
  const created = await variant.create();
  const k = bareKysely(created.database);
  const drop = async () => {
    await k.destroy();
    await created.drop();
  };
  const before = Object.fromEntries(
    Object.entries(allMigrations(variant.name)).filter(([name]) => name < migration),
  );
  const earlier = await new Migrator({
    db: k,
    provider: { getMigrations: () => Promise.resolve(before) },
  }).migrateToLatest();
  if (earlier.error !== undefined) {
    await drop();
    throw new Error(`the migrations before ${migration} failed`, { cause: earlier.error });
  }
  return { k, drop };
}
