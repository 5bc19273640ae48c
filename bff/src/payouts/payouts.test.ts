// Payouts under four-eyes approval through the BFF's HTTP API, against the real sandbox process
// (demo merchant), on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  IBAN_CHECK_DIGITS_MESSAGE,
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type Payout,
  type PayoutCreateInput,
  type PayoutDestination,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type Reply, type TestClient } from '../test-support/harness.js';
import { payDb } from '../payments/db.js';
import { Sealer } from '../services/sealing.js';
import { sealBinding } from './destination.js';
import {
  auditRows as auditRowsOf,
  accountCreatedBy,
  key,
  post,
  startPayoutsApp,
  userId,
  startSandbox,
  TEST_CARD,
  inListOrder,
  walkPages,
  type PayoutsTestApp,
  type Sandbox,
  passwordFor,
} from './test-support/app.js';

/**
 * What staff must never read in a payout's sentences (F2, F3): the gateway's operation names and
 * the gateway client's reason codes. The timeline's exchange data keeps them for engineers.
 */
const JARGON = /payout-(check|pay|form)|v2 payout|connection-lost|server-error|unreadable-reply/;

const BANK: PayoutDestination = {
  kind: 'bank',
  accountNumber: 'DE89370400440532013000',
  bankName: 'Test Bank',
  bankBic: 'COBADEFFXXX',
};
const EWALLET: PayoutDestination = {
  kind: 'ewallet',
  ewalletType: 'paypal',
  ewalletId: 'payee-7731@example.com',
};
const PHONE: PayoutDestination = {
  kind: 'phone',
  phone: '+7 900 1234567',
  fpsBankId: '100000000004',
};
/** Never to be found in a reply, a log line or a database row once preparation is over. */
const SECRETS = [
  '4111111111111111',
  'DE89370400440532013000',
  '370400440532',
  'payee-7731@example.com',
  '900 1234567',
  '9001234567',
];

