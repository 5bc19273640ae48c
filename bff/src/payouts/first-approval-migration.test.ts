// Migration 0027 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: payouts gain where a payout paid again keeps its first approval, null for the
// payouts already there (their decider and decision time kept as they were), and the columns take
// an email and a time in milliseconds.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import { PAYOUT_FIRST_APPROVAL_MIGRATION_NAME } from './first-approval-migration.js';
import type { PayoutsTables } from './migration.js';

const NOW = Date.UTC(2026, 10, 28, 7, 0, 0);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${PAYOUT_FIRST_APPROVAL_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when payouts exist before it runs, then they keep their decider and gain empty first-approval columns that then hold an email and a time', async () => {
        const { k, drop } = await databaseBefore(variant, PAYOUT_FIRST_APPROVAL_MIGRATION_NAME);
        cleanup = drop;
        await sql`insert into payouts (id, mode, state, endpoint_id, client_orderid, amount_minor,
            currency, order_desc, destination_kind, destination_masked, destination_label,
            destination_hash, client_ip, prepared_by, prepared_by_email, decided_by,
            decided_by_email, decided_at, created_at, updated_at)
          values ('p-paid', 'two-step', 'approved', '1001', 'pd-p-paid', 1000, 'EUR', 'refund',
            'bank', 'DE89…3000', 'Test Bank', 'hash', '127.0.0.1', 'u1', 'ops@paydesk.test',
            'u2', 'approver@paydesk.test', ${NOW}, ${NOW}, ${NOW})`.execute(k);

        await migrateToLatest(k, variant.name);

        const db = k as unknown as Kysely<PayoutsTables>;
        // (the bare connection reads PostgreSQL's bigint as text: compared as numbers)
        const before = await db
          .selectFrom('payouts')
          .select(['decided_by_email', 'decided_at', 'first_decided_by_email', 'first_decided_at'])
          .executeTakeFirstOrThrow();
        expect({ ...before, decided_at: Number(before.decided_at) }).toEqual({
          decided_by_email: 'approver@paydesk.test',
          decided_at: NOW,
          first_decided_by_email: null,
          first_decided_at: null,
        });
        const later = NOW + 150_000;
        await db
          .updateTable('payouts')
          .set({ first_decided_by_email: 'first@paydesk.test', first_decided_at: later })
          .where('id', '=', 'p-paid')
          .execute();
        const after = await db
          .selectFrom('payouts')
          .select(['first_decided_by_email', 'first_decided_at'])
          .executeTakeFirstOrThrow();
        expect({ ...after, first_decided_at: Number(after.first_decided_at) }).toEqual({
          first_decided_by_email: 'first@paydesk.test',
          first_decided_at: later,
        });
      });
    },
  );
}
