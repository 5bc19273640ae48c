// The payments migration through Kysely's Migrator (as the platform's provider runs it) and the
// test-time fallback, on both databases, each on a database of its own.
import { afterEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { DB_VARIANTS } from '../test-support/harness.js';
import { bareKysely } from '../test-support/migrations.js';
import {
  ensurePaymentsSchema,
  paymentsMigrations,
  SETTLEMENT_CHECKS_MIGRATION_NAME,
} from './migration.js';
import { SETTLEMENT_CHECK_AFTER_MS_DEFAULT } from './options.js';

const TABLES = [
  'transactions',
  'transaction_operations',
  'transaction_timeline',
  'gateway_callbacks',
  'idempotency_keys',
  'reconcile_jobs',
  'subscriptions',
  'settlement_checks',
];

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments migration (${variant.name})`, () => {
    let cleanup: (() => Promise<void>) | null = null;
    afterEach(async () => {
      await cleanup?.();
      cleanup = null;
    });
    const fresh = async (): Promise<Kysely<unknown>> => {
      const created = await variant.create();
      const k = bareKysely(created.database);
      cleanup = async () => {
        await k.destroy();
        await created.drop();
      };
      return k;
    };

    it('when the migration runs through a Migrator, then every payments table exists and a duplicate callback serial is refused', async () => {
      const k = await fresh();
      const migrator = new Migrator({
        db: k,
        provider: { getMigrations: () => Promise.resolve(paymentsMigrations(variant.name)) },
      });
      const { error, results } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      expect(results?.map((r) => [r.migrationName, r.status])).toEqual([
        ['0002-payments', 'Success'],
        ['0004-subscriptions', 'Success'],
        ['0005-list-indexes', 'Success'],
        ['0006-transactions-drift-index', 'Success'],
        ['0007-subscription-recovery', 'Success'],
        ['0009-order-lock', 'Success'],
        ['0010-card-ref-index', 'Success'],
        ['0013-settlement-checks', 'Success'],
        ['0018-operations-unknown-index', 'Success'],
      ]);
      for (const table of TABLES) {
        const rows = await sql.raw<{ n: unknown }>(`select count(*) as n from ${table}`).execute(k);
        expect(Number(rows.rows[0]?.n)).toBe(0);
      }
      const insert = sql`insert into gateway_callbacks (serial_number, endpoint_id, orderid, client_orderid, status, raw, received_at) values ('s1', '1001', '1', 'c', 'approved', '{}', 0)`;
      await insert.execute(k);
      await expect(insert.execute(k)).rejects.toThrow();
      expect(await ensurePaymentsSchema(k, variant.name)).toBe(false);
    });

    it('when orders are read by card reference, then the plan uses the card reference index', async () => {
      const k = await fresh();
      await ensurePaymentsSchema(k, variant.name);
      const query = `select id from transactions where card_ref_id = 'REF1' and type <> 'rebill'`;
      const plan =
        variant.name === 'postgres'
          ? await k.transaction().execute(async (trx) => {
              await sql`set local enable_seqscan = off`.execute(trx);
              return sql.raw<Record<string, unknown>>(`explain ${query}`).execute(trx);
            })
          : await sql.raw<Record<string, unknown>>(`explain query plan ${query}`).execute(k);
      expect(JSON.stringify(plan.rows)).toContain('transactions_card_ref');
    });

    it('when orders await their settlement before the settlement checks exist, then the migration gives each one a check due a day and 5 min after its approval, and no other order one', async () => {
      const k = await fresh();
      const all = paymentsMigrations(variant.name);
      const before = Object.fromEntries(
        Object.entries(all).filter(([name]) => name < SETTLEMENT_CHECKS_MIGRATION_NAME),
      );
      const earlier = await new Migrator({
        db: k,
        provider: { getMigrations: () => Promise.resolve(before) },
      }).migrateToLatest();
      expect(earlier.error).toBeUndefined();
      const order = (id: string, type: string, status: string, stage: string, at: number) =>
        sql`insert into transactions (id, endpoint_id, orderid, client_orderid, type, status, stage, currency, amount_minor, source, created_at, updated_at)
          values (${id}, '1001', ${`o-${id}`}, ${`c-${id}`}, ${type}, ${status}, ${stage}, 'EUR', 1000, 'callback', ${at}, ${at})`.execute(
          k,
        );
      await order('sale', 'sale', 'approved', 'captured', 1_000);
      await order('captured-hold', 'preauth', 'approved', 'captured', 2_000);
      await sql`insert into transaction_operations (id, transaction_id, kind, origin, state, amount_minor, created_at, updated_at)
        values ('cap', 'captured-hold', 'capture', 'paydesk', 'approved', 500, 9000, 9000)`.execute(
        k,
      );
      await order('settled', 'sale', 'approved', 'settled', 3_000);
      await order('hold', 'preauth', 'approved', 'authorized', 4_000);
      await order('declined', 'sale', 'declined', 'declined', 5_000);

      const result = await new Migrator({
        db: k,
        provider: { getMigrations: () => Promise.resolve(all) },
      }).migrateToLatest();
      expect(result.error).toBeUndefined();
      const checks = await sql<{
        transaction_id: string;
        approved_at: unknown;
        due_at: unknown;
        attempts: unknown;
      }>`select transaction_id, approved_at, due_at, attempts from settlement_checks order by transaction_id`.execute(
        k,
      );
      expect(
        checks.rows.map((c) => [
          c.transaction_id,
          Number(c.approved_at),
          Number(c.due_at),
          Number(c.attempts),
        ]),
      ).toEqual([
        ['captured-hold', 9_000, 9_000 + SETTLEMENT_CHECK_AFTER_MS_DEFAULT, 0],
        ['sale', 1_000, 1_000 + SETTLEMENT_CHECK_AFTER_MS_DEFAULT, 0],
      ]);
    });

    it('when the schema is missing, then ensurePaymentsSchema creates it once', async () => {
      const k = await fresh();
      expect(await ensurePaymentsSchema(k, variant.name)).toBe(true);
      expect(await ensurePaymentsSchema(k, variant.name)).toBe(false);
    });
  });
}
