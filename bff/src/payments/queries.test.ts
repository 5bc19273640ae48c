// List (keyset pages, filters, exact q), CSV export, statistics and live events over HTTP.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  containsCardNumber,
  StatsResponseSchema,
  TransactionEventSchema,
  TransactionPageSchema,
  type ErrorEnvelope,
  type TransactionSort,
  type TransactionSummary,
} from '@paydesk/shared/api';
import { DB_VARIANTS, openEventStream } from '../test-support/harness.js';
import { payDb } from './db.js';
import { InProcessEventBus } from './events.js';
import type { TransactionsTable } from './migration.js';
import type { TestClient } from '../test-support/harness.js';
import { csvCell, exportFileName, TOTAL_CAP } from './queries.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';
import { rowId, transactionRow } from './test-support/rows.js';
import { CARDS } from './test-support/storefront.js';

describe('csv cells', () => {
  it('when a cell holds separators, quotes or a formula, then it is quoted and neutralised', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=SUM(A1)')).toBe("'=SUM(A1)");
  });

  it('when a cell holds a semicolon (the separator of German or French spreadsheets), then it is quoted', () => {
    expect(csvCell('Flur 2; links')).toBe('"Flur 2; links"');
    expect(csvCell('-1;2')).toBe(`"'-1;2"`);
  });

  it('when a cell starts with a tab or a carriage return, then it is neutralised as a formula would be', () => {
    expect(csvCell('\t=1+1')).toBe("'\t=1+1");
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
  });
});

describe('export file name', () => {
  const at = Date.parse('2026-11-25T09:12:34.567Z');
  it('when the export is filtered, then its file name says by what, in safe characters, and when to the minute', () => {
    expect(exportFileName({ status: 'approved' }, at)).toBe(
      'paydesk-transactions-approved-2026-11-25T0912Z.csv',
    );
    expect(
      exportFileName(
        {
          status: 'declined',
          type: 'payout-check',
          currency: 'EUR',
          endpoint: '1001',
          drift: 'false',
          createdFrom: '2026-11-01T00:00:00Z',
          createdTo: '2026-12-01T00:00:00+01:00',
          amountMin: '10.50',
          amountMax: '20',
          q: 'jürgen.müller@exämple.de',
        },
        at,
      ),
    ).toBe(
      'paydesk-transactions-declined-payout-check-EUR-endpoint1001-no-drift-from2026-11-01-before2026-11-30-min10.50-max20-search-2026-11-25T0912Z.csv',
    );
  });

  it('when the export is not filtered, then its file name says it holds every order', () => {
    expect(exportFileName({}, at)).toBe('paydesk-transactions-all-2026-11-25T0912Z.csv');
    expect(exportFileName({ drift: 'true' }, at)).toBe(
      'paydesk-transactions-drift-2026-11-25T0912Z.csv',
    );
  });
});

