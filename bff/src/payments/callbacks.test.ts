// The callback receiver and support's lookup, against the real sandbox process.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { callbackControl } from '@paydesk/shared/protocol';
import {
  TransactionDetailSchema,
  TransactionPageSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { maskPans } from '../services/redact.js';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { callbackFields, DEFAULT_UNCONFIRMED_WINDOW_MS } from './callbacks.js';
import { payDb } from './db.js';
import { startPaymentsApp } from './test-support/app.js';
import { startFixture, type Fixture } from './test-support/fixture.js';
import { TEST_MERCHANT } from './test-support/sandbox-process.js';
import { CARDS } from './test-support/storefront.js';

interface Delivery {
  orderid: string;
  serial: string;
  url: string;
  state: string;
  params: Record<string, string>;
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments callbacks and lookup (${variant.name})`, () => {
    let f: Fixture;
    const deliveries = async (orderid: string): Promise<Delivery[]> =>
      (
        (await f.sandbox.control(`/sandbox/callbacks?orderid=${orderid}`)).json as {
          callbacks: Delivery[];
        }
      ).callbacks;
    /**
     * A shop's sale whose callback went nowhere: its delivery, and the URL that hands that same
     * callback to the BFF (the test delivers it itself).
     */
    const undelivered = async (
      amount: string,
      to: { callbackUrl(endpointId: string): string } = f.bff,
    ) => {
      const order = await f.shop.place('sale', {
        amount,
        callbackUrl: 'http://127.0.0.1:9/gateway/callback?endpoint=1001',
      });
      await f.sandbox.advance(61);
      const [d] = await deliveries(order.orderid);
      if (d === undefined) throw new Error('no delivery');
      const url = new URL(to.callbackUrl('1001'));
      for (const [name, value] of Object.entries(d.params)) url.searchParams.set(name, value);
      return { order, d, url };
    };
    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });

    it('when a storefront places orders with the BFF as callback URL, then the BFF learns each through its callback with the gateway final status', async () => {
      const placed = await Promise.all([
        f.shop.place('sale', {
          amount: '11.00',
          email: 'shop-a@example.com',
          callbackUrl: f.bff.callbackUrl('1001'),
        }),
        f.shop.place('sale', {
          amount: '12.00',
          email: 'shop-a@example.com',
          card: CARDS.decline,
          callbackUrl: f.bff.callbackUrl('1001'),
        }),
        f.shop.place('preauth', {
          amount: '13.00',
          currency: 'USD',
          endpointId: '1002',
          email: 'shop-a@example.com',
          callbackUrl: f.bff.callbackUrl('1002'),
        }),
      ]);
      await f.sandbox.advance(61);
      const page = TransactionPageSchema.parse(
        (await f.support.get('/api/transactions?q=shop-a@example.com&sort=amount_asc')).json,
      );
      expect(page.items.map((i) => [i.orderid, i.status, i.type, i.endpointId])).toEqual([
        [placed[0].orderid, 'approved', 'sale', '1001'],
        [placed[1].orderid, 'declined', 'sale', '1001'],
        [placed[2].orderid, 'approved', 'preauth', '1002'],
      ]);
      for (const p of placed) {
        const [d] = await deliveries(p.orderid);
        expect(d?.state).toBe('delivered');
      }
      const id = page.items[0]?.id ?? '';
      const detail = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${id}`)).json,
      );
      const callback = detail.timeline.find((e) => e.kind === 'callback');
      expect(callback?.data).toMatchObject({ status: 'approved', control: '[redacted]' });
      expect(detail.card).toMatchObject({
        bin: '411111',
        lastFour: '1111',
        masked: '411111******1111',
      });
      expect(detail.customer.email).toBe('shop-a@example.com');
    });

    it('when a callback is delivered twice, then the second is answered 200 and changes nothing', async () => {
      const order = await f.shop.place('sale', {
        amount: '9.00',
        callbackUrl: f.bff.callbackUrl('1001'),
      });
      await f.sandbox.advance(61);
      const [d] = await deliveries(order.orderid);
      if (d === undefined) throw new Error('no delivery');
      const k = payDb(f.bff.db);
      const tx = await k
        .selectFrom('transactions')
        .selectAll()
        .where('orderid', '=', order.orderid)
        .executeTakeFirstOrThrow();
      const entries = async () =>
        (
          await k
            .selectFrom('transaction_timeline')
            .select('id')
            .where('transaction_id', '=', tx.id)
            .execute()
        ).length;
      const before = await entries();
      const res = await fetch(d.url);
      expect(res.status).toBe(200);
      expect(await entries()).toBe(before);
      expect(
        await k
          .selectFrom('gateway_callbacks')
          .selectAll()
          .where('serial_number', '=', d.serial)
          .execute(),
      ).toHaveLength(1);
    });

    it('when an instance stopped between storing a callback and applying it, then a repeat is refused (to be delivered again) while that receiver may still be at work, and is processed afresh once it has certainly given up', async () => {
      const { order, d, url } = await undelivered('7.00');
      const k = payDb(f.bff.db);
      const learned = () =>
        k
          .selectFrom('transactions')
          .select(['id', 'status'])
          .where('orderid', '=', order.orderid)
          .executeTakeFirst();
      // What a receiver that stopped midway leaves: the callback stored, no transaction.
      await k
        .insertInto('gateway_callbacks')
        .values({
          serial_number: d.serial,
          endpoint_id: '1001',
          orderid: order.orderid,
          client_orderid: d.params.client_orderid ?? '',
          status: d.params.status ?? '',
          type: d.params.type ?? null,
          transaction_id: null,
          raw: '{}',
          received_at: f.bff.clock.now() - 1_000,
        })
        .execute();
      // Not a 2xx, so that the gateway delivers it again.
      expect((await fetch(url)).status).toBe(409);
      expect(await learned()).toBeUndefined();

      await k
        .updateTable('gateway_callbacks')
        .set({ received_at: f.bff.clock.now() - 60 * 60_000 })
        .where('serial_number', '=', d.serial)
        .execute();
      expect((await fetch(url)).status).toBe(200);
      const tx = await learned();
      expect(tx?.status).toBe('approved');
      const stored = await k
        .selectFrom('gateway_callbacks')
        .select(['transaction_id', 'received_at'])
        .where('serial_number', '=', d.serial)
        .execute();
      expect(stored).toEqual([{ transaction_id: tx?.id, received_at: f.bff.clock.now() }]);
      expect(f.bff.logs.some((l) => l.includes('taken over'))).toBe(true);
    });

    it('when status cannot confirm a callback for an order Paydesk does not know, then 503 and nothing kept, so the next delivery is processed afresh', async () => {
      const { order, d, url } = await undelivered('6.00');
      const k = payDb(f.bff.db);
      const kept = () =>
        k
          .selectFrom('gateway_callbacks')
          .select('transaction_id')
          .where('serial_number', '=', d.serial)
          .execute();
      await f.sandbox.faults({ errorRate: 1, operations: ['status'] });
      try {
        const refused = await fetch(url);
        expect(refused.status).toBe(503);
        expect(await kept()).toEqual([]);
      } finally {
        await f.sandbox.faults({});
      }
      expect((await fetch(url)).status).toBe(200);
      const tx = await k
        .selectFrom('transactions')
        .select(['id', 'status'])
        .where('orderid', '=', order.orderid)
        .executeTakeFirstOrThrow();
      expect(tx.status).toBe('approved');
      expect(await kept()).toEqual([{ transaction_id: tx.id }]);
    });

    it('when a well-signed callback names an order the gateway does not know (its status answers 404), then 404 NOT_FOUND saying so (not a 503 inviting redelivery), logged, and nothing kept (QA)', async () => {
      const orderid = '99999001';
      const clientOrderId = `no-such-order-${randomUUID()}`;
      const serial = randomUUID();
      const url = new URL(f.bff.callbackUrl('1001'));
      for (const [name, value] of Object.entries({
        status: 'approved',
        orderid,
        client_orderid: clientOrderId,
        'serial-number': serial,
        type: 'sale',
        control: callbackControl('approved', orderid, clientOrderId, TEST_MERCHANT.controlKey),
      }))
        url.searchParams.set(name, value);
      const res = await fetch(url);
      const body = (await res.json()) as ErrorEnvelope;
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(body.error).toMatchObject({
        code: 'NOT_FOUND',
        message: `the gateway does not know order ${orderid} on endpoint 1001 (its status answered 404): this callback cannot be confirmed, and delivering it again will not change that`,
      });
      expect(
        f.bff.logs.some(
          (l) =>
            l.includes('callback for an order the gateway does not know refused') &&
            l.includes(serial),
        ),
      ).toBe(true);
      const k = payDb(f.bff.db);
      expect(
        await k
          .selectFrom('gateway_callbacks')
          .select('serial_number')
          .where('serial_number', '=', serial)
          .execute(),
      ).toEqual([]);
      expect(
        await k.selectFrom('transactions').select('id').where('orderid', '=', orderid).execute(),
      ).toEqual([]);
    });

    it('when callbacks come faster than the database takes them, then their database steps run one at a time (CALLBACK_CONCURRENCY 1), one more waits (CALLBACK_QUEUE_LIMIT 1), and the next gets 503 with Retry-After, is not stored, and is applied when delivered again', async () => {
      const busy = await startPaymentsApp(variant, {
        gatewayBaseUrl: f.sandbox.baseUrl,
        payments: { callbacks: { concurrency: 1, queueLimit: 1 } },
      });
      try {
        const orders = [
          await undelivered('5.01', busy),
          await undelivered('5.02', busy),
          await undelivered('5.03', busy),
        ];
        const k = payDb(busy.db);
        const stored = async () =>
          (
            await k
              .selectFrom('gateway_callbacks')
              .select(['orderid', 'transaction_id'])
              .orderBy('orderid')
              .execute()
          ).map((r) => [r.orderid, r.transaction_id === null ? 'claimed' : 'applied']);
        // A transaction holds what storing a callback needs (PostgreSQL: the table's lock; SQLite:
        // the one connection) while all three arrive: the first's step waits inside the limit,
        // the second waits its turn, the third is shed at once.
        const replies = orders.map((o) => fetch(o.url).then((res) => ({ o, res })));
        const shed = await k.transaction().execute(async (trx) => {
          if (busy.db.kind === 'postgres')
            await sql`lock table gateway_callbacks in exclusive mode`.execute(trx);
          return Promise.race([
            ...replies,
            new Promise<never>((_resolve, reject) =>
              setTimeout(() => {
                reject(new Error('no callback was shed'));
              }, 5_000),
            ),
          ]);
        });
        expect(shed.res.status).toBe(503);
        expect(shed.res.headers.get('retry-after')).toBe('5');
        const envelope = (await shed.res.json()) as ErrorEnvelope;
        expect(envelope.error.code).toBe('SERVICE_UNAVAILABLE');
        const statuses = (await Promise.all(replies)).map((r) => r.res.status);
        expect(statuses.sort()).toEqual([200, 200, 503]);
        const applied = orders.filter((o) => o !== shed.o);
        expect(await stored()).toEqual(applied.map((o) => [o.order.orderid, 'applied']));
        // what the request logger's one line for it says (app.ts; not mounted in this test app)
        expect(envelope.error.message).toContain('callbacks are waiting for the database');
        // The gateway's next delivery of the shed one.
        expect((await fetch(shed.o.url)).status).toBe(200);
        expect(await stored()).toEqual(orders.map((o) => [o.order.orderid, 'applied']));
      } finally {
        await busy.close();
      }
    });

    /** A storefront sale the BFF learned by its callback: the delivery and the order's id. */
    const delivered = async (amount: string) => {
      const order = await f.shop.place('sale', { amount, callbackUrl: f.bff.callbackUrl('1001') });
      await f.sandbox.advance(61);
      const [d] = await deliveries(order.orderid);
      if (d === undefined) throw new Error('no delivery');
      const tx = await payDb(f.bff.db)
        .selectFrom('transactions')
        .select('id')
        .where('orderid', '=', order.orderid)
        .executeTakeFirstOrThrow();
      return { order, d, id: tx.id };
    };
    const timelineOf = (id: string) =>
      payDb(f.bff.db)
        .selectFrom('transaction_timeline')
        .select(['kind', 'title'])
        .where('transaction_id', '=', id)
        .orderBy('id')
        .execute();
    /** The delivered callback's URL, sent again with another serial-number and invented fields. */
    const replayed = (d: Delivery, serial: string) => {
      const url = new URL(d.url);
      url.searchParams.set('serial-number', serial);
      url.searchParams.set('type', 'refund');
      url.searchParams.set('amount', '999999.99');
      url.searchParams.set('currency', 'EUR');
      url.searchParams.set('error_message', 'Call +1-555-0100 to verify your account');
      url.searchParams.set('extra_param', '=HYPERLINK("http://evil.example","x")');
      return url;
    };

    it('when a callback is confirmed by status, then its timeline title is what the gateway lists for its serial-number', async () => {
      const { id } = await delivered('4.25');
      const titles = (await timelineOf(id)).filter((e) => e.kind === 'callback');
      expect(titles.map((e) => e.title)).toEqual([
        'callback: sale approved 4.25 EUR (confirmed by status)',
      ]);
    });

    it('when a delivered callback URL is replayed with new serial-numbers and invented fields, then the invented fields are neither kept nor shown as fact, and the replays within the window ask status once', async () => {
      const { order, d, id } = await delivered('4.00');
      const k = payDb(f.bff.db);
      const before = (await timelineOf(id)).length;
      const ask = vi.spyOn(f.bff.payments.services.transactions, 'askStatus');
      try {
        for (let i = 1; i <= 6; i++) {
          const res = await fetch(replayed(d, `replay-${order.orderid}-${String(i)}`));
          expect(res.status).toBe(200);
        }
        // the first replay was checked (and found wanting); the five after it were not
        expect(ask).toHaveBeenCalledTimes(1);
      } finally {
        ask.mockRestore();
      }
      const added = (await timelineOf(id)).slice(before);
      expect(added).toHaveLength(2);
      expect(added.map((e) => e.title)).toContainEqual(
        `callback not confirmed: status lists no operation replay-${order.orderid}-1 for this order; the callback (approved) is ignored`,
      );
      for (const e of await timelineOf(id)) {
        expect(e.title).not.toContain('999999.99');
        expect(e.title).not.toContain('refund');
      }
      const stored = await k
        .selectFrom('gateway_callbacks')
        .select(['serial_number', 'transaction_id', 'raw'])
        .where('orderid', '=', order.orderid)
        .where('serial_number', 'like', 'replay-%')
        .execute();
      expect(stored).toHaveLength(6);
      for (const row of stored) {
        expect(row.transaction_id).toBe(id);
        const raw = JSON.parse(row.raw) as Record<string, string>;
        expect(raw).not.toHaveProperty('extra_param');
        expect(raw).not.toHaveProperty('endpoint');
        expect(raw.control).toBe('[redacted]');
      }
      // One check at the end of the window confirms whatever the held-back ones announced.
      const job = await k
        .selectFrom('reconcile_jobs')
        .select('next_attempt_at')
        .where('transaction_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(job.next_attempt_at).toBe(f.bff.clock.now() + DEFAULT_UNCONFIRMED_WINDOW_MS);
      await k.deleteFrom('reconcile_jobs').where('transaction_id', '=', id).execute();
      // The gateway's own delivery is still a duplicate, answered 200.
      expect((await fetch(d.url)).status).toBe(200);
    });

    it('when the window is over, then a replay is asked about again', async () => {
      const { order, d } = await delivered('4.50');
      const ask = vi.spyOn(f.bff.payments.services.transactions, 'askStatus');
      try {
        expect((await fetch(replayed(d, `late-${order.orderid}-1`))).status).toBe(200);
        f.bff.clock.advance(DEFAULT_UNCONFIRMED_WINDOW_MS);
        expect((await fetch(replayed(d, `late-${order.orderid}-2`))).status).toBe(200);
        expect(ask).toHaveBeenCalledTimes(2);
      } finally {
        ask.mockRestore();
      }
    });

    it('when status cannot confirm a callback for a known order, then its title gives its unsigned fields as the callback claims them', async () => {
      const { order, d, id } = await delivered('4.75');
      await f.sandbox.faults({ errorRate: 1, operations: ['status'] });
      try {
        expect((await fetch(replayed(d, `down-${order.orderid}`))).status).toBe(200);
      } finally {
        await f.sandbox.faults({});
      }
      const titles = (await timelineOf(id)).map((e) => e.title);
      expect(titles).toContain(
        'callback: approved, not confirmed by status (the callback claims refund 999999.99 EUR)',
      );
      await payDb(f.bff.db).deleteFrom('reconcile_jobs').where('transaction_id', '=', id).execute();
    });

    it('when the status of a callback’s order shows an amount above 2^53 minor units, then the callback is answered 200 and kept, a known order is flagged and audited with its amounts unchanged, an unknown one is not created, and a repeat is a duplicate', async () => {
      const k = payDb(f.bff.db);
      const audited = async (orderid: string) =>
        (
          await k
            .selectFrom('audit_log')
            .select(['target', 'summary', 'error_code'])
            .where('action', '=', 'transaction.drift')
            .execute()
        ).filter((r) => (JSON.parse(r.summary) as { orderid?: string }).orderid === orderid);

      // An order Paydesk never saw: not created; the callback kept, audited and logged.
      const unknown = await undelivered('99999999999999999.99');
      expect((await fetch(unknown.url)).status).toBe(200);
      expect(
        await k
          .selectFrom('transactions')
          .select('id')
          .where('orderid', '=', unknown.order.orderid)
          .execute(),
      ).toEqual([]);
      const kept = await k
        .selectFrom('gateway_callbacks')
        .select(['raw', 'transaction_id'])
        .where('serial_number', '=', unknown.d.serial)
        .executeTakeFirstOrThrow();
      expect(kept.transaction_id).toBeNull();
      expect(JSON.parse(kept.raw)).toMatchObject({ orderid: unknown.order.orderid });
      const [unknownRow] = await audited(unknown.order.orderid);
      expect(unknownRow?.error_code).toBe('DRIFT');
      // (the audit log masks the amount's long run of digits as it would a card number)
      expect(JSON.stringify(unknownRow?.summary)).toContain('more than Paydesk can hold');
      const logged = f.bff.logs
        .map((l) => JSON.parse(l) as { level: number; msg: string; orderid?: string })
        .filter((l) => l.orderid === unknown.order.orderid && l.msg.includes('cannot hold'));
      expect(logged.map((l) => l.level)).toEqual([50]);

      // An order Paydesk knows (its row as a smaller amount was learned): flagged, not changed.
      const huge = await undelivered('99999999999999998.00');
      const { id: modelId } = await delivered('3.10');
      const model = await k
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', modelId)
        .executeTakeFirstOrThrow();
      const id = randomUUID();
      await k
        .insertInto('transactions')
        .values({
          ...model,
          id,
          orderid: huge.order.orderid,
          client_orderid: huge.d.params.client_orderid ?? '',
        })
        .execute();
      expect((await fetch(huge.url)).status).toBe(200);
      const detail = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${id}`)).json,
      );
      expect(detail.drift).toBe(true);
      expect(detail.amount).toBe('3.10');
      expect(JSON.stringify(detail.driftDetails)).toContain('more than Paydesk can hold');
      expect(detail.timeline.map((e) => e.kind)).toEqual(
        expect.arrayContaining(['callback', 'drift']),
      );
      expect((await audited(huge.order.orderid)).map((r) => r.target)).toEqual([
        `transaction:${id}`,
      ]);
      const stored = await k
        .selectFrom('gateway_callbacks')
        .select('transaction_id')
        .where('serial_number', '=', huge.d.serial)
        .executeTakeFirstOrThrow();
      expect(stored.transaction_id).toBe(id);
      const entries = detail.timeline.length;
      expect((await fetch(huge.url)).status).toBe(200);
      expect(
        TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json)
          .timeline,
      ).toHaveLength(entries);
    });

    it('when a callback carries a parameter named like a card number or a security code, then neither is kept', async () => {
      const { order, d } = await delivered('4.90');
      const url = new URL(d.url);
      const serial = `names-${order.orderid}`;
      url.searchParams.set('serial-number', serial);
      url.searchParams.set('5555555555554444', '123');
      url.searchParams.set('cvv', '737');
      url.searchParams.set('error_message', 'card 4111 1111 1111 1111');
      expect((await fetch(url)).status).toBe(200);
      const row = await payDb(f.bff.db)
        .selectFrom('gateway_callbacks')
        .select('raw')
        .where('serial_number', '=', serial)
        .executeTakeFirstOrThrow();
      // Field by field: the random ids, serial and control around them may hold any short run.
      const kept = JSON.parse(row.raw) as Record<string, string>;
      expect(Object.keys(kept)).not.toContain('5555555555554444');
      expect(Object.keys(kept).filter((k) => k.includes('555555') || k.includes('cvv'))).toEqual(
        [],
      );
      expect(Object.values(kept)).not.toContain('737');
      expect(Object.values(kept).filter((v) => v.includes('4111'))).toEqual([]);
      expect(row.raw).not.toContain('5555555555554444');
      const timeline = await payDb(f.bff.db)
        .selectFrom('transaction_timeline')
        .select('data')
        .where('data', 'like', `%${serial}%`)
        .execute();
      expect(timeline.length).toBeGreaterThan(0);
      for (const e of timeline) {
        expect(e.data).not.toContain('5555555555554444');
        expect(e.data).not.toContain('737');
      }
    });

    it('when a callback control is wrong or missing, then 403, it is logged, and nothing is stored', async () => {
      const order = await f.shop.place('sale', {
        amount: '8.00',
        callbackUrl: f.bff.callbackUrl('1001'),
      });
      await f.sandbox.advance(61);
      const [d] = await deliveries(order.orderid);
      if (d === undefined) throw new Error('no delivery');
      const forged = new URL(d.url);
      forged.searchParams.set('serial-number', 'forged-serial');
      forged.searchParams.set('status', 'declined');
      const res = await fetch(forged);
      expect(res.status).toBe(403);
      forged.searchParams.delete('control');
      expect((await fetch(forged)).status).toBe(403);
      expect(f.bff.logs.some((l) => l.includes('bad control'))).toBe(true);
      expect(
        await payDb(f.bff.db)
          .selectFrom('gateway_callbacks')
          .selectAll()
          .where('serial_number', '=', 'forged-serial')
          .execute(),
      ).toHaveLength(0);
      const unknownEndpoint = new URL(d.url);
      unknownEndpoint.searchParams.set('endpoint', '9999');
      expect((await fetch(unknownEndpoint)).status).toBe(400);
    });

    it('when callbacks are refused for a wrong or missing control, then the refusal is audited without the control or a card number, at most one row per client a window, the next carrying how many were left out (QA)', async () => {
      const order = await f.shop.place('sale', {
        amount: '8.50',
        callbackUrl: f.bff.callbackUrl('1001'),
      });
      await f.sandbox.advance(61);
      const [d] = await deliveries(order.orderid);
      if (d === undefined) throw new Error('no delivery');
      const control = new URL(d.url).searchParams.get('control') ?? '';
      expect(control).not.toBe('');
      // Past any window an earlier test's refusal opened.
      f.bff.clock.advance(61_000);
      /** The refusal's audit rows, by the serial-number it was sent with. */
      const rowsOf = (serial: string) =>
        f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'gateway.callback')
          .where('summary', 'like', `%"${serial}"%`)
          .execute();
      const forged = new URL(d.url);
      forged.searchParams.set('serial-number', 'forged-serial-2');
      forged.searchParams.set('status', 'declined');
      forged.searchParams.set('client_orderid', '4111 1111 1111 1111');
      forged.searchParams.set('card_number', '4111111111111111');
      expect((await fetch(forged)).status).toBe(403);
      const rows = await rowsOf('forged-serial-2');
      expect(rows).toHaveLength(1);
      const [row] = rows;
      expect(row).toMatchObject({
        actor_id: null,
        outcome: 'refused',
        error_code: 'FORBIDDEN',
        target: null,
      });
      // (An earlier test's refusals in this suite may be counted as left out before it.)
      const { suppressedSinceLast: _earlier, ...summary } = JSON.parse(
        row?.summary ?? '{}',
      ) as Record<string, unknown>;
      expect(summary).toEqual({
        endpointId: '1001',
        status: 'declined',
        orderid: order.orderid,
        clientOrderId: maskPans('4111 1111 1111 1111'),
        serial: 'forged-serial-2',
        reason: 'callback control does not verify',
      });
      expect(JSON.stringify(row)).not.toContain(control);
      expect(JSON.stringify(row)).not.toMatch(/4111 ?1111 ?1111 ?1111/);

      // Within the window: to the application log only.
      forged.searchParams.delete('control');
      forged.searchParams.set('serial-number', 'forged-serial-3');
      expect((await fetch(forged)).status).toBe(403);
      expect(await rowsOf('forged-serial-3')).toEqual([]);
      expect(
        f.bff.logs.some(
          (l) =>
            l.includes('refusal of an unidentified client not audited') &&
            l.includes('gateway.callback'),
        ),
      ).toBe(true);

      // The next window's first refusal is audited, saying how many were left out.
      f.bff.clock.advance(61_000);
      forged.searchParams.set('serial-number', 'forged-serial-4');
      expect((await fetch(forged)).status).toBe(403);
      const next = await rowsOf('forged-serial-4');
      expect(next.map((r) => JSON.parse(r.summary) as unknown)).toEqual([
        expect.objectContaining({ reason: 'callback control missing', suppressedSinceLast: 1 }),
      ]);
    });

    it('when a callback gives a parameter twice, then 400 says it must be given once, naming it, and nothing is stored (QA: it said "query.status: required")', async () => {
      const { d, url } = await undelivered('5.50');
      url.searchParams.append('status', 'declined');
      const res = await fetch(url);
      const body = (await res.json()) as ErrorEnvelope;
      expect(res.status).toBe(400);
      expect(body.error.message).toBe('query.status: must be given once');
      expect(body.error.details?.fields).toEqual([
        { path: 'query.status', rule: 'repeated', message: 'must be given once' },
      ]);
      expect(
        await payDb(f.bff.db)
          .selectFrom('gateway_callbacks')
          .select('serial_number')
          .where('serial_number', '=', d.serial)
          .execute(),
      ).toEqual([]);
    });

    it('when support looks up an order Paydesk never saw, then each configured endpoint is asked in turn and the record is created and audited', async () => {
      const order = await f.shop.place('sale', {
        amount: '21.00',
        currency: 'USD',
        endpointId: '1002',
      });
      const res = await f.support.post('/api/transactions/lookup', {
        client_orderid: order.clientOrderId,
      });
      expect(res.status).toBe(200);
      const tx = TransactionDetailSchema.parse(res.json);
      expect(tx).toMatchObject({
        orderid: order.orderid,
        endpointId: '1002',
        status: 'processing',
        currency: 'USD',
        amount: '21.00',
      });
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.lookup')
        .where('target', '=', `transaction:${tx.id}`)
        .executeTakeFirstOrThrow();
      expect(audit.outcome).toBe('success');
      await f.sandbox.advance(61);
      const refreshed = await f.support.post(`/api/transactions/${tx.id}/refresh`);
      expect(TransactionDetailSchema.parse(refreshed.json).status).toBe('approved');
      const again = await f.support.post('/api/transactions/lookup', { orderid: order.orderid });
      expect(TransactionDetailSchema.parse(again.json).id).toBe(tx.id);
    });

    it('when a lookup is incomplete or finds nothing, then 400 naming the field or 404', async () => {
      const empty = await f.support.post('/api/transactions/lookup', {});
      expect(empty.status).toBe(400);
      expect((empty.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('orderid');
      const orderOnly = await f.support.post('/api/transactions/lookup', { orderid: '99999999' });
      expect(orderOnly.status).toBe(400);
      expect((orderOnly.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe(
        'client_orderid',
      );
      const foreign = await f.support.post('/api/transactions/lookup', {
        client_orderid: 'x-1',
        endpointId: '9999',
      });
      expect(foreign.status).toBe(400);
      expect((foreign.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('endpointId');
      const none = await f.support.post('/api/transactions/lookup', {
        client_orderid: 'never-placed-0001',
      });
      expect(none.status).toBe(404);
      expect(errorCode(none)).toBe('NOT_FOUND');
    });

    it('when the BFF holds a wrong control key, then the gateway 401 becomes GATEWAY_ERROR with the gateway code', async () => {
      const wrong = await startPaymentsApp(variant, {
        gatewayBaseUrl: f.sandbox.baseUrl,
        config: {
          merchant: { ...f.bff.config.merchant, controlKey: 'NOT-THE-KEY-0000000000' },
        },
      });
      try {
        const support = await wrong.userWithRoles(['support']);
        const res = await support.post('/api/transactions/lookup', {
          client_orderid: 'whatever-1',
        });
        expect(res.status).toBe(502);
        const env = res.json as ErrorEnvelope;
        expect(env.error.code).toBe('GATEWAY_ERROR');
        expect(env.error.details).toMatchObject({
          gatewayHttpStatus: 401,
          gatewayErrorCode: 'AUTHENTICATION_FAILED',
        });
        expect(env.error.message).not.toContain('NOT-THE-KEY');
      } finally {
        await wrong.close();
      }
    });
  });
}

describe('callbackFields', () => {
  it('when a callback carries fields the spec does not define, then only the spec fields are kept, redacted', () => {
    expect(
      callbackFields({
        endpoint: '1001',
        status: 'approved',
        orderid: '1000001',
        client_orderid: 'co-1',
        'serial-number': 's-1',
        control: 'abc',
        type: 'sale',
        amount: '10.00',
        currency: 'EUR',
        'last-four-digits': '1111',
        'card-type': 'VISA',
        extra_param: '=HYPERLINK("x")',
        cvv: '737',
        '4111111111111111': '123',
      }),
    ).toEqual({
      status: 'approved',
      orderid: '1000001',
      client_orderid: 'co-1',
      'serial-number': 's-1',
      control: '[redacted]',
      type: 'sale',
      amount: '10.00',
      currency: 'EUR',
      'last-four-digits': '1111',
      'card-type': 'VISA',
    });
  });

  it('when an unsigned field holds a card number or is out of shape, then it is dropped; a long one is cut', () => {
    const kept = callbackFields({
      status: 'approved',
      error_message: 'card 4111 1111 1111 1111 declined',
      'last-four-digits': '4111111111111111',
      'card-type': 'x'.repeat(500),
    });
    expect(kept).toEqual({ status: 'approved', 'card-type': 'x'.repeat(200) });
  });
});
