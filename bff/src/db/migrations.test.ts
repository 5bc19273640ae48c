// The temporary-passwords migration on a database that already has accounts: they stay as they
// were (not temporary), on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import {
  allMigrations,
  migrateToLatest,
  TEMPORARY_PASSWORDS_MIGRATION_NAME,
} from './migrations.js';
import { NodeSqliteDatabase, NodeSqliteDialect } from './node-sqlite-dialect.js';

function bare(database: Config['database']): Kysely<unknown> {
  if (database.kind === 'sqlite')
    return new Kysely({ dialect: new NodeSqliteDialect(new NodeSqliteDatabase(database.file)) });
  return new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }),
  });
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${TEMPORARY_PASSWORDS_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when accounts exist before it runs, then they are not temporary afterwards', async () => {
        const created = await variant.create();
        const k = bare(created.database);
        cleanup = async () => {
          await k.destroy();
          await created.drop();
        };
        // Every migration before it: the database as an earlier version left it.
        const before = Object.fromEntries(
          Object.entries(allMigrations(variant.name)).filter(
            ([name]) => name < TEMPORARY_PASSWORDS_MIGRATION_NAME,
          ),
        );
        const earlier = await new Migrator({
          db: k,
          provider: { getMigrations: () => Promise.resolve(before) },
        }).migrateToLatest();
        expect(earlier.error).toBeUndefined();
        await sql`insert into users (id, email, name, password_hash, roles, created_at, updated_at)
        values ('u-old', 'old@paydesk.test', 'Old', 'hash', '["ops"]', 1, 1)`.execute(k);

        await migrateToLatest(k, variant.name);

        const rows = await sql<{
          email: string;
          password_temporary_at: unknown;
        }>`select email, password_temporary_at from users`.execute(k);
        expect(rows.rows).toEqual([{ email: 'old@paydesk.test', password_temporary_at: null }]);
      });
    },
  );
}
