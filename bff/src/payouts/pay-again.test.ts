// A two-step payout whose payout-pay the gateway never made (judged not applied) is paid again on
// the same checked order by an ops user other than its preparer (QA finding F9): the gateway pays
// a registered payout at most once, so the payee cannot be paid twice, where preparing it again
// (a new order) could. Against the real sandbox process, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type Payout,
  type PayoutCreateInput,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type Reply, type TestClient } from '../test-support/harness.js';
import {
  auditRows as auditRowsOf,
  key,
  passwordFor,
  post,
  startPayoutsApp,
  startSandbox,
  TEST_CARD,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

function payoutBody(amount: string): PayoutCreateInput {
  return { destination: TEST_CARD, amount, currency: 'EUR', orderDesc: 'Paid again' };
}

const PAID_AGAIN = (email: string) =>
  `Paid again by ${email}: the gateway had not made the first payment`;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `paying a payout again on its checked order (${variant.name})`,
    () => {
      let sandbox: Sandbox;
      let bff: PayoutsTestApp;
      let opsA: TestClient & { email: string };
      let opsB: TestClient & { email: string };
      let opsC: TestClient & { email: string };
      let support: TestClient & { email: string };

      beforeAll(async () => {
        sandbox = await startSandbox();
        bff = await startPayoutsApp(variant, sandbox.baseUrl);
        opsA = await bff.userWithRoles(['ops']);
        opsB = await bff.userWithRoles(['ops']);
        opsC = await bff.userWithRoles(['ops']);
        support = await bff.userWithRoles(['support']);
      });
      afterAll(async () => {
        await bff.close();
        await sandbox.stop();
      });
      afterEach(async () => {
        await sandbox.faults({});
      });

      const row = (id: string) =>
        bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const auditRows = (action: string, target: string) => auditRowsOf(bff, action, target);
      const payAgain = (client: TestClient, id: string, idempotencyKey: string | null = key()) =>
        post(client, `/api/payouts/${id}/pay-again`, {}, idempotencyKey);
      const detail = async (client: TestClient, id: string) => {
        const res = await client.get(`/api/payouts/${id}`);
        expect(res.status, res.text).toBe(200);
        return PayoutDetailSchema.parse(res.json);
      };
      /** The ids in `client`'s approval queue ("Awaiting my approval"), in its order. */
      const queue = async (client: TestClient) => {
        const res = await client.get('/api/payouts?view=awaiting-my-approval&limit=200');
        expect(res.status, res.text).toBe(200);
        return PayoutListSchema.parse(res.json).items.map((p) => p.id);
      };
      const payoutPays = async (orderid: string) =>
        (await sandbox.order(orderid)).operations.filter((o) => o.type === 'payout-pay');

      /**
       * A payout prepared by opsA, approved by opsB, whose payout-pay the gateway answered with a 500
       * before applying it (`errorRate`) or held (`hold`: the approval gives up, unknown), judged not
       * applied by the poller once notAppliedAfterMs has passed. A hold stays on.
       */
      const judgedNotApplied = async (amount: string, fault: 'error' | 'hold'): Promise<Payout> => {
        const res = await post(opsA, '/api/payouts', payoutBody(amount));
        expect(res.status, res.text).toBe(200);
        const { payout } = PayoutResultSchema.parse(res.json);
        expect(payout.state).toBe('pending_approval');
        await sandbox.faults(
          fault === 'error'
            ? { errorRate: 1, operations: ['payout-pay'] }
            : { hold: true, operations: ['payout-pay'] },
        );
        const approved = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
        expect(approved.status, approved.text).toBe(200);
        expect(PayoutResultSchema.parse(approved.json).payout.state).toBe('unknown');
        if (fault === 'error') await sandbox.faults({});
        bff.clock.advance(61_000);
        await bff.payouts.poller.runOnce();
        expect(await row(payout.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
        return payout;
      };

      /** Follows `id` until its outcome is final (a loaded machine may need more than one check). */
      const settleFinal = async (id: string) => {
        await vi.waitFor(
          async () => {
            await sandbox.advance(5);
            bff.clock.advance(10_000);
            await bff.payouts.poller.runOnce();
            expect(['sending', 'processing', 'unknown']).not.toContain((await row(id)).state);
          },
          { timeout: 5_000, interval: 20 },
        );
        return row(id);
      };

      const refusal = (res: Reply) => (res.json as { error?: { message?: string } }).error?.message;

      it('when the gateway answered the payout-pay with a 500 and it was judged not applied, then a second ops user pays it again on the same order: paid once, recorded in the timeline and the audit log', async () => {
        const payout = await judgedNotApplied('61.10', 'error');
        const orderid = payout.orderid ?? '';
        expect(await payoutPays(orderid)).toHaveLength(0);
        // The verdict alone in its words (the screens say what to do, and until when, beside it).
        const failed = await detail(opsC, payout.id);
        expect(failed.decidedBy?.email).toBe(opsB.email);
        expect(failed.paidAgain).toBeNull();
        const firstApprovedAt = failed.decidedAt ?? '';
        expect(failed.errorMessage).toBe(
          'The gateway still did not show the payout 1 minute after it was sent, so Paydesk judged it not applied. The gateway may still apply it late.',
        );
        // Offered to an ops user other than its preparer, the first approver included.
        expect(failed.canPayAgain).toBe(true);
        expect((await detail(opsB, payout.id)).canPayAgain).toBe(true);
        expect((await detail(opsA, payout.id)).canPayAgain).toBe(false);
        expect((await detail(support, payout.id)).canPayAgain).toBe(false);
        // It waits in the approval queue of those who may pay it again, not in its preparer's.
        expect(await queue(opsC)).toContain(payout.id);
        expect(await queue(opsB)).toContain(payout.id);
        expect(await queue(opsA)).not.toContain(payout.id);
        // Preparing it again warns of the first, and points at paying that one again instead.
        const twin = await post(opsA, '/api/payouts', payoutBody('61.10'));
        expect(twin.status, twin.text).toBe(200);
        expect(PayoutResultSchema.parse(twin.json).message).toContain(
          `Rather than this one, payout ${payout.id} can be paid again`,
        );

        const res = await payAgain(opsC, payout.id);
        expect(res.status, res.text).toBe(200);
        const result = PayoutResultSchema.parse(res.json);
        expect(result.payout.state).toBe('processing');
        expect(result.payout.orderid).toBe(orderid);
        expect(result.payout.decidedBy?.email).toBe(opsC.email);
        expect(result.payout.paidAgain).toEqual({
          firstApprovedBy: { email: opsB.email },
          firstApprovedAt,
        });
        expect(result.payout.canPayAgain).toBe(false);
        expect(result.message).toMatch(/^Paid again on the same checked payout\./);

        const final = await settleFinal(payout.id);
        expect(final).toMatchObject({ state: 'approved', error_code: null, orderid });
        const pays = await payoutPays(orderid);
        expect(pays).toHaveLength(1);
        expect((await sandbox.order(orderid)).orderStage).toBe('paid');

        // Once paid, the payout still says both: who paid it again and when, who approved it
        // first and when (the payment the gateway did not make).
        const paid = await detail(opsA, payout.id);
        expect(paid.decidedBy?.email).toBe(opsC.email);
        expect(Date.parse(paid.decidedAt ?? '')).toBeGreaterThan(Date.parse(firstApprovedAt));
        expect(paid.paidAgain).toEqual({ firstApprovedBy: { email: opsB.email }, firstApprovedAt });
        const listed = PayoutListSchema.parse(
          (await opsA.get('/api/payouts?view=all&state=approved&limit=200')).json,
        ).items.find((p) => p.id === payout.id);
        expect(listed?.paidAgain?.firstApprovedBy.email).toBe(opsB.email);
        const titles = (await detail(opsC, payout.id)).events.map((e) => e.title);
        expect(titles).toContain('payout approved');
        expect(titles).toContain(PAID_AGAIN(opsC.email));
        const audits = await auditRows('payout.pay_again', `payout:${payout.id}`);
        expect(audits.map((a) => [a.actor_email, a.outcome])).toEqual([[opsC.email, 'success']]);
        // Paid: nothing waits any more.
        expect(await queue(opsB)).not.toContain(payout.id);
      });

      it('when the preparer pays it again, then it is refused as an approval of their own would be, and nothing is sent', async () => {
        const payout = await judgedNotApplied('61.20', 'error');
        const res = await payAgain(opsA, payout.id);
        expect(res.status, res.text).toBe(403);
        expect(errorCode(res)).toBe('FOUR_EYES_REQUIRED');
        expect(refusal(res)).toMatch(/other than the one who prepared it must pay it again/);
        expect(await row(payout.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
        expect(await payoutPays(payout.orderid ?? '')).toHaveLength(0);
        const audits = await auditRows('payout.pay_again', `payout:${payout.id}`);
        expect(audits.map((a) => [a.actor_email, a.outcome])).toEqual([[opsA.email, 'refused']]);
      });

      it('when the check of the payee lapsed, then paying again is refused (409) naming the lapse time, not offered, and nothing is sent', async () => {
        const payout = await judgedNotApplied('61.30', 'error');
        const lapsesAt = (await row(payout.id)).expires_at ?? 0;
        bff.clock.advance(lapsesAt - bff.clock.now());
        // Sessions lapse on the way: everyone signs in again.
        for (const c of [opsA, opsB, opsC, support])
          expect((await c.login(c.email, passwordFor(c.email))).status).toBe(200);
        expect((await detail(opsC, payout.id)).canPayAgain).toBe(false);
        expect(await queue(opsC)).not.toContain(payout.id);
        const res = await payAgain(opsC, payout.id);
        expect(res.status, res.text).toBe(409);
        expect(errorCode(res)).toBe('INVALID_STATE');
        expect(refusal(res)).toContain(`lapsed at ${new Date(lapsesAt).toISOString()}`);
        expect(await row(payout.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
        expect(await payoutPays(payout.orderid ?? '')).toHaveLength(0);
      });

      it('when two ops users pay it again at once, then one sends and the other is refused: the gateway shows one payout-pay', async () => {
        const payout = await judgedNotApplied('61.40', 'error');
        // Both wait in their status check, then claim together.
        await sandbox.faults({ latencyMs: 300, operations: ['status'] });
        const replies = await Promise.all([payAgain(opsB, payout.id), payAgain(opsC, payout.id)]);
        await sandbox.faults({});
        expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
        const loser = replies.find((r) => r.status === 409);
        expect(loser === undefined ? undefined : errorCode(loser)).toBe('INVALID_STATE');
        const final = await settleFinal(payout.id);
        expect(final.state).toBe('approved');
        expect(await payoutPays(payout.orderid ?? '')).toHaveLength(1);
        const titles = (await detail(opsB, payout.id)).events.map((e) => e.title);
        expect(
          titles.filter((t) => t === PAID_AGAIN(opsB.email) || t === PAID_AGAIN(opsC.email)),
        ).toHaveLength(1);
      });

      it('when the gateway made the first payment late, then paying again sends nothing, answers 409 saying so, and the payout shows paid (flagged as paid after the verdict)', async () => {
        const payout = await judgedNotApplied('61.50', 'hold');
        const orderid = payout.orderid ?? '';
        // The held payout-pay goes through and the gateway pays it.
        await sandbox.faults({});
        await vi.waitFor(
          async () => {
            expect(await payoutPays(orderid)).toHaveLength(1);
          },
          { timeout: 5_000, interval: 20 },
        );
        await sandbox.advance(5);
        await vi.waitFor(
          async () => {
            expect((await sandbox.order(orderid)).orderStage).toBe('paid');
          },
          { timeout: 5_000, interval: 20 },
        );
        expect((await row(payout.id)).state).toBe('failed');

        const res = await payAgain(opsC, payout.id);
        expect(res.status, res.text).toBe(409);
        expect(refusal(res)).toMatch(/made the first payment after all/);
        expect(refusal(res)).toMatch(/nothing was sent again/);
        expect(await row(payout.id)).toMatchObject({
          state: 'approved',
          error_code: 'PAID_AFTER_NOT_APPLIED',
        });
        expect(await payoutPays(orderid)).toHaveLength(1);
        const titles = (await detail(opsC, payout.id)).events.map((e) => e.title);
        expect(titles).not.toContain(PAID_AGAIN(opsC.email));
      });

      it('when a payment again is repeated with its Idempotency-Key, then the stored reply is returned and nothing is sent again; without a key it is refused', async () => {
        const payout = await judgedNotApplied('61.60', 'error');
        const missing = await payAgain(opsB, payout.id, null);
        expect(missing.status, missing.text).toBe(400);
        expect(errorCode(missing)).toBe('IDEMPOTENCY_KEY_MISSING');
        expect((await row(payout.id)).state).toBe('failed');

        const k = key();
        const first = await payAgain(opsB, payout.id, k);
        expect(first.status, first.text).toBe(200);
        await settleFinal(payout.id);
        const repeat = await payAgain(opsB, payout.id, k);
        expect(repeat.status, repeat.text).toBe(200);
        expect(repeat.headers.get('Idempotent-Replayed')).toBe('true');
        expect(repeat.json).toEqual(first.json);
        expect(await payoutPays(payout.orderid ?? '')).toHaveLength(1);
        // A fresh key meets the payout as it is now: paid, nothing to pay again.
        const fresh = await payAgain(opsB, payout.id);
        expect(fresh.status, fresh.text).toBe(409);
        expect(await payoutPays(payout.orderid ?? '')).toHaveLength(1);
      });
    },
  );
}
