// Migration 0023: the index of the follow-ups the gateway never made (stats.ts
// `notAppliedOperations`), read by the home screen's card and the list's `notMade=true` filter.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const NOT_APPLIED_OPERATIONS_INDEX_MIGRATION_NAME = '0023-operations-not-applied-index';

/**
 * The operations judged not applied are few among many: a partial index on (kind, created_at)
 * finds the follow-ups of the last days not made, of the kinds staff send, without reading every
 * capture, return and void of those days (1,000,000 orders: ~270,000 operations of the week, 60–120
 * ms on PostgreSQL for the home screen's card; through the index, under 1 ms on both databases).
 * The kind comes first so that SQLite's planner prefers it to `transaction_operations_kind_created`
 * (kind, created_at), which matches as many terms of the query. Like `transaction_operations_unknown`
 * it needs no upkeep from the code that writes operations: the database keeps it with the `state`.
 */
export function notAppliedOperationsIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index transaction_operations_not_applied on transaction_operations (kind, created_at) where state = 'not_applied'`.execute(
        db,
      );
    },
  };
}
