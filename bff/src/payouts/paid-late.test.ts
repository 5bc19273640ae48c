// A payout Paydesk judged not applied (failed NOT_APPLIED) that the gateway pays late (it held the
// payout-pay past the verdict): corrected on its order's callback or a staff status check, flagged
// for review and audited, never sent twice; the verdict's words say it is one (QA27 finding 1).
// Against the real sandbox process, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type ErrorEnvelope,
  type LiveEvent,
  type PayoutCreateInput,
  type PayoutDestination,
  type PayoutMode,
} from '@paydesk/shared/api';
import { payDb } from '../payments/db.js';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import {
  auditRows as auditRowsOf,
  post,
  startPayoutsApp,
  startSandbox,
  TEST_CARD,
  walkPages,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

const DAY = 86_400_000;

function payoutBody(
  amount: string,
  destination: PayoutDestination = TEST_CARD,
  mode: PayoutMode = 'two-step',
): PayoutCreateInput {
  return { mode, destination, amount, currency: 'EUR', orderDesc: 'Paid late' };
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `payouts paid after the not-applied verdict (${variant.name})`,
    () => {
      let sandbox: Sandbox;
      let bff: PayoutsTestApp;
      let opsA: TestClient & { email: string };
      let opsB: TestClient & { email: string };
      let support: TestClient & { email: string };
      const published: LiveEvent[] = [];

      beforeAll(async () => {
        sandbox = await startSandbox();
        bff = await startPayoutsApp(variant, sandbox.baseUrl);
        opsA = await bff.userWithRoles(['ops']);
        opsB = await bff.userWithRoles(['ops']);
        support = await bff.userWithRoles(['support']);
        bff.payments.bus.subscribe((event) => {
          published.push(event);
        });
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
      const prepare = async (
        amount: string,
        destination?: PayoutDestination,
        mode?: PayoutMode,
      ) => {
        const res = await post(opsA, '/api/payouts', payoutBody(amount, destination, mode));
        expect(res.status, res.text).toBe(200);
        return PayoutResultSchema.parse(res.json);
      };

      /**
       * A checked two-step payout whose payout-pay the sandbox holds: unknown when the approval
       * gives up, then judged not applied by the poller once notAppliedAfterMs has passed. The hold
       * is still on.
       */
      const judgedNotApplied = async (amount: string) => {
        const { payout } = await prepare(amount);
        expect(payout.state).toBe('pending_approval');
        await sandbox.faults({ hold: true, operations: ['payout-pay'] });
        const res = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
        expect(res.status, res.text).toBe(200);
        expect(PayoutResultSchema.parse(res.json).payout.state).toBe('unknown');
        bff.clock.advance(61_000);
        await bff.payouts.poller.runOnce();
        const failed = await row(payout.id);
        expect(failed).toMatchObject({
          state: 'failed',
          error_code: 'NOT_APPLIED',
          poll_next_at: null,
        });
        return payout;
      };

      /** Lifts the hold and waits until the sandbox shows the payout-pay it held. */
      const lift = async (orderid: string) => {
        await sandbox.faults({});
        await vi.waitFor(
          async () => {
            const ops = (await sandbox.order(orderid)).operations;
            expect(ops.some((o) => o.type === 'payout-pay')).toBe(true);
          },
          { timeout: 5_000, interval: 20 },
        );
      };

      it('when the gateway pays a payout after Paydesk judged it not applied, then its callback makes it approved, flagged PAID_AFTER_NOT_APPLIED with a timeline entry, a payout.drift audit row and a live event; payout-pay was sent once', async () => {
        const payout = await judgedNotApplied('88.88');
        const orderid = payout.orderid ?? '';
        // The verdict says what Paydesk inferred, and that a late payment is still possible.
        const failed = await row(payout.id);
        expect(failed.error_message).toMatch(/judged it not applied/);
        expect(failed.error_message).toMatch(/may still apply it late/);
        expect(failed.error_message).not.toMatch(/nothing was paid/);
        // Preparing it again warns that the first one may still be paid.
        const again = await prepare('88.88');
        expect(again.message).toContain(`Caution: payout ${payout.id}`);
        // So does preparing it to the same card with the holder's name typed otherwise (QA B2).
        const renamed = await prepare('88.88', {
          ...TEST_CARD,
          cardholderName: TEST_CARD.cardholderName.toUpperCase(),
        });
        expect(renamed.message).toContain(`Caution: payout ${payout.id}`);

        await lift(orderid);
        // Its callback reaches the payments core: the payout's check is due at once.
        await sandbox.advance(5);
        await vi.waitFor(
          async () => {
            const due = await row(payout.id);
            expect(due.poll_next_at).not.toBeNull();
            expect(due.poll_next_at ?? Infinity).toBeLessThanOrEqual(bff.clock.now());
          },
          { timeout: 5_000, interval: 20 },
        );
        published.length = 0;
        await bff.payouts.poller.runOnce();
        const after = await row(payout.id);
        expect(after).toMatchObject({
          state: 'approved',
          error_code: 'PAID_AFTER_NOT_APPLIED',
          poll_next_at: null,
          lease_owner: null,
        });
        expect(after.error_message).toMatch(/after Paydesk had judged it not applied/);
        expect(after.error_message).toMatch(/paid twice/);
        expect(published).toContainEqual(
          expect.objectContaining({
            type: 'payout.updated',
            payoutId: payout.id,
            state: 'approved',
          }),
        );

        const detail = PayoutDetailSchema.parse((await opsA.get(`/api/payouts/${payout.id}`)).json);
        expect(detail).toMatchObject({ state: 'approved', errorCode: 'PAID_AFTER_NOT_APPLIED' });
        expect(detail.events.map((e) => e.title)).toContain(
          'payout applied by the gateway after Paydesk had judged it not applied (approved): check for a repeat of this payout',
        );
        const drift = await auditRows('payout.drift', `payout:${payout.id}`);
        expect(drift.map((a) => [a.actor_id, a.outcome, a.error_code])).toEqual([
          [null, 'failed', 'DRIFT'],
        ]);
        expect(JSON.parse(drift[0]?.summary ?? '{}')).toMatchObject({
          state: 'approved',
          finding: 'applied_after_not_applied',
          approvedBy: opsB.email,
          preparedBy: opsA.email,
          orderid,
        });

        // Sent once; a later check leaves it as it is (no second flag, no second audit row).
        const atGateway = await sandbox.order(orderid);
        expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
        expect(atGateway.orderStage).toBe('paid');
        await bff.payouts.poller.nudge(orderid);
        await bff.payouts.poller.runOnce();
        expect(await row(payout.id)).toMatchObject({ state: 'approved', poll_next_at: null });
        expect(await auditRows('payout.drift', `payout:${payout.id}`)).toHaveLength(1);
        // Its new twin was only prepared: nothing of it reached the payout-pay.
        expect((await row(again.payout.id)).state).toBe('pending_approval');
      });

      /**
       * A held single payout whose `payout` the sandbox holds: unknown when the approval gives up,
       * then judged not applied by the poller, its orderid never learned. The hold is still on.
       */
      const singleJudgedNotApplied = async (amount: string) => {
        const { payout } = await prepare(amount, undefined, 'single');
        expect(payout.state).toBe('pending_approval');
        await sandbox.faults({ hold: true, operations: ['payout'] });
        const res = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
        expect(res.status, res.text).toBe(200);
        expect(PayoutResultSchema.parse(res.json).payout.state).toBe('unknown');
        bff.clock.advance(61_000);
        await bff.payouts.poller.runOnce();
        expect(await row(payout.id)).toMatchObject({
          state: 'failed',
          error_code: 'NOT_APPLIED',
          orderid: null,
          poll_next_at: null,
        });
        return payout;
      };

      it('when the gateway pays a held single payout late whose reply was lost (Paydesk never learned its orderid), then its callback finds it by its client_orderid: it learns its orderid and is approved, flagged PAID_AFTER_NOT_APPLIED, listed paid late with its repeat named; payout was sent once (QA: it stayed failed with no alert)', async () => {
        const payout = await singleJudgedNotApplied('75.00');
        // Prepared again meanwhile, as the verdict allowed: a possible repeat once it is paid late.
        const repeat = await prepare('75.00', undefined, 'single');

        // The hold lifted, the sandbox makes the payout, and its callback reaches the payments core,
        // which learns the order (its client_orderid is the payout's) as a transaction.
        await sandbox.faults({});
        await sandbox.advance(5);
        const order = await vi.waitFor(
          async () => {
            const found = await payDb(bff.db)
              .selectFrom('transactions')
              .select(['orderid', 'status'])
              .where('client_orderid', '=', payout.clientOrderId)
              .executeTakeFirstOrThrow();
            expect(found.status).toBe('approved');
            return found;
          },
          { timeout: 5_000, interval: 20 },
        );
        // That callback makes the payout's check due at once, though it never learned the orderid.
        await vi.waitFor(
          async () => {
            const due = await row(payout.id);
            expect(due.poll_next_at).not.toBeNull();
            expect(due.poll_next_at ?? Infinity).toBeLessThanOrEqual(bff.clock.now());
          },
          { timeout: 5_000, interval: 20 },
        );
        await bff.payouts.poller.runOnce();
        expect(await row(payout.id)).toMatchObject({
          state: 'approved',
          orderid: order.orderid,
          error_code: 'PAID_AFTER_NOT_APPLIED',
          poll_next_at: null,
          lease_owner: null,
        });
        expect(await auditRows('payout.drift', `payout:${payout.id}`)).toHaveLength(1);
        const listed = PayoutListSchema.parse(
          (await support.get('/api/payouts?paidLate=true&limit=200')).json,
        ).items.map((p) => p.id);
        expect(listed).toContain(payout.id);
        const detail = PayoutDetailSchema.parse((await opsA.get(`/api/payouts/${payout.id}`)).json);
        expect(detail.repeatCandidates.map((p) => p.id)).toEqual([repeat.payout.id]);
        const atGateway = await sandbox.order(order.orderid);
        expect(atGateway.clientOrderId).toBe(payout.clientOrderId);
        expect(atGateway.operations.filter((o) => o.type === 'payout')).toHaveLength(1);
      });

      it('when a payout of the same amount to the same destination was judged not applied and may still be paid late, then one prepared again names it (similarNotApplied) to the approver too: its detail, the list and the approval queue, as the prepare reply cautions; once it is paid late it is named as sent (QA: only the preparer was warned)', async () => {
        const first = await singleJudgedNotApplied('74.00');
        // A check of the payee's details judged not applied moved no money: no twin to warn of.
        await sandbox.faults({ errorRate: 1, operations: ['payout-check'] });
        const checkOnly = await prepare('74.00');
        await sandbox.faults({ hold: true, operations: ['payout'] });
        bff.clock.advance(120_000);
        await bff.payouts.poller.runOnce();
        expect(await row(checkOnly.payout.id)).toMatchObject({
          state: 'failed',
          error_code: 'NOT_APPLIED',
          decided_at: null,
        });

        const again = await prepare('74.00', undefined, 'single');
        expect(again.message).toContain(
          `Caution: payout ${first.id} of the same amount to the same destination was judged not applied, and the gateway may still pay late`,
        );
        expect(again.payout.similarNotApplied).toEqual([first.id]);
        const otherAmount = await prepare('74.01', undefined, 'single');
        expect(otherAmount.payout.similarNotApplied).toEqual([]);
        // The approver, who releases the money, sees it where the other twins are named.
        const shown = PayoutDetailSchema.parse(
          (await opsB.get(`/api/payouts/${again.payout.id}`)).json,
        );
        expect(shown).toMatchObject({
          similarNotApplied: [first.id],
          similarPending: [],
          similarSent: [],
        });
        const queue = PayoutListSchema.parse(
          (await opsB.get('/api/payouts?view=awaiting-my-approval&limit=200')).json,
        ).items;
        expect(queue.find((p) => p.id === again.payout.id)?.similarNotApplied).toEqual([first.id]);
        const all = PayoutListSchema.parse(
          (await support.get('/api/payouts?state=pending_approval&limit=200')).json,
        ).items;
        expect(all.find((p) => p.id === again.payout.id)?.similarNotApplied).toEqual([first.id]);
        // The payout judged not applied is not waiting: it names none itself.
        const failed = PayoutDetailSchema.parse((await opsB.get(`/api/payouts/${first.id}`)).json);
        expect(failed.similarNotApplied).toEqual([]);

        // Paid late after all: no longer a twin that may be paid, but one approved for payment.
        await sandbox.faults({});
        await sandbox.advance(5);
        await vi.waitFor(
          async () => {
            await sandbox.advance(5);
            await bff.payouts.poller.runOnce();
            expect(await row(first.id)).toMatchObject({
              state: 'approved',
              error_code: 'PAID_AFTER_NOT_APPLIED',
            });
          },
          { timeout: 5_000, interval: 50 },
        );
        const after = PayoutDetailSchema.parse(
          (await opsB.get(`/api/payouts/${again.payout.id}`)).json,
        );
        expect(after).toMatchObject({ similarNotApplied: [], similarSent: [first.id] });
      });

      it('when staff check the status of a payout judged not applied, then it stays failed while the gateway does not show it (its checks stopped again), and once the gateway paid it late it is corrected and flagged; audited as payout.refresh', async () => {
        const payout = await judgedNotApplied('77.77');
        const orderid = payout.orderid ?? '';
        // Still held: the gateway does not show it.
        const still = await post(support, `/api/payouts/${payout.id}/refresh`, {});
        expect(still.status, still.text).toBe(200);
        const stillResult = PayoutResultSchema.parse(still.json);
        expect(stillResult.payout.state).toBe('failed');
        expect(stillResult.message).toMatch(/late payment is still possible/);
        expect(await row(payout.id)).toMatchObject({
          state: 'failed',
          error_code: 'NOT_APPLIED',
          poll_next_at: null,
          lease_owner: null,
        });

        await lift(orderid);
        await sandbox.advance(5);
        const res = await post(support, `/api/payouts/${payout.id}/refresh`, {});
        expect(res.status, res.text).toBe(200);
        const corrected = PayoutResultSchema.parse(res.json).payout;
        // The callback may have got there first: either way it ends approved and flagged.
        if (corrected.state !== 'approved') {
          expect(corrected.state).toBe('processing');
          await vi.waitFor(
            async () => {
              await sandbox.advance(5);
              bff.clock.advance(10_000);
              await bff.payouts.poller.runOnce();
              expect((await row(payout.id)).state).toBe('approved');
            },
            { timeout: 5_000, interval: 20 },
          );
        }
        expect(await row(payout.id)).toMatchObject({
          state: 'approved',
          error_code: 'PAID_AFTER_NOT_APPLIED',
          lease_owner: null,
        });
        expect(await auditRows('payout.drift', `payout:${payout.id}`)).toHaveLength(1);
        const refreshes = await auditRows('payout.refresh', `payout:${payout.id}`);
        expect(refreshes.map((a) => [a.outcome, a.actor_email])).toContainEqual([
          'success',
          support.email,
        ]);
        const atGateway = await sandbox.order(orderid);
        expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
      });

      it('when the payout-check is judged not applied, then the words say a payout-check moves no money, and a status check of it is refused (nothing can be paid late)', async () => {
        await sandbox.faults({ errorRate: 1, operations: ['payout-check'] });
        const { payout } = await prepare('66.66');
        expect(payout.state).toBe('checking');
        await sandbox.faults({});
        bff.clock.advance(120_000);
        await bff.payouts.poller.runOnce();
        const failed = await row(payout.id);
        expect(failed).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
        expect(failed.error_message).toMatch(/judged it not applied/);
        expect(failed.error_message).toMatch(/moves no money: nothing was paid/);
        // Said in staff's words, not the gateway's operation name (F2).
        expect(failed.error_message).not.toMatch(/payout-(check|pay)/);
        const res = await post(support, `/api/payouts/${payout.id}/refresh`, {});
        expect(res.status, res.text).toBe(409);
      });

      /** Lifts the hold, then follows `ids` (each judged not applied) until the gateway paid them. */
      const paidLate = async (ids: readonly string[]) => {
        await sandbox.faults({});
        await sandbox.advance(5);
        for (const id of ids) {
          await vi.waitFor(
            async () => {
              await sandbox.advance(5);
              bff.clock.advance(10_000);
              await bff.payouts.poller.runOnce();
              if ((await row(id)).state === 'failed')
                await post(support, `/api/payouts/${id}/refresh`, {});
              expect(await row(id)).toMatchObject({
                state: 'approved',
                error_code: 'PAID_AFTER_NOT_APPLIED',
              });
            },
            { timeout: 10_000, interval: 50 },
          );
        }
      };

      it('when payouts were paid after the not-applied verdict, then paidLate=true lists exactly them, newest first, page by page, decidedFrom keeps those decided since; any reader may list them', async () => {
        const first = await judgedNotApplied('55.55');
        const second = await judgedNotApplied('44.44');
        // Prepared again as the verdict allowed, and one of another amount: neither is paid late.
        const repeat = await prepare('55.55');
        const other = await prepare('55.50');
        await paidLate([first.id, second.id]);
        const firstDecided = new Date((await row(first.id)).decided_at ?? 0).toISOString();
        const secondDecided = new Date((await row(second.id)).decided_at ?? 0).toISOString();
        expect(secondDecided > firstDecided).toBe(true);

        const ids = async (client: TestClient, query: string) => {
          const res = await client.get(`/api/payouts?${query}`);
          expect(res.status, res.text).toBe(200);
          return PayoutListSchema.parse(res.json).items.map((p) => p.id);
        };
        // Every payout flagged so far (those of the tests before too), none other.
        const all = PayoutListSchema.parse(
          (await support.get('/api/payouts?paidLate=true&limit=200')).json,
        ).items;
        expect(all.map((p) => p.errorCode)).toEqual(all.map(() => 'PAID_AFTER_NOT_APPLIED'));
        expect(all.map((p) => p.id)).toEqual(expect.arrayContaining([first.id, second.id]));
        expect(all.map((p) => p.id)).not.toContain(repeat.payout.id);
        expect(all.map((p) => p.id)).not.toContain(other.payout.id);
        // Decided since this test's first: exactly this test's two, newest first, for any reader.
        const since = `paidLate=true&decidedFrom=${encodeURIComponent(firstDecided)}`;
        for (const client of [support, opsA]) {
          expect(await ids(client, since)).toEqual([second.id, first.id]);
        }
        expect(
          await ids(opsA, `paidLate=true&decidedFrom=${encodeURIComponent(secondDecided)}`),
        ).toEqual([second.id]);
        // The prepared-by-me view keeps the filter too (opsA prepared them all).
        expect(await ids(opsA, `${since}&view=mine`)).toEqual([second.id, first.id]);
        // Keyset pages, one payout each: the same payouts, each once.
        const walked = await walkPages(
          opsA,
          `/api/payouts?${since}`,
          (json) => PayoutListSchema.parse(json),
          1,
        );
        expect(walked.items.map((p) => p.id)).toEqual([second.id, first.id]);
        expect(walked.pages).toBe(2);
      });

      it('when a payout was paid after the not-applied verdict, then its page names the payouts of the same amount to the same destination prepared within 7 days after it, with their states; any other payout names none', async () => {
        const payout = await judgedNotApplied('33.33');
        const repeat = await prepare('33.33');
        const otherAmount = await prepare('33.30');
        await paidLate([payout.id]);
        // Prepared more than 7 days after it: no repeat of it.
        const muchLater = await prepare('33.33');
        const preparedAt = (await row(payout.id)).created_at;
        await bff.k
          .updateTable('payouts')
          .set({ created_at: preparedAt + 7 * DAY + 1 })
          .where('id', '=', muchLater.payout.id)
          .execute();
        // Prepared at the same 7 days after it: still a repeat of it.
        const weekLater = await prepare('33.33');
        await bff.k
          .updateTable('payouts')
          .set({ created_at: preparedAt + 7 * DAY })
          .where('id', '=', weekLater.payout.id)
          .execute();

        for (const client of [support, opsB]) {
          const res = await client.get(`/api/payouts/${payout.id}`);
          expect(res.status, res.text).toBe(200);
          const detail = PayoutDetailSchema.parse(res.json);
          expect(detail.errorCode).toBe('PAID_AFTER_NOT_APPLIED');
          // Oldest first, with what tells whether it was paid too.
          expect(detail.repeatCandidates).toEqual([
            {
              id: repeat.payout.id,
              state: 'pending_approval',
              orderid: repeat.payout.orderid,
              preparedBy: { id: repeat.payout.preparedBy.id, email: opsA.email },
              decidedBy: null,
              createdAt: repeat.payout.createdAt,
            },
            expect.objectContaining({
              id: weekLater.payout.id,
              createdAt: new Date(preparedAt + 7 * DAY).toISOString(),
            }),
          ]);
        }
        // Payouts not paid late carry none, even of the same kind.
        for (const id of [repeat.payout.id, otherAmount.payout.id, muchLater.payout.id]) {
          const detail = PayoutDetailSchema.parse((await opsA.get(`/api/payouts/${id}`)).json);
          expect(detail.repeatCandidates).toEqual([]);
        }
      });

      it('when payouts are listed paid late, newest first after a cursor, then the plan reads the partial index payouts_paid_late (0025) rather than every payout', async () => {
        const query = `select id from payouts where error_code = 'PAID_AFTER_NOT_APPLIED' and (created_at, id) < (${bff.clock.now()}, 'z') order by created_at desc, id desc limit 51`;
        const plan =
          variant.name === 'postgres'
            ? await bff.k.transaction().execute(async (trx) => {
                await sql`set local enable_seqscan = off`.execute(trx);
                return sql.raw<Record<string, unknown>>(`explain ${query}`).execute(trx);
              })
            : await sql.raw<Record<string, unknown>>(`explain query plan ${query}`).execute(bff.k);
        expect(JSON.stringify(plan.rows)).toContain('payouts_paid_late');
      });

      it('when the paid-late filter or decidedFrom is not a value they take, then 400 names the field and its rule', async () => {
        for (const [query, path, rule] of [
          ['paidLate=yes', 'query.paidLate', 'invalid_value'],
          ['paidLate=false', 'query.paidLate', 'invalid_value'],
          ['decidedFrom=yesterday', 'query.decidedFrom', 'invalid_format'],
        ] as const) {
          const res = await support.get(`/api/payouts?${query}`);
          expect(res.status, res.text).toBe(400);
          const fields = (res.json as ErrorEnvelope).error.details?.fields ?? [];
          expect(fields.map((f) => [f.path, f.rule])).toEqual([[path, rule]]);
        }
      });
    },
  );
}
