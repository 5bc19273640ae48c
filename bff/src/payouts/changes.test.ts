// A payout's or a payment link's change is written with its timeline entry and its audit row in one
// transaction: a database that fails midway leaves neither (the change can be made again), never a
// decision without its entry or an outcome without its audit row. Also: what the poller does with
// a payout-check or a link whose instance stopped mid-send, a check the gateway is still
// processing, and the timeline of an approval undone. Both databases, the real sandbox process
// (demo merchant).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PaymentLinkResultSchema,
  PayoutDetailSchema,
  PayoutResultSchema,
  type Payout,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type TestClient } from '../test-support/harness.js';
import {
  cardPayout,
  post,
  refuseInserts,
  startPayoutsApp,
  startSandbox,
  statusAnswersProcessing,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payout and link changes (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    let finance: TestClient & { email: string };
    const undo: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      finance = await bff.userWithRoles(['finance']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });
    afterEach(async () => {
      for (const u of undo.splice(0)) await u();
      await sandbox.faults({});
    });

    const refuse = async (
      table: 'payout_events' | 'audit_log',
      column: 'title' | 'action',
      value: string,
    ) => {
      undo.push(await refuseInserts(bff, table, column, value));
    };
    const prepare = async (amount: string): Promise<Payout> => {
      const res = await post(opsA, '/api/payouts', cardPayout(amount));
      expect(res.status, res.text).toBe(200);
      const payout = PayoutResultSchema.parse(res.json).payout;
      expect(payout.state).toBe('pending_approval');
      return payout;
    };
    const row = (id: string) =>
      bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const titles = async (subject: string) =>
      (
        await bff.k
          .selectFrom('payout_events')
          .select('title')
          .where('subject', '=', subject)
          .orderBy('id')
          .execute()
      ).map((e) => e.title);
    const linkRow = (id: string) =>
      bff.k.selectFrom('payment_links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    it("when the rejection's timeline entry cannot be written, then the payout is not rejected either: still awaiting approval, and it can be rejected once the database recovers", async () => {
      const payout = await prepare('3.10');
      await refuse('payout_events', 'title', 'payout rejected');
      const failed = await post(opsB, `/api/payouts/${payout.id}/reject`, {
        reason: 'Wrong payee',
      });
      expect(failed.status, failed.text).toBe(500);
      expect(await row(payout.id)).toMatchObject({
        state: 'pending_approval',
        decided_by: null,
        reject_reason: null,
      });
      expect(await titles(`payout:${payout.id}`)).not.toContain('payout rejected');

      await undo.pop()?.();
      const res = await post(opsB, `/api/payouts/${payout.id}/reject`, { reason: 'Wrong payee' });
      expect(res.status, res.text).toBe(200);
      expect(await row(payout.id)).toMatchObject({
        state: 'rejected',
        reject_reason: 'Wrong payee',
      });
      expect(
        (await titles(`payout:${payout.id}`)).filter((t) => t === 'payout rejected'),
      ).toHaveLength(1);
    });

    it("when the approval's timeline entry cannot be written, then the payout is not claimed and nothing is sent: it still awaits approval, and the approval succeeds once the database recovers", async () => {
      const payout = await prepare('3.20');
      await refuse('payout_events', 'title', 'payout approved');
      const failed = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(failed.status, failed.text).toBe(500);
      expect(await row(payout.id)).toMatchObject({ state: 'pending_approval', decided_by: null });
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.operations.map((o) => o.type)).toEqual(['payout-check']);

      await undo.pop()?.();
      const res = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(res.status, res.text).toBe(200);
      expect(PayoutResultSchema.parse(res.json).payout.state).toBe('processing');
      expect((await sandbox.order(payout.orderid ?? '')).operations.map((o) => o.type)).toEqual([
        'payout-check',
        'payout-pay',
      ]);
    });

    it('when the audit row of a reconciled outcome cannot be written, then the outcome is not recorded either; the next status check records both, once', async () => {
      const payout = await prepare('3.30');
      await sandbox.faults({ dropResponseRate: 1, operations: ['payout-pay'] });
      const res = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(PayoutResultSchema.parse(res.json).payout.state).toBe('unknown');
      await sandbox.faults({});
      await sandbox.advance(5);
      await refuse('audit_log', 'action', 'payout.reconciled');
      // The gateway has paid it by now; recording that fails with its audit row.
      bff.clock.advance(10_000);
      await bff.payouts.poller.runOnce();
      expect((await sandbox.order(payout.orderid ?? '')).orderStage).toBe('paid');
      expect((await row(payout.id)).state).not.toBe('approved');
      const audited = () =>
        bff.k
          .selectFrom('audit_log')
          .select('summary')
          .where('action', '=', 'payout.reconciled')
          .where('target', '=', `payout:${payout.id}`)
          .execute();
      expect(await audited()).toHaveLength(0);

      await undo.pop()?.();
      await vi.waitFor(
        async () => {
          bff.clock.advance(10_000);
          await bff.payouts.poller.runOnce();
          expect((await row(payout.id)).state).toBe('approved');
        },
        { timeout: 5_000, interval: 20 },
      );
      const rows = await audited();
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0]?.summary ?? '{}')).toMatchObject({
        state: 'approved',
        approvedBy: opsB.email,
        preparedBy: opsA.email,
      });
    });

    it('when the instance stops right after sending the payout-check (its outcome never recorded), then once that request is certainly over the poller learns the check from the gateway: awaiting approval, audited', async () => {
      await refuse('payout_events', 'title', "check of the payee's details");
      const failed = await post(opsA, '/api/payouts', cardPayout('3.50'));
      expect(failed.status, failed.text).toBe(500);
      await undo.pop()?.();
      const left = await bff.k
        .selectFrom('payouts')
        .selectAll()
        .where('amount_minor', '=', 350)
        .executeTakeFirstOrThrow();
      expect(left).toMatchObject({ state: 'checking', orderid: null });
      const { gatewayTimeoutMs, poll } = bff.payouts.options;
      expect(left.poll_next_at).toBe((left.sent_at ?? 0) + 2 * gatewayTimeoutMs + poll.fastMinMs);

      // While the request could still be under way, nobody else asks.
      await bff.payouts.poller.runOnce();
      expect((await row(left.id)).state).toBe('checking');
      bff.clock.advance(2 * gatewayTimeoutMs + poll.fastMinMs);
      await bff.payouts.poller.runOnce();
      const learned = await row(left.id);
      expect(learned).toMatchObject({ state: 'pending_approval' });
      expect(learned.orderid).not.toBeNull();
      expect(learned.expires_at).toBe((left.sent_at ?? 0) + 24 * 60 * 60_000);
      const audited = await bff.k
        .selectFrom('audit_log')
        .select('summary')
        .where('action', '=', 'payout.checked')
        .where('target', '=', `payout:${left.id}`)
        .execute();
      expect(audited.map((a) => (JSON.parse(a.summary) as { state?: string }).state)).toEqual([
        'pending_approval',
      ]);
    });

    it('when the gateway still shows the payout-check processing, then the preparer is told it is being confirmed, and the poller settles it', async () => {
      // as a gateway whose check takes a while would answer
      const spy = statusAnswersProcessing(bff);
      let res;
      try {
        res = await post(opsA, '/api/payouts', cardPayout('3.60'));
      } finally {
        spy.mockRestore();
      }
      expect(res.status, res.text).toBe(200);
      const result = PayoutResultSchema.parse(res.json);
      expect(result.payout.state).toBe('checking');
      expect(result.message).toBe(
        "The payee's details were sent to the gateway for checking; Paydesk is confirming the outcome with it.",
      );
      expect((await row(result.payout.id)).poll_next_at).not.toBeNull();
      await vi.waitFor(
        async () => {
          bff.clock.advance(60_000);
          await bff.payouts.poller.runOnce();
          expect((await row(result.payout.id)).state).toBe('pending_approval');
        },
        { timeout: 5_000, interval: 20 },
      );
    });

    it('when the gateway cannot confirm the registered payout at approval, then the approval is undone and the timeline says why; nothing was sent', async () => {
      const payout = await prepare('3.40');
      await sandbox.faults({ errorRate: 1, operations: ['status'] });
      const res = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(res.status, res.text).toBe(503);
      expect(errorCode(res)).toBe('GATEWAY_UNAVAILABLE');
      await sandbox.faults({});
      expect(await row(payout.id)).toMatchObject({ state: 'pending_approval', decided_by: null });
      const detail = PayoutDetailSchema.parse((await opsA.get(`/api/payouts/${payout.id}`)).json);
      const undone = detail.events.find((e) => e.title.startsWith('approval undone'));
      expect(undone).toMatchObject({ kind: 'staff', actor: opsB.email });
      expect(String(undone?.data.reason)).toMatch(/could not confirm the registered payout/);
      expect(detail.events.map((e) => e.title).slice(-3)).toEqual([
        'payout approved',
        'status before paying',
        'approval undone: nothing was sent; the payout waits for approval again',
      ]);
      expect((await sandbox.order(payout.orderid ?? '')).operations.map((o) => o.type)).toEqual([
        'payout-check',
      ]);
    });

    it('when the rejection of a payout-form link cannot be written to its timeline, then the link is not rejected either', async () => {
      const created = await post(opsA, '/api/payment-links', {
        kind: 'payout-form',
        amount: '15.00',
        currency: 'EUR',
        orderDesc: 'Prize payout',
      });
      const held = PaymentLinkResultSchema.parse(created.json).link;
      await refuse('payout_events', 'title', 'Payout form link rejected');
      const failed = await post(opsB, `/api/payment-links/${held.id}/reject`, { reason: 'Typo' });
      expect(failed.status, failed.text).toBe(500);
      expect(await linkRow(held.id)).toMatchObject({ state: 'pending_approval', decided_by: null });
      await undo.pop()?.();
      const res = await post(opsB, `/api/payment-links/${held.id}/reject`, { reason: 'Typo' });
      expect(res.status, res.text).toBe(200);
      expect(await linkRow(held.id)).toMatchObject({ state: 'rejected', reject_reason: 'Typo' });
    });

    it('when a link was left sending by an instance that stopped, then after a gateway timeout and a lease it becomes unknown (INTERRUPTED) with a timeline entry; one being sent now is left alone', async () => {
      const make = async () => {
        const res = await post(finance, '/api/payment-links', {
          kind: 'sale-form',
          amount: '19.99',
          currency: 'EUR',
          orderDesc: 'Invoice 42',
          customer: TEST_CUSTOMER,
        });
        expect(res.status, res.text).toBe(200);
        return PaymentLinkResultSchema.parse(res.json).link;
      };
      const [stopped, live] = [await make(), await make()];
      const { gatewayTimeoutMs, poll } = bff.payouts.options;
      const now = bff.clock.now();
      // as their instances left them: one mid-send long ago, one that started a moment ago
      await bff.k
        .updateTable('payment_links')
        .set({
          state: 'sending',
          redirect_url: null,
          updated_at: now - gatewayTimeoutMs - poll.leaseMs - 1,
        })
        .where('id', '=', stopped.id)
        .execute();
      await bff.k
        .updateTable('payment_links')
        .set({ state: 'sending', redirect_url: null, updated_at: now - 1_000 })
        .where('id', '=', live.id)
        .execute();

      await bff.payouts.poller.runOnce();
      expect(await linkRow(stopped.id)).toMatchObject({
        state: 'unknown',
        error_code: 'INTERRUPTED',
        error_message: 'the instance sending it stopped before recording the reply',
      });
      expect((await titles(`link:${stopped.id}`)).at(-1)).toBe(
        'outcome unknown: the instance sending it stopped before recording the reply; its page address is not known',
      );
      expect((await linkRow(live.id)).state).toBe('sending');
    });
  });
}