/** The reply's body as bytes (`Reply.text` is decoded, which drops a byte-order mark). */
async function rawGet(client: TestClient, path: string): Promise<{ res: Response; body: Buffer }> {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(client.baseUrl + path, { headers: { Cookie: cookie } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** A transactions row written straight to the database (the list and export tests' own data). */
const EXPORT_DAY = Date.UTC(2001, 0, 1);
function row(n: number, fields: Partial<TransactionsTable>): TransactionsTable {
  return transactionRow({
    id: rowId('e0000000', n),
    orderid: `90000000${n}`,
    client_orderid: `csv-${n}`,
    amount_minor: 100,
    authorized_minor: 0,
    captured_minor: 0,
    source: 'lookup',
    created_at: EXPORT_DAY,
    updated_at: EXPORT_DAY,
    ...fields,
  });
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments list, export, stats, events (${variant.name})`, () => {
    let f: Fixture;
    /** Runs `check` with `rows` in the database, and removes them after. */
    const withRows = async (rows: TransactionsTable[], check: () => Promise<void>) => {
      const k = payDb(f.bff.db);
      await k.insertInto('transactions').values(rows).execute();
      try {
        await check();
      } finally {
        await k
          .deleteFrom('transactions')
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      }
    };
    const email = 'list-buyer@example.com';
    let orders: TransactionSummary[] = [];
    const page = async (query: string) => {
      const res = await f.support.get(`/api/transactions?${query}`);
      expect(res.status).toBe(200);
      return TransactionPageSchema.parse(res.json);
    };
    beforeAll(async () => {
      f = await startFixture(variant);
      for (const amount of ['1.00', '2.00', '3.00', '4.00']) {
        await f.shop.place('sale', {
          amount,
          currency: 'USD',
          endpointId: '1002',
          email,
          callbackUrl: f.bff.callbackUrl('1002'),
        });
      }
      await f.shop.place('sale', {
        amount: '5.00',
        currency: 'USD',
        endpointId: '1002',
        email,
        card: CARDS.decline,
        callbackUrl: f.bff.callbackUrl('1002'),
      });
      await f.sandbox.advance(61);
      orders = (await page(`q=${email}&sort=amount_asc&limit=50`)).items;
    });
    afterAll(async () => {
      await f.close();
    });

    it('when the list is paged with a keyset cursor, then every order comes exactly once in the chosen order', async () => {
      expect(orders.map((o) => o.amount)).toEqual(['1.00', '2.00', '3.00', '4.00', '5.00']);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const p = await page(
          `q=${email}&sort=amount_desc&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
        );
        expect(p.total).toBe(5);
        expect(p.totalCapped).toBe(false);
        seen.push(...p.items.map((i) => i.amount));
        cursor = p.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(3);
      expect(seen).toEqual(['5.00', '4.00', '3.00', '2.00', '1.00']);
    });

    it('when filters are given, then only matching orders are listed; q matches orderid, client_orderid (whatever its case) and last four exactly', async () => {
      expect(
        (await page(`q=${email}&amountMin=2.00&amountMax=4.00`)).items.map((i) => i.amount).sort(),
      ).toEqual(['2.00', '3.00', '4.00']);
      expect((await page(`q=${email}&status=declined`)).items.map((i) => i.amount)).toEqual([
        '5.00',
      ]);
      expect((await page(`q=${email}&currency=EUR`)).total).toBe(0);
      expect((await page(`q=${email}&endpoint=1002&type=sale`)).total).toBe(5);
      const first = orders[0];
      if (first === undefined) throw new Error('no orders');
      expect((await page(`q=${first.orderid}`)).items.map((i) => i.id)).toEqual([first.id]);
      expect((await page(`q=${first.clientOrderId}`)).items.map((i) => i.id)).toEqual([first.id]);
      expect((await page(`q=${first.clientOrderId.slice(0, -1)}`)).total).toBe(0);
      // A client order id whatever its case (as copied from a customer's e-mail).
      const shouted = first.clientOrderId.toUpperCase();
      expect(shouted).not.toBe(first.clientOrderId);
      expect((await page(`q=${encodeURIComponent(shouted)}`)).items.map((i) => i.id)).toEqual([
        first.id,
      ]);
      expect((await page('q=0002')).items.every((i) => i.card?.lastFour === '0002')).toBe(true);
      const from = new Date(Date.parse(first.createdAt) + 1).toISOString();
      expect(
        (await page(`q=${email}&createdFrom=${from}`)).items.every((i) => i.createdAt >= from),
      ).toBe(true);
    });

    it('when a client order id holds a run of digits that passes the card-number check (a timestamp), then q finds the order by it; a whole card number is still refused (QA: about 1 in 10 such orders could not be found)', async () => {
      const id = 'qa2-preauth-1795900891072-1';
      // The run inside is Luhn-valid: the reason it was refused before.
      expect(containsCardNumber(id)).toBe(true);
      const rows = [row(41, { client_orderid: id })];
      await withRows(rows, async () => {
        expect((await page(`q=${encodeURIComponent(id)}`)).items.map((i) => i.id)).toEqual([
          rows[0]?.id,
        ]);
      });
      for (const pan of ['4111111111111111', '4111 1111 1111 1111']) {
        const res = await f.support.get(`/api/transactions?q=${encodeURIComponent(pan)}`);
        expect(res.status).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields?.[0]?.rule).toBe('no_card_number');
      }
    });

    it('when q is Paydesk’s own id (the CSV’s first column, the audit’s target) or a masked card as the list shows it, then it finds those orders', async () => {
      const day = Date.UTC(2003, 0, 1);
      const rows = [
        row(31, { card_bin: '411111', card_last4: '1111', created_at: day + 1 }),
        row(32, { card_bin: '555555', card_last4: '1111', created_at: day + 2 }),
        row(33, { card_bin: null, card_last4: '1111', created_at: day + 3 }),
        row(34, { card_bin: '411111', card_last4: '2222', created_at: day + 4 }),
      ];
      const window = 'createdFrom=2003-01-01T00:00:00.000Z&createdTo=2003-01-02T00:00:00.000Z';
      const found = async (q: string) =>
        (await page(`${window}&sort=created_asc&q=${encodeURIComponent(q)}`)).items.map((i) =>
          Number(i.id.slice(-2)),
        );
      await withRows(rows, async () => {
        const id = rows[1]?.id ?? '';
        expect((await page(`q=${id}`)).items.map((i) => i.id)).toEqual([id]);
        expect((await page(`q=${id.toUpperCase()}`)).items.map((i) => i.id)).toEqual([id]);
        // as the list shows it; a stored BIN must agree, an unknown one does not rule a card out
        expect(await found('411111******1111')).toEqual([31, 33]);
        expect(await found('4111 11** **** 1111')).toEqual([31, 33]);
        expect(await found('41111100…1111')).toEqual([31, 33]);
        expect(await found('**** 1111')).toEqual([31, 32, 33]);
        expect(await found('•••• 2222')).toEqual([34]);
        expect(await found('411111******9999')).toEqual([]);
        expect(await found('1111')).toEqual([31, 32, 33]);
      });
    });

    it('when an order failed at the gateway, then its row says why, as its status reply did; an approved row says nothing', () => {
      const declined = orders.find((o) => o.amount === '5.00');
      expect(declined?.status).toBe('declined');
      expect(declined?.failure).toEqual({
        message: 'Card declined by the issuer (test card)',
        code: 'DECLINED',
      });
      const approved = orders.filter((o) => o.status === 'approved');
      expect(approved).toHaveLength(4);
      expect(approved.every((o) => o.failure === undefined)).toBe(true);
    });

    it('when a preauth was captured in part, then its row says so, also once money went back; a whole capture, a hold or a sale is not partly captured', async () => {
      const day = Date.UTC(2005, 0, 1);
      const preauth = (n: number, captured: number, stage: string, returned = 0) =>
        row(n, {
          type: 'preauth',
          stage,
          amount_minor: 12000,
          authorized_minor: 12000,
          captured_minor: captured,
          returned_minor: returned,
          created_at: day + n,
        });
      const rows = [
        preauth(51, 5000, 'captured'),
        preauth(52, 5000, 'partially_returned', 2000),
        preauth(53, 5000, 'returned', 5000),
        preauth(54, 12000, 'captured'),
        preauth(55, 0, 'authorized'),
        row(56, {
          stage: 'captured',
          authorized_minor: 12000,
          captured_minor: 12000,
          created_at: day + 56,
        }),
      ];
      await withRows(rows, async () => {
        const listed = await page(
          'createdFrom=2005-01-01T00:00:00.000Z&createdTo=2005-01-02T00:00:00.000Z&sort=created_asc',
        );
        expect(listed.items.map((i) => [Number(i.id.slice(-2)), i.partlyCaptured])).toEqual([
          [51, true],
          [52, true],
          [53, true],
          [54, false],
          [55, false],
          [56, false],
        ]);
      });
    });

    it('when a failed order has several status replies, then the latest one’s reason is given, on one line and cut; a callback’s unsigned claim is not', async () => {
      const day = Date.UTC(2004, 0, 1);
      const failed = row(41, { status: 'error', stage: 'error', created_at: day + 1 });
      const silent = row(42, { status: 'declined', stage: 'declined', created_at: day + 2 });
      const exchange = (reply: Record<string, string>) =>
        JSON.stringify({
          operation: 'status',
          request: { orderid: failed.orderid, client_orderid: failed.client_orderid },
          httpStatus: 200,
          reply: { type: 'status-response', status: 'error', ...reply },
          outcome: 'reply',
        });
      const entry = (transactionId: string, kind: string, data: string) => ({
        transaction_id: transactionId,
        at: day,
        kind,
        title: 'status: error',
        actor: null,
        data,
      });
      const k = payDb(f.bff.db);
      await k.insertInto('transactions').values([failed, silent]).execute();
      try {
        await k
          .insertInto('transaction_timeline')
          .values([
            entry(
              failed.id,
              'gateway',
              exchange({ 'error-message': 'Older reason', 'error-code': 'OLD' }),
            ),
            entry(
              failed.id,
              'reconcile',
              exchange({
                'error-message': `<b>Processing error</b>\nat the issuer ${'x'.repeat(300)}`,
                'error-code': 'PROCESSING_ERROR',
              }),
            ),
            entry(
              failed.id,
              'callback',
              JSON.stringify({ status: 'error', error_message: 'a claim', error_code: 'CLAIM' }),
            ),
            entry(
              silent.id,
              'callback',
              JSON.stringify({ status: 'declined', error_message: 'a claim', error_code: 'CLAIM' }),
            ),
          ])
          .execute();
        const items = (
          await page(
            'createdFrom=2004-01-01T00:00:00.000Z&createdTo=2004-01-02T00:00:00.000Z&sort=created_asc',
          )
        ).items;
        expect(items.map((i) => i.id)).toEqual([failed.id, silent.id]);
        const [first, second] = items;
        expect(first?.failure?.code).toBe('PROCESSING_ERROR');
        expect(first?.failure?.message).toMatch(/^<b>Processing error<\/b> at the issuer x+…$/);
        expect(Array.from(first?.failure?.message ?? '')).toHaveLength(200);
        expect(second?.failure).toBeNull();
      } finally {
        await k
          .deleteFrom('transaction_timeline')
          .where('transaction_id', 'in', [failed.id, silent.id])
          .execute();
        await k.deleteFrom('transactions').where('id', 'in', [failed.id, silent.id]).execute();
      }
    });

    it('when a query parameter is bad, then 400 names it', async () => {
      for (const [query, path] of [
        ['amountMin=1.234', 'query.amountMin'],
        ['status=lost', 'query.status'],
        ['limit=0', 'query.limit'],
        ['cursor=not-a-cursor', 'query.cursor'],
        ['createdFrom=yesterday', 'query.createdFrom'],
      ] as const) {
        const res = await f.support.get(`/api/transactions?${query}`);
        expect(res.status).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe(path);
      }
    });

    it('when a query holds a parameter the list, the export or the statistics do not know, then 400 names it instead of ignoring it', async () => {
      for (const [path, field] of [
        ['/api/transactions?status[]=approved', 'query.status[]'],
        ['/api/transactions?statuses=approved', 'query.statuses'],
        ['/api/transactions/export?status[]=approved', 'query.status[]'],
        // the export takes the filters and the sort only: a page's cursor or size is no parameter
        ['/api/transactions/export?limit=10', 'query.limit'],
        ['/api/transactions/export?sort=amount_desc&cursor=abc', 'query.cursor'],
        ['/api/stats?since=2000-01-01T00:00:00Z', 'query.since'],
      ] as const) {
        const res = await f.support.get(path);
        expect(res.status, path).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields, path).toEqual([
          { path: field, rule: 'unrecognized_keys', message: 'is not a parameter of this request' },
        ]);
      }
    });

    it('when a filter range is backwards or empty, then the list and the export both answer 400 naming its upper bound', async () => {
      for (const [query, field, message] of [
        ['amountMin=100&amountMax=1', 'query.amountMax', 'must not be below amountMin'],
        [
          'createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-01T00:00:00Z',
          'query.createdTo',
          'must be after createdFrom',
        ],
        [
          'createdFrom=2026-01-01T00:00:00Z&createdTo=2026-01-01T00:00:00Z',
          'query.createdTo',
          'must be after createdFrom',
        ],
      ] as const) {
        for (const path of ['/api/transactions', '/api/transactions/export']) {
          const res = await f.support.get(`${path}?${query}`);
          expect(res.status, `${path}?${query}`).toBe(400);
          expect((res.json as ErrorEnvelope).error.details?.fields, `${path}?${query}`).toEqual([
            { path: field, rule: 'range', message },
          ]);
        }
      }
      // equal amounts are a range of one amount
      expect((await f.support.get('/api/transactions/export?amountMin=1&amountMax=1')).status).toBe(
        200,
      );
    });

    it('when the filtered set is exported, then a CSV with a header and one line per order streams back and the export is audited', async () => {
      const res = await f.support.get(`/api/transactions/export?q=${email}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/csv');
      expect(res.headers.get('content-disposition')).toMatch(
        /^attachment; filename="paydesk-transactions-/,
      );
      const lines = res.text.trim().split('\r\n');
      expect(lines[0]).toBe(
        'id,createdAt,endpointId,orderid,clientOrderId,type,status,stage,currency,amount,captured,returned,voided,card,customerEmail,drift,authorized,paidOut,failureMessage,failureCode,updatedAt,net',
      );
      expect(lines).toHaveLength(6);
      expect(lines.slice(1).every((l) => l.includes(email) && l.includes(',USD,'))).toBe(true);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.export')
        .execute();
      expect(audit.length).toBeGreaterThanOrEqual(1);
    });

    it('when the export runs in several keyset batches, then every filtered order comes once, in the sort asked for', async () => {
      const exported = async (sort: TransactionSort) => {
        const seen: string[] = [];
        const sizes: number[] = [];
        for await (const batch of f.bff.payments.services.queries.batches(
          { q: email, sort, delimiter: 'comma' },
          2,
        )) {
          sizes.push(batch.length);
          seen.push(...batch.map((r) => r.id));
        }
        expect(sizes).toEqual([2, 2, 1]);
        return seen;
      };
      const oldestFirst = [...orders].sort((a, b) =>
        a.createdAt === b.createdAt
          ? a.id.localeCompare(b.id)
          : a.createdAt.localeCompare(b.createdAt),
      );
      expect(await exported('created_asc')).toEqual(oldestFirst.map((o) => o.id));
      expect(await exported('created_desc')).toEqual(oldestFirst.map((o) => o.id).reverse());
      // `orders` is the list sorted by amount, ascending
      expect(await exported('amount_asc')).toEqual(orders.map((o) => o.id));
      expect(await exported('amount_desc')).toEqual(orders.map((o) => o.id).reverse());
    });

    it('when the list is sorted by amount, then the export with the same sort writes its rows in that order; without a sort, newest first as the list', async () => {
      const column = (text: string, index: number) =>
        text
          .trim()
          .split('\r\n')
          .slice(1)
          .map((line) => line.split(',')[index]);
      const byAmount = await f.support.get(`/api/transactions/export?q=${email}&sort=amount_desc`);
      expect(byAmount.status).toBe(200);
      expect(column(byAmount.text, 9)).toEqual(['5.00', '4.00', '3.00', '2.00', '1.00']);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .select('summary')
        .where('action', '=', 'transaction.export')
        .orderBy('seq', 'desc')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(audit.summary)).toEqual({
        filter: { q: email },
        sort: 'amount_desc',
        delimiter: 'comma',
      });
      const list = await page(`q=${email}`);
      const byDefault = await f.support.get(`/api/transactions/export?q=${email}`);
      expect(column(byDefault.text, 0)).toEqual(list.items.map((i) => i.id));
      const bad = await f.support.get('/api/transactions/export?sort=amount');
      expect(bad.status).toBe(400);
      expect((bad.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('query.sort');
    });

    it('when rows hold separators, formulas, nulls, ties, large amounts and non-ASCII text, then the export writes exactly these bytes (the same on both databases)', async () => {
      const base = EXPORT_DAY;
      const rows = [
        row(3, {
          client_orderid: 'Zoë ☃ @home; Flur 2',
          status: 'error',
          stage: 'error',
          card_bin: '411111',
          customer_email: '+mail@example.com',
          created_at: base + 86_399_999,
        }),
        row(2, {
          endpoint_id: '1002',
          orderid: '-42',
          client_orderid: 'two\r\nlines',
          type: 'preauth',
          status: 'declined',
          stage: 'declined',
          currency: 'USD',
          amount_minor: 900_719_925_474_099,
          customer_email: 'jürgen.müller@exämple.de',
          created_at: base + 7,
        }),
        row(1, {
          client_orderid: '=HYPERLINK("http://x")',
          amount_minor: 123_456_789_012,
          captured_minor: 1,
          card_last4: '1234',
          card_brand: 'VISA',
          customer_email: 'a,b@example.com',
          drift: 1,
          created_at: base + 7,
        }),
        // voided: a sale's captured money given back, a preauth's untouched hold released
        row(4, {
          stage: 'voided',
          amount_minor: 2500,
          authorized_minor: 2500,
          captured_minor: 2500,
          created_at: base + 8,
        }),
        row(5, {
          type: 'preauth',
          stage: 'voided',
          amount_minor: 6500,
          authorized_minor: 6500,
          created_at: base + 9,
        }),
      ];
      const header =
        'id,createdAt,endpointId,orderid,clientOrderId,type,status,stage,currency,amount,captured,returned,voided,card,customerEmail,drift,authorized,paidOut,failureMessage,failureCode,updatedAt,net\r\n';
      const line1 = `e0000000-0000-4000-8000-000000000001,2001-01-01T00:00:00.007Z,1001,900000001,"'=HYPERLINK(""http://x"")",sale,approved,,EUR,1234567890.12,0.01,0.00,0.00,**** 1234,"a,b@example.com",yes,0.00,,,,2001-01-01T00:00:00.000Z,0.01\r\n`;
      const line2 = `e0000000-0000-4000-8000-000000000002,2001-01-01T00:00:00.007Z,1002,'-42,"two\r\nlines",preauth,declined,declined,USD,9007199254740.99,0.00,0.00,0.00,,jürgen.müller@exämple.de,no,0.00,,,,2001-01-01T00:00:00.000Z,0.00\r\n`;
      const line4 = `e0000000-0000-4000-8000-000000000004,2001-01-01T00:00:00.008Z,1001,900000004,csv-4,sale,approved,voided,EUR,25.00,25.00,0.00,25.00,,,no,25.00,,,,2001-01-01T00:00:00.000Z,0.00\r\n`;
      const line5 = `e0000000-0000-4000-8000-000000000005,2001-01-01T00:00:00.009Z,1001,900000005,csv-5,preauth,approved,voided,EUR,65.00,0.00,0.00,65.00,,,no,65.00,,,,2001-01-01T00:00:00.000Z,0.00\r\n`;
      const line3 = `e0000000-0000-4000-8000-000000000003,2001-01-01T23:59:59.999Z,1001,900000003,"Zoë ☃ @home; Flur 2",sale,error,error,EUR,1.00,0.00,0.00,0.00,411111**********,'+mail@example.com,no,0.00,,,,2001-01-01T00:00:00.000Z,0.00\r\n`;
      const window = 'createdFrom=2001-01-01T00:00:00.000Z&createdTo=2001-01-02T00:00:00.000Z';
      await withRows(rows, async () => {
        const { res, body } = await rawGet(
          f.support,
          `/api/transactions/export?${window}&sort=created_asc`,
        );
        expect(res.status).toBe(200);
        // UTF-8 with a byte-order mark, which Excel needs to read it as UTF-8
        expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
        expect(body.toString('utf8')).toBe(
          `\uFEFF${header}${line1}${line2}${line4}${line5}${line3}`,
        );
        const stamp = new Date(f.bff.clock.now()).toISOString();
        expect(res.headers.get('content-disposition')).toBe(
          `attachment; filename="paydesk-transactions-from2001-01-01-before2001-01-02-${stamp.slice(0, 13)}${stamp.slice(14, 16)}Z.csv"`,
        );
        const byAmount = await rawGet(
          f.support,
          `/api/transactions/export?${window}&sort=amount_desc`,
        );
        expect(byAmount.body.toString('utf8')).toBe(
          `\uFEFF${header}${line2}${line1}${line5}${line4}${line3}`,
        );
        // a decimal-comma spreadsheet's convention: `;` between cells, `,` in amounts, quoting kept
        const semicolon = await rawGet(
          f.support,
          `/api/transactions/export?${window}&sort=created_asc&delimiter=semicolon`,
        );
        expect(semicolon.res.status).toBe(200);
        expect(semicolon.body.toString('utf8')).toBe(
          `\uFEFF${header.replaceAll(',', ';')}` +
            `e0000000-0000-4000-8000-000000000001;2001-01-01T00:00:00.007Z;1001;900000001;"'=HYPERLINK(""http://x"")";sale;approved;;EUR;"1234567890,12";"0,01";"0,00";"0,00";**** 1234;"a,b@example.com";yes;"0,00";;;;2001-01-01T00:00:00.000Z;"0,01"\r\n` +
            `e0000000-0000-4000-8000-000000000002;2001-01-01T00:00:00.007Z;1002;'-42;"two\r\nlines";preauth;declined;declined;USD;"9007199254740,99";"0,00";"0,00";"0,00";;jürgen.müller@exämple.de;no;"0,00";;;;2001-01-01T00:00:00.000Z;"0,00"\r\n` +
            `e0000000-0000-4000-8000-000000000004;2001-01-01T00:00:00.008Z;1001;900000004;csv-4;sale;approved;voided;EUR;"25,00";"25,00";"0,00";"25,00";;;no;"25,00";;;;2001-01-01T00:00:00.000Z;"0,00"\r\n` +
            `e0000000-0000-4000-8000-000000000005;2001-01-01T00:00:00.009Z;1001;900000005;csv-5;preauth;approved;voided;EUR;"65,00";"0,00";"0,00";"65,00";;;no;"65,00";;;;2001-01-01T00:00:00.000Z;"0,00"\r\n` +
            `e0000000-0000-4000-8000-000000000003;2001-01-01T23:59:59.999Z;1001;900000003;"Zoë ☃ @home; Flur 2";sale;error;error;EUR;"1,00";"0,00";"0,00";"0,00";411111**********;'+mail@example.com;no;"0,00";;;;2001-01-01T00:00:00.000Z;"0,00"\r\n`,
        );
        const bad = await f.support.get(`/api/transactions/export?${window}&delimiter=tab`);
        expect(bad.status).toBe(400);
        expect(bad.text).toContain('query.delimiter');
      });
    });

    it('when the list is filtered by type Payout, then two-step payouts that were paid are in it (as Payout, in the CSV too) and those never paid stay Payout check', async () => {
      const rows = [
        row(41, { type: 'payout', stage: 'paid', amount_minor: 500, created_at: EXPORT_DAY + 1 }),
        // payout-check, then payout-pay on the same order: the gateway says stage `paid`
        row(42, {
          type: 'payout-check',
          stage: 'paid',
          amount_minor: 1000,
          created_at: EXPORT_DAY + 2,
        }),
        row(43, { type: 'payout-check', stage: 'registered', created_at: EXPORT_DAY + 3 }),
        row(44, { type: 'payout-check', stage: 'expired', created_at: EXPORT_DAY + 4 }),
        row(45, { type: 'payout-check', status: 'processing', created_at: EXPORT_DAY + 5 }),
        row(46, { type: 'sale', stage: 'paid', created_at: EXPORT_DAY + 6 }),
      ];
      const window = 'createdFrom=2001-01-01T00:00:00.000Z&createdTo=2001-01-02T00:00:00.000Z';
      const ids = (p: { items: TransactionSummary[] }) => p.items.map((i) => i.orderid);
      await withRows(rows, async () => {
        const payouts = await page(`${window}&type=payout&sort=created_asc`);
        expect(ids(payouts)).toEqual(['9000000041', '9000000042']);
        expect(payouts.items.map((i) => i.type)).toEqual(['payout', 'payout']);
        expect(payouts.total).toBe(2);
        const checks = await page(`${window}&type=payout-check&sort=created_asc`);
        expect(ids(checks)).toEqual(['9000000043', '9000000044', '9000000045']);
        expect(checks.items.every((i) => i.type === 'payout-check')).toBe(true);
        // a keyset page boundary inside the filter
        const first = await page(`${window}&type=payout&sort=created_desc&limit=1`);
        expect(ids(first)).toEqual(['9000000042']);
        const next = await page(
          `${window}&type=payout&sort=created_desc&limit=1&cursor=${first.nextCursor ?? ''}`,
        );
        expect(ids(next)).toEqual(['9000000041']);
        expect(next.nextCursor).toBeNull();
        // unfiltered, the paid two-step payout is listed as a Payout as well
        const all = await page(`${window}&sort=created_asc`);
        expect(all.items.find((i) => i.orderid === '9000000042')?.type).toBe('payout');

        const { res, body } = await rawGet(
          f.support,
          `/api/transactions/export?${window}&type=payout&sort=created_asc`,
        );
        expect(res.status).toBe(200);
        const lines = body.subarray(3).toString('utf8').trim().split('\r\n');
        expect(lines.slice(1).map((l) => l.split(',').slice(3, 8))).toEqual([
          ['9000000041', 'csv-41', 'payout', 'approved', 'paid'],
          ['9000000042', 'csv-42', 'payout', 'approved', 'paid'],
        ]);
        const checkCsv = await rawGet(
          f.support,
          `/api/transactions/export?${window}&type=payout-check&sort=created_asc`,
        );
        const checkLines = checkCsv.body.subarray(3).toString('utf8').trim().split('\r\n');
        expect(checkLines.slice(1).map((l) => l.split(',')[5])).toEqual([
          'payout-check',
          'payout-check',
          'payout-check',
        ]);
      });
    });

    it('when failed orders and payouts are exported, then each line says why the gateway failed it (as the list row), what was authorized and paid out, and when it last changed; one failure query per batch', async () => {
      const day = Date.UTC(2005, 0, 1);
      const rows = [
        row(51, {
          status: 'declined',
          stage: 'declined',
          created_at: day + 1,
          updated_at: day + 60_000,
        }),
        row(52, { status: 'error', stage: 'error', created_at: day + 2, updated_at: day + 2 }),
        row(53, {
          type: 'payout-check',
          stage: 'paid',
          amount_minor: 15000,
          created_at: day + 3,
          updated_at: day + 3,
        }),
        row(54, {
          type: 'payout',
          status: 'processing',
          amount_minor: 4200,
          created_at: day + 4,
          updated_at: day + 4,
        }),
        row(55, {
          type: 'payout-check',
          stage: 'registered',
          amount_minor: 700,
          created_at: day + 5,
          updated_at: day + 5,
        }),
        row(56, {
          type: 'preauth',
          stage: 'authorized',
          amount_minor: 990,
          authorized_minor: 990,
          created_at: day + 6,
          updated_at: day + 6,
        }),
      ];
      const statusReply = (reply: Record<string, string>) =>
        JSON.stringify({
          operation: 'status',
          httpStatus: 200,
          reply: { type: 'status-response', ...reply },
          outcome: 'reply',
        });
      const k = payDb(f.bff.db);
      await k.insertInto('transactions').values(rows).execute();
      try {
        await k
          .insertInto('transaction_timeline')
          .values([
            {
              transaction_id: rows[0]?.id ?? '',
              at: day,
              kind: 'gateway',
              title: 'status: declined',
              actor: null,
              data: statusReply({
                status: 'declined',
                'error-message': 'Insufficient funds; try later',
                'error-code': 'NSF',
              }),
            },
            {
              transaction_id: rows[1]?.id ?? '',
              at: day,
              kind: 'callback',
              title: 'callback: error',
              actor: null,
              // a callback's unsigned claim is not the reason, as in the list
              data: JSON.stringify({ status: 'error', error_message: 'a claim', error_code: 'X' }),
            },
          ])
          .execute();
        const window = 'createdFrom=2005-01-01T00:00:00.000Z&createdTo=2005-01-02T00:00:00.000Z';
        const { res, body } = await rawGet(
          f.support,
          `/api/transactions/export?${window}&sort=created_asc`,
        );
        expect(res.status).toBe(200);
        const lines = body.subarray(3).toString('utf8').trim().split('\r\n');
        // the columns a consumer read before keep their places; the new ones follow
        expect(lines[0]?.split(',').slice(16)).toEqual([
          'authorized',
          'paidOut',
          'failureMessage',
          'failureCode',
          'updatedAt',
          'net',
        ]);
        const tail = (line: string | undefined) => (line ?? '').split(',').slice(15);
        expect(lines[1]?.split(',')[6]).toBe('declined');
        expect(
          lines[1]?.endsWith(
            ',no,0.00,,"Insufficient funds; try later",NSF,2005-01-01T00:01:00.000Z,0.00',
          ),
        ).toBe(true);
        expect(tail(lines[2])).toEqual([
          'no',
          '0.00',
          '',
          '',
          '',
          '2005-01-01T00:00:00.002Z',
          '0.00',
        ]);
        // a paid two-step payout: its amount paid out; one under way or only checked: none yet
        expect(tail(lines[3])).toEqual([
          'no',
          '0.00',
          '150.00',
          '',
          '',
          '2005-01-01T00:00:00.003Z',
          '',
        ]);
        expect(tail(lines[4])).toEqual([
          'no',
          '0.00',
          '0.00',
          '',
          '',
          '2005-01-01T00:00:00.004Z',
          '',
        ]);
        expect(tail(lines[5])).toEqual([
          'no',
          '0.00',
          '0.00',
          '',
          '',
          '2005-01-01T00:00:00.005Z',
          '',
        ]);
        // a charge: what was authorized, no paid-out cell at all, and what it kept (a hold: none)
        expect(tail(lines[6])).toEqual([
          'no',
          '9.90',
          '',
          '',
          '',
          '2005-01-01T00:00:00.006Z',
          '0.00',
        ]);
        expect(lines).toHaveLength(7);
        const semicolon = await rawGet(
          f.support,
          `/api/transactions/export?${window}&sort=created_asc&delimiter=semicolon`,
        );
        const semi = semicolon.body.subarray(3).toString('utf8').trim().split('\r\n');
        expect(semi[3]?.endsWith(';no;"0,00";"150,00";;;2005-01-01T00:00:00.003Z;')).toBe(true);

        // Batches of 2: the failure reasons are read once per batch holding a failed order (the
        // first), never once per row, and none for a batch without one.
        const queries = f.bff.payments.services.queries as unknown as {
          failures: (rows: readonly { id: string }[]) => Promise<Map<string, unknown>>;
        };
        const spy = vi.spyOn(queries, 'failures');
        try {
          const batches = [];
          for await (const batch of f.bff.payments.services.queries.batches(
            {
              createdFrom: '2005-01-01T00:00:00.000Z',
              createdTo: '2005-01-02T00:00:00.000Z',
              sort: 'created_asc',
              delimiter: 'comma',
            },
            2,
          ))
            batches.push(batch.map((r) => r.failure?.code ?? null));
          expect(batches).toEqual([
            ['NSF', null],
            [null, null],
            [null, null],
          ]);
          expect(spy.mock.calls.map(([failed]) => failed.length)).toEqual([2]);
        } finally {
          spy.mockRestore();
        }
      } finally {
        await k
          .deleteFrom('transaction_timeline')
          .where(
            'transaction_id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
        await k
          .deleteFrom('transactions')
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      }
    });

    it('when sales voided or returned and payouts are exported, then the last column says what each order kept: nothing after a void (its captured amount kept), captured less returned, none for a payout', async () => {
      const day = Date.UTC(2006, 0, 1);
      const sale = { amount_minor: 2500, authorized_minor: 2500, captured_minor: 2500 };
      const rows = [
        row(61, { ...sale, stage: 'voided', created_at: day + 1 }),
        row(62, {
          ...sale,
          stage: 'partially_returned',
          returned_minor: 1000,
          created_at: day + 2,
        }),
        row(63, { ...sale, stage: 'returned', returned_minor: 2500, created_at: day + 3 }),
        // a hold cancelled by a return: nothing captured, never less than nothing
        row(64, {
          type: 'preauth',
          stage: 'hold_cancelled',
          amount_minor: 6500,
          authorized_minor: 6500,
          returned_minor: 6500,
          created_at: day + 4,
        }),
        row(65, { type: 'payout', stage: 'paid', amount_minor: 4200, created_at: day + 5 }),
        row(66, { ...sale, status: 'declined', stage: 'declined', created_at: day + 6 }),
      ];
      const window = 'createdFrom=2006-01-01T00:00:00.000Z&createdTo=2006-01-02T00:00:00.000Z';
      await withRows(rows, async () => {
        const cells = async (delimiter: 'comma' | 'semicolon') => {
          const { res, body } = await rawGet(
            f.support,
            `/api/transactions/export?${window}&sort=created_asc&delimiter=${delimiter}`,
          );
          expect(res.status).toBe(200);
          const [head = '', ...lines] = body.subarray(3).toString('utf8').trim().split('\r\n');
          const separator = delimiter === 'comma' ? ',' : ';';
          const names = head.split(separator);
          // no cell of these rows is quoted but the decimal-comma amounts
          return lines.map((line) => {
            const values = line.split(separator).map((cell) => cell.replaceAll('"', ''));
            return ['type', 'stage', 'captured', 'returned', 'voided', 'paidOut', 'net'].map(
              (name) => values[names.indexOf(name)],
            );
          });
        };
        expect(await cells('comma')).toEqual([
          ['sale', 'voided', '25.00', '0.00', '25.00', '', '0.00'],
          ['sale', 'partially_returned', '25.00', '10.00', '0.00', '', '15.00'],
          ['sale', 'returned', '25.00', '25.00', '0.00', '', '0.00'],
          ['preauth', 'hold_cancelled', '0.00', '65.00', '0.00', '', '0.00'],
          ['payout', 'paid', '0.00', '0.00', '0.00', '42.00', ''],
          ['sale', 'declined', '25.00', '0.00', '0.00', '', '0.00'],
        ]);
        expect((await cells('semicolon')).map((line) => line.at(-1))).toEqual([
          '0,00',
          '15,00',
          '0,00',
          '0,00',
          '',
          '0,00',
        ]);
      });
    });

    it('when more orders match than the list counts, then the total stops at the cap and says so; at the cap it is exact', async () => {
      const day = Date.UTC(2002, 0, 1);
      const rows = Array.from({ length: TOTAL_CAP + 1 }, (_, i) =>
        row(100_000 + i, { created_at: day + i, currency: 'CHF', status: 'declined' }),
      );
      const k = payDb(f.bff.db);
      for (let i = 0; i < rows.length; i += 500) {
        await k
          .insertInto('transactions')
          .values(rows.slice(i, i + 500))
          .execute();
      }
      const window = `createdFrom=2002-01-01T00:00:00.000Z&createdTo=2002-01-02T00:00:00.000Z`;
      try {
        const over = await page(`${window}&status=declined&currency=CHF&limit=10`);
        expect(over).toMatchObject({ total: TOTAL_CAP, totalCapped: true });
        expect(over.items).toHaveLength(10);
        await k
          .deleteFrom('transactions')
          .where('id', '=', rows[0]?.id ?? '')
          .execute();
        const at = await page(`${window}&status=declined&currency=CHF&limit=10`);
        expect(at).toMatchObject({ total: TOTAL_CAP, totalCapped: false });
      } finally {
        await k
          .deleteFrom('transactions')
          .where('created_at', '>=', day)
          .where('created_at', '<', day + 86_400_000)
          .execute();
      }
    });

    it('when an export is written, then other work gets the event loop between its batches', async () => {
      const { PassThrough } = await import('node:stream');
      const out = new PassThrough();
      out.resume();
      let otherWorkRan = false;
      setImmediate(() => {
        otherWorkRan = true;
      });
      // SQLite answers synchronously: without a yield the export would finish first.
      const rows = await f.bff.payments.services.queries.writeCsv(
        { sort: 'created_desc', delimiter: 'comma' },
        out,
      );
      expect(rows).toBeGreaterThan(0);
      expect(otherWorkRan).toBe(true);
    });

    it('when statistics are asked for, then volumes, approval rate and returns per day add up in minor units', async () => {
      const { tx } = await learnedOrder(f, 'sale', '10.10', {
        currency: 'USD',
        endpointId: '1002',
        email,
      });
      expect(
        (
          await post(f.finance, `/api/transactions/${tx.id}/return`, {
            amount: '0.10',
            reasonCode: 'other',
            comment: 'a',
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await post(f.finance, `/api/transactions/${tx.id}/return`, {
            amount: '0.20',
            reasonCode: 'other',
            comment: 'b',
          })
        ).status,
      ).toBe(200);
      const res = await f.support.get(
        '/api/stats?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z',
      );
      expect(res.status).toBe(200);
      const stats = StatsResponseSchema.parse(res.json);
      expect(stats.volumes).toEqual([
        { currency: 'USD', count: 6, approvedCount: 5, capturedAmount: '20.10' },
      ]);
      expect(stats.approvalRate).toBeCloseTo(5 / 6);
      expect(stats.returnsByDay).toHaveLength(1);
      expect(stats.returnsByDay[0]).toMatchObject({ currency: 'USD', count: 2, amount: '0.30' });
      expect(
        (
          await f.support.get(
            '/api/stats?from=2030-01-01T00:00:00.000Z&to=2020-01-01T00:00:00.000Z',
          )
        ).status,
      ).toBe(400);
    });

    /** `GET /api/events` as support's browser opens it. */
    const openEvents = () => openEventStream(f.bff.url, f.support);

    it('when the instance may have missed changes (its event listener was away), then each open stream ends, so the browser reconnects and catches up', async () => {
      const bus = f.bff.payments.bus;
      if (!(bus instanceof InProcessEventBus)) throw new Error('the fixture has an in-process bus');
      const stream = await openEvents();
      expect(stream.statusCode).toBe(200);
      stream.setEncoding('utf8');
      let text = '';
      const ended = new Promise<void>((resolve) => {
        stream.on('end', resolve);
      });
      await new Promise<void>((resolve) => {
        stream.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes(': connected')) resolve();
        });
      });
      const listeners = bus.listenerCount;
      bus.missed();
      await ended;
      // The stream's listener goes with it; the others (the app's own) stay.
      await vi.waitFor(() => {
        expect(bus.listenerCount).toBe(listeners - 1);
      });
    });

    it('when a screen listens to /api/events, then a change to an order arrives as a transaction event', async () => {
      const target = orders[1];
      if (target === undefined) throw new Error('no orders');
      const stream = await openEvents();
      expect(stream.statusCode).toBe(200);
      expect(stream.headers['content-type']).toContain('text/event-stream');
      expect(stream.headers['content-disposition']).toBeUndefined();
      stream.setEncoding('utf8');
      const received = new Promise<string>((resolve) => {
        let text = '';
        stream.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes(target.id)) resolve(text);
        });
      });
      const refreshed = await f.support.post(`/api/transactions/${target.id}/refresh`);
      expect(refreshed.status).toBe(200);
      const text = await received;
      stream.destroy();
      const data = text.split('\n').find((l) => l.startsWith('data: ') && l.includes(target.id));
      const event = TransactionEventSchema.parse(JSON.parse((data ?? '').slice('data: '.length)));
      expect(event).toMatchObject({
        type: 'transaction.updated',
        transactionId: target.id,
        status: 'approved',
        transactionType: target.type,
      });
      const anonymous = await fetch(`${f.bff.url}/api/events`, {
        headers: { Accept: 'text/event-stream' },
      });
      expect(anonymous.status).toBe(401);
      const notAStream = await f.support.get('/api/events');
      expect(notAStream.status).toBe(400);
      expect((notAStream.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe(
        'header.Accept',
      );
    });
  });
}
