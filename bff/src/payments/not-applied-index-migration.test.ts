// Migration 0023 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: the partial index of the operations judged not applied is built over the rows
// already there, and the follow-ups the home screen and the list look for are found (on SQLite,
// through it).
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import type { PayDatabase } from './db.js';
import { NOT_APPLIED_OPERATIONS_INDEX_MIGRATION_NAME } from './not-applied-index-migration.js';
import { notAppliedOperations } from './stats.js';

const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${NOT_APPLIED_OPERATIONS_INDEX_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when operations exist before it runs, then it adds a partial index on (kind, created_at) of those not applied, and the follow-ups not made are found, on SQLite through it', async () => {
        const { k, drop } = await databaseBefore(
          variant,
          NOT_APPLIED_OPERATIONS_INDEX_MIGRATION_NAME,
        );
        cleanup = drop;
        await sql`insert into transactions (id, endpoint_id, orderid, client_orderid, type, status,
            currency, amount_minor, source, created_at, updated_at)
          values ('t-1', '1001', '700001', 'c-1', 'sale', 'approved', 'EUR', 1000, 'paydesk',
            ${NOW - 86_400_000}, ${NOW - 86_400_000})`.execute(k);
        await sql`insert into transaction_operations (id, transaction_id, kind, origin, state,
            amount_minor, created_at, updated_at)
          values ('o-1', 't-1', 'return', 'paydesk', 'not_applied', 500, ${NOW - 3_600_000},
            ${NOW - 3_600_000})`.execute(k);

        await migrateToLatest(k, variant.name);

        const definition =
          variant.name === 'postgres'
            ? await sql<{
                text: string;
              }>`select indexdef as text from pg_indexes where indexname = 'transaction_operations_not_applied'`.execute(
                k,
              )
            : await sql<{
                text: string;
              }>`select sql as text from sqlite_master where name = 'transaction_operations_not_applied'`.execute(
                k,
              );
        const text = (definition.rows[0]?.text ?? '').replaceAll('"', '');
        expect(text).toMatch(/\(kind, created_at\)/);
        expect(text).toMatch(/where \(?state = 'not_applied'/i);

        const pay = k as unknown as Kysely<PayDatabase>;
        const found = await notAppliedOperations(pay, NOW)
          .select('o.transaction_id as id')
          .execute();
        expect(found).toEqual([{ id: 't-1' }]);
        // SQLite's planner picks it even over a table this small (over 1,000,000 orders both
        // databases do: stats.ts `notAppliedOperations`); PostgreSQL reads so few rows any way.
        if (variant.name === 'sqlite') {
          const query = notAppliedOperations(pay, NOW).select('o.id').compile();
          const plan = await k.executeQuery<{ detail: string }>({
            ...query,
            sql: `explain query plan ${query.sql}`,
          });
          const details = plan.rows.map((r) => r.detail).join(' ');
          expect(details).toContain('USING INDEX transaction_operations_not_applied');
          // and a redo since is looked for among its order's later operations only
          expect(details).toContain(
            'SEARCH later USING INDEX transaction_operations_tx (transaction_id=? AND created_at>?)',
          );
        }
      });
    },
  );
}
