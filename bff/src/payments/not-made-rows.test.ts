// The list's rows say which follow-ups the gateway did not make (`notMade`), on every filter, by
// the rule of the `notMade=true` filter and of the order page (`notMadeFollowUps`), read for the
// page in one query through an index; over HTTP on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL, the rows written directly as the ledger and the reconciler would leave them.
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notMadeFollowUps } from '@paydesk/shared/domain';
import { TransactionPageSchema, type TransactionPage } from '@paydesk/shared/api';
import { DB_VARIANTS, startApp, type TestApp, type TestClient } from '../test-support/harness.js';
import { payDb } from './db.js';
import type { TransactionOperationsTable, TransactionsTable } from './migration.js';
import { notMadeOperationsOf } from './queries.js';
import { operationRow, rowId, transactionRow, VISA_COLUMNS } from './test-support/rows.js';

const DAY = 86_400_000;
/** the test app's clock (test-support/harness.ts) */
const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);

function order(n: number, patch: Partial<TransactionsTable> = {}): TransactionsTable {
  const at = NOW - 30 * DAY + n;
  return transactionRow({
    id: rowId('00000000', 1200 + n),
    orderid: String(701200 + n),
    client_orderid: `rows-${n}`,
    ...VISA_COLUMNS,
    customer_email: `rows${n}@example.com`,
    created_at: at,
    updated_at: at,
    ...patch,
  });
}

