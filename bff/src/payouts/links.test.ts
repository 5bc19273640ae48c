// Payment links (hosted forms) and card info through the BFF's HTTP API, against the real sandbox
// process (demo merchant), on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CardInfoSchema,
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type PaymentLinkCreateInput,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { PAYMENT_LINK_DONE_PATH } from '../http/customer-pages.js';
import { payDb } from '../payments/db.js';
import { createLogger } from '../logger.js';
import { DB_VARIANTS, errorCode, type TestClient } from '../test-support/harness.js';
import { createPayouts } from './index.js';
import {
  auditRows as auditRowsOf,
  accountCreatedBy,
  DEMO,
  demoMerchant,
  inListOrder,
  post,
  startPayoutsApp,
  startSandbox,
  walkPages,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

function link(
  kind: PaymentLinkCreateInput['kind'],
  extra: Partial<PaymentLinkCreateInput> = {},
): PaymentLinkCreateInput {
  if (kind === 'payout-form')
    return { kind, amount: '15.00', currency: 'EUR', orderDesc: 'Prize payout', ...extra };
  if (kind === 'account-verification-form')
    return { kind, orderDesc: 'Verify card', customer: TEST_CUSTOMER, ...extra };
  return {
    kind,
    amount: '19.99',
    currency: 'EUR',
    orderDesc: 'Invoice 42',
    customer: TEST_CUSTOMER,
    redirectUrl: 'https://shop.example/thanks',
    ...extra,
  };
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payment links and card info (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    let finance: TestClient & { email: string };
    let support: TestClient & { email: string };
    let auditor: TestClient;
    let admin: TestClient;

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      finance = await bff.userWithRoles(['finance']);
      support = await bff.userWithRoles(['support']);
      auditor = await bff.userWithRoles(['auditor']);
      admin = await bff.userWithRoles(['admin']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });
    afterEach(async () => {
      await sandbox.faults({});
    });

    const auditRows = (action: string, target: string) => auditRowsOf(bff, action, target);

    for (const kind of [
      'sale-form',
      'preauth-form',
      'payment-form',
      'account-verification-form',
    ] as const) {
      it(`when finance creates a ${kind} link, then it is sent now and the customer's page address comes back`, async () => {
        const res = await post(finance, '/api/payment-links', link(kind));
        expect(res.status, res.text).toBe(200);
        const created = PaymentLinkResultSchema.parse(res.json).link;
        expect(created).toMatchObject({
          kind,
          state: 'sent',
          endpointId: '1001',
          customerEmail: 'buyer@example.com',
        });
        expect(created.clientOrderId).toBe(`pd-link-${created.id}`);
        const page = created.redirectUrl ?? '';
        expect(page.startsWith(`${sandbox.baseUrl}/hosted/`)).toBe(true);
        const html = await fetch(page);
        expect(html.status).toBe(200);
        await html.body?.cancel();
        const atGateway = await sandbox.order(created.orderid ?? '');
        expect(atGateway.clientOrderId).toBe(created.clientOrderId);
        expect(atGateway.serverCallbackUrl).toBe(`${bff.url}/gateway/callback?endpoint=1001`);
        expect(
          (await auditRows('payment_link.create', `link:${created.id}`)).map((a) => a.outcome),
        ).toEqual(['success']);
      });
    }

    it('when a reader opens a link, then it comes with its history (created, the gateway exchange); an unknown id is 404, a malformed one 400, a non-reader 403', async () => {
      const res = await post(finance, '/api/payment-links', link('sale-form'));
      const created = PaymentLinkResultSchema.parse(res.json).link;
      const detail = PaymentLinkDetailSchema.parse(
        (await support.get(`/api/payment-links/${created.id}`)).json,
      );
      expect(detail).toMatchObject({ id: created.id, state: 'sent', canDecide: false });
      expect(detail.redirectUrl).toBe(created.redirectUrl);
      expect(detail.events.map((e) => [e.kind, e.title, e.actor])).toEqual([
        ['staff', 'Sale form link created', finance.email],
        ['gateway', 'Sale form sent to the gateway; its page is ready', finance.email],
      ]);
      expect(detail.events[1]?.data).toMatchObject({ outcome: 'reply', httpStatus: 200 });
      expect(JSON.stringify(detail.events)).not.toContain(DEMO.controlKey);
      // Its order is not known to Paydesk until a callback (or a status check) tells of it.
      expect(detail.order).toBeNull();
      const lookup = await post(
        support,
        '/api/transactions/lookup',
        { orderid: created.orderid, client_orderid: created.clientOrderId },
        null,
      );
      expect(lookup.status, lookup.text).toBe(200);
      const learned = TransactionDetailSchema.parse(lookup.json);
      const after = PaymentLinkDetailSchema.parse(
        (await support.get(`/api/payment-links/${created.id}`)).json,
      );
      // The order's own last change, not the link's.
      expect(after.order).toEqual({
        transactionId: learned.id,
        orderid: created.orderid,
        status: learned.status,
        stage: learned.stage,
        updatedAt: learned.updatedAt,
        money: {
          currency: learned.currency,
          authorized: learned.amounts.authorized,
          captured: learned.amounts.captured,
          returned: learned.amounts.returned,
        },
        // the card the page was used with, masked as the order has it: none yet
        card: learned.card,
      });
      // The list says the same of each link (one query for all of them).
      const listed = PaymentLinkListSchema.parse(
        (await support.get('/api/payment-links?limit=200')).json,
      ).items;
      expect(listed.find((l) => l.id === created.id)?.order).toEqual(after.order);

      expect(errorCode(await support.get(`/api/payment-links/${randomUUID()}`))).toBe('NOT_FOUND');
      const malformed = await support.get('/api/payment-links/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect((await admin.get(`/api/payment-links/${created.id}`)).status).toBe(403);
    });

    it('when support looks up a link’s order by the orderid its page shows alone, then Paydesk asks with the link’s client_orderid on its endpoint and learns it (QA: it answered that the gateway needs the client_orderid)', async () => {
      const res = await post(finance, '/api/payment-links', link('sale-form'));
      const created = PaymentLinkResultSchema.parse(res.json).link;
      const lookup = await post(
        support,
        '/api/transactions/lookup',
        { orderid: created.orderid },
        null,
      );
      expect(lookup.status, lookup.text).toBe(200);
      const learned = TransactionDetailSchema.parse(lookup.json);
      expect(learned).toMatchObject({
        orderid: created.orderid,
        clientOrderId: created.clientOrderId,
        endpointId: created.endpointId,
      });
      const detail = PaymentLinkDetailSchema.parse(
        (await support.get(`/api/payment-links/${created.id}`)).json,
      );
      expect(detail.order?.transactionId).toBe(learned.id);
      // Asked on another endpoint than the link's, it is not the link's order there: the
      // client_orderid is still asked for, and nothing is learned.
      const other = PaymentLinkResultSchema.parse(
        (await post(finance, '/api/payment-links', link('sale-form'))).json,
      ).link;
      const elsewhere = await post(
        support,
        '/api/transactions/lookup',
        { orderid: other.orderid, endpointId: '1002' },
        null,
      );
      expect(errorCode(elsewhere)).toBe('VALIDATION_FAILED');
      expect((elsewhere.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe(
        'client_orderid',
      );
      expect(
        PaymentLinkDetailSchema.parse((await support.get(`/api/payment-links/${other.id}`)).json)
          .order,
      ).toBeNull();
    });

    it('when a link’s reply was lost, then it is unknown with no orderid, and its page still finds its order by client_orderid once Paydesk learns it', async () => {
      await sandbox.faults({ dropResponseRate: 1, operations: ['sale-form'] });
      const res = await post(finance, '/api/payment-links', link('sale-form'));
      await sandbox.faults({});
      const { link: lost, message } = PaymentLinkResultSchema.parse(res.json);
      expect(lost).toMatchObject({ state: 'unknown', orderid: null, redirectUrl: null });
      // One plain sentence, the form named in words; the client's reason code is said nowhere
      // staff read, neither in the reply nor in the link's recorded error (F3).
      expect(message).toMatch(/^The gateway's answer to the sale form was lost \(/);
      expect(lost.errorMessage).toBe('the connection closed before the gateway answered');
      for (const text of [message, lost.errorMessage ?? ''])
        expect(text).not.toMatch(/sale-form|connection-lost|server-error/);
      const lookup = await post(
        support,
        '/api/transactions/lookup',
        { client_orderid: lost.clientOrderId, endpointId: '1001' },
        null,
      );
      expect(lookup.status, lookup.text).toBe(200);
      const learned = TransactionDetailSchema.parse(lookup.json);
      const detail = PaymentLinkDetailSchema.parse(
        (await support.get(`/api/payment-links/${lost.id}`)).json,
      );
      expect(detail.order).toEqual({
        transactionId: learned.id,
        orderid: learned.orderid,
        status: learned.status,
        stage: learned.stage,
        updatedAt: learned.updatedAt,
        money: {
          currency: learned.currency,
          authorized: learned.amounts.authorized,
          captured: learned.amounts.captured,
          returned: learned.amounts.returned,
        },
        // the card the page was used with, masked as the order has it: none yet
        card: learned.card,
      });
      // Its order as Paydesk knows it, at its last change: learned, its page not used yet.
      expect(detail.events.map((e) => e.title)).toEqual([
        'Sale form link created',
        'Sale form sent to the gateway; its reply was lost',
        `order ${learned.orderid} learned by a status check: processing; the customer had not used the page`,
      ]);
    });

    it('when a payout-form link is created, then it is held until a second ops user approves it; the creator cannot', async () => {
      const res = await post(opsA, '/api/payment-links', link('payout-form'));
      expect(res.status, res.text).toBe(200);
      const held = PaymentLinkResultSchema.parse(res.json).link;
      expect(held).toMatchObject({
        kind: 'payout-form',
        state: 'pending_approval',
        redirectUrl: null,
        orderid: null,
      });
      const own = await post(opsA, `/api/payment-links/${held.id}/approve`, {});
      expect(own.status).toBe(403);
      expect(errorCode(own)).toBe('FOUR_EYES_REQUIRED');
      expect(
        (await auditRows('payment_link.approve', `link:${held.id}`)).map((a) => [
          a.outcome,
          a.error_code,
        ]),
      ).toEqual([['refused', 'FOUR_EYES_REQUIRED']]);
      const awaiting = PaymentLinkListSchema.parse(
        (await opsB.get('/api/payment-links?view=awaiting-my-approval')).json,
      );
      expect(awaiting.items.find((l) => l.id === held.id)?.canDecide).toBe(true);
      // Deciding is for ops: finance sees the held link but is offered nothing to decide.
      const byFinance = PaymentLinkListSchema.parse((await finance.get('/api/payment-links')).json);
      expect(byFinance.items.find((l) => l.id === held.id)?.canDecide).toBe(false);
      const financeQueue = PaymentLinkListSchema.parse(
        (await finance.get('/api/payment-links?view=awaiting-my-approval')).json,
      );
      expect(financeQueue.items).toEqual([]);

      const [a, b] = await Promise.all([
        post(opsB, `/api/payment-links/${held.id}/approve`, {}),
        post(opsB, `/api/payment-links/${held.id}/approve`, {}),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const sent = PaymentLinkResultSchema.parse((a.status === 200 ? a : b).json).link;
      expect(sent).toMatchObject({ state: 'sent', decidedBy: { email: opsB.email } });
      // When it was decided, as a payout says it; null while it waited.
      expect(held.decidedAt).toBeNull();
      const decided = await bff.k
        .selectFrom('payment_links')
        .select('decided_at')
        .where('id', '=', held.id)
        .executeTakeFirstOrThrow();
      expect(sent.decidedAt).toBe(new Date(decided.decided_at ?? Number.NaN).toISOString());
      const approvedDetail = PaymentLinkDetailSchema.parse(
        (await opsB.get(`/api/payment-links/${held.id}`)).json,
      );
      expect(approvedDetail.decidedAt).toBe(sent.decidedAt);
      expect(approvedDetail.events.map((e) => [e.kind, e.title])).toEqual([
        ['staff', 'Payout form link created'],
        ['staff', 'Payout form link approved'],
        ['gateway', 'Payout form sent to the gateway; its page is ready'],
      ]);
      expect(sent.redirectUrl?.startsWith(`${sandbox.baseUrl}/hosted/`)).toBe(true);
      const atGateway = await sandbox.order(sent.orderid ?? '');
      expect(atGateway).toMatchObject({
        clientOrderId: sent.clientOrderId,
        serverCallbackUrl: `${bff.url}/gateway/callback?endpoint=1001`,
      });
      const sentOrders = (await sandbox.control('/sandbox/callbacks')).json as {
        callbacks: unknown[];
      };
      expect(Array.isArray(sentOrders.callbacks)).toBe(true);
    });

    it('when a payout-form link names a return address, then every reply shows it before approval, and the approval says the page is for the payee; without one it is Paydesk’s own page', async () => {
      const res = await post(
        opsA,
        '/api/payment-links',
        link('payout-form', { redirectUrl: 'https://shop.example/payee-done' }),
      );
      expect(res.status, res.text).toBe(200);
      const held = PaymentLinkResultSchema.parse(res.json).link;
      expect(held.returnUrl).toBe('https://shop.example/payee-done');
      const queue = PaymentLinkListSchema.parse(
        (await opsB.get('/api/payment-links?view=awaiting-my-approval')).json,
      );
      expect(queue.items.find((l) => l.id === held.id)?.returnUrl).toBe(
        'https://shop.example/payee-done',
      );
      const detail = PaymentLinkDetailSchema.parse(
        (await opsB.get(`/api/payment-links/${held.id}`)).json,
      );
      expect(detail.returnUrl).toBe('https://shop.example/payee-done');
      const approved = await post(opsB, `/api/payment-links/${held.id}/approve`, {});
      expect(approved.status, approved.text).toBe(200);
      const result = PaymentLinkResultSchema.parse(approved.json);
      expect(result.link.returnUrl).toBe('https://shop.example/payee-done');
      expect(result.message).toMatch(/^Send this page address to the payee/);

      const plain = await post(opsA, '/api/payment-links', link('payout-form'));
      const own = PaymentLinkResultSchema.parse(plain.json).link;
      expect(own.returnUrl?.endsWith(PAYMENT_LINK_DONE_PATH)).toBe(true);
    });

    it('when the payee uses a payout-form’s page, then the link shows where the money went (the masked card, as its order has it) and its timeline tells of the order once its callback came', async () => {
      const created = await post(opsA, '/api/payment-links', link('payout-form'));
      const held = PaymentLinkResultSchema.parse(created.json).link;
      const approved = await post(opsB, `/api/payment-links/${held.id}/approve`, {});
      expect(approved.status, approved.text).toBe(200);
      const sent = PaymentLinkResultSchema.parse(approved.json).link;
      const filled = await fetch(sent.redirectUrl ?? '', {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          credit_card_number: '4111111111111111',
          card_printed_name: 'JANE PAYEE',
          expire_month: '05',
          expire_year: String(new Date().getUTCFullYear() + 2),
        }).toString(),
      });
      expect(filled.status).toBe(303);
      await filled.body?.cancel();
      await sandbox.advance(5);
      const callbacks = async () =>
        (
          (await sandbox.control(`/sandbox/callbacks?orderid=${sent.orderid ?? ''}`)).json as {
            callbacks: { state: string }[];
          }
        ).callbacks.map((c) => c.state);
      await vi.waitFor(async () => {
        expect(await callbacks()).toEqual(['delivered']);
      });
      // The order as the transactions screen has it: the card the payee typed, masked.
      const order = await payDb(bff.db)
        .selectFrom('transactions')
        .select('id')
        .where('client_orderid', '=', sent.clientOrderId)
        .executeTakeFirstOrThrow();
      const transaction = TransactionDetailSchema.parse(
        (await support.get(`/api/transactions/${order.id}`)).json,
      );
      expect(transaction.card?.masked).toMatch(/^(411111\*{6}|\*{4} )1111$/);
      const masked = transaction.card?.masked ?? '';
      for (const reader of [support, opsA, auditor]) {
        const detail = PaymentLinkDetailSchema.parse(
          (await reader.get(`/api/payment-links/${held.id}`)).json,
        );
        expect(detail.order).toMatchObject({
          orderid: sent.orderid,
          status: 'approved',
          stage: transaction.stage,
          card: { masked, lastFour: '1111', brand: transaction.card?.brand ?? null },
          // What went to the payee, as the order's own page says it; nothing came in.
          money: {
            currency: sent.currency,
            authorized: '0.00',
            captured: '0.00',
            returned: '0.00',
            paidOut: transaction.amounts.paidOut,
          },
        });
        expect(detail.order?.money?.paidOut).toBe(sent.amount);
        // The timeline goes on past the page being ready: the order, at its last change.
        expect(detail.events.map((e) => [e.kind, e.title])).toEqual([
          ['staff', 'Payout form link created'],
          ['staff', 'Payout form link approved'],
          ['gateway', 'Payout form sent to the gateway; its page is ready'],
          [
            'gateway',
            `the payee used the page: order ${sent.orderid ?? ''} approved, paid out to ${masked} (learned by callback)`,
          ],
        ]);
        expect(detail.events.at(-1)).toMatchObject({
          at: transaction.updatedAt,
          actor: null,
          data: {
            transactionId: transaction.id,
            orderid: sent.orderid,
            status: 'approved',
            card: masked,
            learnedBy: 'callback',
          },
        });
        // Nothing but the masked card: no name, no expiry, no page address.
        expect(JSON.stringify(detail.events.at(-1))).not.toMatch(/JANE|PAYEE|hosted/);
      }
      const listed = PaymentLinkListSchema.parse(
        (await support.get('/api/payment-links?limit=200')).json,
      ).items.find((l) => l.id === held.id);
      expect(listed?.order?.card?.masked).toBe(masked);
    });

    it('when an ops account the admin-creator of a payout-form link created (or the reverse) views the links, then canDecide is false and "awaiting my approval" leaves the link out, as the approval itself is refused; an untied ops user is offered it', async () => {
      const boss = await bff.userWithRoles(['ops', 'admin']);
      const puppet = await accountCreatedBy(bff, boss, ['ops']);
      const hold = async (by: TestClient) => {
        const res = await post(by, '/api/payment-links', link('payout-form'));
        expect(res.status, res.text).toBe(200);
        return PaymentLinkResultSchema.parse(res.json).link;
      };
      const byBoss = await hold(boss);
      const byPuppet = await hold(puppet);
      const offered = async (viewer: TestClient, id: string) => {
        const all = PaymentLinkListSchema.parse(
          (await viewer.get('/api/payment-links?kind=payout-form&limit=200')).json,
        );
        const awaiting = PaymentLinkListSchema.parse(
          (await viewer.get('/api/payment-links?view=awaiting-my-approval&limit=200')).json,
        );
        return {
          inList: all.items.find((l) => l.id === id)?.canDecide,
          awaiting: awaiting.items.some((l) => l.id === id),
        };
      };
      for (const [viewer, held] of [
        [puppet, byBoss],
        [boss, byPuppet],
      ] as const) {
        expect(await offered(viewer, held.id)).toEqual({ inList: false, awaiting: false });
        const refused = await post(viewer, `/api/payment-links/${held.id}/approve`, {});
        expect(errorCode(refused), refused.text).toBe('FOUR_EYES_REQUIRED');
      }
      for (const held of [byBoss, byPuppet])
        expect(await offered(opsB, held.id)).toEqual({ inList: true, awaiting: true });
    });

    it('when a held payout-form link is altered in the database, then approval is refused; a rejected one cannot be approved', async () => {
      const held = PaymentLinkResultSchema.parse(
        (await post(opsA, '/api/payment-links', link('payout-form'))).json,
      ).link;
      await bff.k
        .updateTable('payment_links')
        .set({ amount_minor: 1_500_000 })
        .where('id', '=', held.id)
        .execute();
      const res = await post(opsB, `/api/payment-links/${held.id}/approve`, {});
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe('CONFLICT');

      const other = PaymentLinkResultSchema.parse(
        (await post(opsA, '/api/payment-links', link('payout-form'))).json,
      ).link;
      const rej = await post(opsA, `/api/payment-links/${other.id}/reject`, {
        reason: 'not needed',
      });
      expect(rej.status, rej.text).toBe(200);
      expect(PaymentLinkResultSchema.parse(rej.json).link).toMatchObject({
        state: 'rejected',
        rejectReason: 'not needed',
      });
      expect(errorCode(await post(opsB, `/api/payment-links/${other.id}/approve`, {}))).toBe(
        'INVALID_STATE',
      );
    });

    it('when the creator withdraws their payout-form link, then it shows and is audited as a withdrawal (payment_link.withdraw, refusals too), not as a second person’s rejection', async () => {
      const create = async () =>
        PaymentLinkResultSchema.parse(
          (await post(opsA, '/api/payment-links', link('payout-form'))).json,
        ).link;
      const timeline = async (id: string) =>
        PaymentLinkDetailSchema.parse((await opsB.get(`/api/payment-links/${id}`)).json).events.map(
          (e) => [e.title, e.actor],
        );
      const own = await create();
      expect(own.withdrawn).toBe(false);
      const res = await post(opsA, `/api/payment-links/${own.id}/reject`, {
        reason: 'typed it twice',
      });
      expect(res.status, res.text).toBe(200);
      const withdrawn = PaymentLinkResultSchema.parse(res.json);
      expect(withdrawn.message).toBe('You withdrew the payout form; nothing was sent.');
      expect(withdrawn.link).toMatchObject({
        state: 'rejected',
        withdrawn: true,
        decidedBy: { email: opsA.email },
        rejectReason: 'typed it twice',
      });
      expect(await timeline(own.id)).toContainEqual([
        'Payout form link withdrawn by its creator',
        opsA.email,
      ]);
      // Withdrawing again: refused, and still audited as a withdrawal.
      const again = await post(opsA, `/api/payment-links/${own.id}/reject`, { reason: 'again' });
      expect(again.status).toBe(409);
      expect(errorCode(again)).toBe('INVALID_STATE');
      const rows = await auditRows('payment_link.withdraw', `link:${own.id}`);
      expect(rows.map((r) => [r.outcome, r.error_code])).toEqual([
        ['success', null],
        ['refused', 'INVALID_STATE'],
      ]);
      expect(JSON.parse(rows[0]?.summary ?? '{}')).toMatchObject({
        operation: 'withdraw',
        reason: 'typed it twice',
        result: 'rejected',
      });
      expect(await auditRows('payment_link.reject', `link:${own.id}`)).toEqual([]);

      const other = await create();
      const rejected = await post(opsB, `/api/payment-links/${other.id}/reject`, {
        reason: 'not due',
      });
      expect(rejected.status, rejected.text).toBe(200);
      expect(PaymentLinkResultSchema.parse(rejected.json)).toMatchObject({
        message: 'The payout form was rejected; nothing was sent.',
        link: { state: 'rejected', withdrawn: false, decidedBy: { email: opsB.email } },
      });
      expect(await timeline(other.id)).toContainEqual(['Payout form link rejected', opsB.email]);
      expect(
        (await auditRows('payment_link.reject', `link:${other.id}`)).map((r) => r.outcome),
      ).toEqual(['success']);
      expect(await auditRows('payment_link.withdraw', `link:${other.id}`)).toEqual([]);
      // The list and the detail say it too.
      const listed = PaymentLinkListSchema.parse(
        (await finance.get('/api/payment-links?kind=payout-form&state=rejected')).json,
      );
      const byId = new Map(listed.items.map((l) => [l.id, l.withdrawn]));
      expect([byId.get(own.id), byId.get(other.id)]).toEqual([true, false]);
      const detail = PaymentLinkDetailSchema.parse(
        (await finance.get(`/api/payment-links/${own.id}`)).json,
      );
      expect(detail.withdrawn).toBe(true);
    });

    it('when the role does not fit the kind or the body lacks what the kind needs, then 403 or 400 naming the field', async () => {
      expect(errorCode(await post(opsA, '/api/payment-links', link('sale-form')))).toBe(
        'FORBIDDEN',
      );
      expect(errorCode(await post(finance, '/api/payment-links', link('payout-form')))).toBe(
        'FORBIDDEN',
      );
      const noPhone = await post(
        finance,
        '/api/payment-links',
        link('sale-form', { customer: { ...TEST_CUSTOMER, phone: undefined } }),
      );
      expect((noPhone.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'customer.phone',
      ]);
      const noAmount = await post(
        finance,
        '/api/payment-links',
        link('preauth-form', { amount: undefined }),
      );
      expect((noAmount.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'amount',
      ]);
      const badUrl = await post(
        finance,
        '/api/payment-links',
        link('sale-form', { redirectUrl: 'javascript:alert(1)' }),
      );
      expect((badUrl.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'redirectUrl',
      ]);
      expect(errorCode(await post(finance, '/api/payment-links', link('sale-form'), null))).toBe(
        'IDEMPOTENCY_KEY_MISSING',
      );
    });

    it('when a return address is plain http to another host, then 400 names redirectUrl and the https rule and nothing is stored or sent; https, and http to localhost or 127.0.0.1, are taken', async () => {
      const count = async () =>
        Number(
          (
            await bff.k
              .selectFrom('payment_links')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      for (const [client, kind] of [
        [opsA, 'payout-form'],
        [finance, 'sale-form'],
      ] as const) {
        for (const redirectUrl of ['http://evil.example/x', 'http://localhost.evil.example/x']) {
          const res = await post(client, '/api/payment-links', link(kind, { redirectUrl }));
          expect(res.status, res.text).toBe(400);
          const error = (res.json as ErrorEnvelope).error;
          expect(error.code).toBe('VALIDATION_FAILED');
          expect(error.details?.fields).toEqual([
            {
              path: 'redirectUrl',
              rule: 'https_url',
              message: 'must be an absolute https URL (plain http only for localhost or 127.0.0.1)',
            },
          ]);
        }
      }
      expect(await count()).toBe(before);
      for (const redirectUrl of [
        'https://shop.example/payee-done',
        'http://localhost:5173/payee-done',
        'http://127.0.0.1:8080/payee-done',
      ]) {
        const res = await post(opsA, '/api/payment-links', link('payout-form', { redirectUrl }));
        expect(res.status, res.text).toBe(200);
        expect(PaymentLinkResultSchema.parse(res.json).link.returnUrl).toBe(redirectUrl);
      }
    });

    it('when the gateway refuses a link (400), then 502 GATEWAY_ERROR names its error code and the link is failed', async () => {
      const res = await post(
        finance,
        '/api/payment-links',
        link('sale-form', { endpointId: '2001', currency: 'GBP' }),
      );
      expect(res.status).toBe(502);
      const env = res.json as ErrorEnvelope;
      expect(env.error.details).toMatchObject({ gatewayErrorCode: expect.any(String) as string });
      expect(env.error.message).toContain(String(env.error.details?.gatewayErrorCode));
      const rows = await bff.k
        .selectFrom('payment_links')
        .select('state')
        .where('currency', '=', 'GBP')
        .execute();
      expect(rows).toEqual([{ state: 'failed' }]);
    });

    it('when each role calls each link route, then only the allowed roles get past authorization', async () => {
      const held = PaymentLinkResultSchema.parse(
        (await post(opsA, '/api/payment-links', link('payout-form'))).json,
      ).link;
      const forbidden = async (c: TestClient, method: 'GET' | 'POST', path: string) => {
        const r = method === 'GET' ? await c.get(path) : await post(c, path, {});
        return r.status === 403 && errorCode(r) === 'FORBIDDEN';
      };
      const routes: ['GET' | 'POST', string, TestClient[], TestClient[]][] = [
        ['GET', '/api/payment-links', [opsA, finance, support, auditor], [admin]],
        ['POST', '/api/payment-links', [opsA, finance], [support, auditor, admin]],
        [
          'POST',
          `/api/payment-links/${held.id}/approve`,
          [opsB],
          [finance, support, auditor, admin],
        ],
        [
          'POST',
          `/api/payment-links/${held.id}/reject`,
          [opsB],
          [finance, support, auditor, admin],
        ],
        ['POST', '/api/cards/abc/info', [support, finance], [opsA, auditor, admin]],
      ];
      for (const [method, path, allowed, refused] of routes) {
        for (const c of refused)
          expect(await forbidden(c, method, path), `${method} ${path}`).toBe(true);
        for (const c of allowed)
          expect(await forbidden(c, method, path), `${method} ${path}`).toBe(false);
      }
    });

    it("when support asks for a card reference's info with a reason, then only BIN, brand, masked number and expiry come back and the reason is audited", async () => {
      const clientOrderId = `shop-${randomUUID()}`;
      const sale = await sandbox.merchant.send('sale', '1001', {
        client_orderid: clientOrderId,
        order_desc: 'Test order',
        amount: '12.00',
        currency: 'EUR',
        address1: '1 Test Street',
        city: 'Testville',
        zip_code: '12345',
        country: 'DE',
        phone: '+49 301234567',
        email: 'buyer@example.com',
        ipaddress: '192.0.2.10',
        credit_card_number: '5555555555554444',
        card_printed_name: 'Card Holder',
        expire_month: '11',
        expire_year: '2034',
        cvv2: '123',
        redirect_url: 'https://shop.example/return',
      });
      expect(sale.kind === 'reply' && sale.httpStatus).toBe(200);
      const orderid = sale.kind === 'reply' ? (sale.reply.orderId ?? '') : '';
      await sandbox.advance(5);
      const ref = await sandbox.merchant.send('create-card-ref', '1001', {
        client_orderid: clientOrderId,
        orderid,
      });
      const cardRefId = ref.kind === 'reply' ? (ref.reply.fields['card-ref-id'] ?? '') : '';
      expect(cardRefId).not.toBe('');

      const noReason = await support.post(`/api/cards/${cardRefId}/info`, {});
      expect(noReason.status).toBe(400);
      expect((noReason.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'reason',
      ]);
      const res = await support.post(`/api/cards/${cardRefId}/info`, {
        reason: 'customer asked which card was charged (ticket 881)',
      });
      expect(res.status, res.text).toBe(200);
      const info = CardInfoSchema.parse(res.json);
      expect(info).toEqual({
        cardRefId,
        bin: '555555',
        brand: expect.any(String) as string,
        maskedNumber: expect.stringMatching(/^555555\*+4444$/) as string,
        expiryMonth: '11',
        expiryYear: '2034',
      });
      expect(res.text).not.toContain('Card Holder');
      expect(res.text).not.toContain('5555555555554444');
      const audit = await auditRows('card.info', `card-ref:${cardRefId}`);
      expect(audit.map((a) => [a.outcome, a.actor_email])).toEqual([
        ['refused', support.email],
        ['success', support.email],
      ]);
      expect(JSON.parse(audit[1]?.summary ?? '{}')).toMatchObject({
        reason: 'customer asked which card was charged (ticket 881)',
        bin: '555555',
      });

      const unknown = await finance.post('/api/cards/999999999/info', {
        reason: 'checking a reference',
      });
      expect(unknown.status).toBe(404);
      expect((unknown.json as ErrorEnvelope).error.details).toMatchObject({
        gatewayErrorCode: 'NOT_FOUND',
      });
      // The code stays in the details; staff read words (card-info.test.ts has the sentences).
      expect((unknown.json as ErrorEnvelope).error.message).toMatch(/^No card is stored under/);

      await sandbox.faults({ errorRate: 1, operations: ['get-card-info'] });
      const down = await finance.post(`/api/cards/${cardRefId}/info`, {
        reason: 'checking a reference',
      });
      expect(down.status).toBe(503);
      expect((down.json as ErrorEnvelope).error.message).toContain('INTERNAL');
      expect((await auditRows('card.info', `card-ref:${cardRefId}`)).map((a) => a.outcome)).toEqual(
        ['refused', 'success', 'failed'],
      );
    });

    it('when no merchant RSA key is configured, then a two-step payout is refused naming the mode before anything is stored or sent', async () => {
      const noKey = createPayouts({
        config: { ...bff.config, merchant: { ...demoMerchant(), rsaPrivateKeyPem: null } },
        db: bff.db,
        clock: bff.clock,
        logger: createLogger('silent', { write: () => undefined }),
        audit: bff.services.audit,
      });
      const actor = { id: 'u1', email: 'ops@paydesk.test', roles: ['ops' as const] };
      const body = {
        destination: {
          kind: 'ewallet' as const,
          ewalletType: 'paypal',
          ewalletId: 'x@example.com',
        },
        amount: '1.00',
        currency: 'EUR',
        orderDesc: 'x',
        mode: 'two-step' as const,
      };
      const before = await bff.k.selectFrom('payouts').select('id').execute();
      const err = await noKey.services.payouts.prepare(body, actor, null).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { fields: [{ path: 'mode', rule: 'rsa_key_configured' }] },
      });
      expect(await bff.k.selectFrom('payouts').select('id').execute()).toHaveLength(before.length);
    });

    it('when more links exist than one page holds, then following nextCursor reaches each link of every view exactly once and in order, the approval queue oldest first; a cursor of another view is a 400 naming it', async () => {
      const creator = await bff.userWithRoles(['ops']);
      const res = await post(creator, '/api/payment-links', link('payout-form'));
      expect(res.status, res.text).toBe(200);
      const first = PaymentLinkResultSchema.parse(res.json).link;
      const stored = await bff.k
        .selectFrom('payment_links')
        .selectAll()
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
      const at = bff.clock.now() - 7_200_000;
      await bff.k
        .updateTable('payment_links')
        .set({ created_at: at })
        .where('id', '=', first.id)
        .execute();
      // Nine more held links, the first four created at one instant (their order goes by id).
      const copies = Array.from({ length: 9 }, (_, i) => {
        const id = randomUUID();
        return {
          ...stored,
          id,
          client_orderid: `pd-link-${id}`,
          created_at: at + Math.max(0, i - 2) * 1_000,
        };
      });
      await bff.k.insertInto('payment_links').values(copies).execute();
      const parse = (json: unknown) => PaymentLinkListSchema.parse(json);
      const mine = await walkPages(creator, '/api/payment-links?view=mine', parse, 3);
      expect([mine.pages, mine.items.length]).toEqual([4, 10]);
      expect(mine.items).toEqual(inListOrder(mine.items, false));
      const mineIds = mine.items.map((l) => l.id);
      for (const view of ['awaiting-my-approval', 'all'] as const) {
        const walked = (await walkPages(opsB, `/api/payment-links?view=${view}`, parse, 4)).items;
        const ids = walked.map((l) => l.id);
        expect(new Set(ids).size, view).toBe(ids.length);
        expect(walked, view).toEqual(inListOrder(walked, view === 'awaiting-my-approval'));
        expect(
          ids.filter((id) => mineIds.includes(id)),
          view,
        ).toEqual(view === 'all' ? mineIds : mineIds.toReversed());
      }
      const other = parse((await opsB.get('/api/payment-links?limit=1')).json).nextCursor;
      expect(other).not.toBeNull();
      const bad = await opsB.get(
        `/api/payment-links?view=awaiting-my-approval&cursor=${encodeURIComponent(other ?? '')}`,
      );
      expect(bad.status).toBe(400);
      expect((bad.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'query.cursor',
      ]);
    });

    it('when the merchant credentials are wrong, then get-card-info answers with a staff message naming AUTHENTICATION_FAILED', async () => {
      const wrong = createPayouts({
        config: { ...bff.config, merchant: demoMerchant('WRONG-CONTROL-KEY-0000') },
        db: bff.db,
        clock: bff.clock,
        logger: createLogger('silent', { write: () => undefined }),
        audit: bff.services.audit,
      });
      const err = await wrong.services.cardInfo.info('1', undefined).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({
        code: 'GATEWAY_ERROR',
        details: { gatewayHttpStatus: 401, gatewayErrorCode: 'AUTHENTICATION_FAILED' },
      });
      expect((err as AppError).message).toMatch(/AUTHENTICATION_FAILED.*administrator/);
    });
  });
}
