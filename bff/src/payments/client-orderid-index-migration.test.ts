// Migration 0028 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: the index on lower(client_orderid) is built over the orders already there, and the
// list's search finds an order by its client order id in another case (on SQLite, through it,
// beside the search's other branches).
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import { CLIENT_ORDERID_CASE_INDEX_MIGRATION_NAME } from './client-orderid-index-migration.js';

const AT = Date.UTC(2026, 10, 21, 9, 0, 0);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${CLIENT_ORDERID_CASE_INDEX_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when orders exist before it runs, then it indexes lower(client_orderid) and an order is found by its id in another case', async () => {
        const { k, drop } = await databaseBefore(variant, CLIENT_ORDERID_CASE_INDEX_MIGRATION_NAME);
        cleanup = drop;
        await sql`insert into transactions (id, endpoint_id, orderid, client_orderid, type, status,
            currency, amount_minor, source, created_at, updated_at)
          values ('t-1', '1001', '700001', 'Shop-Ord-42', 'sale', 'approved', 'EUR', 1000,
            'paydesk', ${AT}, ${AT})`.execute(k);

        await migrateToLatest(k, variant.name);

        const definition =
          variant.name === 'postgres'
            ? await sql<{
                text: string;
              }>`select indexdef as text from pg_indexes where indexname = 'transactions_client_orderid_lower'`.execute(
                k,
              )
            : await sql<{
                text: string;
              }>`select sql as text from sqlite_master where name = 'transactions_client_orderid_lower'`.execute(
                k,
              );
        expect((definition.rows[0]?.text ?? '').replaceAll('"', '')).toMatch(
          /\(lower\(\(?client_orderid\)?(::text)?\)\)/i,
        );
        // As the search asks (queries.ts `filtered`): an OR of equalities, this one lowered.
        const search = (term: string) =>
          sql<{ id: string }>`select id from transactions
            where orderid = ${term} or lower(client_orderid) = lower(${term})
              or customer_email = ${term.toLowerCase()}`;
        expect((await search('SHOP-ORD-42').execute(k)).rows).toEqual([{ id: 't-1' }]);
        expect((await search('shop-ord-42').execute(k)).rows).toEqual([{ id: 't-1' }]);
        expect((await search('shop-ord-4').execute(k)).rows).toEqual([]);
        if (variant.name === 'sqlite') {
          const query = search('SHOP-ORD-42').compile(k);
          const plan = await k.executeQuery<{ detail: string }>({
            ...query,
            sql: `explain query plan ${query.sql}`,
          });
          expect(plan.rows.map((r) => r.detail).join(' ')).toContain(
            'USING INDEX transactions_client_orderid_lower',
          );
        }
      });
    },
  );
}
