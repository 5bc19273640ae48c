// A `status` reply with an amount above 2^53 minor units on the paths that apply one besides the
// callback and the reconciler (callbacks.test.ts, reconcile.test.ts): staff's look-up and refresh,
// the settlement checks. Against the real sandbox process, which takes such an amount.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  TransactionDetailSchema,
  type ErrorEnvelope,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb } from './db.js';
import { learnedOrder, startFixture, type Fixture } from './test-support/fixture.js';
import type { PlacedOrder } from './test-support/storefront.js';

const HUGE = '99999999999999999.99';
/** HUGE as messages, timelines and audit rows show it: grouped, so no card mask hides it. */
const HUGE_READ = '99,999,999,999,999,999.99';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`status replies Paydesk cannot hold (${variant.name})`, () => {
    let f: Fixture;
    const k = () => payDb(f.bff.db);
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
    /** An order the gateway approved for HUGE, whose callback never reached the BFF. */
    const hugeAtGateway = async (): Promise<PlacedOrder> => {
      const order = await f.shop.place('sale', {
        amount: HUGE,
        callbackUrl: 'http://127.0.0.1:9/gateway/callback?endpoint=1001',
      });
      await f.sandbox.advance(61);
      return order;
    };
    /**
     * The huge order known to Paydesk: the row of an ordinary approved sale (learned by its
     * callback) under the huge order's ids, as if learned before its amount grew.
     */
    const knownHuge = async (): Promise<{ order: PlacedOrder; id: string; before: string }> => {
      const order = await hugeAtGateway();
      const { tx } = await learnedOrder(f, 'sale', '3.30');
      const model = await k()
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', tx.id)
        .executeTakeFirstOrThrow();
      const id = randomUUID();
      await k()
        .insertInto('transactions')
        .values({ ...model, id, orderid: order.orderid, client_orderid: order.clientOrderId })
        .execute();
      return { order, id, before: tx.amount };
    };
    const driftAudit = (id: string) =>
      f.bff.db.k
        .selectFrom('audit_log')
        .select(['error_code', 'summary'])
        .where('action', '=', 'transaction.drift')
        .where('target', '=', `transaction:${id}`)
        .execute();
    const expectNotApplied = (envelope: ErrorEnvelope, orderid: string) => {
      expect(envelope.error.code).toBe('GATEWAY_ERROR');
      expect(envelope.error.message).toContain(`order ${orderid} shows amount ${HUGE_READ}`);
      expect(envelope.error.message).toContain('an amount Paydesk cannot hold exactly');
      expect(envelope.error.details?.fields).toEqual([
        {
          path: 'amount',
          rule: 'max_amount',
          message: `${HUGE_READ} is more than Paydesk can hold exactly (90,071,992,547,409.91 at most)`,
        },
        {
          path: 'captured-amount',
          rule: 'max_amount',
          message: `${HUGE_READ} is more than Paydesk can hold exactly (90,071,992,547,409.91 at most)`,
        },
        expect.objectContaining({ path: 'operations', rule: 'max_amount' }) as unknown,
      ]);
    };
    /** The error lines logged from now on. */
    const errorLines = () => {
      const from = f.bff.logs.length;
      return () =>
        f.bff.logs
          .slice(from)
          .map((l) => JSON.parse(l) as { level: number; msg: string; transactionId?: string })
          .filter((l) => l.level >= 50);
    };

    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('when support looks up an order Paydesk does not know whose status shows an amount above 2^53 minor units, then 502 names the field and says Paydesk cannot hold it, and nothing is recorded', async () => {
      const order = await hugeAtGateway();
      const res = await f.support.post('/api/transactions/lookup', {
        client_orderid: order.clientOrderId,
      });
      expect(res.status).toBe(502);
      const envelope = res.json as ErrorEnvelope;
      expectNotApplied(envelope, order.orderid);
      expect(envelope.error.message).toContain('the order was not recorded');
      expect(
        await k()
          .selectFrom('transactions')
          .select('id')
          .where('orderid', '=', order.orderid)
          .execute(),
      ).toEqual([]);
      // The refusal is audited as every refusal is.
      const refusal = await f.bff.db.k
        .selectFrom('audit_log')
        .select(['outcome', 'error_code'])
        .where('action', '=', 'transaction.lookup')
        .orderBy('seq', 'desc')
        .executeTakeFirst();
      expect(refusal).toEqual({ outcome: 'failed', error_code: 'GATEWAY_ERROR' });
    });

    it('when support looks up or refreshes a known order whose status shows an amount above 2^53 minor units, then 502 says so, the reply is in its timeline, the order is flagged and audited, and its amounts are unchanged', async () => {
      const { order, id, before } = await knownHuge();
      const email = `support-${randomUUID()}@example.com`;
      const support = await f.bff.userWithRoles(['support'], email);

      const refreshed = await support.post(`/api/transactions/${id}/refresh`);
      expect(refreshed.status).toBe(502);
      const envelope = refreshed.json as ErrorEnvelope;
      expectNotApplied(envelope, order.orderid);
      expect(envelope.error.details?.transactionId).toBe(id);
      expect(envelope.error.message).toContain('the order is flagged');
      const after = await detail(id);
      expect(after.amount).toBe(before);
      expect(after.status).toBe('approved');
      expect(after.drift).toBe(true);
      expect(JSON.stringify(after.driftDetails)).toContain('more than Paydesk can hold');
      const notApplied = after.timeline.filter((e) => e.title === 'status: approved (not applied)');
      expect(notApplied).toHaveLength(1);
      expect(notApplied[0]?.actor).toBe(email);
      expect(JSON.stringify(notApplied[0]?.data)).toContain(order.orderid);
      expect(after.timeline.at(-1)?.kind).toBe('drift');
      const [row] = await driftAudit(id);
      expect(row?.error_code).toBe('DRIFT');
      // The audit row is what an auditor reads: the amounts stay legible (grouped), not card-masked.
      expect(String(row?.summary)).toContain(`amount ${HUGE_READ}`);
      expect(String(row?.summary)).toContain('(90,071,992,547,409.91 at most)');

      const looked = await support.post('/api/transactions/lookup', {
        orderid: order.orderid,
      });
      expect(looked.status).toBe(502);
      expectNotApplied(looked.json as ErrorEnvelope, order.orderid);
      const again = await detail(id);
      expect(again.amount).toBe(before);
      expect(
        again.timeline.filter((e) => e.title === 'status: approved (not applied)'),
      ).toHaveLength(2);
      expect(await driftAudit(id)).toHaveLength(2);
    });

    it('when a settlement check’s status shows an amount above 2^53 minor units, then the order is flagged with its amounts unchanged and the check ends, logged once, rather than fail at every pass', async () => {
      const { order, id, before } = await knownHuge();
      const now = f.bff.clock.now();
      await k()
        .insertInto('settlement_checks')
        .values({
          transaction_id: id,
          approved_at: now,
          due_at: now,
          attempts: 0,
          lease_owner: null,
        })
        .execute();
      const spy = vi.spyOn(f.bff.payments.gateway, 'send');
      const asked = () =>
        spy.mock.calls.filter(
          ([op, , fields]) => op === 'status' && fields.orderid === order.orderid,
        ).length;
      const errors = errorLines();
      const checks = f.bff.payments.reconciler.settlement;

      expect(await checks.runOnce()).toBeGreaterThanOrEqual(1);
      expect(asked()).toBe(1);
      expect(
        await k()
          .selectFrom('settlement_checks')
          .select('transaction_id')
          .where('transaction_id', '=', id)
          .execute(),
      ).toEqual([]);
      const after = await detail(id);
      expect(after.amount).toBe(before);
      expect(after.stage).toBe('captured');
      expect(after.drift).toBe(true);
      expect(after.timeline.map((e) => e.title)).toEqual(
        expect.arrayContaining([
          'status: approved (not applied)',
          `settlement check 1 of ${String(f.bff.payments.options.settlement.maxChecks)}: the status reply cannot be applied; no further checks`,
        ]),
      );
      expect((await driftAudit(id)).map((r) => r.error_code)).toEqual(['DRIFT']);
      const lines = errors();
      expect(lines.filter((l) => l.msg === 'settlement check failed')).toEqual([]);
      expect(lines.filter((l) => l.transactionId === id).map((l) => l.msg)).toEqual([
        'settlement check stopped: the status shows an amount Paydesk cannot hold',
      ]);

      // Never asked again, however long the loop runs.
      f.bff.clock.advance(7 * 24 * 60 * 60_000);
      await checks.runOnce();
      expect(asked()).toBe(1);
    });
  });
}