function payoutBody(
  destination: PayoutDestination,
  extra: Partial<PayoutCreateInput> = {},
): PayoutCreateInput {
  return { destination, amount: '42.50', currency: 'EUR', orderDesc: 'Supplier refund', ...extra };
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payouts (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    let opsC: TestClient & { email: string };
    let finance: TestClient & { email: string };
    let support: TestClient & { email: string };
    let auditor: TestClient & { email: string };
    let admin: TestClient & { email: string };
    const replies: Reply[] = [];
    const keep = async (r: Promise<Reply>): Promise<Reply> => {
      const reply = await r;
      replies.push(reply);
      return reply;
    };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      opsC = await bff.userWithRoles(['ops', 'support']);
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

    const prepare = async (body: PayoutCreateInput, by: TestClient = opsA) => {
      const res = await keep(post(by, '/api/payouts', body));
      expect(res.status, res.text).toBe(200);
      return PayoutResultSchema.parse(res.json).payout;
    };
    const row = (id: string) =>
      bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    /** Lets the sandbox finish what is processing, then runs the BFF's poller once when it is due. */
    const settle = async () => {
      await sandbox.advance(5);
      bff.clock.advance(10_000);
      await bff.payouts.poller.runOnce();
    };
    /** settle() until the payout's outcome is known (a loaded machine may need more than one check). */
    const settleFinal = async (id: string): Promise<string> => {
      let state = '';
      await vi.waitFor(
        async () => {
          await settle();
          state = (await row(id)).state;
          expect(['checking', 'processing', 'unknown', 'sending']).not.toContain(state);
        },
        { timeout: 5_000, interval: 20 },
      );
      return state;
    };
    const auditRows = (action: string, target: string) => auditRowsOf(bff, action, target);

    it('when ops prepares a two-step payout, then payout-check is sent now and it waits for approval with only a masked destination and its keyed hash', async () => {
      const payout = await prepare(payoutBody(TEST_CARD));
      expect(payout).toMatchObject({
        mode: 'two-step',
        state: 'pending_approval',
        amount: '42.50',
        currency: 'EUR',
        endpointId: '1001',
        destination: { kind: 'card', masked: '411111******1111' },
        canDecide: false,
      });
      expect(payout.clientOrderId).toBe(`pd-payout-${payout.id}`);
      expect(payout.expiresAt).toBe(new Date(bff.clock.now() + 24 * 3600_000).toISOString());
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway).toMatchObject({
        clientOrderId: payout.clientOrderId,
        orderStage: 'registered',
      });
      expect(atGateway.operations.map((o) => o.type)).toEqual(['payout-check']);
      expect(atGateway.serverCallbackUrl).toBe(`${bff.url}/gateway/callback?endpoint=1001`);
      const stored = await row(payout.id);
      expect(stored.destination_sealed).toBeNull();
      expect(stored.destination_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).not.toContain('4111111111111111');
      const audit = await auditRows('payout.prepare', `payout:${payout.id}`);
      expect(audit.map((a) => a.outcome)).toEqual(['success']);
      expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
        destination: { masked: '411111******1111' },
        result: 'pending_approval',
      });
    });

    it('when an amount is typed without its decimals, then the prepare’s audit row writes it as money (“7.50”), as the payout does', async () => {
      const payout = await prepare(payoutBody(BANK, { amount: '7.5' }));
      expect(payout.amount).toBe('7.50');
      const [audit] = await auditRows('payout.prepare', `payout:${payout.id}`);
      expect(JSON.parse(audit?.summary ?? '{}')).toMatchObject({ amount: '7.50' });
    });

    it('when the preparer approves their own payout, then 403 FOUR_EYES_REQUIRED, nothing is sent and the refusal is audited; another ops user sends payout-pay once and it ends approved', async () => {
      const payout = await prepare(payoutBody(BANK));
      const own = await keep(post(opsA, `/api/payouts/${payout.id}/approve`, {}));
      expect(own.status).toBe(403);
      expect(errorCode(own)).toBe('FOUR_EYES_REQUIRED');
      expect((await sandbox.order(payout.orderid ?? '')).operations.map((o) => o.type)).toEqual([
        'payout-check',
      ]);
      const refused = await auditRows('payout.approve', `payout:${payout.id}`);
      expect(refused.map((r) => [r.outcome, r.error_code, r.actor_email])).toEqual([
        ['refused', 'FOUR_EYES_REQUIRED', opsA.email],
      ]);

      const listB = PayoutListSchema.parse(
        (await keep(opsB.get('/api/payouts?view=awaiting-my-approval'))).json,
      );
      expect(listB.items.find((p) => p.id === payout.id)?.canDecide).toBe(true);
      const listA = PayoutListSchema.parse(
        (await keep(opsA.get('/api/payouts?view=awaiting-my-approval'))).json,
      );
      expect(listA.items.map((p) => p.id)).not.toContain(payout.id);

      // Deciding is for ops: a support reader sees the payout but is offered nothing to decide.
      const bySupport = PayoutDetailSchema.parse(
        (await keep(support.get(`/api/payouts/${payout.id}`))).json,
      );
      expect(bySupport.canDecide).toBe(false);
      const supportQueue = PayoutListSchema.parse(
        (await keep(support.get('/api/payouts?view=awaiting-my-approval'))).json,
      );
      expect(supportQueue.items).toEqual([]);

      const ok = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(ok.status, ok.text).toBe(200);
      expect(PayoutResultSchema.parse(ok.json).payout).toMatchObject({
        state: 'processing',
        decidedBy: { email: opsB.email },
      });
      expect(await settleFinal(payout.id)).toBe('approved');
      const detail = PayoutDetailSchema.parse(
        (await keep(opsA.get(`/api/payouts/${payout.id}`))).json,
      );
      expect(detail.state).toBe('approved');
      expect(detail.events.map((e) => e.title)).toEqual(
        expect.arrayContaining([
          "check of the payee's details",
          'payout approved',
          'status before paying',
          'payment of the checked payout',
          'status check',
        ]),
      );
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.orderStage).toBe('paid');
      expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
      const approved = await auditRows('payout.approve', `payout:${payout.id}`);
      expect(approved.map((r) => r.outcome)).toEqual(['refused', 'success']);
      expect(
        (await auditRows('payout.reconciled', `payout:${payout.id}`))
          .map((r) => JSON.parse(r.summary) as { state: string })
          .map((s) => s.state),
      ).toEqual(['approved']);
      // the callback of the payout reached the payments core's receiver
      const callbacks = (
        await sandbox.control(`/sandbox/callbacks?orderid=${payout.orderid ?? ''}`)
      ).json as { callbacks: { url: string; state: string }[] };
      expect(callbacks.callbacks.map((c) => c.state)).toEqual(['delivered']);
    });

    it('when a card payout was paid, then its order offers no card reference and one asked for is refused (409), never sent, audited as refused: the card is the payee’s', async () => {
      const payout = await prepare(payoutBody(TEST_CARD));
      const approved = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(approved.status, approved.text).toBe(200);
      expect(await settleFinal(payout.id)).toBe('approved');
      const order = await payDb(bff.db)
        .selectFrom('transactions')
        .select('id')
        .where('orderid', '=', payout.orderid ?? '')
        .executeTakeFirstOrThrow();
      const detail = TransactionDetailSchema.parse(
        (await keep(finance.get(`/api/transactions/${order.id}`))).json,
      );
      expect(detail).toMatchObject({ type: 'payout', status: 'approved' });
      expect(detail.card).not.toBeNull();
      expect(detail.allowedActions).not.toContain('card-ref');

      const refused = await keep(post(finance, `/api/transactions/${order.id}/card-ref`, {}));
      expect(refused.status, refused.text).toBe(409);
      expect((refused.json as ErrorEnvelope).error).toMatchObject({
        code: 'INVALID_STATE',
        message:
          'The card of a payout is the payee’s, not a customer’s: Paydesk makes no reference to charge it.',
      });
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.operations.map((o) => o.type)).not.toContain('create-card-ref');
      expect(
        (await auditRows('transaction.card_ref', `transaction:${order.id}`)).map((r) => r.outcome),
      ).toEqual(['refused']);
    });

    it('when two ops users approve the same payout at once, then payout-pay reaches the gateway once and the other gets 409', async () => {
      const payout = await prepare(payoutBody(EWALLET));
      const [a, b] = await Promise.all([
        keep(post(opsB, `/api/payouts/${payout.id}/approve`, {})),
        keep(post(opsC, `/api/payouts/${payout.id}/approve`, {})),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      expect(errorCode(a.status === 409 ? a : b)).toBe('INVALID_STATE');
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
    });

    it('when the same approver sends two approvals at once with different keys, then one payout-pay is sent', async () => {
      const payout = await prepare(payoutBody(PHONE));
      const replies2 = await Promise.all(
        [1, 2, 3].map(() => keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}))),
      );
      expect(replies2.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      expect(
        (await sandbox.order(payout.orderid ?? '')).operations.filter(
          (o) => o.type === 'payout-pay',
        ),
      ).toHaveLength(1);
    });

    it('when the stored amount or destination hash is altered in the database, then approval is refused and nothing is sent', async () => {
      const amountTampered = await prepare(payoutBody(BANK));
      await bff.k
        .updateTable('payouts')
        .set({ amount_minor: 4_250_000 })
        .where('id', '=', amountTampered.id)
        .execute();
      const r1 = await keep(post(opsB, `/api/payouts/${amountTampered.id}/approve`, {}));
      expect(r1.status).toBe(409);
      expect(errorCode(r1)).toBe('CONFLICT');
      expect((r1.json as ErrorEnvelope).error.message).toMatch(/differs from what was checked/);

      const hashTampered = await prepare(payoutBody(TEST_CARD));
      await bff.k
        .updateTable('payouts')
        .set({ destination_hash: 'f'.repeat(64) })
        .where('id', '=', hashTampered.id)
        .execute();
      const r2 = await keep(post(opsB, `/api/payouts/${hashTampered.id}/approve`, {}));
      expect(r2.status).toBe(409);

      const bindingTampered = await prepare(payoutBody(TEST_CARD));
      const other = await row(amountTampered.id);
      await bff.k
        .updateTable('payouts')
        .set({ binding: other.binding })
        .where('id', '=', bindingTampered.id)
        .execute();
      expect(
        (await keep(post(opsB, `/api/payouts/${bindingTampered.id}/approve`, {}))).status,
      ).toBe(409);

      for (const p of [amountTampered, hashTampered, bindingTampered]) {
        expect((await sandbox.order(p.orderid ?? '')).operations.map((o) => o.type)).toEqual([
          'payout-check',
        ]);
        expect((await row(p.id)).state).toBe('pending_approval');
      }
      const refused = await auditRows('payout.approve', `payout:${hashTampered.id}`);
      expect(refused.map((r) => [r.outcome, r.error_code])).toEqual([['refused', 'CONFLICT']]);
    });

    it('when an ops account an admin-preparer created or gave the ops role to (or the creator of the preparer) views the payouts, then canDecide is false and "awaiting my approval" leaves the payout out, as the approval itself is refused; an untied ops user is offered it', async () => {
      const boss = await bff.userWithRoles(['ops', 'admin']);
      const puppet = await accountCreatedBy(bff, boss, ['ops']);
      const promoted = await bff.userWithRoles(['support']);
      const renamed = await bff.userWithRoles(['ops']);
      for (const [who, change] of [
        [promoted, { roles: ['support', 'ops'], reason: 'Joins the payout team' }],
        [renamed, { name: 'Renamed' }],
      ] as const) {
        const id = await userId(bff, who.email);
        const r = await boss.request('PATCH', `/api/users/${id}`, change);
        expect(r.status, r.text).toBe(200);
      }
      // `promoted` signs in again: its session predates the ops role.
      const promotedNow = bff.client();
      expect((await promotedNow.login(promoted.email, passwordFor(promoted.email))).status).toBe(
        200,
      );
      const byBoss = await prepare(payoutBody(TEST_CARD, { mode: 'single', amount: '3.01' }), boss);
      const byPuppet = await prepare(
        payoutBody(TEST_CARD, { mode: 'single', amount: '3.02' }),
        puppet,
      );

      const offered = async (viewer: TestClient, id: string) => {
        const all = PayoutListSchema.parse((await keep(viewer.get('/api/payouts?limit=200'))).json);
        const awaiting = PayoutListSchema.parse(
          (await keep(viewer.get('/api/payouts?view=awaiting-my-approval&limit=200'))).json,
        );
        const detail = PayoutDetailSchema.parse(
          (await keep(viewer.get(`/api/payouts/${id}`))).json,
        );
        return {
          inList: all.items.find((p) => p.id === id)?.canDecide,
          awaiting: awaiting.items.some((p) => p.id === id),
          detail: detail.canDecide,
        };
      };
      const none = { inList: false, awaiting: false, detail: false };
      for (const [viewer, payout] of [
        [puppet, byBoss],
        [promotedNow, byBoss],
        [boss, byPuppet],
      ] as const) {
        expect(await offered(viewer, payout.id)).toEqual(none);
        // The server agrees: the approval the screen no longer offers is refused.
        const refused = await keep(post(viewer, `/api/payouts/${payout.id}/approve`, {}));
        expect(errorCode(refused), refused.text).toBe('FOUR_EYES_REQUIRED');
      }
      const offeredToOthers = { inList: true, awaiting: true, detail: true };
      expect(await offered(renamed, byBoss.id)).toEqual(offeredToOthers);
      expect(await offered(opsB, byBoss.id)).toEqual(offeredToOthers);
      expect(await offered(opsB, byPuppet.id)).toEqual(offeredToOthers);
      expect((await row(byBoss.id)).state).toBe('pending_approval');
      expect((await row(byPuppet.id)).state).toBe('pending_approval');
    });

    it('when a single-mode payout is prepared, then nothing is sent and the destination is sealed; approval sends the v2 payout and wipes it', async () => {
      const payout = await prepare(payoutBody(TEST_CARD, { mode: 'single', amount: '10.00' }));
      expect(payout).toMatchObject({
        mode: 'single',
        state: 'pending_approval',
        orderid: null,
        // held at most PAYOUT_HOLD_MAX_AGE_MS (7 days by default): hold-lapse.test.ts
        expiresAt: new Date(Date.parse(payout.createdAt) + 7 * 86_400_000).toISOString(),
      });
      const held = await row(payout.id);
      expect(held.destination_sealed).toMatch(/^v1\./);
      expect(held.destination_sealed).not.toContain('4111');
      const cbs = (await sandbox.control('/sandbox/callbacks')).json as {
        callbacks: { url: string }[];
      };
      expect(cbs.callbacks.some((c) => c.url.includes(payout.clientOrderId))).toBe(false);

      expect(errorCode(await keep(post(opsA, `/api/payouts/${payout.id}/approve`, {})))).toBe(
        'FOUR_EYES_REQUIRED',
      );
      const ok = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(ok.status, ok.text).toBe(200);
      const sent = PayoutResultSchema.parse(ok.json).payout;
      expect(sent.state).toBe('processing');
      expect((await row(payout.id)).destination_sealed).toBeNull();
      expect(await settleFinal(payout.id)).toBe('approved');
      const atGateway = await sandbox.order(sent.orderid ?? '');
      expect(atGateway).toMatchObject({ clientOrderId: payout.clientOrderId, orderStage: 'paid' });
      expect(atGateway.operations.map((o) => o.type)).toEqual(['payout']);
    });

    it('when a single-mode payout has its sealed destination altered, then approval is refused', async () => {
      const a = await prepare(payoutBody(TEST_CARD, { mode: 'single' }));
      const b = await prepare(payoutBody(BANK, { mode: 'single' }));
      const sealedB = (await row(b.id)).destination_sealed;
      await bff.k
        .updateTable('payouts')
        .set({ destination_sealed: sealedB })
        .where('id', '=', a.id)
        .execute();
      const res = await keep(post(opsB, `/api/payouts/${a.id}/approve`, {}));
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe('CONFLICT');
      expect((await row(a.id)).state).toBe('pending_approval');
    });

    it('when ops prepares a single payout to an IBAN as printed, then the approver sees its country code, check digits and last four with the bank and BIC, the hash binds the normalised IBAN and approval pays it; wrong check digits are a 400 naming the field', async () => {
      const printed: PayoutCreateInput['destination'] = {
        kind: 'bank',
        accountNumber: 'de89 3704 0044 0532 0130 00',
        bankName: 'Commerzbank',
        bankBic: 'COBADEFFXXX',
      };
      const wrong = await keep(
        post(
          opsA,
          '/api/payouts',
          payoutBody(
            { ...printed, accountNumber: 'DE00370400440532013000' },
            { mode: 'single', amount: '1234.56' },
          ),
        ),
      );
      expect(wrong.status).toBe(400);
      expect((wrong.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'destination.accountNumber',
          rule: 'iban_check_digits',
          message: IBAN_CHECK_DIGITS_MESSAGE,
        },
      ]);

      const payout = await prepare(payoutBody(printed, { mode: 'single', amount: '1234.56' }));
      const shown = {
        kind: 'bank',
        masked: 'DE89 **** **** **** **30 00',
        label: 'Commerzbank (COBADEFFXXX)',
      };
      expect(payout.destination).toEqual(shown);
      const asApprover = PayoutDetailSchema.parse(
        (await keep(opsB.get(`/api/payouts/${payout.id}`))).json,
      );
      expect(asApprover.destination).toEqual(shown);
      expect(asApprover.canDecide).toBe(true);
      const stored = await row(payout.id);
      expect(stored.destination_masked).toBe('DE89 **** **** **** **30 00');
      expect(stored.destination_hash).toBe(
        bff.payouts.hasher.hash({ ...printed, accountNumber: 'DE89370400440532013000' }),
      );
      const ok = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(ok.status, ok.text).toBe(200);
      expect(await settleFinal(payout.id)).toBe('approved');
    });

    it('when a single payout held from before account numbers were normalised (an IBAN in lower case) is approved, then its hash and binding still match and it is paid; its mask stays as recorded', async () => {
      const payout = await prepare(payoutBody(BANK, { mode: 'single', amount: '7.77' }));
      const before: PayoutDestination = { ...BANK, accountNumber: 'de89370400440532013000' };
      const hash = bff.payouts.hasher.hash(before);
      const sealer = new Sealer(bff.config.sessionSecret);
      const held = await row(payout.id);
      await bff.k
        .updateTable('payouts')
        .set({
          destination_sealed: sealer.seal(JSON.stringify(before)),
          destination_masked: '******************3000',
          destination_hash: hash,
          binding: sealBinding(sealer, {
            id: held.id,
            mode: held.mode,
            endpointId: held.endpoint_id,
            clientOrderId: held.client_orderid,
            orderid: held.orderid,
            amountMinor: String(held.amount_minor),
            currency: held.currency,
            destinationHash: hash,
          }),
        })
        .where('id', '=', payout.id)
        .execute();
      const asApprover = PayoutDetailSchema.parse(
        (await keep(opsB.get(`/api/payouts/${payout.id}`))).json,
      );
      expect(asApprover.destination.masked).toBe('******************3000');
      const ok = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(ok.status, ok.text).toBe(200);
      expect(await settleFinal(payout.id)).toBe('approved');
    });

    it('when a payout is rejected (by any ops user, the preparer too), then it cannot be approved and a held destination is wiped', async () => {
      const held = await prepare(payoutBody(EWALLET, { mode: 'single' }));
      const missing = await keep(post(opsA, `/api/payouts/${held.id}/reject`, {}));
      expect(missing.status).toBe(400);
      expect((missing.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('reason');
      const rej = await keep(
        post(opsA, `/api/payouts/${held.id}/reject`, { reason: 'wrong beneficiary' }),
      );
      expect(rej.status, rej.text).toBe(200);
      expect(PayoutResultSchema.parse(rej.json).payout).toMatchObject({
        state: 'rejected',
        rejectReason: 'wrong beneficiary',
        decidedBy: { email: opsA.email },
      });
      expect((await row(held.id)).destination_sealed).toBeNull();
      const again = await keep(post(opsB, `/api/payouts/${held.id}/approve`, {}));
      expect(again.status).toBe(409);
      expect(errorCode(again)).toBe('INVALID_STATE');

      const checked = await prepare(payoutBody(BANK));
      expect(
        (await keep(post(opsB, `/api/payouts/${checked.id}/reject`, { reason: 'duplicate' })))
          .status,
      ).toBe(200);
      expect((await sandbox.order(checked.orderid ?? '')).operations.map((o) => o.type)).toEqual([
        'payout-check',
      ]);
      expect(
        (await auditRows('payout.reject', `payout:${checked.id}`)).map((r) => r.outcome),
      ).toEqual(['success']);
    });

    it('when the registration expired at the gateway (24 h on the sandbox clock), then approval is refused and the payout shows expired with an expiry entry and audit row', async () => {
      const payout = await prepare(payoutBody(BANK));
      await sandbox.advance(24 * 3600 + 60);
      const res = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe('INVALID_STATE');
      expect((res.json as ErrorEnvelope).error.message).toMatch(/expired/);
      const detail = PayoutDetailSchema.parse(
        (await keep(opsB.get(`/api/payouts/${payout.id}`))).json,
      );
      expect(detail.state).toBe('expired');
      expect(detail.events.map((e) => e.title).slice(-2)).toEqual([
        'status before paying',
        'expired at the gateway before it was paid',
      ]);
      const expired = await auditRows('payout.expired', `payout:${payout.id}`);
      expect(expired.map((r) => [r.actor_id, r.outcome])).toEqual([[null, 'success']]);
      expect(JSON.parse(expired[0]?.summary ?? '{}')).toMatchObject({
        state: 'expired',
        approvalAttemptedBy: opsB.email,
      });
      expect((await sandbox.order(payout.orderid ?? '')).operations.map((o) => o.type)).toEqual([
        'payout-check',
      ]);
    });

    it("when the payout's callback reaches the payments core, then its status check is due at once and the payout ends approved", async () => {
      const payout = await prepare(payoutBody(BANK, { amount: '8.00' }));
      expect((await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}))).status).toBe(200);
      await sandbox.advance(5);
      await vi.waitFor(async () => {
        expect((await row(payout.id)).poll_next_at).toBeLessThanOrEqual(bff.clock.now());
      });
      await bff.payouts.poller.runOnce();
      expect((await row(payout.id)).state).toBe('approved');
      const learned = await payDb(bff.db)
        .selectFrom('transactions')
        .select(['status', 'type'])
        .where('orderid', '=', payout.orderid ?? '')
        .executeTakeFirstOrThrow();
      expect(learned.status).toBe('approved');
    });

    it('when an instance stopped while sending a held payout, then it becomes unknown, its destination is wiped and status shows it was never applied', async () => {
      const payout = await prepare(payoutBody(TEST_CARD, { mode: 'single', amount: '6.00' }));
      const approver = await bff.k
        .selectFrom('users')
        .select('id')
        .where('email', '=', opsB.email)
        .executeTakeFirstOrThrow();
      await bff.k
        .updateTable('payouts')
        .set({
          state: 'sending',
          decided_by: approver.id,
          decided_by_email: opsB.email,
          decided_at: bff.clock.now() - 50_000,
        })
        .where('id', '=', payout.id)
        .execute();
      await bff.payouts.poller.runOnce();
      expect(await row(payout.id)).toMatchObject({ state: 'unknown', destination_sealed: null });
      bff.clock.advance(15_000);
      await bff.payouts.poller.runOnce();
      expect(await row(payout.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
      const cbs = (await sandbox.control('/sandbox/callbacks')).json as {
        callbacks: { url: string; params?: Record<string, string> }[];
      };
      expect(JSON.stringify(cbs)).not.toContain(payout.clientOrderId);
    });

    it('when the database is asked to record the preparer as the approver, then it refuses', async () => {
      const payout = await prepare(payoutBody(EWALLET, { mode: 'single' }));
      const preparer = await row(payout.id);
      await expect(
        bff.k
          .updateTable('payouts')
          .set({ state: 'sending', decided_by: preparer.prepared_by })
          .where('id', '=', payout.id)
          .execute(),
      ).rejects.toThrow(/check/i);
    });

    it('when 24 h pass on the BFF clock, then a checked payout is listed as expired, approval is refused without asking the gateway and the expiry is recorded', async () => {
      const payout = await prepare(payoutBody(EWALLET));
      bff.clock.advance(24 * 3600_000 + 1);
      // sessions lapse too: everyone signs in again
      for (const c of [opsA, opsB, opsC, finance, support, auditor, admin]) {
        expect((await c.login(c.email, passwordFor(c.email))).status).toBe(200);
      }
      const expired = PayoutListSchema.parse(
        (await keep(opsB.get('/api/payouts?state=expired'))).json,
      );
      expect(expired.items.find((p) => p.id === payout.id)?.state).toBe('expired');
      const awaiting = PayoutListSchema.parse(
        (await keep(opsB.get('/api/payouts?view=awaiting-my-approval'))).json,
      );
      expect(awaiting.items.map((p) => p.id)).not.toContain(payout.id);
      const res = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(res.status).toBe(409);
      expect((await row(payout.id)).state).toBe('expired');
      const detail = PayoutDetailSchema.parse(
        (await keep(opsB.get(`/api/payouts/${payout.id}`))).json,
      );
      expect(detail.events.map((e) => e.title).at(-1)).toBe(
        'expired at the gateway before it was paid',
      );
      expect(
        (await auditRows('payout.expired', `payout:${payout.id}`)).map((r) => r.actor_id),
      ).toEqual([null]);
    });

    it('when the payout-pay reply is dropped, then the payout is unknown, reconciled with status to approved, and payout-pay was sent once', async () => {
      const payout = await prepare(payoutBody(TEST_CARD, { amount: '77.00' }));
      await sandbox.faults({ dropResponseRate: 1, operations: ['payout-pay'] });
      const res = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(res.status, res.text).toBe(200);
      const result = PayoutResultSchema.parse(res.json);
      expect(result.payout.state).toBe('unknown');
      // One plain sentence: the answer was lost, in words; never an operation or reason code;
      // what happens next said truthfully (not sent again on its own, but it may be paid again).
      expect(result.message).toBe(
        `Not known yet whether the payout was paid (the connection closed before the gateway answered): Paydesk does not send it again on its own but checks its status, and if the gateway does not show it, an ops user other than ${opsA.email} can pay it again.`,
      );
      expect(result.message).not.toMatch(JARGON);
      await sandbox.faults({});
      // a new approval is refused: nothing is sent again
      expect((await keep(post(opsC, `/api/payouts/${payout.id}/approve`, {}))).status).toBe(409);
      expect(await settleFinal(payout.id)).toBe('approved');
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
      expect(atGateway.orderStage).toBe('paid');
      // audited as it was: the approval's outcome unknown, the reconciliation's verdict paid
      const approvals = await auditRows('payout.approve', `payout:${payout.id}`);
      expect(approvals.map((a) => a.outcome)).toEqual(['unknown', 'refused']);
      const reconciled = await auditRows('payout.reconciled', `payout:${payout.id}`);
      expect(
        reconciled.map((a) => [a.outcome, (JSON.parse(a.summary) as { state?: string }).state]),
      ).toEqual([['success', 'approved']]);
    });

    it('when a dropped v2 payout reply is reconciled, then the payout learns its order id and final status', async () => {
      const payout = await prepare(payoutBody(BANK, { mode: 'single', amount: '5.00' }));
      await sandbox.faults({ dropResponseRate: 1, operations: ['payout'] });
      const res = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      const dropped = PayoutResultSchema.parse(res.json);
      expect(dropped.payout).toMatchObject({ state: 'unknown', orderid: null });
      // A single payout is never paid again: if the gateway does not show it, it is prepared again.
      expect(dropped.message).toBe(
        'Not known yet whether the payout was paid (the connection closed before the gateway answered): Paydesk does not send it again on its own but checks its status, and if the gateway does not show it, it is marked failed and must be prepared again.',
      );
      expect(dropped.message).not.toMatch(JARGON);
      expect((await row(payout.id)).destination_sealed).toBeNull();
      await sandbox.faults({});
      expect(await settleFinal(payout.id)).toBe('approved');
      const after = await row(payout.id);
      expect(after.orderid).toMatch(/^\d+$/);
    });

    /**
     * A two-step payout whose payout-pay reply was dropped (unknown), then the gateway down for
     * the whole reconcile horizon: the poller gives up (poll_next_at NULL). The gateway is back.
     */
    const gaveUp = async (amount: string) => {
      const payout = await prepare(payoutBody(TEST_CARD, { amount }));
      await sandbox.faults({ dropResponseRate: 1, operations: ['payout-pay'] });
      const res = await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      expect(PayoutResultSchema.parse(res.json).payout).toMatchObject({
        state: 'unknown',
        checksStopped: false,
      });
      await sandbox.faults({ errorRate: 1, operations: ['status'] });
      // the first check was an hour ago: this one is the last scheduled attempt
      await bff.k
        .updateTable('payouts')
        .set({ poll_first_at: bff.clock.now() - 3600_000, poll_next_at: bff.clock.now() })
        .where('id', '=', payout.id)
        .execute();
      await bff.payouts.poller.runOnce();
      expect(await row(payout.id)).toMatchObject({ state: 'unknown', poll_next_at: null });
      expect(await auditRows('payout.reconcile_gave_up', `payout:${payout.id}`)).toHaveLength(1);
      // Its page is told that Paydesk no longer asks by itself.
      expect(
        PayoutDetailSchema.parse((await keep(opsB.get(`/api/payouts/${payout.id}`))).json)
          .checksStopped,
      ).toBe(true);
      // Logged: each failed exchange at warn, the end of the checks at error.
      const lines = bff.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.payoutId === payout.id || l.clientOrderId === `pd-payout-${payout.id}`);
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            level: 40,
            operation: 'status',
            endpointId: payout.endpointId,
            reason: 'server-error',
            httpStatus: 500,
          }),
          expect.objectContaining({
            level: 50,
            msg: expect.stringContaining('payout status checks stopped') as unknown,
            endpointId: payout.endpointId,
            state: 'unknown',
            lastError: 'server-error',
          }),
        ]),
      );
      await sandbox.faults({});
      return payout;
    };

    it('when the checks of an unknown payout gave up and its callback then arrives, then one status check is due at once and the payout ends approved', async () => {
      const payout = await gaveUp('31.00');
      await sandbox.advance(5);
      await vi.waitFor(async () => {
        const after = await row(payout.id);
        expect(after.poll_next_at).not.toBeNull();
        expect(after.poll_next_at ?? Infinity).toBeLessThanOrEqual(bff.clock.now());
      });
      await bff.payouts.poller.runOnce();
      expect((await row(payout.id)).state).toBe('approved');
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
    });

    it('when the checks of an unknown payout gave up, then "Check payment status" (POST /api/payouts/:id/refresh) settles it without sending anything, audited; a settled payout or one leased by another instance is refused with 409', async () => {
      const payout = await gaveUp('32.00');
      await sandbox.advance(5);
      // another instance holds the payout's lease (its check under way): refused, nothing asked
      await bff.k
        .updateTable('payouts')
        .set({ lease_owner: 'another-instance', lease_until: bff.clock.now() + 30_000 })
        .where('id', '=', payout.id)
        .execute();
      const busy = await keep(post(support, `/api/payouts/${payout.id}/refresh`, {}));
      expect(busy.status, busy.text).toBe(409);
      expect((busy.json as ErrorEnvelope).error.message).toMatch(/under way/);
      expect((await row(payout.id)).state).toBe('unknown');
      await bff.k
        .updateTable('payouts')
        .set({ lease_owner: null, lease_until: null })
        .where('id', '=', payout.id)
        .execute();

      const res = await keep(post(support, `/api/payouts/${payout.id}/refresh`, {}));
      expect(res.status, res.text).toBe(200);
      const result = PayoutResultSchema.parse(res.json);
      expect(result.payout.state).toBe('approved');
      expect(result.message).toMatch(/approved/);
      expect(await row(payout.id)).toMatchObject({ state: 'approved', lease_owner: null });
      const atGateway = await sandbox.order(payout.orderid ?? '');
      expect(atGateway.operations.filter((o) => o.type === 'payout-pay')).toHaveLength(1);
      const audited = await auditRows('payout.refresh', `payout:${payout.id}`);
      expect(audited.map((a) => [a.outcome, a.actor_email])).toEqual([
        ['refused', support.email],
        ['success', support.email],
      ]);

      const again = await keep(post(opsA, `/api/payouts/${payout.id}/refresh`, {}));
      expect(again.status, again.text).toBe(409);
      expect(errorCode(again)).toBe('INVALID_STATE');
      expect((again.json as ErrorEnvelope).error.message).toMatch(
        /approved: its outcome is not open/,
      );
      const missing = await keep(
        post(opsA, '/api/payouts/00000000-0000-4000-8000-000000000000/refresh', {}),
      );
      expect(missing.status).toBe(404);
    });

    it('when payout-check is declined for the destination card, then the payout cannot be approved', async () => {
      const payout = await prepare(payoutBody({ ...TEST_CARD, cardNumber: '4000000000000002' }));
      expect(payout).toMatchObject({ state: 'check_declined', errorCode: 'DECLINED' });
      expect(errorCode(await keep(post(opsB, `/api/payouts/${payout.id}/approve`, {})))).toBe(
        'INVALID_STATE',
      );
    });

    it('when the payout-check meets a gateway 500, then the payout is checking, the message names the gateway code, and status resolves it', async () => {
      await sandbox.faults({ errorRate: 1, operations: ['payout-check'] });
      const res = await keep(post(opsA, '/api/payouts', payoutBody(BANK)));
      expect(res.status, res.text).toBe(200);
      const { payout, message } = PayoutResultSchema.parse(res.json);
      expect(payout.state).toBe('checking');
      // What the gateway answered, said once (its HTTP status and code), in a plain sentence.
      expect(message).toMatch(
        /^The gateway answered the check of the payee's details with an error \(HTTP 500, INTERNAL\b/,
      );
      expect(message.match(/INTERNAL/g)).toHaveLength(1);
      expect(message).not.toMatch(JARGON);
      await sandbox.faults({});
      bff.clock.advance(10_000);
      await bff.payouts.poller.runOnce();
      // the 500 came before the operation was applied: the gateway never shows it
      bff.clock.advance(120_000);
      await bff.payouts.poller.runOnce();
      const failed = await row(payout.id);
      expect(failed).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
      expect(failed.error_message).toMatch(
        /^The gateway still did not show the check of the payee's details/,
      );
      expect(failed.error_message).not.toMatch(JARGON);
    });

    it('when the gateway refuses the payout-check (400), then 502 GATEWAY_ERROR names the gateway code and the payout is failed', async () => {
      const res = await keep(
        post(opsA, '/api/payouts', payoutBody(BANK, { endpointId: '2001', currency: 'GBP' })),
      );
      expect(res.status).toBe(502);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('GATEWAY_ERROR');
      expect(env.error.details).toMatchObject({ gatewayHttpStatus: expect.any(Number) as number });
      expect(env.error.message).toMatch(/gateway/);
      const failed = await bff.k
        .selectFrom('payouts')
        .select(['id', 'state', 'error_code'])
        .where('currency', '=', 'GBP')
        .execute();
      expect(failed).toEqual([
        {
          id: expect.any(String) as string,
          state: 'failed',
          error_code: expect.any(String) as string,
        },
      ]);
      const audit = await bff.k
        .selectFrom('audit_log')
        .select(['outcome', 'error_code', 'target'])
        .where('action', '=', 'payout.prepare')
        .where('error_code', '=', 'GATEWAY_ERROR')
        .execute();
      expect(audit).toEqual([
        { outcome: 'failed', error_code: 'GATEWAY_ERROR', target: `payout:${failed[0]?.id ?? ''}` },
      ]);
    });

    it('when input is bad, then 400 names the field and the rule; idempotency keys are required, bound to the body, and replay the stored reply', async () => {
      const bad = await keep(
        post(opsA, '/api/payouts', payoutBody({ ...TEST_CARD, cardNumber: '4111111111111112' })),
      );
      expect(bad.status).toBe(400);
      expect((bad.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'destination.cardNumber',
      ]);
      expect(bad.text).not.toContain('4111111111111112');
      // Punctuation alone is no wallet and no bank (QA: "??" and "!!" were checked and paid).
      for (const [destination, path, rule] of [
        [
          { kind: 'ewallet', ewalletType: '??', ewalletId: 'p@x.example' },
          'ewalletType',
          'ewallet_type',
        ],
        [{ kind: 'phone', phone: '+44 7700 900123', fpsBankId: '!!' }, 'fpsBankId', 'fps_bank_id'],
      ] as const) {
        const junk = await keep(post(opsA, '/api/payouts', payoutBody(destination)));
        expect(junk.status, junk.text).toBe(400);
        expect(
          (junk.json as ErrorEnvelope).error.details?.fields?.map((f) => [f.path, f.rule]),
        ).toEqual([[`destination.${path}`, rule]]);
      }
      const amount = await keep(post(opsA, '/api/payouts', payoutBody(BANK, { amount: '1.234' })));
      expect((amount.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'amount',
      ]);
      const currency = await keep(
        post(opsA, '/api/payouts', payoutBody(BANK, { endpointId: '1002' })),
      );
      expect((currency.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'currency',
      ]);
      const unknownEndpoint = await keep(
        post(opsA, '/api/payouts', payoutBody(BANK, { endpointId: '9999' })),
      );
      expect(
        (unknownEndpoint.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path),
      ).toEqual(['endpointId']);

      const noKey = await keep(post(opsA, '/api/payouts', payoutBody(BANK), null));
      expect(noKey.status).toBe(400);
      expect(errorCode(noKey)).toBe('IDEMPOTENCY_KEY_MISSING');
      const k = key();
      const first = await keep(post(opsA, '/api/payouts', payoutBody(BANK, { amount: '3.00' }), k));
      expect(first.status).toBe(200);
      const repeat = await keep(
        post(opsA, '/api/payouts', payoutBody(BANK, { amount: '3.00' }), k),
      );
      expect(repeat.status).toBe(200);
      expect(repeat.headers.get('Idempotent-Replayed')).toBe('true');
      expect(PayoutResultSchema.parse(repeat.json).payout.id).toBe(
        PayoutResultSchema.parse(first.json).payout.id,
      );
      const otherDestination = await keep(
        post(
          opsA,
          '/api/payouts',
          payoutBody({ ...BANK, accountNumber: 'DE02120300000000202051' }, { amount: '3.00' }),
          k,
        ),
      );
      expect(otherDestination.status).toBe(422);
      const count = await bff.k
        .selectFrom('payouts')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('amount_minor', '=', 300)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
      // the key's stored request hash is not a plain hash of the card or account number
      const stored = await payDb(bff.db)
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'reply_body'])
        .where('key', '=', k)
        .executeTakeFirstOrThrow();
      expect(stored.reply_body).not.toContain('DE89370400440532013000');
      expect(stored.request_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('when each role calls each payout route, then only the allowed roles get past authorization', async () => {
      const payout = await prepare(payoutBody(BANK));
      const forbidden = async (c: TestClient, method: 'GET' | 'POST', path: string) => {
        const r = await keep(method === 'GET' ? c.get(path) : post(c, path, {}));
        return r.status === 403 && errorCode(r) === 'FORBIDDEN';
      };
      const routes: ['GET' | 'POST', string, TestClient[], TestClient[]][] = [
        ['POST', '/api/payouts', [opsA], [finance, support, auditor, admin]],
        ['GET', '/api/payouts', [opsA, finance, support, auditor], [admin]],
        ['GET', `/api/payouts/${payout.id}`, [opsB, finance, support, auditor], [admin]],
        ['POST', `/api/payouts/${payout.id}/approve`, [opsA], [finance, support, auditor, admin]],
        ['POST', `/api/payouts/${payout.id}/reject`, [opsB], [finance, support, auditor, admin]],
        ['POST', `/api/payouts/${payout.id}/refresh`, [opsA, finance, support], [auditor, admin]],
      ];
      for (const [method, path, allowed, refused] of routes) {
        for (const c of refused)
          expect(await forbidden(c, method, path), `${method} ${path}`).toBe(true);
        for (const c of allowed)
          expect(await forbidden(c, method, path), `${method} ${path}`).toBe(false);
      }
      const anonymous = await keep(bff.client().get('/api/payouts'));
      expect(anonymous.status).toBe(401);
      const noCsrf = await keep(
        opsA.request(
          'POST',
          '/api/payouts',
          payoutBody(BANK),
          { 'Idempotency-Key': key() },
          { csrf: false },
        ),
      );
      expect(noCsrf.status).toBe(403);
      expect(errorCode(noCsrf)).toBe('CSRF_REJECTED');
      const unknown = await keep(opsA.get('/api/payouts/00000000-0000-4000-8000-000000000000'));
      expect(unknown.status).toBe(404);
      const refusals = await bff.k
        .selectFrom('audit_log')
        .select('outcome')
        .where('action', '=', 'payout.list')
        .where('error_code', '=', 'FORBIDDEN')
        .execute();
      expect(refusals.length).toBeGreaterThan(0);
    });

    it('when more payouts wait than one page holds, then following nextCursor reaches each one of every view exactly once and in order, the approval queue in lapse order (of these held ones, the €999 oldest first); a bad cursor is a 400 naming it', async () => {
      const preparer = await bff.userWithRoles(['ops']);
      const oldest = await prepare(
        payoutBody(TEST_CARD, { mode: 'single', amount: '999.00' }),
        preparer,
      );
      const base = await row(oldest.id);
      const now = bff.clock.now();
      await bff.k
        .updateTable('payouts')
        // Older than any payout of the earlier tests: the first of these held ones to lapse.
        .set({
          created_at:
            (
              await bff.k
                .selectFrom('payouts')
                .select('created_at')
                .orderBy('created_at')
                .limit(1)
                .executeTakeFirstOrThrow()
            ).created_at - 1_000,
        })
        .where('id', '=', oldest.id)
        .execute();
      // Eleven more, three of them created at the same instant (their order goes by id).
      for (let i = 0; i < 11; i += 1) {
        const id = crypto.randomUUID();
        await bff.k
          .insertInto('payouts')
          .values({
            ...base,
            id,
            client_orderid: `pd-payout-${id}`,
            amount_minor: 100 + i,
            created_at: now - 60_000 + Math.max(0, i - 2) * 1_000,
          })
          .execute();
      }
      const parse = (json: unknown) => PayoutListSchema.parse(json);
      const mine = await walkPages(preparer, '/api/payouts?view=mine', parse, 5);
      expect(mine.pages).toBe(3);
      expect(mine.items).toHaveLength(12);
      expect(mine.items).toEqual(inListOrder(mine.items, false));
      expect(mine.items.at(-1)?.id).toBe(oldest.id);
      // The queue: soonest to lapse first (`expiresAt`), then by creation and id.
      const inLapseOrder = (items: readonly Payout[]) => {
        const keyOf = (p: Payout) => `${p.expiresAt ?? ''} ${p.createdAt} ${p.id}`;
        return [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
      };
      for (const [viewer, view, oldestFirst] of [
        [opsB, 'awaiting-my-approval', true],
        [opsB, 'all', false],
        [preparer, 'all', false],
      ] as const) {
        const walked = await walkPages(viewer, `/api/payouts?view=${view}`, parse, 4);
        const ids = walked.items.map((p) => p.id);
        expect(new Set(ids).size, view).toBe(ids.length);
        expect(walked.items, view).toEqual(
          oldestFirst ? inLapseOrder(walked.items) : inListOrder(walked.items, false),
        );
        const mineIds = mine.items.map((p) => p.id);
        expect(
          ids.filter((id) => mineIds.includes(id)),
          view,
        ).toEqual(oldestFirst ? mineIds.toReversed() : mineIds);
      }
      const queue = PayoutListSchema.parse(
        (await keep(opsB.get('/api/payouts?view=awaiting-my-approval&limit=50'))).json,
      );
      const held = queue.items.filter((p) => mine.items.some((m) => m.id === p.id));
      expect(held.map((p) => p.amount)[0]).toBe('999.00');

      const allPage = PayoutListSchema.parse(
        (await keep(opsB.get('/api/payouts?view=all&limit=1'))).json,
      );
      for (const cursor of ['nope', 'e30', allPage.nextCursor ?? '']) {
        const bad = await keep(
          opsB.get(`/api/payouts?view=awaiting-my-approval&cursor=${encodeURIComponent(cursor)}`),
        );
        expect(bad.status, cursor).toBe(400);
        expect((bad.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
          'query.cursor',
        ]);
      }
    });

    it('when the history is paged newest first after a cursor, then the plan reads the payouts_created index (0014) rather than sorting every payout', async () => {
      const query = `select id from payouts where (created_at, id) < (${bff.clock.now()}, 'z') order by created_at desc, id desc limit 51`;
      const plan =
        variant.name === 'postgres'
          ? await bff.k.transaction().execute(async (trx) => {
              await sql`set local enable_seqscan = off`.execute(trx);
              return sql.raw<Record<string, unknown>>(`explain ${query}`).execute(trx);
            })
          : await sql.raw<Record<string, unknown>>(`explain query plan ${query}`).execute(bff.k);
      expect(JSON.stringify(plan.rows)).toContain('payouts_created');
    });

    it('when the suite is done, then no card or account number, control key or private key is in any reply, log line or database row', async () => {
      const texts: string[] = [...replies.map((r) => r.text), ...bff.logs];
      for (const table of [
        'payouts',
        'payment_links',
        'payout_events',
        'idempotency_keys',
        'audit_log',
      ] as const) {
        const rows = await sql.raw(`select * from ${table}`).execute(bff.db.k);
        texts.push(JSON.stringify(rows.rows));
      }
      const all = texts.join('\n');
      expect(all.length).toBeGreaterThan(1000);
      for (const secret of [...SECRETS, bff.config.merchant.controlKey, 'BEGIN PRIVATE KEY']) {
        expect(all.includes(secret), secret).toBe(false);
      }
    });
  });
}
