// Settlement checks against the real sandbox process: the gateway settles an approved charge 24 h
// after approval and sends no callback for it, so Paydesk asks `status` once when it is due; both
// clocks (the BFF's test clock, the sandbox's) are moved by hand.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TransactionDetailSchema, type TransactionDetail } from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb } from './db.js';
import { createPayments, type PaymentsOptionsInput } from './index.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

/** The settlement delay these tests run with: the gateway's 24 h and a minute. */
const AFTER_MS = 24 * 60 * 60_000 + 60_000;
const RETRY_MS = 10 * 60_000;
const MAX_CHECKS = 3;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`settlement checks (${variant.name})`, () => {
    let f: Fixture;
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
    const checkOf = (id: string) =>
      payDb(f.bff.db)
        .selectFrom('settlement_checks')
        .selectAll()
        .where('transaction_id', '=', id)
        .executeTakeFirst();
    /** The `status` requests the BFF sends from now on, by orderid. */
    const statusCalls = () => {
      const spy = vi.spyOn(f.bff.payments.gateway, 'send');
      return (orderid: string) =>
        spy.mock.calls.filter(([op, , fields]) => op === 'status' && fields.orderid === orderid)
          .length;
    };
    const settlementTitles = (d: TransactionDetail) =>
      d.timeline.filter((e) => e.title.startsWith('settlement check')).map((e) => e.title);
    /** Moves the BFF's clock to `at` (never back). */
    const advanceTo = (at: number) => {
      f.bff.clock.advance(Math.max(0, at - f.bff.clock.now()));
    };
    const runChecks = () => f.bff.payments.reconciler.settlement.runOnce();
    /** A second BFF instance on the same database and clock. */
    const anotherInstance = (settlement: PaymentsOptionsInput['settlement']) =>
      createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { settlement },
      });

    beforeAll(async () => {
      f = await startFixture(variant, {
        app: {
          // Days pass on the test clock: sessions outlast them.
          config: { session: { idleSeconds: 365 * 86_400, absoluteSeconds: 365 * 86_400 } },
          payments: {
            settlement: {
              afterMs: AFTER_MS,
              retryAfterMs: RETRY_MS,
              maxChecks: MAX_CHECKS,
              batchSize: 2,
            },
          },
        },
      });
      // The two clocks start together: the gateway's processing dates are Paydesk's times.
      const sandboxNow = (await f.sandbox.control('/sandbox/clock')).json as { nowMs: number };
      advanceTo(sandboxNow.nowMs);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('when an approved sale is due to settle, then one status check shows it settled: stage settled in the order and the list, no void offered, no check left', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '25.00');
      expect(tx).toMatchObject({ stage: 'captured' });
      expect(tx.allowedActions).toContain('void');
      const scheduled = await checkOf(tx.id);
      expect(scheduled?.due_at).toBe((scheduled?.approved_at ?? 0) + AFTER_MS);
      const calls = statusCalls();
      await f.sandbox.advance(24 * 60 * 60 + 30);

      // Not due yet: nothing is asked.
      advanceTo((scheduled?.due_at ?? 0) - 1);
      await runChecks();
      expect(calls(order.orderid)).toBe(0);
      expect((await detail(tx.id)).stage).toBe('captured');

      f.bff.clock.advance(1);
      expect(await runChecks()).toBe(1);
      expect(calls(order.orderid)).toBe(1);
      const after = await detail(tx.id);
      expect(after.stage).toBe('settled');
      expect(after.allowedActions).not.toContain('void');
      expect(after.allowedActions).toContain('return');
      expect(settlementTitles(after)).toEqual([`settlement check 1 of ${MAX_CHECKS}: settled`]);
      const listed = await f.support.get(`/api/transactions?q=${order.orderid}`);
      expect((listed.json as { items: { stage: string | null }[] }).items[0]?.stage).toBe(
        'settled',
      );
      expect(await checkOf(tx.id)).toBeUndefined();

      // Asked once only, however often the loop runs later.
      f.bff.clock.advance(AFTER_MS);
      await runChecks();
      expect(calls(order.orderid)).toBe(1);
    });

    it('when a preauth is captured, then its check is due from the capture’s approval, and settles it', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '40.00');
      expect(await checkOf(tx.id)).toBeUndefined();
      const captured = await post(f.finance, `/api/transactions/${tx.id}/capture`, {
        amount: '15.00',
      });
      expect(captured.status).toBe(200);
      await f.sandbox.advance(61);
      const scheduled = await checkOf(tx.id);
      expect(scheduled).toMatchObject({ attempts: 0, lease_owner: null });
      await f.sandbox.advance(24 * 60 * 60);
      advanceTo(scheduled?.due_at ?? 0);
      await runChecks();
      expect((await detail(tx.id)).stage).toBe('settled');
      expect((await f.sandbox.order(order.orderid)).orderStage).toBe('settled');
    });

    it('when the check finds the order not settled yet, then void stays offered and it is asked again later, a bounded number of times, and then no more', async () => {
      // The gateway's clock is not moved: to it, the day has not passed yet.
      const { order, tx } = await learnedOrder(f, 'sale', '31.00');
      const calls = statusCalls();
      advanceTo((await checkOf(tx.id))?.due_at ?? 0);
      for (let n = 1; n <= MAX_CHECKS; n++) {
        await runChecks();
        expect(calls(order.orderid)).toBe(n);
        const now = await detail(tx.id);
        expect(now.stage).toBe('captured');
        // Approved more than 24 h ago, its settlement not confirmed: the gateway decides.
        expect(now.allowedActions).toContain('void');
        const check = await checkOf(tx.id);
        expect(check?.attempts).toBe(n);
        expect(check?.due_at).toBe(n < MAX_CHECKS ? f.bff.clock.now() + RETRY_MS : null);
        // Not again before the retry is due.
        f.bff.clock.advance(RETRY_MS - 1);
        await runChecks();
        expect(calls(order.orderid)).toBe(n);
        f.bff.clock.advance(1);
      }
      f.bff.clock.advance(10 * RETRY_MS);
      await runChecks();
      expect(calls(order.orderid)).toBe(MAX_CHECKS);
      const titles = settlementTitles(await detail(tx.id));
      expect(titles).toHaveLength(MAX_CHECKS);
      expect(titles[0]).toMatch(/^settlement check 1 of 3: not settled yet; asked again at /);
      expect(titles.at(-1)).toBe(
        'settlement check 3 of 3: not settled yet; no further checks (refresh the order to ask again)',
      );

      // A refresh by hand that shows it settled ends the (stopped) check.
      await f.sandbox.advance(24 * 60 * 60 + 30);
      const refreshed = await f.support.post(`/api/transactions/${tx.id}/refresh`);
      expect(TransactionDetailSchema.parse(refreshed.json).stage).toBe('settled');
      expect(await checkOf(tx.id)).toBeUndefined();
    });

    it('when the reconciler is started, then the settlement checks run on a loop of their own, and stop() ends it', async () => {
      const { tx } = await learnedOrder(f, 'sale', '17.00');
      await f.sandbox.advance(24 * 60 * 60 + 30);
      advanceTo((await checkOf(tx.id))?.due_at ?? 0);
      const looping = anotherInstance({ afterMs: AFTER_MS, pollIntervalMs: 5 });
      looping.reconciler.start();
      try {
        for (let i = 0; i < 400 && (await detail(tx.id)).stage !== 'settled'; i++)
          await new Promise((r) => setTimeout(r, 5));
      } finally {
        await looping.close();
      }
      expect((await detail(tx.id)).stage).toBe('settled');
    });

    it('when the order was voided before its check came due, then the check ends without asking the gateway', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '12.00');
      const voided = await post(f.finance, `/api/transactions/${tx.id}/void`, {
        comment: 'customer cancelled',
      });
      expect(voided.status).toBe(200);
      await f.sandbox.advance(61);
      const calls = statusCalls();
      f.bff.clock.advance(AFTER_MS);
      await runChecks();
      expect(calls(order.orderid)).toBe(0);
      expect(await checkOf(tx.id)).toBeUndefined();
    });

    it('when many checks are due at once on two instances, then each pass claims at most its batch, no order is claimed twice, and all are worked off', async () => {
      const orders: TransactionDetail[] = [];
      for (const amount of ['20.00', '21.00', '22.00', '23.00', '24.00'])
        orders.push((await learnedOrder(f, 'sale', amount)).tx);
      await f.sandbox.advance(24 * 60 * 60 + 30);
      const second = anotherInstance({ afterMs: AFTER_MS, batchSize: 2 });
      try {
        f.bff.clock.advance(AFTER_MS + 60_000);
        const first = f.bff.payments.reconciler.settlement;
        const [a, b] = await Promise.all([first.claim(), second.reconciler.settlement.claim()]);
        expect(a.length).toBeLessThanOrEqual(2);
        expect(b.length).toBeLessThanOrEqual(2);
        const claimed = [...a, ...b].map((c) => c.transaction_id);
        expect(new Set(claimed).size).toBe(claimed.length);
        expect(claimed).toHaveLength(4);
        // Claimed checks are not claimed again while their lease lasts.
        const again = await first.claim();
        expect(again.map((c) => c.transaction_id)).toEqual(
          orders.map((o) => o.id).filter((id) => !claimed.includes(id)),
        );
        // Their holders have stopped: the leases lapse, and the loop works every one off.
        f.bff.clock.advance(10 * 60_000);
        while ((await first.runOnce()) > 0);
        for (const o of orders) {
          expect((await detail(o.id)).stage).toBe('settled');
          expect(await checkOf(o.id)).toBeUndefined();
        }
      } finally {
        await second.close();
      }
    });

    it('when a check gets a 5xx, a dropped reply or no answer in time, then its timeline says so in words with the gateway’s error code, never `server-error` or `timeout`, and it is asked again', async () => {
      const { tx } = await learnedOrder(f, 'sale', '26.00');
      advanceTo((await checkOf(tx.id))?.due_at ?? 0);
      const allDue = async (run: () => Promise<number>) => {
        while ((await run()) > 0);
      };
      const titles = async () => settlementTitles(await detail(tx.id));
      try {
        await f.sandbox.faults({ errorRate: 1, operations: ['status'] });
        await allDue(runChecks);
        const retryAt = new Date(f.bff.clock.now() + RETRY_MS).toISOString();
        expect(await titles()).toEqual([
          `settlement check 1 of ${MAX_CHECKS}: the gateway answered with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation); asked again at ${retryAt}`,
        ]);
        expect((await detail(tx.id)).stage).toBe('captured');

        f.bff.clock.advance(RETRY_MS);
        await f.sandbox.faults({ dropResponseRate: 1, operations: ['status'] });
        await allDue(runChecks);
        expect((await titles())[1]).toBe(
          `settlement check 2 of ${MAX_CHECKS}: the connection closed before the gateway answered; asked again at ${new Date(f.bff.clock.now() + RETRY_MS).toISOString()}`,
        );

        f.bff.clock.advance(RETRY_MS);
        await f.sandbox.faults({ latencyMs: 400, operations: ['status'] });
        const impatient = createPayments({
          config: f.bff.config,
          db: f.bff.db,
          clock: f.bff.clock,
          logger: f.bff.logger,
          audit: f.bff.services.audit,
          options: {
            gatewayTimeoutMs: 100,
            settlement: { afterMs: AFTER_MS, retryAfterMs: RETRY_MS, maxChecks: MAX_CHECKS },
          },
        });
        try {
          await allDue(() => impatient.reconciler.settlement.runOnce());
        } finally {
          await impatient.close();
        }
        expect((await titles())[2]).toBe(
          `settlement check 3 of ${MAX_CHECKS}: no answer within 100 ms; no further checks (refresh the order to ask again)`,
        );
        expect((await titles()).join('\n')).not.toMatch(/server-error|connection-lost|timeout/);
      } finally {
        await new Promise((r) => setTimeout(r, 400));
        await f.sandbox.faults({});
      }
    });
  });
}
