// A payout's order as a transaction (`GET /api/transactions/:id`): what was paid out (never an
// authorized, captured or returnable zero), the payout Paydesk prepared for it, and its payout-check
// and payout-pay credited to the ops users who prepared and approved it rather than to the gateway.
// Against the real sandbox, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  LookupReplySchema,
  PayoutResultSchema,
  TransactionDetailSchema,
  type Payout,
  type PayoutCreateInput,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { payDb } from './db.js';
import {
  cardPayout,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from '../payouts/test-support/app.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`a payout's order as a transaction (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    let support: TestClient & { email: string };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      support = await bff.userWithRoles(['support']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    const prepare = async (body: PayoutCreateInput): Promise<Payout> => {
      const res = await post(opsA, '/api/payouts', body);
      expect(res.status, res.text).toBe(200);
      return PayoutResultSchema.parse(res.json).payout;
    };
    /** Approves `payout` as the second ops user and waits until its order is learned, final. */
    const paid = async (payout: Payout): Promise<TransactionDetail> => {
      const approve = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(approve.status, approve.text).toBe(200);
      await sandbox.advance(5);
      const orderid = PayoutResultSchema.parse(approve.json).payout.orderid ?? '';
      let id = '';
      await vi.waitFor(async () => {
        const row = await payDb(bff.db)
          .selectFrom('transactions')
          .select(['id', 'status'])
          .where('orderid', '=', orderid)
          .executeTakeFirst();
        expect(row?.status).toBe('approved');
        id = row?.id ?? '';
      });
      const res = await support.get(`/api/transactions/${id}`);
      expect(res.status, res.text).toBe(200);
      return TransactionDetailSchema.parse(res.json);
    };

    it('when a two-step payout prepared by one ops user and approved by another was paid, then its order says what was paid out and to where, and credits its payout-check and payout-pay to them', async () => {
      const payout = await prepare(cardPayout('150.00'));
      const detail = await paid(payout);
      expect(detail).toMatchObject({ type: 'payout', status: 'approved', stage: 'paid' });
      expect(detail.amounts.paidOut).toBe('150.00');
      // a payout's money is what was paid out: no charge's net
      expect(detail.amounts.net).toBeNull();
      expect(detail.paydeskPayout).toEqual({
        id: payout.id,
        // the payouts' poller learns the outcome in its own time: sent, whatever it shows yet
        state: expect.stringMatching(/^(processing|approved)$/) as unknown,
        preparedBy: opsA.email,
        approvedBy: opsB.email,
        destination: { kind: 'card', masked: payout.destination.masked },
      });
      // masked, as the payout list shows it: never the holder, the expiry or the whole number,
      // nor in the timeline, whose status replies echo the holder and the expiry (withheld)
      const text = JSON.stringify(detail);
      for (const secret of ['Jane Payee', '4111111111111111', '2035'])
        expect(text).not.toContain(secret);
      expect(JSON.stringify(detail.timeline)).toContain('"cardholder-name":"[withheld]"');
      const staff = { preparedBy: opsA.email, approvedBy: opsB.email };
      expect(
        detail.operations.map((o) => [o.kind, o.origin, o.requestedBy, o.payoutStaff]),
      ).toEqual([
        ['payout-check', 'gateway', null, staff],
        ['payout-pay', 'gateway', null, staff],
      ]);
      // the payout's page still leads back: the order's client_orderid names it
      expect(detail.clientOrderId).toBe(payout.clientOrderId);
      // A lookup of the order answers the order, with its payout, never a key `payout` (which
      // makes a lookup's reply the payout itself, `LookupPayoutReply`).
      const looked = await post(
        support,
        '/api/transactions/lookup',
        { orderid: detail.orderid },
        null,
      );
      expect(looked.status, looked.text).toBe(200);
      const reply = LookupReplySchema.parse(looked.json);
      expect('payout' in reply).toBe(false);
      expect(TransactionDetailSchema.parse(looked.json).paydeskPayout?.id).toBe(payout.id);
    });

    it('when a single-step payout was approved and paid, then its order names who prepared and approved it, and what was paid out', async () => {
      const payout = await prepare(cardPayout('42.00', { mode: 'single' }));
      const detail = await paid(payout);
      expect(detail.type).toBe('payout');
      expect(detail.amounts.paidOut).toBe('42.00');
      expect(detail.amounts.net).toBeNull();
      expect(detail.paydeskPayout).toMatchObject({
        id: payout.id,
        preparedBy: opsA.email,
        approvedBy: opsB.email,
      });
      expect(detail.operations.map((o) => [o.kind, o.payoutStaff])).toEqual([
        ['payout', { preparedBy: opsA.email, approvedBy: opsB.email }],
      ]);
      // a refresh answers the same detail (the page replaces its data with it)
      const refreshed = await post(opsA, `/api/transactions/${detail.id}/refresh`, {}, null);
      expect(refreshed.status, refreshed.text).toBe(200);
      expect(TransactionDetailSchema.parse(refreshed.json).paydeskPayout?.approvedBy).toBe(
        opsB.email,
      );
    });

    it('when an order is a customer’s charge, then it names no payout and no paid-out amount, and says what it kept', async () => {
      const k = payDb(bff.db);
      const id = 'e0000000-0000-4000-8000-00000000a001';
      await k
        .insertInto('transactions')
        .values({
          id,
          endpoint_id: '1001',
          orderid: '99000001',
          client_orderid: 'charge-1',
          type: 'sale',
          status: 'approved',
          stage: 'captured',
          currency: 'EUR',
          amount_minor: 100,
          authorized_minor: 100,
          captured_minor: 100,
          returned_minor: 0,
          card_bin: null,
          card_last4: null,
          card_brand: null,
          card_ref_id: null,
          customer_email: null,
          customer_name: null,
          drift: 0,
          drift_details: null,
          source: 'lookup',
          last_checked_at: null,
          created_at: 1,
          updated_at: 1,
        })
        .execute();
      const res = await support.get(`/api/transactions/${id}`);
      expect(res.status, res.text).toBe(200);
      const detail = TransactionDetailSchema.parse(res.json);
      expect(detail.paydeskPayout).toBeUndefined();
      expect(detail.amounts.paidOut).toBeUndefined();
      expect(detail.amounts.net).toBe('1.00');
      expect(detail.operations.every((o) => o.payoutStaff === undefined)).toBe(true);
    });
  });
}
