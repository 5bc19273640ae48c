// A payout's gateway order in the transactions search (`GET /api/transactions?q=`) and in the
// lookup (`POST /api/transactions/lookup`): a payout awaiting approval (or held, rejected, lapsed)
// is no transaction, so both lead support to the payout; once its money was sent, its order is a
// transaction as before. Against the real sandbox, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  LookupPayoutReplySchema,
  PayoutResultSchema,
  TransactionDetailSchema,
  TransactionPageSchema,
  type Payout,
  type PayoutCreateInput,
} from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { payDb } from '../payments/db.js';
import { PAYMENT_ROUTES } from '../payments/route-rules.js';
import {
  cardPayout,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`a payout's order in search and lookup (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    let support: TestClient & { email: string };
    let finance: TestClient & { email: string };
    let auditor: TestClient & { email: string };
    let admin: TestClient & { email: string };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      support = await bff.userWithRoles(['support']);
      finance = await bff.userWithRoles(['finance']);
      auditor = await bff.userWithRoles(['auditor']);
      admin = await bff.userWithRoles(['admin']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      await sandbox.faults({});
    });

    const prepare = async (body: PayoutCreateInput): Promise<Payout> => {
      const res = await post(opsA, '/api/payouts', body);
      expect(res.status, res.text).toBe(200);
      return PayoutResultSchema.parse(res.json).payout;
    };
    const search = async (client: TestClient, q: string) => {
      const res = await client.get(`/api/transactions?q=${encodeURIComponent(q)}`);
      expect(res.status, res.text).toBe(200);
      return { page: TransactionPageSchema.parse(res.json), text: res.text };
    };
    const lookup = (client: TestClient, body: Record<string, string>) =>
      post(client, '/api/transactions/lookup', body, null);
    const transactionOf = (orderid: string, clientOrderId: string) =>
      payDb(bff.db)
        .selectFrom('transactions')
        .select(['id', 'type', 'status'])
        .where((eb) =>
          eb.or([eb('orderid', '=', orderid), eb('client_orderid', '=', clientOrderId)]),
        )
        .executeTakeFirst();
    /** The hint a search or lookup gives of `payout`, as it stands. */
    const hintOf = (payout: Payout, state: Payout['state'] = payout.state) => ({
      id: payout.id,
      state,
      amount: payout.amount,
      currency: payout.currency,
      endpointId: payout.endpointId,
      orderid: payout.orderid,
      clientOrderId: payout.clientOrderId,
    });
    /** The `status` requests the platform's payments core sends while the test runs. */
    const watchStatus = () => {
      const gateway = bff.platformPayments.gateway;
      const send = gateway.send.bind(gateway);
      const asked: string[] = [];
      vi.spyOn(gateway, 'send').mockImplementation((operation, endpointId, fields) => {
        if (operation === 'status') asked.push(endpointId);
        return send(operation, endpointId, fields);
      });
      return asked;
    };

    it('when a reader searches the transactions for the orderid or client_orderid of a payout awaiting approval, then no transaction matches and the reply names the payout, without its destination', async () => {
      const payout = await prepare(cardPayout('12.00'));
      expect(payout.state).toBe('pending_approval');
      const orderid = payout.orderid ?? '';
      expect(orderid).not.toBe('');
      for (const reader of [support, finance, opsA, auditor]) {
        for (const q of [orderid, payout.clientOrderId]) {
          const { page, text } = await search(reader, q);
          expect(page).toMatchObject({ items: [], total: 0, nextCursor: null });
          expect(page.payouts).toEqual([hintOf(payout)]);
          // Readers of payouts see a masked destination at most; the search names none at all.
          for (const secret of ['******', 'Jane Payee', 'Supplier refund'])
            expect(text).not.toContain(secret);
        }
      }
      // Exact, as every search: a part of an id, another case, or an unknown term names nothing.
      for (const q of [orderid.slice(0, -1), payout.clientOrderId.toUpperCase(), 'pd-payout-none'])
        expect((await search(support, q)).page.payouts).toBeUndefined();
      // Only the transactions' readers may search at all.
      expect((await admin.get(`/api/transactions?q=${orderid}`)).status).toBe(403);
      expect(await transactionOf(orderid, payout.clientOrderId)).toBeUndefined();
    });

    it('when a held payout (no gateway order yet) is searched by its client_orderid, then it is named with no orderid; searching with other filters that match nothing names it too', async () => {
      const held = await prepare(cardPayout('13.00', { mode: 'single' }));
      expect(held).toMatchObject({ state: 'pending_approval', orderid: null });
      expect((await search(support, held.clientOrderId)).page.payouts).toEqual([hintOf(held)]);
      const filtered = await support.get(
        `/api/transactions?q=${held.clientOrderId}&status=approved&currency=EUR`,
      );
      expect(TransactionPageSchema.parse(filtered.json).payouts).toEqual([hintOf(held)]);
    });

    it('when support looks up a payout awaiting approval by its orderid alone, its client_orderid, or both, then the lookup answers with the payout: the gateway is not asked, no transaction is recorded, and the audit row names the payout', async () => {
      const payout = await prepare(cardPayout('14.00'));
      const orderid = payout.orderid ?? '';
      const asked = watchStatus();
      const bodies: Record<string, string>[] = [
        { orderid },
        { client_orderid: payout.clientOrderId },
        { orderid, client_orderid: payout.clientOrderId },
        { orderid, endpointId: payout.endpointId },
      ];
      for (const body of bodies) {
        const res = await lookup(support, body);
        expect(res.status, res.text).toBe(200);
        expect(LookupPayoutReplySchema.parse(res.json)).toEqual({ payout: hintOf(payout) });
        expect(res.text).not.toContain('Jane Payee');
      }
      expect(asked).toEqual([]);
      expect(await transactionOf(orderid, payout.clientOrderId)).toBeUndefined();
      const audit = await bff.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', PAYMENT_ROUTES['POST /api/transactions/lookup'].action)
        .where('target', '=', `payout:${payout.id}`)
        .orderBy('seq')
        .execute();
      expect(audit.map((a) => [a.outcome, a.actor_email])).toEqual(
        Array.from({ length: 4 }, () => ['success', support.email]),
      );
      expect(JSON.parse(audit[0]?.summary ?? '{}')).toEqual({
        orderid,
        payout: payout.id,
        state: 'pending_approval',
        created: false,
      });
      // Another order's client_orderid with the payout's orderid, or another endpoint: not this
      // payout; the lookup goes on as for any order (and the gateway finds none).
      const other = await lookup(support, { orderid, client_orderid: 'shop-other' });
      expect(other.status).toBe(404);
      const elsewhere = await lookup(support, {
        client_orderid: payout.clientOrderId,
        endpointId: '1002',
      });
      expect(elsewhere.status).toBe(404);
      expect(await transactionOf(orderid, payout.clientOrderId)).toBeUndefined();
    });

    it('when a held, a rejected or a lapsed payout is looked up, then the payout is answered too (its money never left); the held one by its client_orderid', async () => {
      const held = await prepare(cardPayout('15.00', { mode: 'single' }));
      const heldReply = await lookup(finance, { client_orderid: held.clientOrderId });
      expect(heldReply.status, heldReply.text).toBe(200);
      expect(LookupPayoutReplySchema.parse(heldReply.json).payout).toEqual(hintOf(held));

      const rejected = await prepare(cardPayout('16.00'));
      const reject = await post(opsB, `/api/payouts/${rejected.id}/reject`, { reason: 'not due' });
      expect(reject.status, reject.text).toBe(200);
      const rejectedReply = await lookup(support, { orderid: rejected.orderid ?? '' });
      expect(LookupPayoutReplySchema.parse(rejectedReply.json).payout).toEqual(
        hintOf(rejected, 'rejected'),
      );

      const lapsing = await prepare(cardPayout('17.00'));
      // Its registration at the gateway lapsed (24 h after its payout-check).
      await bff.k
        .updateTable('payouts')
        .set({ expires_at: bff.clock.now() - 1 })
        .where('id', '=', lapsing.id)
        .execute();
      const lapsedReply = await lookup(support, { client_orderid: lapsing.clientOrderId });
      expect(LookupPayoutReplySchema.parse(lapsedReply.json).payout.state).toBe('expired');
      expect((await search(support, lapsing.orderid ?? '')).page.payouts).toEqual([
        hintOf(lapsing, 'expired'),
      ]);
      expect(await transactionOf(rejected.orderid ?? '', rejected.clientOrderId)).toBeUndefined();
    });

    it('when a payout was paid, then its order is a transaction as before: the search lists it (no payout named) and the lookup opens it', async () => {
      const payout = await prepare(cardPayout('18.00'));
      expect((await post(opsB, `/api/payouts/${payout.id}/approve`, {})).status).toBe(200);
      await sandbox.advance(5);
      const orderid = payout.orderid ?? '';
      await vi.waitFor(async () => {
        expect(await transactionOf(orderid, payout.clientOrderId)).toMatchObject({
          status: 'approved',
        });
      });
      const { page } = await search(support, orderid);
      expect(page.items.map((t) => [t.orderid, t.type])).toEqual([[orderid, 'payout']]);
      expect(page.payouts).toBeUndefined();
      const res = await lookup(support, { orderid });
      expect(res.status, res.text).toBe(200);
      expect(TransactionDetailSchema.parse(res.json)).toMatchObject({ orderid, type: 'payout' });
    });

    it('when a payout’s money was sent but its callback never came, then the search names the payout and the lookup learns its order as a transaction from the gateway, as for any paid order', async () => {
      await sandbox.faults({ callbacks: 'drop' });
      const payout = await prepare(cardPayout('19.00'));
      expect((await post(opsB, `/api/payouts/${payout.id}/approve`, {})).status).toBe(200);
      await vi.waitFor(
        async () => {
          await sandbox.advance(5);
          bff.clock.advance(10_000);
          await bff.payouts.poller.runOnce();
          const { state } = await bff.k
            .selectFrom('payouts')
            .select('state')
            .where('id', '=', payout.id)
            .executeTakeFirstOrThrow();
          expect(state).toBe('approved');
        },
        { timeout: 5_000, interval: 20 },
      );
      const orderid = payout.orderid ?? '';
      expect(await transactionOf(orderid, payout.clientOrderId)).toBeUndefined();
      expect((await search(support, orderid)).page.payouts).toEqual([hintOf(payout, 'approved')]);
      const asked = watchStatus();
      const res = await lookup(support, { orderid, client_orderid: payout.clientOrderId });
      expect(res.status, res.text).toBe(200);
      expect(TransactionDetailSchema.parse(res.json)).toMatchObject({ orderid, type: 'payout' });
      expect(asked).toEqual([payout.endpointId]);
    });

    it('when a payout is looked up by an order Paydesk already learned as a transaction (a lookup before this rule), then that transaction opens, as before', async () => {
      const payout = await prepare(cardPayout('20.00'));
      const orderid = payout.orderid ?? '';
      // As a lookup did before it answered with the payout: the payout-check learned as an order.
      const { detail } = await bff.platformPayments.services.transactions
        .lookup({ client_orderid: payout.clientOrderId }, { id: 'u-0', email: 'earlier@x.test' })
        .then((r) => {
          if (r.kind !== 'transaction') throw new Error('expected the transaction');
          return r;
        });
      expect(detail).toMatchObject({ orderid, type: 'payout-check' });
      const res = await lookup(support, { orderid });
      expect(res.status, res.text).toBe(200);
      expect(TransactionDetailSchema.parse(res.json).id).toBe(detail.id);
      const { page } = await search(support, orderid);
      expect(page.items.map((t) => t.id)).toEqual([detail.id]);
      expect(page.payouts).toBeUndefined();
    });

    it('when the payouts are searched by an order, then one query reads them through indexes (payouts_orderid, 0020, and the client_orderid’s), never every payout', async () => {
      const text = `select id from payouts where (orderid = '1000001' or client_orderid = 'pd-payout-x') order by created_at, id limit 5`;
      const plan =
        variant.name === 'postgres'
          ? await bff.k.transaction().execute(async (trx) => {
              await sql`set local enable_seqscan = off`.execute(trx);
              return sql.raw<Record<string, unknown>>(`explain ${text}`).execute(trx);
            })
          : await sql.raw<Record<string, unknown>>(`explain query plan ${text}`).execute(bff.k);
      const shown = JSON.stringify(plan.rows);
      expect(shown).toContain('payouts_orderid');
      expect(shown).toContain(
        variant.name === 'postgres' ? 'payouts_client_orderid_key' : 'sqlite_autoindex_payouts',
      );
    });
  });
}
