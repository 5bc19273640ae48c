// Migration 0030 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: payment links keep their rows and gain an index on their gateway orderid, which the
// lookup reads a link's order by.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import { PAYMENT_LINK_ORDER_INDEX_MIGRATION_NAME, type PayoutsTables } from './migration.js';

const NOW = Date.UTC(2026, 10, 29, 0, 30, 0);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${PAYMENT_LINK_ORDER_INDEX_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when links exist before it runs, then they stay as they were and their orderid is indexed', async () => {
        const { k, drop } = await databaseBefore(variant, PAYMENT_LINK_ORDER_INDEX_MIGRATION_NAME);
        cleanup = drop;
        await sql`insert into payment_links (id, kind, state, endpoint_id, client_orderid, orderid,
            amount_minor, currency, order_desc, request, created_by, created_by_email, created_at,
            updated_at)
          values ('l-old', 'sale-form', 'sent', '1001', 'pd-link-l-old', '1000326', 1999, 'EUR',
            'Invoice', '{}', 'u1', 'finance@paydesk.test', ${NOW}, ${NOW})`.execute(k);

        await migrateToLatest(k, variant.name);

        const db = k as unknown as Kysely<PayoutsTables>;
        expect(
          await db
            .selectFrom('payment_links')
            .select(['id', 'client_orderid'])
            .where('orderid', '=', '1000326')
            .execute(),
        ).toEqual([{ id: 'l-old', client_orderid: 'pd-link-l-old' }]);
        const definition =
          variant.name === 'postgres'
            ? await sql<{
                text: string;
              }>`select indexdef as text from pg_indexes where indexname = 'payment_links_orderid'`.execute(
                k,
              )
            : await sql<{
                text: string;
              }>`select sql as text from sqlite_master where name = 'payment_links_orderid'`.execute(
                k,
              );
        expect((definition.rows[0]?.text ?? '').replaceAll('"', '')).toMatch(
          /payment_links.*\(orderid\)/i,
        );
      });
    },
  );
}
