// Orders whose money has an unknown fate outside their own page: the list's `status=unknown`, its
// export and the home screen's count take the orders whose own outcome is unknown and those with
// an operation whose outcome is unknown (a lost reply), whatever the order's own status.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  StatsResponseSchema,
  TransactionPageSchema,
  type TransactionPage,
} from '@paydesk/shared/api';
import { DB_VARIANTS, startApp, type TestApp, type TestClient } from '../test-support/harness.js';
import { payDb } from './db.js';
import type { TransactionOperationsTable, TransactionsTable } from './migration.js';
import { unknownOutcomeIds } from './stats.js';
import {
  learnedOrder,
  post,
  reconcileAfter,
  startFixture,
  type Fixture,
} from './test-support/fixture.js';
import { operationRow, rowId, transactionRow } from './test-support/rows.js';

const DAY = 86_400_000;
const AT = Date.UTC(2026, 10, 1);

const idOf = (n: number) => rowId('0a000000', n);

function order(n: number, patch: Partial<TransactionsTable> = {}): TransactionsTable {
  return transactionRow({
    id: idOf(n),
    orderid: String(810000 + n),
    client_orderid: `unknown-${n}`,
    stage: 'captured',
    amount_minor: 1000 + n,
    authorized_minor: 1000 + n,
    captured_minor: 1000 + n,
    created_at: AT + n * 1000,
    updated_at: AT + n * 1000,
    ...patch,
  });
}

function operation(
  n: number,
  orderNumber: number,
  kind: string,
  state: string,
): TransactionOperationsTable {
  return operationRow({
    id: rowId('0b000000', n),
    transaction_id: idOf(orderNumber),
    kind,
    state,
    amount_minor: 100,
    reserved_minor: state === 'unknown' ? 100 : 0,
    requested_by: 'finance@paydesk.test',
    sent_at: AT + n,
    created_at: AT + orderNumber * 1000 + n,
    updated_at: AT + orderNumber * 1000 + n,
  });
}

