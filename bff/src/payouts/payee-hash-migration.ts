// Migration 0029: a payout keeps, beside the keyed hash of its whole destination (which binds the
// approval), a keyed hash of its payee alone (`DestinationHasher.payeeHash`): the possible-duplicate
// warnings match on it, so that the same card or account typed with another holder's name, case
// or spacing is still "the same destination" (QA B2: "DUP PAYEE" and "Dup Payee" were not).
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const PAYOUT_PAYEE_HASH_MIGRATION_NAME = '0029-payout-payee-hash';

/**
 * A nullable column without a default (a catalog change on PostgreSQL, a schema-text change on
 * SQLite) and its index, as `payouts_destination` serves the destination hash. Payouts prepared
 * before it keep null (their destination is no longer known, only its hash): the warnings match
 * them by the whole destination's hash, as before.
 */
export function payoutPayeeHashMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`alter table payouts add column payee_hash text`.execute(db);
      await sql`create index payouts_payee on payouts (payee_hash, state)`.execute(db);
    },
  };
}
