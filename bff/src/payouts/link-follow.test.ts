// Payment links whose callback was lost: the poller's slow status checks (first after
// `linkFollow.firstAfterMs`, then every `intervalMs`, until `horizonMs`) and the reader's
// "Check payment status" (POST /api/payment-links/:id/refresh), against the real sandbox process
// with callbacks dropped, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PaymentLinkDetailSchema,
  PaymentLinkRefreshResultSchema,
  PaymentLinkResultSchema,
  TransactionDetailSchema,
  TransactionPageSchema,
  type PaymentLink,
} from '@paydesk/shared/api';
import { payDb } from '../payments/db.js';
import { TransactionsService } from '../payments/transactions.js';
import { DB_VARIANTS, errorCode, type TestClient } from '../test-support/harness.js';
import { describeDuration, eventsOf, resolvePayoutsOptions } from './context.js';
import { createLogger } from '../logger.js';
import { createPayouts } from './index.js';
import { LINK_CHECK_TITLE, LINK_CHECKS_END } from './links.js';
import {
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

const MINUTE = 60_000;
const FOLLOW = {
  firstAfterMs: 5 * MINUTE,
  intervalMs: 15 * MINUTE,
  horizonMs: 24 * 60 * MINUTE,
  batchSize: 10,
  // every pass looks (the default looks once a minute per instance)
  scanEveryMs: 0,
};
const YEAR = String(new Date().getUTCFullYear() + 2);
/**
 * The last check's window opens this long after a link was sent: one interval (and a scan's
 * delay: scanEveryMs 0 here, the default poll.intervalMs) before the horizon.
 */
const LAST_FROM = FOLLOW.horizonMs - FOLLOW.intervalMs - resolvePayoutsOptions().poll.intervalMs;
const STOPPED = 'payment link status checks stopped after the last scheduled attempt';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payment links followed with status (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let finance: TestClient & { email: string };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl, { linkFollow: FOLLOW });
      finance = await bff.userWithRoles(['finance']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });
    afterEach(async () => {
      await sandbox.faults({});
    });

    /** A sale-form link of `amount` EUR, sent (its gateway orderid known from the form's reply). */
    const sentLink = async (amount: string): Promise<PaymentLink> => {
      const res = await post(finance, '/api/payment-links', {
        kind: 'sale-form',
        amount,
        currency: 'EUR',
        orderDesc: `Invoice ${amount}`,
        customer: TEST_CUSTOMER,
      });
      expect(res.status, res.text).toBe(200);
      const link = PaymentLinkResultSchema.parse(res.json).link;
      expect(link.state).toBe('sent');
      expect(link.orderid).not.toBeNull();
      return link;
    };

    /**
     * The customer fills in the link's page with a card the sandbox approves (or `declined`: one it
     * declines); the order completes.
     */
    const payPage = async (link: PaymentLink, outcome: 'approved' | 'declined' = 'approved') => {
      const res = await fetch(link.redirectUrl ?? '', {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          credit_card_number: outcome === 'approved' ? '4111111111111111' : '4000000000000002',
          card_printed_name: 'JANE DOE',
          expire_month: '05',
          expire_year: YEAR,
          cvv2: '321',
        }).toString(),
      });
      expect(res.status).toBe(303);
      await res.body?.cancel();
      await sandbox.advance(1);
      const atGateway = await sandbox.order(link.orderid ?? '');
      expect(atGateway.replyStatus).toBe(outcome);
      const dropped = (await sandbox.control(`/sandbox/callbacks?orderid=${link.orderid ?? ''}`))
        .json as { callbacks: { state: string }[] };
      expect(dropped.callbacks.map((c) => c.state)).toEqual(['dropped']);
    };

    const detail = async (c: TestClient, id: string) =>
      PaymentLinkDetailSchema.parse((await c.get(`/api/payment-links/${id}`)).json);

    /** The link's status checks, as its timeline keeps them (read from the database). */
    const checks = async (id: string) =>
      (await eventsOf(bff.k, `link:${id}`)).filter((e) => e.title.startsWith(LINK_CHECK_TITLE));

    /** The link's log lines saying its scheduled checks stopped. */
    const stoppedLogs = (id: string) =>
      bff.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.linkId === id && String(l.msg).startsWith(STOPPED));

    /**
     * Checks `link` on its schedule up to the horizon: the first check, one an interval before the
     * last check's window, the last at its start (logged), then none an interval later (still
     * before the horizon) nor past it. Returns its checks' timeline entries.
     */
    const followToTheEnd = async (link: PaymentLink) => {
      const { updated_at: sentAt } = await bff.k
        .selectFrom('payment_links')
        .select('updated_at')
        .where('id', '=', link.id)
        .executeTakeFirstOrThrow();
      try {
        bff.clock.advance(FOLLOW.firstAfterMs);
        await bff.payouts.poller.runOnce();
        bff.clock.advance(sentAt + LAST_FROM - FOLLOW.intervalMs - bff.clock.now());
        await bff.payouts.poller.runOnce();
        expect(await checks(link.id)).toHaveLength(2);
        expect(stoppedLogs(link.id)).toEqual([]);
        bff.clock.advance(FOLLOW.intervalMs);
        await bff.payouts.poller.runOnce();
        expect(await checks(link.id)).toHaveLength(3);
        expect(stoppedLogs(link.id)).toHaveLength(1);
        bff.clock.advance(FOLLOW.intervalMs);
        await bff.payouts.poller.runOnce();
        bff.clock.advance(FOLLOW.horizonMs);
        await bff.payouts.poller.runOnce();
        expect(stoppedLogs(link.id)).toHaveLength(1);
        return await checks(link.id);
      } finally {
        finance = await bff.userWithRoles(['finance']); // the old session timed out meanwhile
      }
    };

    const transactionsOf = (clientOrderId: string) =>
      payDb(bff.db)
        .selectFrom('transactions')
        .selectAll()
        .where('client_orderid', '=', clientOrderId)
        .execute();

    it('when a paid link’s callback is lost, then one poller pass after the first delay learns its order by status, final, as if the callback had come, and the link and the transactions list show it', async () => {
      await sandbox.faults({ callbacks: 'drop' });
      const link = await sentLink('3.33');
      await payPage(link);
      expect((await detail(finance, link.id)).order).toBeNull();

      // Not before the first delay.
      bff.clock.advance(FOLLOW.firstAfterMs - MINUTE);
      await bff.payouts.poller.runOnce();
      expect(await checks(link.id)).toEqual([]);

      bff.clock.advance(MINUTE);
      await bff.payouts.poller.runOnce();
      const shown = await detail(finance, link.id);
      expect(shown.state).toBe('sent');
      expect(shown.order).toMatchObject({ orderid: link.orderid, status: 'approved' });
      const [check] = await checks(link.id);
      expect(check).toMatchObject({
        kind: 'reconcile',
        title: `${LINK_CHECK_TITLE}: order ${link.orderid ?? ''} is approved, captured`,
        actor: null,
      });
      expect(check?.data).toMatchObject({ operation: 'status', outcome: 'reply', httpStatus: 200 });

      const list = TransactionPageSchema.parse(
        (await finance.get(`/api/transactions?q=${link.orderid ?? ''}`)).json,
      );
      expect(list.items.map((t) => [t.orderid, t.status])).toEqual([[link.orderid, 'approved']]);
      const order = TransactionDetailSchema.parse(
        (await finance.get(`/api/transactions/${shown.order?.transactionId ?? ''}`)).json,
      );
      expect(order).toMatchObject({
        amount: '3.33',
        currency: 'EUR',
        clientOrderId: link.clientOrderId,
      });
      // The timeline says status told it: no callback entry, and who learned it.
      expect(order.timeline.map((e) => e.kind)).not.toContain('callback');
      expect(order.timeline.map((e) => [e.kind, e.title])).toEqual([
        ['gateway', 'status: approved (captured)'],
        [
          'reconcile',
          `order learned by status, not by callback (none had come): a scheduled status check of payment link ${link.id}`,
        ],
      ]);

      // Final: never asked again.
      bff.clock.advance(FOLLOW.intervalMs + MINUTE);
      await bff.payouts.poller.runOnce();
      expect(await checks(link.id)).toHaveLength(1);
      // Nothing but status went to the gateway for it.
      const atGateway = await sandbox.order(link.orderid ?? '');
      expect(atGateway.operations.map((o) => o.type)).toEqual(['sale']);
    });

    it('when a link’s page was not used, then the check leaves it waiting with no order, asks again only after the interval, and past the horizon only its last check (none came in its window), once', async () => {
      const link = await sentLink('4.44');
      bff.clock.advance(FOLLOW.firstAfterMs);
      await bff.payouts.poller.runOnce();
      const first = await checks(link.id);
      expect(first.map((e) => e.title)).toEqual([
        `${LINK_CHECK_TITLE}: the customer has not paid yet`,
      ]);
      expect((await detail(finance, link.id)).order).toBeNull();
      expect(await transactionsOf(link.clientOrderId)).toEqual([]);

      bff.clock.advance(FOLLOW.intervalMs - MINUTE);
      await bff.payouts.poller.runOnce();
      expect(await checks(link.id)).toHaveLength(1);
      bff.clock.advance(MINUTE);
      await bff.payouts.poller.runOnce();
      expect(await checks(link.id)).toHaveLength(2);

      // Past the horizon (from when it was sent): its last check, which no pass made in its
      // window, once; then not asked any more.
      bff.clock.advance(FOLLOW.horizonMs);
      await bff.payouts.poller.runOnce();
      expect((await checks(link.id)).map((e) => e.title.endsWith(LINK_CHECKS_END))).toEqual([
        false,
        false,
        true,
      ]);
      bff.clock.advance(FOLLOW.intervalMs);
      await bff.payouts.poller.runOnce();
      expect(await checks(link.id)).toHaveLength(3);
      finance = await bff.userWithRoles(['finance']); // the old session timed out meanwhile
    });

    it('when a link’s page stays unused up to the horizon, then its last check is one interval before it, and the end of the checks is logged once at warn with what staff need to look the order up (no page address)', async () => {
      const link = await sentLink('8.88');
      const seen = await followToTheEnd(link);
      const unpaid = `${LINK_CHECK_TITLE}: the customer has not paid yet`;
      // The last says no further checks follow.
      expect(seen.map((e) => e.title)).toEqual([unpaid, unpaid, `${unpaid}${LINK_CHECKS_END}`]);
      const [line] = stoppedLogs(link.id);
      expect(line).toMatchObject({
        level: 40,
        linkId: link.id,
        kind: 'sale-form',
        orderid: link.orderid,
        clientOrderId: link.clientOrderId,
        endpointId: link.endpointId,
        state: 'sent',
        attempts: 3,
        lastCheck: `${LINK_CHECK_TITLE}: the customer has not paid yet`,
      });
      expect(JSON.stringify(line)).not.toContain(link.redirectUrl ?? '');
    });

    it('when every check of a paid link fails (an internal error), then each is an attempt in its timeline, asked again only on the schedule, and the last is logged once with the error', async () => {
      await sandbox.faults({ callbacks: 'drop' });
      const link = await sentLink('9.99');
      await payPage(link);
      const learn = vi.spyOn(TransactionsService.prototype, 'learn').mockImplementation(() => {
        throw new Error('the database went away');
      });
      let seen: Awaited<ReturnType<typeof followToTheEnd>>;
      try {
        seen = await followToTheEnd(link);
        expect(learn).toHaveBeenCalledTimes(3);
      } finally {
        learn.mockRestore();
      }
      const failed = `${LINK_CHECK_TITLE}: failed (internal error)`;
      expect(seen.map((e) => e.title)).toEqual([failed, failed, `${failed}${LINK_CHECKS_END}`]);
      expect(stoppedLogs(link.id)).toEqual([
        expect.objectContaining({
          level: 40,
          orderid: link.orderid,
          attempts: 3,
          lastError: 'internal error',
        }),
      ]);
      expect(await transactionsOf(link.clientOrderId)).toEqual([]);
    });

    it('when a scheduled check of a link whose order is known gets a status Paydesk cannot apply (an amount above 2^53 minor units), then it is recorded once (drift entry, audit row), the link’s checks stop saying so, logged once, and a check by hand still asks and reports it', async () => {
      await sandbox.faults({ callbacks: 'drop' });
      const link = await sentLink('9.98');
      await payPage(link);
      // The order known, not final (as learned while it was processing).
      const learned = await post(finance, `/api/payment-links/${link.id}/refresh`, {}, null);
      expect(learned.status, learned.text).toBe(200);
      const [known] = await transactionsOf(link.clientOrderId);
      await payDb(bff.db)
        .updateTable('transactions')
        .set({ status: 'processing', stage: null })
        .where('id', '=', known?.id ?? '')
        .execute();
      // The gateway's status of it now shows an amount Paydesk cannot hold.
      const gateway = bff.payouts.gateway;
      const send = gateway.send.bind(gateway);
      const ask = vi
        .spyOn(gateway, 'send')
        .mockImplementation(async (operation, endpointId, fields) => {
          const outcome = await send(operation, endpointId, fields);
          return operation === 'status' && outcome.kind === 'reply'
            ? {
                ...outcome,
                reply: {
                  ...outcome.reply,
                  fields: { ...outcome.reply.fields, amount: '99999999999999999.99' },
                },
              }
            : outcome;
        });
      const driftAudit = () =>
        bff.k
          .selectFrom('audit_log')
          .select('seq')
          .where('action', '=', 'transaction.drift')
          .where('target', '=', `transaction:${known?.id ?? ''}`)
          .execute();
      const driftEntries = async () =>
        (
          await payDb(bff.db)
            .selectFrom('transaction_timeline')
            .select('kind')
            .where('transaction_id', '=', known?.id ?? '')
            .execute()
        ).filter((e) => e.kind === 'drift');
      const scheduled = async () => (await checks(link.id)).filter((e) => e.kind === 'reconcile');
      const from = bff.logs.length;
      try {
        // (the check by hand counts as the latest: the next is due an interval after it)
        bff.clock.advance(FOLLOW.intervalMs);
        await bff.payouts.poller.runOnce();
        expect(ask).toHaveBeenCalledTimes(1);
        const [stopped] = await scheduled();
        expect(stopped?.title).toMatch(
          new RegExp(
            `^${LINK_CHECK_TITLE}: the status reply cannot be applied \\(The gateway's status of order `,
          ),
        );
        expect(stopped?.title.endsWith(LINK_CHECKS_END)).toBe(true);
        expect(stopped?.data).toMatchObject({ transactionId: known?.id });
        expect(await driftAudit()).toHaveLength(1);
        expect(await driftEntries()).toHaveLength(1);

        // Never asked again on the schedule, up to the horizon and past it.
        for (let at = 0; at < FOLLOW.horizonMs; at += FOLLOW.intervalMs) {
          bff.clock.advance(FOLLOW.intervalMs);
          await bff.payouts.poller.runOnce();
        }
        bff.clock.advance(FOLLOW.horizonMs);
        await bff.payouts.poller.runOnce();
        expect(ask).toHaveBeenCalledTimes(1);
        expect(await scheduled()).toHaveLength(1);
        expect(await driftAudit()).toHaveLength(1);
        expect(await driftEntries()).toHaveLength(1);
        const lines = bff.logs
          .slice(from)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.linkId === link.id);
        expect(lines.map((l) => [l.level, l.msg])).toEqual([
          [
            50,
            'payment link status checks stopped: the status shows an amount Paydesk cannot hold; check the order at the gateway',
          ],
        ]);
        expect(lines[0]).toMatchObject({ orderid: link.orderid, transactionId: known?.id });

        // By hand: still asked, and the failure reported.
        finance = await bff.userWithRoles(['finance']); // the old session timed out meanwhile
        const byHand = await post(finance, `/api/payment-links/${link.id}/refresh`, {}, null);
        expect(byHand.status, byHand.text).toBe(502);
        expect(errorCode(byHand)).toBe('GATEWAY_ERROR');
        expect(byHand.text).toContain('an amount Paydesk cannot hold exactly');
        expect(ask).toHaveBeenCalledTimes(2);
        expect(await driftAudit()).toHaveLength(2);
      } finally {
        ask.mockRestore();
      }
    });

    it('when no poller pass runs in a link’s last check window (no instance running), then the first pass after the horizon makes that last check and logs the end once, with two instances too, and no pass after asks again', async () => {
      const link = await sentLink('8.87');
      const { updated_at: sentAt } = await bff.k
        .selectFrom('payment_links')
        .select('updated_at')
        .where('id', '=', link.id)
        .executeTakeFirstOrThrow();
      // A second instance on the same database.
      const other = createPayouts({
        config: bff.config,
        db: bff.db,
        clock: bff.clock,
        logger: createLogger('info', {
          write: (line: string) => {
            bff.logs.push(line);
          },
        }),
        audit: bff.services.audit,
        options: { gatewayTimeoutMs: 2_000, random: () => 0, linkFollow: FOLLOW },
      });
      try {
        bff.clock.advance(FOLLOW.firstAfterMs);
        await bff.payouts.poller.runOnce();
        bff.clock.advance(sentAt + LAST_FROM - FOLLOW.intervalMs - bff.clock.now());
        await bff.payouts.poller.runOnce();
        expect(await checks(link.id)).toHaveLength(2);
        // Every instance down from here to past the horizon.
        bff.clock.advance(FOLLOW.horizonMs);
        await Promise.all([bff.payouts.poller.followLinks(), other.poller.followLinks()]);
        const seen = await checks(link.id);
        const unpaid = `${LINK_CHECK_TITLE}: the customer has not paid yet`;
        expect(seen.map((e) => e.title)).toEqual([unpaid, unpaid, `${unpaid}${LINK_CHECKS_END}`]);
        expect(stoppedLogs(link.id)).toEqual([
          expect.objectContaining({
            level: 40,
            orderid: link.orderid,
            attempts: 3,
            lastCheck: unpaid,
          }),
        ]);
        for (let i = 0; i < 3; i += 1) {
          bff.clock.advance(FOLLOW.intervalMs);
          await Promise.all([bff.payouts.poller.runOnce(), other.poller.runOnce()]);
        }
        expect(await checks(link.id)).toHaveLength(3);
        expect(stoppedLogs(link.id)).toHaveLength(1);
      } finally {
        await other.close();
        finance = await bff.userWithRoles(['finance']); // the old session timed out meanwhile
      }
    });

    it('when two instances look for due links at once, then each link is claimed by one of them only', async () => {
      const link = await sentLink('5.55');
      bff.clock.advance(FOLLOW.firstAfterMs);
      const claims = (
        await Promise.all([
          bff.payouts.services.links.claimDueChecks(),
          bff.payouts.services.links.claimDueChecks(),
          bff.payouts.services.links.claimDueChecks(),
        ])
      ).flat();
      expect(claims.filter((c) => c.row.id === link.id)).toHaveLength(1);
      for (const claim of claims) await bff.payouts.services.links.runScheduledCheck(claim);
      expect(await checks(link.id)).toHaveLength(1);
    });

    it('when a reader checks a sent link’s payment status, then a paid order is learned at once and audited, an unused page says not paid yet, and only readers may ask', async () => {
      const support = await bff.userWithRoles(['support']);
      const finance = await bff.userWithRoles(['finance']);
      const auditor = await bff.userWithRoles(['auditor']);
      const admin = await bff.userWithRoles(['admin']);

      const unpaid = await sentLink('6.66');
      const waiting = await post(support, `/api/payment-links/${unpaid.id}/refresh`, {}, null);
      expect(waiting.status, waiting.text).toBe(200);
      const notYet = PaymentLinkRefreshResultSchema.parse(waiting.json);
      expect(notYet.outcome).toBe('not_paid_yet');
      expect(notYet.message).toBe(
        `The customer has not paid yet: the page has not been used. Paydesk keeps checking by itself for ${describeDuration(FOLLOW.horizonMs)} after the link was sent.`,
      );
      expect(notYet.link.order).toBeNull();
      expect(await transactionsOf(unpaid.clientOrderId)).toEqual([]);
      // An account verification asks for no money: its customer has not verified, not "paid",
      // and its timeline says so without the gateway's `form_pending` (QA).
      const verification = await post(finance, '/api/payment-links', {
        kind: 'account-verification-form',
        orderDesc: 'Verify card',
        customer: TEST_CUSTOMER,
      });
      expect(verification.status, verification.text).toBe(200);
      const verify = PaymentLinkResultSchema.parse(verification.json).link;
      const unverified = PaymentLinkRefreshResultSchema.parse(
        (await post(support, `/api/payment-links/${verify.id}/refresh`, {}, null)).json,
      );
      expect(unverified.message).toMatch(
        /^The customer has not verified their card yet: the page has not been used\. /,
      );
      expect((await checks(verify.id)).map((e) => e.title)).toEqual([
        `${LINK_CHECK_TITLE}: the customer has not verified their card yet`,
      ]);

      await sandbox.faults({ callbacks: 'drop' });
      const paid = await sentLink('7.77');
      await payPage(paid);
      const res = await post(finance, `/api/payment-links/${paid.id}/refresh`, {}, null);
      expect(res.status, res.text).toBe(200);
      const found = PaymentLinkRefreshResultSchema.parse(res.json);
      expect(found.outcome).toBe('order_found');
      expect(found.link.order).toMatchObject({ orderid: paid.orderid, status: 'approved' });
      expect(found.message).toContain(`order ${paid.orderid ?? ''}: approved`);
      const [check] = await checks(paid.id);
      expect(check).toMatchObject({ kind: 'gateway', actor: finance.email });
      const order = TransactionDetailSchema.parse(
        (await support.get(`/api/transactions/${found.link.order?.transactionId ?? ''}`)).json,
      );
      expect(order.timeline.at(-1)?.title).toBe(
        `order learned by status, not by callback (none had come): a status check by ${finance.email} of payment link ${paid.id}`,
      );

      const audit = await bff.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'payment_link.refresh')
        .where('target', 'in', [`link:${unpaid.id}`, `link:${paid.id}`])
        .orderBy('seq')
        .execute();
      expect(
        audit.map((a) => [a.target, a.actor_email, a.outcome, JSON.parse(a.summary) as unknown]),
      ).toEqual([
        [
          `link:${unpaid.id}`,
          support.email,
          'success',
          expect.objectContaining({ result: 'not_paid_yet', orderStatus: null }),
        ],
        [
          `link:${paid.id}`,
          finance.email,
          'success',
          expect.objectContaining({
            result: 'order_found',
            orderid: paid.orderid,
            orderStatus: 'approved',
          }),
        ],
      ]);

      for (const reader of [admin, auditor]) {
        const refused = await post(reader, `/api/payment-links/${paid.id}/refresh`, {}, null);
        expect(refused.status).toBe(403);
        expect(errorCode(refused)).toBe('FORBIDDEN');
      }
      // CSRF like every state-changing route: without its header the request is refused.
      const noHeader = await fetch(`${bff.url}/api/payment-links/${paid.id}/refresh`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: bff.config.publicOrigin },
        body: '{}',
      });
      expect(noHeader.status).toBe(403);
      const body = await post(support, `/api/payment-links/${paid.id}/refresh`, { x: 1 }, null);
      expect(body.status).toBe(400);

      // Past the horizon the scheduled checks have ended: the message no longer promises them.
      bff.clock.advance(FOLLOW.horizonMs);
      const later = await bff.userWithRoles(['support']); // the old session timed out meanwhile
      const late = PaymentLinkRefreshResultSchema.parse(
        (await post(later, `/api/payment-links/${unpaid.id}/refresh`, {}, null)).json,
      );
      expect(late.message).toBe(
        `The customer has not paid yet: the page has not been used. Paydesk checked by itself for ${describeDuration(FOLLOW.horizonMs)} after the link was sent and no longer does: check the payment status again later.`,
      );
    });

    it('when a link’s order was declined, then the check’s timeline entry and its message say “declined” once, not “declined (declined)”', async () => {
      finance = await bff.userWithRoles(['finance']); // the earlier tests' session timed out
      await sandbox.faults({ callbacks: 'drop' });
      const link = await sentLink('8.88');
      await payPage(link, 'declined');
      const res = await post(finance, `/api/payment-links/${link.id}/refresh`, {}, null);
      expect(res.status, res.text).toBe(200);
      const found = PaymentLinkRefreshResultSchema.parse(res.json);
      expect(found.link.order).toMatchObject({ status: 'declined', stage: 'declined' });
      expect(found.message).toBe(
        `The gateway shows order ${link.orderid ?? ''}: declined. It is now among the transactions.`,
      );
      expect((await checks(link.id)).map((e) => e.title)).toEqual([
        `${LINK_CHECK_TITLE}: order ${link.orderid ?? ''} is declined`,
      ]);
    });

    it('when a link is not sent, then its status cannot be checked (409)', async () => {
      const ops = await bff.userWithRoles(['ops']);
      const held = PaymentLinkResultSchema.parse(
        (
          await post(ops, '/api/payment-links', {
            kind: 'payout-form',
            amount: '15.00',
            currency: 'EUR',
            orderDesc: 'Prize payout',
          })
        ).json,
      ).link;
      const res = await post(ops, `/api/payment-links/${held.id}/refresh`, {}, null);
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe('INVALID_STATE');
    });
  });
}

describe('link follow-up timings', () => {
  it('when the interval between checks is not well above a gateway call, then the options are refused', () => {
    expect(() =>
      resolvePayoutsOptions({ gatewayTimeoutMs: 15_000, linkFollow: { intervalMs: 20_000 } }),
    ).toThrow(/linkFollow.intervalMs/);
    expect(resolvePayoutsOptions().linkFollow).toMatchObject({
      firstAfterMs: 5 * MINUTE,
      intervalMs: 15 * MINUTE,
      horizonMs: 24 * 60 * MINUTE,
    });
  });
});
