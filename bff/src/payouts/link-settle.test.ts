// Payment links whose create (or a payout-form's approval) went unanswered (`unknown`): settled
// with `status` by their client_orderid, on the poller's schedule (`linkSettle`) and by a reader's
// "Check payment status" (POST /api/payment-links/:id/refresh), never sent again; against the real
// sandbox process with its fault injection, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PAYMENT_LINK_NOT_CREATED,
  PAYMENT_LINK_PAGE_LOST,
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkRefreshResultSchema,
  PaymentLinkResultSchema,
  type PaymentLink,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type TestClient } from '../test-support/harness.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';
import { LINK_CHECK_TITLE, LINK_SETTLE_END } from './links.js';
import {
  auditRows as auditRowsOf,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

/** The client's wait for a gateway reply, and a latency past it (the sandbox applies it then). */
const WAIT_MS = 400;
const LATE_MS = 1_200;
/** A lost request's safe delay: max(notAppliedAfterMs, the wait) + the wait = 10 s. */
const NOT_APPLIED_AFTER_MS = 9_600;
const SETTLE = {
  firstAfterMs: 1_000,
  intervalMs: 2_000,
  horizonMs: 60_000,
  batchSize: 10,
  // every pass looks
  scanEveryMs: 0,
};
const STOPPED = 'unknown payment link status checks stopped after the last scheduled attempt';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `unknown payment links settled with status (${variant.name})`,
    () => {
      let sandbox: Sandbox;
      let bff: PayoutsTestApp;
      let finance: TestClient & { email: string };
      let opsA: TestClient & { email: string };
      let opsB: TestClient & { email: string };
      let support: TestClient & { email: string };

      beforeAll(async () => {
        sandbox = await startSandbox();
        bff = await startPayoutsApp(variant, sandbox.baseUrl, {
          gatewayTimeoutMs: WAIT_MS,
          poll: { notAppliedAfterMs: NOT_APPLIED_AFTER_MS },
          linkSettle: SETTLE,
        });
      });
      beforeEach(async () => {
        // Signed in anew: the clock moved past the sessions' lifetime after the previous test.
        finance = await bff.userWithRoles(['finance']);
        opsA = await bff.userWithRoles(['ops']);
        opsB = await bff.userWithRoles(['ops']);
        support = await bff.userWithRoles(['support']);
      });
      afterAll(async () => {
        await bff.close();
        await sandbox.stop();
      });
      afterEach(async () => {
        await sandbox.faults({});
        // a request the sandbox held past the wait is over before the next test
        await new Promise((r) => setTimeout(r, LATE_MS));
        // Every link a test left unknown is past its checks' horizon before the next test.
        bff.clock.advance(SETTLE.horizonMs + 8 * 24 * 60 * 60_000);
      });

      /** A sale-form link of `amount` EUR created under `faults` on sale-form: left unknown. */
      const unknownSaleLink = async (
        amount: string,
        faults: Record<string, unknown>,
      ): Promise<PaymentLink> => {
        await sandbox.faults({ ...faults, operations: ['sale-form'] });
        const res = await post(finance, '/api/payment-links', {
          kind: 'sale-form',
          amount,
          currency: 'EUR',
          orderDesc: `Invoice ${amount}`,
          customer: TEST_CUSTOMER,
        });
        await sandbox.faults({});
        expect(res.status, res.text).toBe(200);
        const { link, message } = PaymentLinkResultSchema.parse(res.json);
        expect(link).toMatchObject({ state: 'unknown', orderid: null, redirectUrl: null });
        // It says what follows: checked with status, never sent again.
        expect(message).toMatch(/It is never sent again: Paydesk asks the gateway's status/);
        return link;
      };

      const detail = async (id: string) =>
        PaymentLinkDetailSchema.parse((await support.get(`/api/payment-links/${id}`)).json);
      const listed = async (id: string) =>
        PaymentLinkListSchema.parse(
          (await support.get('/api/payment-links?limit=200')).json,
        ).items.find((l) => l.id === id);
      const titles = async (id: string) => (await detail(id)).events.map((e) => e.title);
      /** The gateway's orders of `link`, found by its client_orderid (status, as a storefront asks). */
      const atGateway = async (link: PaymentLink) => {
        const outcome = await sandbox.merchant.send('status', link.endpointId, {
          client_orderid: link.clientOrderId,
        });
        return outcome.kind === 'reply' ? outcome.httpStatus : outcome.kind;
      };
      const stoppedLogs = (id: string) =>
        bff.logs
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.linkId === id && String(l.msg).startsWith(STOPPED));

      it('when sale-form links met a 500, a dropped reply and no answer in time, and a payout-form’s approval a dropped reply, then Paydesk asks status on its schedule: the orders the gateway has make their links sent with their orderid and say the page address was lost; the one it never made is not created after the safe delay; nothing is sent again (QA)', async () => {
        const failed = await unknownSaleLink('8.01', { errorRate: 1 });
        const dropped = await unknownSaleLink('8.02', { dropResponseRate: 1 });
        const late = await unknownSaleLink('8.03', { latencyMs: LATE_MS });
        const held = PaymentLinkResultSchema.parse(
          (
            await post(opsA, '/api/payment-links', {
              kind: 'payout-form',
              amount: '15.00',
              currency: 'EUR',
              orderDesc: 'Prize payout',
            })
          ).json,
        ).link;
        await sandbox.faults({ dropResponseRate: 1, operations: ['payout-form'] });
        const approved = await post(opsB, `/api/payment-links/${held.id}/approve`, {});
        await sandbox.faults({});
        expect(approved.status, approved.text).toBe(200);
        const payoutForm = PaymentLinkResultSchema.parse(approved.json).link;
        expect(payoutForm).toMatchObject({ state: 'unknown', orderid: null });
        // the late request reaches the gateway after the client gave up
        await new Promise((r) => setTimeout(r, LATE_MS));
        expect(await atGateway(failed)).toBe(404);

        // The 500's timeline says the gateway answered, as its banner does (QA).
        expect((await titles(failed.id))[1]).toBe(
          'Sale form sent to the gateway; it answered with an error (HTTP 500, INTERNAL)',
        );
        // Not before its first check is due.
        await bff.payouts.poller.runOnce();
        expect((await detail(dropped.id)).state).toBe('unknown');

        bff.clock.advance(SETTLE.firstAfterMs);
        await bff.payouts.poller.runOnce();
        for (const link of [dropped, late, payoutForm]) {
          const after = await detail(link.id);
          expect(after).toMatchObject({
            state: 'sent',
            redirectUrl: null,
            unanswered: null,
            errorCode: PAYMENT_LINK_PAGE_LOST,
            order: null,
          });
          // Its orderid is the gateway's order of its own client_orderid, its page never used.
          const order = await sandbox.order(after.orderid ?? '');
          expect(order).toMatchObject({
            clientOrderId: link.clientOrderId,
            orderStage: 'form_pending',
          });
          expect(after.errorMessage).toMatch(
            new RegExp(
              `^The gateway shows order ${after.orderid ?? ''} \\(processing, its page not used\\): the .+ was created, but its page address was lost with the gateway's reply \\(.+\\), so nobody can be sent to it\\. Create the link again for the (customer|payee); this one was not sent again\\.$`,
            ),
          );
          expect((await listed(link.id))?.state).toBe('sent');
          // Sent once: one gateway entry for its request, then the status check that found it.
          expect(after.events.filter((e) => e.title.includes('sent to the gateway'))).toHaveLength(
            1,
          );
          expect(after.events.at(-1)?.title).toBe(
            `${LINK_CHECK_TITLE}: order ${after.orderid ?? ''} exists at the gateway (processing); its page address was lost: create the link again`,
          );
          const audits = await auditRowsOf(bff, 'payment_link.reconciled', `link:${link.id}`);
          expect(audits.map((a) => [a.outcome, a.actor_email])).toEqual([['success', null]]);
        }
        // The 500's order is not at the gateway, but the safe delay has not passed: still unknown.
        expect(await detail(failed.id)).toMatchObject({ state: 'unknown', orderid: null });
        expect((await titles(failed.id)).at(-1)).toBe(
          `${LINK_CHECK_TITLE}: the gateway does not show the order yet (HTTP 404); its request may still be on its way`,
        );

        bff.clock.advance(NOT_APPLIED_AFTER_MS);
        await bff.payouts.poller.runOnce();
        const notCreated = await detail(failed.id);
        expect(notCreated).toMatchObject({
          state: 'failed',
          orderid: null,
          errorCode: PAYMENT_LINK_NOT_CREATED,
          unanswered: null,
        });
        expect(notCreated.errorMessage).toBe(
          `The link was not created: Paydesk did not learn the outcome of its sale form (the gateway answered it with an error: HTTP 500, INTERNAL), and 10 seconds after it was sent the gateway still does not show its order (${failed.clientOrderId}). Nothing was sent again and nobody can pay on it; create the link again if the customer still needs one.`,
        );
        expect(notCreated.events.at(-1)?.title).toBe(
          `${LINK_CHECK_TITLE}: the gateway does not show the order 10 seconds after it was sent (HTTP 404): not created; it may be made again`,
        );
        expect((await listed(failed.id))?.state).toBe('failed');
        expect(
          (await auditRowsOf(bff, 'payment_link.reconciled', `link:${failed.id}`)).map((a) => [
            a.outcome,
            a.error_code,
          ]),
        ).toEqual([['failed', PAYMENT_LINK_NOT_CREATED]]);
        // Never sent again: the gateway still does not have it.
        expect(await atGateway(failed)).toBe(404);
      });

      it('when a reader checks an unknown link’s payment status, then it is asked now: not known yet before the safe delay, not created after it, the order’s link sent; a gateway that does not answer is 503 and leaves it unknown', async () => {
        const failed = await unknownSaleLink('8.11', { errorRate: 1 });
        const dropped = await unknownSaleLink('8.12', { dropResponseRate: 1 });

        await sandbox.faults({ errorRate: 1, operations: ['status'] });
        const down = await post(support, `/api/payment-links/${dropped.id}/refresh`, {}, null);
        expect(down.status, down.text).toBe(503);
        await sandbox.faults({});
        expect((await detail(dropped.id)).state).toBe('unknown');
        expect((await titles(dropped.id)).at(-1)).toBe(
          `${LINK_CHECK_TITLE}: no answer (server-error)`,
        );

        const found = await post(support, `/api/payment-links/${dropped.id}/refresh`, {}, null);
        expect(found.status, found.text).toBe(200);
        const result = PaymentLinkRefreshResultSchema.parse(found.json);
        expect(result.outcome).toBe('order_found');
        expect(result.link).toMatchObject({ state: 'sent', errorCode: PAYMENT_LINK_PAGE_LOST });
        expect(result.message).toBe(result.link.errorMessage);
        expect(
          (await auditRowsOf(bff, 'payment_link.reconciled', `link:${dropped.id}`)).map((a) => [
            a.outcome,
            a.actor_email,
          ]),
        ).toEqual([['success', support.email]]);
        expect(
          (await auditRowsOf(bff, 'payment_link.refresh', `link:${dropped.id}`)).map((a) => [
            a.outcome,
            (JSON.parse(a.summary) as { result?: string }).result ?? null,
          ]),
        ).toEqual([
          ['failed', null],
          ['success', 'order_found'],
        ]);

        const early = await post(support, `/api/payment-links/${failed.id}/refresh`, {}, null);
        expect(early.status, early.text).toBe(200);
        const waiting = PaymentLinkRefreshResultSchema.parse(early.json);
        expect(waiting).toMatchObject({ outcome: 'not_known_yet', link: { state: 'unknown' } });
        expect(waiting.message).toMatch(
          /^The gateway does not show the link's order yet: its request may still be on its way\. It is never sent again\. Paydesk keeps asking by itself for 1 minute after it was sent; if the gateway still does not show the order 10 seconds after it was sent, the link is marked not created\.$/,
        );

        bff.clock.advance(NOT_APPLIED_AFTER_MS + WAIT_MS * 2);
        const late = await post(support, `/api/payment-links/${failed.id}/refresh`, {}, null);
        const verdict = PaymentLinkRefreshResultSchema.parse(late.json);
        expect(verdict).toMatchObject({
          outcome: 'not_created',
          link: { state: 'failed', errorCode: PAYMENT_LINK_NOT_CREATED },
        });
        expect(verdict.message).toMatch(/^The link was not created: /);
        // Settled: nothing left to check.
        const again = await post(support, `/api/payment-links/${failed.id}/refresh`, {}, null);
        expect(again.status).toBe(409);
        expect(errorCode(again)).toBe('INVALID_STATE');
      });

      it('when the gateway does not answer its status checks, then the link stays unknown and is asked on its schedule until the horizon; its last check says so and is logged once; a check by hand still settles it', async () => {
        const dropped = await unknownSaleLink('8.21', { dropResponseRate: 1 });
        await sandbox.faults({ errorRate: 1, operations: ['status'] });
        bff.clock.advance(SETTLE.firstAfterMs);
        await bff.payouts.poller.runOnce();
        // Due again only an interval after its last check.
        await bff.payouts.poller.runOnce();
        const checks = async () =>
          (await detail(dropped.id)).events.filter((e) => e.title.startsWith(LINK_CHECK_TITLE));
        expect((await checks()).map((e) => e.title)).toEqual([
          `${LINK_CHECK_TITLE}: no answer (server-error)`,
        ]);
        for (let at = SETTLE.firstAfterMs; at < SETTLE.horizonMs; at += SETTLE.intervalMs) {
          bff.clock.advance(SETTLE.intervalMs);
          await bff.payouts.poller.runOnce();
        }
        const all = await checks();
        expect(all.length).toBeGreaterThan(20);
        expect(
          all
            .slice(0, -1)
            .every((e) => e.title === `${LINK_CHECK_TITLE}: no answer (server-error)`),
        ).toBe(true);
        expect(all.at(-1)?.title).toBe(
          `${LINK_CHECK_TITLE}: no answer (server-error)${LINK_SETTLE_END}`,
        );
        expect(stoppedLogs(dropped.id)).toHaveLength(1);
        expect((await detail(dropped.id)).state).toBe('unknown');
        bff.clock.advance(SETTLE.intervalMs * 5);
        await bff.payouts.poller.runOnce();
        expect(await checks()).toHaveLength(all.length);

        await sandbox.faults({});
        const res = await post(support, `/api/payment-links/${dropped.id}/refresh`, {}, null);
        expect(PaymentLinkRefreshResultSchema.parse(res.json)).toMatchObject({
          outcome: 'order_found',
          link: { state: 'sent' },
        });
      });
    },
  );
}
