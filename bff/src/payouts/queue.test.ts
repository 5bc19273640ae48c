// The approval queue in the order its payouts lapse (a checked two-step payout when its gateway
// registration does, a held single one PAYOUT_HOLD_MAX_AGE_MS after preparing, one that may be
// paid again when its check does), a preparer's
// withdrawal told apart from a second person's rejection, and possible duplicates named on each
// payout waiting. On SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL. Nothing here reaches a
// gateway: single payouts are held, two-step ones are written as their check would leave them.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type ErrorEnvelope,
  type Payout,
} from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import type { PayoutsTable } from './migration.js';
import {
  cardPayout,
  post,
  TEST_CARD,
  startPayoutsApp,
  userId,
  walkPages,
  type PayoutsTestApp,
} from './test-support/app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HOLD = 7 * DAY;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payouts' approval queue and decisions (${variant.name})`, () => {
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

    const hold = async (amount: string, by: TestClient = opsA, currency = 'EUR') => {
      const res = await post(by, '/api/payouts', cardPayout(amount, { mode: 'single', currency }));
      expect(res.status, res.text).toBe(200);
      return PayoutResultSchema.parse(res.json).payout;
    };
    const row = (id: string) =>
      bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    /** A copy of `base` written straight to the database, with `changes`. */
    const insert = async (base: PayoutsTable, changes: Partial<PayoutsTable>) => {
      const id = changes.id ?? randomUUID();
      await bff.k
        .insertInto('payouts')
        .values({ ...base, id, client_orderid: `pd-payout-${id}`, ...changes })
        .execute();
      return id;
    };
    const queueOf = async (viewer: TestClient, limit: number) =>
      (
        await walkPages(
          viewer,
          '/api/payouts?view=awaiting-my-approval',
          (json) => PayoutListSchema.parse(json),
          limit,
        )
      ).items;
    /** `viewer`'s queue is `expected`, in that order, whatever the page size. */
    const expectQueue = async (viewer: TestClient, expected: string[], limits: number[]) => {
      for (const limit of limits) {
        const queue = await queueOf(viewer, limit);
        expect(
          queue.map((p) => p.id),
          `limit ${limit}`,
        ).toEqual(expected);
      }
    };
    const detail = async (id: string, viewer: TestClient = opsB) => {
      const res = await viewer.get(`/api/payouts/${id}`);
      expect(res.status, res.text).toBe(200);
      return PayoutDetailSchema.parse(res.json);
    };
    const audit = (target: string) =>
      bff.k
        .selectFrom('audit_log')
        .select(['action', 'outcome', 'error_code', 'summary'])
        .where('target', '=', target)
        .where('action', 'like', 'payout.%')
        .where('action', '<>', 'payout.prepare')
        .orderBy('seq')
        .execute();

    it('when two-step and held single payouts wait, then the queue is in the order they lapse, soonest first (ties by creation, then id), on every page size; a cursor of the former order is a 400 naming it', async () => {
      const t0 = bff.clock.now();
      const newest = await hold('10.00');
      const base = await row(newest.id);
      const opsBId = await userId(bff, opsB.email);
      const twoStep = (created: number, expires: number, id?: string) =>
        insert(base, {
          ...(id === undefined ? {} : { id }),
          mode: 'two-step',
          orderid: `9${String(created).slice(-8)}`,
          destination_sealed: null,
          created_at: created,
          updated_at: created,
          expires_at: expires,
        });
      // Checked an hour after `newest` was held, yet it lapses first: its registration ends in 24 h.
      const checked = await twoStep(t0 + HOUR, t0 + HOUR + DAY);
      // Held three days ago: lapses in four days.
      const older = await insert(base, { created_at: t0 - 3 * DAY, updated_at: t0 - 3 * DAY });
      // Two-step payouts lapsing at the same time as `older`: created before it, then at the same
      // instant (their order, and `older`'s, goes by id).
      const tieEarlier = await twoStep(t0 - 3 * DAY - 1_000, t0 + 4 * DAY);
      const tieLow = await twoStep(
        t0 - 3 * DAY,
        t0 + 4 * DAY,
        '00000000-0000-4000-8000-000000000000',
      );
      const tieHigh = await twoStep(
        t0 - 3 * DAY,
        t0 + 4 * DAY,
        'ffffffff-ffff-4fff-bfff-ffffffffffff',
      );
      // Not in the queue: lapsed (held too long; registration over), or opsB's own.
      await insert(base, { created_at: t0 - HOLD - 1, updated_at: t0 - HOLD - 1 });
      await twoStep(t0 - 2 * DAY, t0 - 1);
      await insert(base, { prepared_by: opsBId, prepared_by_email: opsB.email });

      const expected = [checked, tieEarlier, tieLow, older, tieHigh, newest.id];
      await expectQueue(opsB, expected, [1, 2, 3, 50]);
      const queue = await queueOf(opsB, 50);
      // Each row says when it lapses: the order is by that.
      expect(queue.map((p) => p.expiresAt)).toEqual(
        [t0 + HOUR + DAY, t0 + 4 * DAY, t0 + 4 * DAY, t0 + 4 * DAY, t0 + 4 * DAY, t0 + HOLD].map(
          (ms) => new Date(ms).toISOString(),
        ),
      );

      // A cursor as the queue gave before (creation order) names another order: refused.
      const former = Buffer.from(JSON.stringify(['awaiting-my-approval', t0, checked])).toString(
        'base64url',
      );
      const all = PayoutListSchema.parse((await opsB.get('/api/payouts?view=all&limit=1')).json);
      for (const cursor of [former, all.nextCursor ?? '', 'nope']) {
        const bad = await opsB.get(
          `/api/payouts?view=awaiting-my-approval&cursor=${encodeURIComponent(cursor)}`,
        );
        expect(bad.status, cursor).toBe(400);
        expect((bad.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
          'query.cursor',
        ]);
      }
      // Clean up for the tests below: none of these waits any more.
      await bff.k
        .updateTable('payouts')
        .set({ state: 'expired' })
        .where('state', '=', 'pending_approval')
        .execute();
    });

    it('when two-step payouts the gateway did not pay may be paid again, then they wait in the queue of those who may pay them again, merged in the order their check lapses, on every page size', async () => {
      const t0 = bff.clock.now();
      const held = await hold('11.00');
      const base = await row(held.id);
      const opsBId = await userId(bff, opsB.email);
      const twoStep = (created: number, expires: number, changes: Partial<PayoutsTable> = {}) =>
        insert(base, {
          mode: 'two-step',
          orderid: `8${String(created).slice(-8)}`,
          destination_sealed: null,
          created_at: created,
          updated_at: created,
          expires_at: expires,
          ...changes,
        });
      // Judged not applied after its payout-pay was sent (`mayPayAgain`).
      const notPaid = (expires: number, changes: Partial<PayoutsTable> = {}) =>
        twoStep(t0 - DAY, expires, {
          state: 'failed',
          error_code: 'NOT_APPLIED',
          decided_at: t0 - HOUR,
          decided_by: opsBId,
          decided_by_email: opsB.email,
          ...changes,
        });
      const waiting = await twoStep(t0, t0 + 2 * HOUR);
      const againSoon = await notPaid(t0 + HOUR);
      const againLater = await notPaid(t0 + 3 * HOUR);
      // Not in opsB's queue: lapsed; never sent (no decision); another failure; a single payout
      // (never paid again); prepared by opsB; paid late after all.
      await notPaid(t0 - 1);
      await notPaid(t0 + HOUR, { decided_at: null, decided_by: null, decided_by_email: null });
      await notPaid(t0 + HOUR, { error_code: 'DECLINED' });
      await notPaid(t0 + HOUR, { mode: 'single' });
      await notPaid(t0 + HOUR, {
        prepared_by: opsBId,
        prepared_by_email: opsB.email,
        decided_by: base.prepared_by,
        decided_by_email: base.prepared_by_email,
      });
      await notPaid(t0 + HOUR, { state: 'approved', error_code: 'PAID_AFTER_NOT_APPLIED' });

      const expected = [againSoon, waiting, againLater, held.id];
      await expectQueue(opsB, expected, [1, 2, 50]);
      const queue = await queueOf(opsB, 50);
      // Each says what the viewer may do, and until when.
      expect(queue.map((p) => [p.canDecide, p.canPayAgain])).toEqual([
        [false, true],
        [true, false],
        [false, true],
        [true, false],
      ]);
      expect(queue[0]?.expiresAt).toBe(new Date(t0 + HOUR).toISOString());
      // A filter on the state still applies: the failed ones alone.
      const failed = PayoutListSchema.parse(
        (await opsB.get('/api/payouts?view=awaiting-my-approval&state=failed')).json,
      );
      expect(failed.items.map((p) => p.id)).toEqual([againSoon, againLater]);
      // Clean up for the tests below: none of these waits any more.
      await bff.k
        .updateTable('payouts')
        .set({ state: 'expired' })
        .where('state', 'in', ['pending_approval', 'failed'])
        .execute();
    });

    it('when the queue is paged, then two-step payouts are read in expiry order from payouts_pending_lapse (0019), not sorted from every payout waiting; possible duplicates are searched through an index', async () => {
      const now = bff.clock.now();
      const query = `select id from payouts where state = 'pending_approval' and mode <> 'single' and expires_at > ${now} and (expires_at, created_at, id) > (${now}, ${now}, 'x') order by expires_at, created_at, id limit 51`;
      // Those that may be paid again: the same index, state failed.
      const again = `select id from payouts where state = 'failed' and error_code = 'NOT_APPLIED' and decided_at is not null and mode <> 'single' and orderid is not null and expires_at > ${now} and (expires_at, created_at, id) > (${now}, ${now}, 'x') order by expires_at, created_at, id limit 51`;
      // Which index depends on the data (payouts_destination, or the state's when few wait).
      const similar = `select id from payouts where destination_hash in ('x', 'y') and state = 'pending_approval'`;
      for (const [text, index] of [
        ...[query, again].map(
          (text) =>
            [
              text,
              variant.name === 'postgres'
                ? 'Index Scan using payouts_pending_lapse'
                : 'USING INDEX payouts_pending_lapse',
            ] as const,
        ),
        [similar, variant.name === 'postgres' ? 'Index' : 'USING INDEX'],
      ] as const) {
        const plan =
          variant.name === 'postgres'
            ? await bff.k.transaction().execute(async (trx) => {
                await sql`set local enable_seqscan = off`.execute(trx);
                return sql.raw<Record<string, unknown>>(`explain ${text}`).execute(trx);
              })
            : await sql.raw<Record<string, unknown>>(`explain query plan ${text}`).execute(bff.k);
        expect(JSON.stringify(plan.rows)).toContain(index);
      }
    });

    it('when the preparer withdraws their payout, then it shows and is audited as a withdrawal (payout.withdraw, refusals too), not as a second person’s rejection', async () => {
      const own = await hold('11.00');
      const res = await post(opsA, `/api/payouts/${own.id}/reject`, { reason: 'typed it twice' });
      expect(res.status, res.text).toBe(200);
      const withdrawn = PayoutResultSchema.parse(res.json);
      expect(withdrawn.message).toBe('You withdrew the payout; nothing was paid.');
      expect(withdrawn.payout).toMatchObject({
        state: 'rejected',
        withdrawn: true,
        decidedBy: { email: opsA.email },
        rejectReason: 'typed it twice',
      });
      expect((await detail(own.id)).events.map((e) => [e.title, e.actor])).toContainEqual([
        'payout withdrawn by its preparer',
        opsA.email,
      ]);
      // Withdrawing again: refused, and still audited as a withdrawal.
      const again = await post(opsA, `/api/payouts/${own.id}/reject`, { reason: 'again' });
      expect(again.status).toBe(409);
      const rows = await audit(`payout:${own.id}`);
      expect(rows.map((r) => [r.action, r.outcome, r.error_code])).toEqual([
        ['payout.withdraw', 'success', null],
        ['payout.withdraw', 'refused', 'INVALID_STATE'],
      ]);
      expect(JSON.parse(rows[0]?.summary ?? '{}')).toMatchObject({ operation: 'withdraw' });

      const other = await hold('12.00');
      const rejected = await post(opsB, `/api/payouts/${other.id}/reject`, { reason: 'not due' });
      expect(rejected.status, rejected.text).toBe(200);
      expect(PayoutResultSchema.parse(rejected.json)).toMatchObject({
        message: 'The payout was rejected; nothing was paid.',
        payout: { withdrawn: false, decidedBy: { email: opsB.email } },
      });
      expect((await detail(other.id)).events.map((e) => e.title)).toContain('payout rejected');
      expect((await audit(`payout:${other.id}`)).map((r) => [r.action, r.outcome])).toEqual([
        ['payout.reject', 'success'],
      ]);
      const history = PayoutListSchema.parse(
        (await opsB.get('/api/payouts?view=all&state=rejected')).json,
      );
      const listed = new Map(history.items.map((p) => [p.id, p.withdrawn]));
      expect([listed.get(own.id), listed.get(other.id)]).toEqual([true, false]);
    });

    it('when two payouts of the same amount and currency to the same destination wait, then each names the other (list, detail, prepare reply); another amount, currency or a lapsed or decided one does not count', async () => {
      const first = await hold('77.00');
      const second = await hold('77.00', opsB);
      expect(second.similarPending).toEqual([first.id]);
      await hold('77.01');
      await hold('77.00', opsA, 'USD');
      const lapsed = await hold('77.00');
      await bff.k
        .updateTable('payouts')
        .set({ created_at: bff.clock.now() - HOLD - 1 })
        .where('id', '=', lapsed.id)
        .execute();

      expect((await detail(first.id)).similarPending).toEqual([second.id]);
      expect((await detail(second.id, opsA)).similarPending).toEqual([first.id]);
      const queue = await queueOf(opsB, 50);
      const similarOf = (items: Payout[]) =>
        Object.fromEntries(items.map((p) => [p.id, p.similarPending]));
      expect(similarOf(queue)[first.id]).toEqual([second.id]);
      expect(Object.values(similarOf(queue)).filter((ids) => ids.length > 0)).toHaveLength(1);
      expect((await detail(lapsed.id)).similarPending).toEqual([]);

      expect((await post(opsA, `/api/payouts/${second.id}/reject`, { reason: 'dup' })).status).toBe(
        200,
      );
      expect((await detail(first.id)).similarPending).toEqual([]);
      expect((await detail(second.id)).similarPending).toEqual([]);
    });

    it('when a payout of the same amount to the same payee was approved for payment in the last 7 days, then one waiting names it apart (similarSent, newest first), not as waiting; one approved earlier, another amount, or one rejected does not count (QA: a paid twin went unsaid)', async () => {
      const waiting = await hold('84.00');
      const paid = await hold('84.00');
      const older = await hold('84.00');
      const rejected = await hold('84.00');
      await hold('84.01');
      const now = bff.clock.now();
      const opsBId = await userId(bff, opsB.email);
      // As the approvals would leave them (nothing here reaches a gateway).
      const approve = (id: string, decidedAt: number, state = 'approved') =>
        bff.k
          .updateTable('payouts')
          .set({
            state,
            decided_at: decidedAt,
            decided_by: opsBId,
            decided_by_email: opsB.email,
          })
          .where('id', '=', id)
          .execute();
      await approve(paid.id, now - HOUR);
      await approve(older.id, now - 7 * DAY - 1);
      await approve(rejected.id, now - HOUR, 'rejected');
      const shown = await detail(waiting.id);
      expect(shown.similarSent).toEqual([paid.id]);
      expect(shown.similarPending).toEqual([]);
      // Sent, not paid yet, and newer: named first.
      const sending = await hold('84.00');
      await approve(sending.id, now - 60_000, 'sending');
      expect((await detail(waiting.id)).similarSent).toEqual([sending.id, paid.id]);
      // The list says it too; a payout not waiting names none.
      const queue = await queueOf(opsB, 50);
      expect(queue.find((p) => p.id === waiting.id)?.similarSent).toEqual([sending.id, paid.id]);
      expect((await detail(paid.id)).similarSent).toEqual([]);
    });

    it("when a payout waits to the same card or account typed otherwise (the holder's name's case, the expiry, the bank's name, the BIC's branch), then each names the other; another card does not count; a payout from before 0029 (no payee kept) is matched by its whole destination alone (QA B2)", async () => {
      const toCard = async (amount: string, card: Partial<typeof TEST_CARD>, by = opsA) => {
        const res = await post(
          by,
          '/api/payouts',
          cardPayout(amount, { mode: 'single', destination: { ...TEST_CARD, ...card } }),
        );
        expect(res.status, res.text).toBe(200);
        return PayoutResultSchema.parse(res.json).payout;
      };
      const first = await toCard('81.00', { cardholderName: 'DUP PAYEE' });
      const second = await toCard(
        '81.00',
        { cardholderName: 'Dup Payee', expiryYear: String(Number(TEST_CARD.expiryYear) + 1) },
        opsB,
      );
      expect(second.similarPending).toEqual([first.id]);
      expect((await detail(first.id)).similarPending).toEqual([second.id]);
      const otherCard = await toCard('81.00', { cardNumber: '4000000000000002' });
      expect(otherCard.similarPending).toEqual([]);

      const toBank = async (
        amount: string,
        bank: { accountNumber: string; bankName: string; bankBic: string },
      ) => {
        const res = await post(
          opsA,
          '/api/payouts',
          cardPayout(amount, { mode: 'single', destination: { kind: 'bank', ...bank } }),
        );
        expect(res.status, res.text).toBe(200);
        return PayoutResultSchema.parse(res.json).payout;
      };
      const bankFirst = await toBank('82.00', {
        accountNumber: 'DE89370400440532013000',
        bankName: 'Commerzbank',
        bankBic: 'COBADEFF',
      });
      const bankSecond = await toBank('82.00', {
        accountNumber: 'de89 3704 0044 0532 0130 00',
        bankName: 'Commerzbank AG, Berlin',
        bankBic: 'cobadeffxxx',
      });
      expect(bankSecond.similarPending).toEqual([bankFirst.id]);

      // A payout prepared before payees were kept (0029: no payee hash) is still matched by its
      // whole destination, and by nothing else.
      const old = await toCard('83.00', { cardholderName: 'Old Payee' });
      await bff.k
        .updateTable('payouts')
        .set({ payee_hash: null })
        .where('id', '=', old.id)
        .execute();
      const again = await toCard('83.00', { cardholderName: 'Old Payee' });
      expect(again.similarPending).toEqual([old.id]);
      const renamed = await toCard('83.00', { cardholderName: 'OLD PAYEE' });
      expect(renamed.similarPending).toEqual([again.id]);
    });
  });
}
