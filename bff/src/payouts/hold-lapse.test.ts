// Held single payouts and payout-form links lapse (PAYOUT_HOLD_MAX_AGE_MS, default 7 days): the
// poll loop marks them expired and erases what is sealed in the same transaction, with the
// timeline entry and audit row of an expiry; approving one that lapsed is a 409, as approving an
// expired two-step payout is. On SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL. Nothing here
// reaches a gateway: the BFF's points at a closed port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkResultSchema,
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type Reply, type TestClient } from '../test-support/harness.js';
import { createPayouts } from './index.js';
import { createLogger } from '../logger.js';
import {
  cardPayout,
  payoutFormLink,
  post,
  startPayoutsApp,
  type PayoutsTestApp,
  passwordFor,
} from './test-support/app.js';

const DAY = 86_400_000;
const HOLD = 7 * DAY;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`held payouts lapse (${variant.name})`, () => {
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };

    beforeAll(async () => {
      bff = await startPayoutsApp(variant, 'http://127.0.0.1:9');
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
    });
    afterAll(async () => {
      await bff.close();
    });

    /** Moves the BFF clock on; sessions lapse on the way, so both sign in again. */
    const advance = async (ms: number) => {
      bff.clock.advance(ms);
      for (const c of [opsA, opsB]) {
        expect((await c.login(c.email, passwordFor(c.email))).status).toBe(200);
      }
    };
    const holdPayout = async () => {
      const res = await post(opsA, '/api/payouts', cardPayout('42.50', { mode: 'single' }));
      expect(res.status, res.text).toBe(200);
      const { payout, message } = PayoutResultSchema.parse(res.json);
      // The reply says when the hold lapses, not only that it waits (expiresAt: see the tests).
      expect(payout.expiresAt).not.toBeNull();
      expect(message).toBe(
        `The payout is held until a second ops user approves it; it lapses at ${String(payout.expiresAt)} if not approved. Nothing was sent yet.`,
      );
      return payout;
    };
    const holdLink = async () => {
      const res = await post(opsA, '/api/payment-links', payoutFormLink());
      expect(res.status, res.text).toBe(200);
      return PaymentLinkResultSchema.parse(res.json).link;
    };
    const payoutRow = (id: string) =>
      bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const linkRow = (id: string) =>
      bff.k.selectFrom('payment_links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const expiredAudit = (target: string) =>
      bff.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'payout.expired')
        .where('target', '=', target)
        .execute();
    const refusedAsExpired = (res: Reply) => {
      expect(res.status, res.text).toBe(409);
      expect(errorCode(res)).toBe('INVALID_STATE');
      expect((res.json as ErrorEnvelope).error.details).toMatchObject({ state: 'expired' });
    };

    it('when a held payout and a payout-form link wait longer than the hold age, then the poll loop lapses them: expired, sealed data erased (masked destination and hash kept), one timeline entry and payout.expired audit row each; approval is a 409 as for an expired two-step payout', async () => {
      const payout = await holdPayout();
      const link = await holdLink();
      const lapsesAt = new Date(Date.parse(payout.createdAt) + HOLD).toISOString();
      expect(payout.expiresAt).toBe(lapsesAt);
      expect(link.expiresAt).toBe(new Date(Date.parse(link.createdAt) + HOLD).toISOString());
      const before = await payoutRow(payout.id);
      expect(before.destination_sealed).not.toBeNull();
      expect((await linkRow(link.id)).binding).not.toBeNull();

      // Not yet: a millisecond before the hold age.
      await advance(HOLD - 1);
      const { services } = bff.payouts;
      expect([await services.payouts.lapseHeld(), await services.links.lapseHeld()]).toEqual([
        0, 0,
      ]);
      expect((await payoutRow(payout.id)).destination_sealed).not.toBeNull();
      expect((await linkRow(link.id)).state).toBe('pending_approval');

      await advance(1);
      await bff.payouts.poller.runOnce();
      const after = await payoutRow(payout.id);
      expect(after).toMatchObject({
        state: 'expired',
        destination_sealed: null,
        destination_masked: before.destination_masked,
        destination_hash: before.destination_hash,
        expires_at: before.created_at + HOLD,
      });
      expect(await linkRow(link.id)).toMatchObject({ state: 'expired', binding: null });

      const detail = PayoutDetailSchema.parse((await opsB.get(`/api/payouts/${payout.id}`)).json);
      expect(detail).toMatchObject({ state: 'expired', expiresAt: lapsesAt, canDecide: false });
      expect(detail.events.map((e) => e.title).at(-1)).toBe(
        'lapsed: not approved within 7 days of being prepared; the held destination was erased',
      );
      const linkDetail = PaymentLinkDetailSchema.parse(
        (await opsB.get(`/api/payment-links/${link.id}`)).json,
      );
      expect(linkDetail).toMatchObject({ state: 'expired', canDecide: false });
      expect(linkDetail.events.map((e) => e.title).at(-1)).toBe(
        'lapsed: not approved within 7 days of being created; the held request was erased',
      );

      refusedAsExpired(await post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      refusedAsExpired(await post(opsB, `/api/payment-links/${link.id}/approve`, {}));
      // A later pass finds nothing more to lapse.
      await advance(DAY);
      await bff.payouts.poller.runOnce();
      for (const target of [`payout:${payout.id}`, `link:${link.id}`]) {
        const rows = await expiredAudit(target);
        expect(
          rows.map((r) => [r.actor_id, r.outcome]),
          target,
        ).toEqual([[null, 'success']]);
        expect(JSON.parse(rows[0]?.summary ?? '{}'), target).toMatchObject({ state: 'expired' });
      }
      expect((await payoutRow(payout.id)).state).toBe('expired');
    });

    it('when a held payout or link is approved after its lapse time but before the poll loop lapsed it, then the approval is a 409, it lapses there (sealed data erased) and the lists show it expired', async () => {
      const payout = await holdPayout();
      const link = await holdLink();
      await advance(HOLD);
      const queue = PayoutListSchema.parse(
        (await opsB.get('/api/payouts?view=awaiting-my-approval')).json,
      );
      expect(queue.items.map((p) => p.id)).not.toContain(payout.id);
      const expired = PayoutListSchema.parse((await opsB.get('/api/payouts?state=expired')).json);
      expect(expired.items.find((p) => p.id === payout.id)?.state).toBe('expired');
      const links = PaymentLinkListSchema.parse(
        (await opsB.get('/api/payment-links?view=awaiting-my-approval')).json,
      );
      expect(links.items.map((l) => l.id)).not.toContain(link.id);

      refusedAsExpired(await post(opsB, `/api/payouts/${payout.id}/approve`, {}));
      refusedAsExpired(await post(opsB, `/api/payment-links/${link.id}/approve`, {}));
      expect(await payoutRow(payout.id)).toMatchObject({
        state: 'expired',
        destination_sealed: null,
      });
      expect(await linkRow(link.id)).toMatchObject({ state: 'expired', binding: null });
      expect(await expiredAudit(`payout:${payout.id}`)).toHaveLength(1);
      expect(await expiredAudit(`link:${link.id}`)).toHaveLength(1);
    });

    it('when PAYOUT_HOLD_MAX_AGE_MS is configured, then the payouts module lapses held payouts after it; an option given in code wins', () => {
      const deps = {
        config: { ...bff.config, payoutHoldMaxAgeMs: DAY },
        db: bff.db,
        clock: bff.clock,
        logger: createLogger('silent'),
        audit: bff.services.audit,
      };
      expect(createPayouts(deps).options.holdMaxAgeMs).toBe(DAY);
      expect(
        createPayouts({ ...deps, options: { holdMaxAgeMs: 60_000 } }).options.holdMaxAgeMs,
      ).toBe(60_000);
      expect(createPayouts({ ...deps, config: bff.config }).options.holdMaxAgeMs).toBe(HOLD);
    });

    it('when two instances look for held payouts to lapse at once, then each lapses once', async () => {
      const payouts = [await holdPayout(), await holdPayout(), await holdPayout()];
      const link = await holdLink();
      await advance(HOLD + 1);
      const other = createPayouts({
        config: bff.config,
        db: bff.db,
        clock: bff.clock,
        logger: createLogger('silent'),
        audit: bff.services.audit,
        options: { gatewayTimeoutMs: 2_000 },
      });
      const mine = bff.payouts.services;
      const counts = await Promise.all([
        mine.payouts.lapseHeld(),
        other.services.payouts.lapseHeld(),
        mine.links.lapseHeld(),
        other.services.links.lapseHeld(),
      ]);
      expect([counts[0] + counts[1], counts[2] + counts[3]]).toEqual([3, 1]);
      for (const p of payouts) expect(await expiredAudit(`payout:${p.id}`)).toHaveLength(1);
      expect(await expiredAudit(`link:${link.id}`)).toHaveLength(1);
    });
  });
}
