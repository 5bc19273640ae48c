// Migration 0026 on a database an earlier version left, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL: payouts and payment links gain the columns of how an outcome went unlearned, and the
// rows already there are filled from the words they recorded where those say it (a link's oldest
// words from the exchange its timeline kept); a refusal, or Paydesk's own words, keep null.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrations.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import { unansweredOfColumns } from './gateway-errors.js';
import type { PayoutsTables } from './migration.js';
import { PAYOUT_UNANSWERED_MIGRATION_NAME } from './unanswered-migration.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0, 0);

/** Payouts as earlier versions recorded them: state, error_code, error_message. */
const PAYOUTS: readonly [string, string, string | null, string | null][] = [
  ['p-500', 'checking', 'INTERNAL', 'gateway answered 500'],
  ['p-500-bare', 'unknown', null, 'gateway answered 502'],
  ['p-drop', 'unknown', null, 'connection lost before a reply (UND_ERR_SOCKET)'],
  ['p-wait', 'checking', null, 'no reply within 15000 ms'],
  ['p-unread', 'unknown', null, 'the gateway reply could not be read'],
  ['p-stopped', 'unknown', null, 'the instance sending it stopped before recording the outcome'],
  [
    'p-refused',
    'failed',
    'VALIDATION_FAILED',
    'The gateway rejected the payout request as invalid (VALIDATION_FAILED): bad BIC. Nothing was changed.',
  ],
  ['p-paid', 'approved', null, null],
];

/** Links as earlier versions recorded them. */
const LINKS: readonly [string, string, string | null, string | null][] = [
  [
    'l-500',
    'unknown',
    'INTERNAL',
    'the gateway answered with an error (HTTP 500, INTERNAL: Internal error)',
  ],
  ['l-500-bare', 'unknown', 'SERVER-ERROR', 'the gateway answered with an error (HTTP 503)'],
  ['l-wait', 'unknown', 'TIMEOUT', 'no answer within 15 s'],
  ['l-drop', 'unknown', 'CONNECTION-LOST', 'the connection closed before the gateway answered'],
  // the oldest words: only the client's reason, the exchange in the timeline
  ['l-old-500', 'unknown', 'INTERNAL', 'the reply was lost (server-error)'],
  ['l-old-wait', 'unknown', 'TIMEOUT', 'the reply was lost (timeout)'],
  ['l-old-drop', 'unknown', 'CONNECTION-LOST', 'the reply was lost (connection-lost)'],
  ['l-old-bare', 'unknown', 'TIMEOUT', 'the reply was lost (timeout)'],
  ['l-refused', 'failed', 'HTTP_400', 'The gateway rejected the sale form request as invalid.'],
];

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${PAYOUT_UNANSWERED_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when payouts and links exist before it runs, then each whose recorded words say how its outcome went unlearned gets it in the new columns, and the others keep null', async () => {
        const { k, drop } = await databaseBefore(variant, PAYOUT_UNANSWERED_MIGRATION_NAME);
        cleanup = drop;
        for (const [id, state, code, message] of PAYOUTS) {
          await sql`insert into payouts (id, mode, state, endpoint_id, client_orderid, amount_minor,
              currency, order_desc, destination_kind, destination_masked, destination_label,
              destination_hash, client_ip, prepared_by, prepared_by_email, error_code,
              error_message, created_at, updated_at)
            values (${id}, 'two-step', ${state}, '1001', ${`pd-${id}`}, 1000, 'EUR', 'refund',
              'bank', 'DE89…3000', 'Test Bank', 'hash', '127.0.0.1', 'u1', 'ops@paydesk.test',
              ${code}, ${message}, ${NOW}, ${NOW})`.execute(k);
        }
        for (const [id, state, code, message] of LINKS) {
          await sql`insert into payment_links (id, kind, state, endpoint_id, client_orderid,
              amount_minor, currency, order_desc, request, created_by, created_by_email,
              error_code, error_message, created_at, updated_at)
            values (${id}, 'sale-form', ${state}, '1001', ${`pd-${id}`}, 1999, 'EUR', 'Invoice',
              '{}', 'u1', 'finance@paydesk.test', ${code}, ${message}, ${NOW}, ${NOW})`.execute(k);
        }
        const event = async (link: string, data: Record<string, unknown>) => {
          await sql`insert into payout_events (subject, at, kind, title, actor, data)
            values (${`link:${link}`}, ${NOW}, 'gateway', 'sale form sent', null,
              ${JSON.stringify(data)})`.execute(k);
        };
        await event('l-old-500', {
          outcome: 'unknown',
          reason: 'server-error',
          httpStatus: 500,
          error: 'gateway answered 500',
          reply: { type: 'error', 'error-code': 'INTERNAL', 'error-message': 'Internal error' },
        });
        await event('l-old-wait', {
          outcome: 'unknown',
          reason: 'timeout',
          httpStatus: null,
          error: 'no reply within 15000 ms',
          reply: null,
        });
        // l-old-drop and l-old-bare kept no exchange: the reason alone says what it can

        await migrateToLatest(k, variant.name);

        const db = k as unknown as Kysely<PayoutsTables>;
        const payouts = await db.selectFrom('payouts').selectAll().orderBy('id').execute();
        const links = await db.selectFrom('payment_links').selectAll().orderBy('id').execute();
        const found = Object.fromEntries(
          [...payouts, ...links].map((row) => [row.id, unansweredOfColumns(row)]),
        );
        expect(found).toEqual({
          'p-500': { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
          'p-500-bare': { kind: 'error', httpStatus: 502, code: null, message: null },
          'p-drop': { kind: 'connection-closed' },
          'p-wait': { kind: 'timeout', waitedMs: 15_000 },
          'p-unread': { kind: 'unreadable', httpStatus: null },
          'p-stopped': null,
          'p-refused': null,
          'p-paid': null,
          'l-500': { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: 'Internal error' },
          'l-500-bare': { kind: 'error', httpStatus: 503, code: null, message: null },
          'l-wait': { kind: 'timeout', waitedMs: 15_000 },
          'l-drop': { kind: 'connection-closed' },
          'l-old-500': {
            kind: 'error',
            httpStatus: 500,
            code: 'INTERNAL',
            message: 'Internal error',
          },
          'l-old-wait': { kind: 'timeout', waitedMs: 15_000 },
          'l-old-drop': { kind: 'connection-closed' },
          'l-old-bare': null,
          'l-refused': null,
        });
        // the words themselves are kept as they were (the timeline and the audit read them)
        expect(payouts.find((p) => p.id === 'p-drop')?.error_message).toBe(
          'connection lost before a reply (UND_ERR_SOCKET)',
        );
        // numbers on both databases
        expect(payouts.find((p) => p.id === 'p-wait')?.unanswered_waited_ms).toBe(15_000);
      });
    },
  );
}
