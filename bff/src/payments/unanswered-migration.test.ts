// Migration 0024 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: the columns of how an outcome went unlearned are added to operations and plans
// without rewriting the operations' table, rows already there keep null in them, and those rows
// still read how their outcome went unlearned, from their recorded words.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import type { PayDatabase } from './db.js';
import { unansweredOfRow } from './gateway-errors.js';
import { UNANSWERED_OUTCOMES_MIGRATION_NAME } from './unanswered-migration.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0, 0);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${UNANSWERED_OUTCOMES_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when operations and plans exist before it runs, then they gain the nullable columns (null for them, the table not rewritten) and still read how their outcome went unlearned from their words', async () => {
        const { k, drop } = await databaseBefore(variant, UNANSWERED_OUTCOMES_MIGRATION_NAME);
        cleanup = drop;
        await sql`insert into transactions (id, endpoint_id, orderid, client_orderid, type, status,
            currency, amount_minor, source, created_at, updated_at)
          values ('t-1', '1001', '700001', 'c-1', 'sale', 'approved', 'EUR', 1000, 'paydesk',
            ${NOW}, ${NOW})`.execute(k);
        await sql`insert into transaction_operations (id, transaction_id, kind, origin, state,
            amount_minor, error_code, error_message, created_at, updated_at)
          values ('o-1', 't-1', 'return', 'paydesk', 'unknown', 500, 'INTERNAL',
            'gateway answered 500: Internal error', ${NOW}, ${NOW})`.execute(k);
        await sql`insert into subscriptions (id, endpoint_id, client_orderid, card_ref_id,
            amount_minor, currency, period, interval_count, first_charge_at, order_desc, email,
            state, error_code, error_message, created_by, created_by_email, created_at, updated_at)
          values ('s-1', '1001', 'sub-1', 'ref-1', 999, 'EUR', 'day', 1, ${NOW}, 'plan',
            'subscriber@example.com', 'unknown', null, 'no answer within 15 s', 'u1',
            'finance@paydesk.test', ${NOW}, ${NOW})`.execute(k);
        const file = async () =>
          variant.name === 'postgres'
            ? (
                await sql<{
                  file: unknown;
                }>`select relfilenode as file from pg_class where relname = 'transaction_operations'`.execute(
                  k,
                )
              ).rows[0]?.file
            : null;
        const fileBefore = await file();

        await migrateToLatest(k, variant.name);

        // PostgreSQL adds a nullable column without a default in the catalog only: same file.
        expect(await file()).toEqual(fileBefore);
        const pay = k as unknown as Kysely<PayDatabase>;
        const op = await pay
          .selectFrom('transaction_operations')
          .selectAll()
          .where('id', '=', 'o-1')
          .executeTakeFirstOrThrow();
        expect(op).toMatchObject({
          unanswered_kind: null,
          unanswered_http_status: null,
          unanswered_code: null,
          unanswered_message: null,
          unanswered_waited_ms: null,
        });
        expect(unansweredOfRow(op)).toEqual({
          kind: 'error',
          httpStatus: 500,
          code: 'INTERNAL',
          message: 'Internal error',
        });
        const plan = await pay
          .selectFrom('subscriptions')
          .selectAll()
          .where('id', '=', 's-1')
          .executeTakeFirstOrThrow();
        expect(plan.unanswered_kind).toBeNull();
        expect(unansweredOfRow(plan)).toEqual({ kind: 'timeout', waitedMs: 15_000 });

        // written as the BFF writes them now (unansweredColumns), read back as numbers on both
        await pay
          .updateTable('transaction_operations')
          .set({
            unanswered_kind: 'timeout',
            unanswered_waited_ms: 2_000,
            error_code: null,
            error_message: 'no answer within 2 s',
          })
          .where('id', '=', 'o-1')
          .execute();
        const after = await pay
          .selectFrom('transaction_operations')
          .selectAll()
          .where('id', '=', 'o-1')
          .executeTakeFirstOrThrow();
        expect(unansweredOfRow(after)).toEqual({ kind: 'timeout', waitedMs: 2_000 });
      });
    },
  );
}
