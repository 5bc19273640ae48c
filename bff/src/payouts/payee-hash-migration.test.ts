// Migration 0029 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: payouts gain an empty payee hash (their destinations are no longer known) and its
// index, and take a payee hash after it.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import type { PayoutsTables } from './migration.js';
import { PAYOUT_PAYEE_HASH_MIGRATION_NAME } from './payee-hash-migration.js';

const NOW = Date.UTC(2026, 10, 28, 21, 0, 0);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${PAYOUT_PAYEE_HASH_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when payouts exist before it runs, then they keep their destination hash and gain an empty payee hash, indexed with the state, that then holds one', async () => {
        const { k, drop } = await databaseBefore(variant, PAYOUT_PAYEE_HASH_MIGRATION_NAME);
        cleanup = drop;
        await sql`insert into payouts (id, mode, state, endpoint_id, client_orderid, amount_minor,
          currency, order_desc, destination_kind, destination_masked, destination_label,
          destination_hash, client_ip, prepared_by, prepared_by_email, created_at, updated_at)
        values ('p-old', 'single', 'pending_approval', '1001', 'pd-p-old', 1000, 'EUR', 'refund',
          'card', '411111…1111', 'Jane Payee, expires 12/2035', 'dest-hash', '127.0.0.1', 'u1',
          'ops@paydesk.test', ${NOW}, ${NOW})`.execute(k);

        await migrateToLatest(k, variant.name);

        const db = k as unknown as Kysely<PayoutsTables>;
        const payee = () =>
          db
            .selectFrom('payouts')
            .select(['destination_hash', 'payee_hash'])
            .where('id', '=', 'p-old')
            .executeTakeFirstOrThrow();
        expect(await payee()).toEqual({ destination_hash: 'dest-hash', payee_hash: null });
        await db.updateTable('payouts').set({ payee_hash: 'payee-hash' }).execute();
        expect(await payee()).toEqual({ destination_hash: 'dest-hash', payee_hash: 'payee-hash' });

        const definition =
          variant.name === 'postgres'
            ? await sql<{
                text: string;
              }>`select indexdef as text from pg_indexes where indexname = 'payouts_payee'`.execute(
                k,
              )
            : await sql<{
                text: string;
              }>`select sql as text from sqlite_master where name = 'payouts_payee'`.execute(k);
        expect((definition.rows[0]?.text ?? '').replaceAll('"', '')).toMatch(
          /payouts.*\(payee_hash, state\)/i,
        );
      });
    },
  );
}
