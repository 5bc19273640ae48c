// Migration 0026: how a payout's check or payout, or a payment link's create, went unlearned,
// recorded when it happens (gateway-errors.ts `unansweredOf`, `unansweredColumns`), as operations
// and plans have kept it since 0024, rather than only in words the web had to parse.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Unanswered } from '@paydesk/shared/api';
import { unansweredColumns } from '../payments/gateway-errors.js';
import { addUnansweredColumns } from '../payments/unanswered-migration.js';
import { unansweredOfRecorded, unansweredOfLostLink } from './gateway-errors.js';

export const PAYOUT_UNANSWERED_MIGRATION_NAME = '0026-payout-unanswered';

interface Recorded {
  id: string;
  error_code: string | null;
  error_message: string | null;
}

/**
 * Nullable columns without a default (a catalog change on PostgreSQL, a schema-text change on
 * SQLite). The rows already there are then filled from the words they recorded where those can be
 * recognised (`unansweredOfRecorded`): the client's own (`gateway answered 500`, `no reply within
 * 15000 ms`, `connection lost before a reply (UND_ERR_SOCKET)`), the payments' (`no answer within
 * 15 s`, `the gateway answered with an error (HTTP 500, INTERNAL: …)`), and a link's oldest (`the
 * reply was lost (server-error)`), read with the exchange its timeline kept. Only rows with a
 * recorded error are read, one update each: payouts and links are few beside operations. Anything
 * else (a refusal, Paydesk's own words) keeps null.
 */
export function payoutUnansweredMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // The same columns as 0024 gave operations (`UnansweredColumns`).
      for (const table of ['payouts', 'payment_links']) await addUnansweredColumns(db, table);
      const fill = async (table: 'payouts' | 'payment_links', id: string, found: Unanswered) => {
        const c = unansweredColumns(found);
        await sql`update ${sql.table(table)} set unanswered_kind = ${c.unanswered_kind},
            unanswered_http_status = ${c.unanswered_http_status},
            unanswered_code = ${c.unanswered_code}, unanswered_message = ${c.unanswered_message},
            unanswered_waited_ms = ${c.unanswered_waited_ms}
          where id = ${id}`.execute(db);
      };
      const payouts = await sql<Recorded>`select id, error_code, error_message from payouts
        where error_message is not null`.execute(db);
      for (const row of payouts.rows) {
        const found = unansweredOfRecorded(row.error_code, row.error_message);
        if (found !== null) await fill('payouts', row.id, found);
      }
      const links = await sql<Recorded>`select id, error_code, error_message from payment_links
        where error_message is not null`.execute(db);
      for (const row of links.rows) {
        let found = unansweredOfRecorded(row.error_code, row.error_message);
        if (found === null && (row.error_message ?? '').startsWith('the reply was lost (')) {
          // The oldest links kept only the client's reason: its timeline kept the exchange.
          const sent = await sql<{ data: string }>`select data from payout_events
            where subject = ${`link:${row.id}`} and kind = 'gateway' order by id desc`.execute(db);
          found = unansweredOfLostLink(
            row.error_message ?? '',
            sent.rows.map((event) => event.data),
          );
        }
        if (found !== null) await fill('payment_links', row.id, found);
      }
    },
  };
}
