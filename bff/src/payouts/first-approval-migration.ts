// Migration 0027: a payout paid again keeps its first approval. Paying again (`PayoutsService.payAgain`)
// makes its payer the decider (`decided_by*`, `decided_at`: the guards and the poller read them);
// who approved it first, and when, is kept beside them, so that screens say both.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { DatabaseKind } from '../db/connect.js';

export const PAYOUT_FIRST_APPROVAL_MIGRATION_NAME = '0027-payout-first-approval';

/**
 * Nullable columns without a default (a catalog change on PostgreSQL, a schema-text change on
 * SQLite): null for every payout there, and for any never paid again. Payouts paid again before it
 * keep null (their timeline's "Paid again by" entry names the first approver).
 */
export function payoutFirstApprovalMigration(kind: DatabaseKind): Migration {
  const ms = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql`alter table payouts add column first_decided_by_email text`.execute(db);
      await sql.raw(`alter table payouts add column first_decided_at ${ms}`).execute(db);
    },
  };
}