let opSeq = 0;
function op(
  tx: TransactionsTable,
  kind: string,
  state: string,
  at: number,
  patch: Partial<TransactionOperationsTable> = {},
): TransactionOperationsTable {
  opSeq += 1;
  return operationRow({
    id: rowId('00000000', 1200 + opSeq, 'a000'),
    transaction_id: tx.id,
    kind,
    state,
    created_at: at,
    updated_at: at,
    ...patch,
  });
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `a row says which follow-ups were not made (${variant.name})`,
    () => {
      let t: TestApp;
      let support: TestClient;
      const returned = order(1);
      const redone = order(2);
      const tooOld = order(3);
      const twoKinds = order(4, { currency: 'USD' });
      const redoneNotMade = order(5);
      const learned = order(6);
      const plain = order(7);
      const declined = order(8, { status: 'declined' });
      const orders = [returned, redone, tooOld, twoKinds, redoneNotMade, learned, plain, declined];
      const operations = [
        op(returned, 'return', 'not_applied', NOW - DAY),
        // not made, then made again (approved): nothing due
        op(redone, 'return', 'not_applied', NOW - 2 * DAY),
        op(redone, 'return', 'approved', NOW - DAY),
        // not made eight days ago: out of the window
        op(tooOld, 'return', 'not_applied', NOW - 8 * DAY),
        // a card reference, then a void, a capture made, then the void sent again and not made
        op(twoKinds, 'card-ref', 'not_applied', NOW - 3 * DAY),
        op(twoKinds, 'void', 'not_applied', NOW - 2 * DAY),
        op(twoKinds, 'capture', 'approved', NOW - 2 * DAY + 1),
        op(twoKinds, 'void', 'not_applied', NOW - DAY),
        // sent again and not made either: the kind once
        op(redoneNotMade, 'return', 'not_applied', NOW - 3 * DAY),
        op(redoneNotMade, 'return', 'not_applied', NOW - 2 * DAY),
        // learned from the gateway, not sent by staff
        op(learned, 'return', 'not_applied', NOW - DAY, { origin: 'gateway' }),
        op(plain, 'return', 'approved', NOW - DAY),
        op(declined, 'capture', 'not_applied', NOW - 4 * DAY),
      ];

      beforeAll(async () => {
        t = await startApp(variant);
        support = await t.userWithRoles(['support']);
        const k = payDb(t.db);
        await k.insertInto('transactions').values(orders).execute();
        await k.insertInto('transaction_operations').values(operations).execute();
      });
      afterAll(async () => {
        await t.close();
      });

      const listed = async (query: string, client = support): Promise<TransactionPage> => {
        const res = await client.get(`/api/transactions?${query}`);
        expect(res.status, res.text).toBe(200);
        return TransactionPageSchema.parse(res.json);
      };
      const byOrder = (page: TransactionPage) =>
        Object.fromEntries(page.items.map((i) => [i.clientOrderId, i.notMade]));

      it('when the list is read without a filter, then each row names the kinds of its follow-ups not made and not made again in the last seven days, once each, in the order first sent', async () => {
        const page = await listed('limit=50');
        expect(byOrder(page)).toEqual({
          'rows-1': ['return'],
          // made again: no longer due
          'rows-2': [],
          // older than seven days
          'rows-3': [],
          'rows-4': ['card-ref', 'void'],
          'rows-5': ['return'],
          'rows-6': [],
          'rows-7': [],
          'rows-8': ['capture'],
        });
        // the order page's rule, kind by kind
        for (const o of orders) {
          const kinds = notMadeFollowUps(
            operations
              .filter((operation) => operation.transaction_id === o.id)
              .map((operation) => ({ ...operation, createdAt: operation.created_at })),
            NOW,
          ).map((operation) => operation.kind);
          expect(page.items.find((i) => i.id === o.id)?.notMade, o.client_orderid).toEqual([
            ...new Set(kinds),
          ]);
        }
      });

      it('when the list is filtered by notMade=true, or by anything else, or paged, then its rows say the same', async () => {
        const notMade = await listed('notMade=true');
        expect(byOrder(notMade)).toEqual({
          'rows-1': ['return'],
          'rows-4': ['card-ref', 'void'],
          'rows-5': ['return'],
          'rows-8': ['capture'],
        });
        expect(byOrder(await listed('currency=USD'))).toEqual({ 'rows-4': ['card-ref', 'void'] });
        expect(byOrder(await listed('status=declined'))).toEqual({ 'rows-8': ['capture'] });
        expect(byOrder(await listed(`q=${returned.orderid}`))).toEqual({ 'rows-1': ['return'] });
        const first = await listed('sort=created_asc&limit=3');
        const second = await listed(
          `sort=created_asc&limit=3&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
        );
        expect({ ...byOrder(first), ...byOrder(second) }).toMatchObject({
          'rows-1': ['return'],
          'rows-2': [],
          'rows-3': [],
          'rows-4': ['card-ref', 'void'],
          'rows-5': ['return'],
        });
      });

      it('when the list is exported, then the CSV has no column for it (its columns are unchanged)', async () => {
        const csv = await support.get('/api/transactions/export?notMade=true');
        expect(csv.status, csv.text).toBe(200);
        const header = csv.text.replace(/^\uFEFF/, '').split('\r\n')[0] ?? '';
        expect(header).not.toMatch(/notMade|not made/i);
      });

      it('when a page’s follow-ups not made are read, then one query finds them through an index, never by reading every operation', async () => {
        const k = payDb(t.db);
        const compiled = notMadeOperationsOf(
          k,
          orders.map((o) => o.id),
          NOW,
        ).compile();
        const explain = variant.name === 'postgres' ? 'explain' : 'explain query plan';
        // PostgreSQL may read a table this small whole: with sequential scans made dear, the plan
        // shows which index it can use. SQLite keeps no statistics here: its plan is the one.
        const plan = await k.transaction().execute(async (trx) => {
          if (variant.name === 'postgres')
            await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
          return trx.executeQuery<Record<string, unknown>>(
            CompiledQuery.raw(`${explain} ${compiled.sql}`, [...compiled.parameters]),
          );
        });
        const shown = JSON.stringify(plan.rows);
        expect(shown).toMatch(/transaction_operations_(not_applied|tx)/);
        expect(shown).not.toMatch(/Seq Scan on transaction_operations|\bSCAN (o|later)\b/);
      });

      it('when the follow-up not made leaves the seven days, then its row no longer names it, as the filter no longer lists it', async () => {
        // the return on rows-1 was sent a day ago
        t.clock.advance(6 * DAY + 60_000);
        try {
          // (the sessions of six days ago have expired: a new one)
          const later = await t.userWithRoles(['support']);
          const page = await listed('limit=50', later);
          expect(page.items.find((i) => i.id === returned.id)?.notMade).toEqual([]);
          expect(page.items.find((i) => i.id === twoKinds.id)?.notMade).toEqual([]);
          expect((await listed('notMade=true', later)).items.map((i) => i.id)).not.toContain(
            returned.id,
          );
        } finally {
          t.clock.advance(-(6 * DAY + 60_000));
        }
      });
    },
  );
}