/** Every page of `query`, following `nextCursor`. */
async function allPages(client: TestClient, query: string): Promise<TransactionPage[]> {
  const pages: TransactionPage[] = [];
  let cursor: string | null = null;
  do {
    const path = `/api/transactions?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await client.get(path);
    expect(res.status).toBe(200);
    const page = TransactionPageSchema.parse(res.json);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 20);
  return pages;
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`unknown outcomes, list and count (${variant.name})`, () => {
    let t: TestApp;
    let support: TestClient;
    beforeAll(async () => {
      t = await startApp(variant);
      support = await t.userWithRoles(['support']);
      const k = payDb(t.db);
      await k
        .insertInto('transactions')
        .values([
          order(1),
          // the order's own outcome unknown
          order(2, { status: 'unknown', stage: null, captured_minor: 0 }),
          // approved, a return's outcome unknown (two of them: listed once)
          order(3),
          order(4, { currency: 'USD' }),
          // approved, its return known: not listed
          order(5),
          // a preauth whose capture's outcome is unknown; a void of another one
          order(6, { type: 'preauth', stage: 'authorized', captured_minor: 0 }),
          order(7, { type: 'preauth', stage: 'authorized', captured_minor: 0 }),
          order(8, { status: 'unknown', stage: null, currency: 'USD', created_at: AT - 400 * DAY }),
          order(9, { status: 'declined', stage: null }),
        ])
        .execute();
      await k
        .insertInto('transaction_operations')
        .values([
          operation(1, 3, 'return', 'unknown'),
          operation(2, 3, 'return', 'unknown'),
          operation(3, 4, 'return', 'unknown'),
          operation(4, 5, 'return', 'approved'),
          operation(5, 5, 'return', 'not_applied'),
          operation(6, 6, 'capture', 'unknown'),
          operation(7, 7, 'void', 'unknown'),
          operation(8, 1, 'card-ref', 'approved'),
        ])
        .execute();
    });
    afterAll(async () => {
      await t.close();
    });

    it('when the list is filtered by an unknown outcome, then orders whose own or whose operation’s outcome is unknown come once each, in keyset pages, in every sort', async () => {
      const expected = [7, 6, 4, 3, 2, 8].map(idOf);
      const pages = await allPages(support, 'status=unknown&limit=2');
      expect(pages.map((p) => p.items.length)).toEqual([2, 2, 2]);
      expect(pages.flatMap((p) => p.items.map((i) => i.id))).toEqual(expected);
      expect(pages.every((p) => p.total === 6 && !p.totalCapped)).toBe(true);
      const byAmount = await allPages(support, 'status=unknown&limit=4&sort=amount_asc');
      expect(byAmount.flatMap((p) => p.items.map((i) => i.id))).toEqual(
        [2, 3, 4, 6, 7, 8].map(idOf),
      );
      const oldest = await allPages(support, 'status=unknown&limit=5&sort=created_asc');
      expect(oldest.flatMap((p) => p.items.map((i) => i.id))).toEqual([...expected].reverse());
    });

    it('when the unknown outcome filter is combined with others, then each narrows it as usual', async () => {
      const usd = TransactionPageSchema.parse(
        (await support.get('/api/transactions?status=unknown&currency=USD')).json,
      );
      expect(usd.items.map((i) => i.id)).toEqual([4, 8].map(idOf));
      const preauths = TransactionPageSchema.parse(
        (await support.get('/api/transactions?status=unknown&type=preauth&limit=1')).json,
      );
      expect(preauths.items.map((i) => i.id)).toEqual([idOf(7)]);
      expect(preauths.total).toBe(2);
      // Other statuses stay the order's own.
      const approved = TransactionPageSchema.parse(
        (await support.get('/api/transactions?status=approved&limit=100')).json,
      );
      expect(approved.items.map((i) => i.id)).toEqual([7, 6, 5, 4, 3, 1].map(idOf));
    });

    it('when a row is listed, then it names the kinds of its operations whose outcome is unknown, whatever the filter', async () => {
      const page = TransactionPageSchema.parse(
        (await support.get('/api/transactions?limit=100')).json,
      );
      const kinds = Object.fromEntries(page.items.map((i) => [i.id, i.unknownOperations]));
      expect(kinds).toEqual({
        [idOf(1)]: [],
        [idOf(2)]: [],
        [idOf(3)]: ['return'],
        [idOf(4)]: ['return'],
        [idOf(5)]: [],
        [idOf(6)]: ['capture'],
        [idOf(7)]: ['void'],
        [idOf(8)]: [],
        [idOf(9)]: [],
      });
    });

    it('when the home screen counts unknown outcomes, then it counts the orders the filter lists, whatever their age', async () => {
      const stats = StatsResponseSchema.parse((await support.get('/api/stats')).json);
      expect(stats.attention.unknown).toBe(6);
    });

    it('when the unknown outcome filter is exported, then the CSV holds the same orders as the list', async () => {
      const csv = await support.get('/api/transactions/export?status=unknown');
      expect(csv.status).toBe(200);
      const ids = csv.text
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[0]);
      expect(ids).toEqual([7, 6, 4, 3, 2, 8].map(idOf));
    });

    it('when the orders of unknown operations are looked for, then the plan reads the partial index, not every operation', async () => {
      const k = payDb(t.db);
      const compiled = k
        .selectFrom('transactions')
        .select('id')
        .where('id', 'in', unknownOutcomeIds(k))
        .compile();
      const explain = sql.raw<Record<string, unknown>>(
        `${variant.name === 'postgres' ? 'explain' : 'explain query plan'} ${compiled.sql}`,
      );
      const plan = await k.connection().execute(async (c) => {
        if (variant.name === 'postgres') await sql`set enable_seqscan = off`.execute(c);
        try {
          return await c.executeQuery({
            ...explain.compile(c),
            parameters: compiled.parameters,
          });
        } finally {
          if (variant.name === 'postgres') await sql`reset enable_seqscan`.execute(c);
        }
      });
      expect(JSON.stringify(plan.rows)).toContain('transaction_operations_unknown');
    });
  });

  describe.skipIf(variant.skip)(
    `unknown outcome of a follow-up, end to end (${variant.name})`,
    () => {
      let f: Fixture;
      const unknownList = async () =>
        TransactionPageSchema.parse((await f.support.get('/api/transactions?status=unknown')).json);
      const attention = async () =>
        StatsResponseSchema.parse((await f.support.get('/api/stats')).json).attention.unknown;
      const exported = async () =>
        (await f.support.get('/api/transactions/export?status=unknown')).text
          .trim()
          .split('\r\n')
          .slice(1);
      beforeAll(async () => {
        f = await startFixture(variant);
      });
      afterAll(async () => {
        await f.close();
      });
      afterEach(async () => {
        await f.sandbox.faults({});
      });

      it('when the reply to a return on an approved sale is lost, then the order is in the unknown outcome list, its export and the home count, with the return named; once reconciled, it leaves all three', async () => {
        const { tx } = await learnedOrder(f, 'sale', '60.00');
        expect(tx.status).toBe('approved');
        expect((await unknownList()).items).toEqual([]);
        expect(await attention()).toBe(0);

        await f.sandbox.faults({ dropResponseRate: 1, operations: ['return'] });
        const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
          amount: '20.00',
          reasonCode: 'other',
          comment: 'lost reply',
        });
        expect(res.status).toBe(200);
        expect(OperationResultSchema.parse(res.json).operation.state).toBe('unknown');
        await f.sandbox.faults({});

        const listed = await unknownList();
        expect(listed.items.map((i) => [i.id, i.status, i.unknownOperations])).toEqual([
          [tx.id, 'approved', ['return']],
        ]);
        expect(listed.total).toBe(1);
        expect(await attention()).toBe(1);
        expect((await exported()).map((line) => line.split(',')[0])).toEqual([tx.id]);

        expect(await reconcileAfter(f, 5_000)).toBeGreaterThanOrEqual(1);
        expect((await unknownList()).items).toEqual([]);
        expect(await attention()).toBe(0);
        expect(await exported()).toEqual([]);
        const all = TransactionPageSchema.parse((await f.support.get('/api/transactions')).json);
        expect(all.items.find((i) => i.id === tx.id)?.unknownOperations).toEqual([]);
      });
    },
  );
}
