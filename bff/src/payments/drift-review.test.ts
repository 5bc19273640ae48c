// Drift after it is flagged: who found it (the audit row's actor and `foundBy`), whether the two
// sides agree again since, and finance's review (POST /api/transactions/:id/drift/review), which
// clears the flag in one transaction, keeps the history, and lets the list and Home drop the order.
// Real sandbox process, both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StatsResponseSchema,
  TransactionDetailSchema,
  TransactionPageSchema,
  type ErrorEnvelope,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type Reply, type TestClient } from '../test-support/harness.js';
import { payDb } from './db.js';
import { learnedOrder, startFixture, type Fixture } from './test-support/fixture.js';

const FINANCE = 'drift.finance@paydesk.test';
const OTHER_FINANCE = 'drift.finance2@paydesk.test';
const UNKNOWN_ID = '00000000-0000-4000-8000-00000000d1f7';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `drift: who found it, agreeing again, review (${variant.name})`,
    () => {
      let f: Fixture;
      let finance: TestClient;
      let finance2: TestClient;
      beforeAll(async () => {
        f = await startFixture(variant);
        finance = await f.bff.userWithRoles(['finance'], FINANCE);
        finance2 = await f.bff.userWithRoles(['finance'], OTHER_FINANCE);
      });
      afterAll(async () => {
        await f.close();
      });

      const detail = async (id: string): Promise<TransactionDetail> =>
        TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
      const review = (client: TestClient, id: string, body: unknown): Promise<Reply> =>
        client.post(`/api/transactions/${id}/drift/review`, body);
      const auditOf = (action: string, id: string) =>
        f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', action)
          .where('target', '=', `transaction:${id}`)
          .orderBy('seq', 'asc')
          .execute();
      /** Paydesk believes the approved sale was declined: the next status reply disagrees. */
      const believeDeclined = (id: string) =>
        payDb(f.bff.db)
          .updateTable('transactions')
          .set({ status: 'declined' })
          .where('id', '=', id)
          .execute();
      /** A sale Paydesk knows, flagged by a staff refresh that found the disagreement. */
      const flaggedSale = async () => {
        const { tx } = await learnedOrder(f, 'sale', '10.00');
        await believeDeclined(tx.id);
        const refreshed = await finance.post(`/api/transactions/${tx.id}/refresh`, {});
        expect(refreshed.status).toBe(200);
        expect(TransactionDetailSchema.parse(refreshed.json).drift).toBe(true);
        return tx;
      };
      const flaggedIds = async (): Promise<string[]> =>
        TransactionPageSchema.parse(
          (await f.support.get('/api/transactions?drift=true&limit=100')).json,
        ).items.map((i) => i.id);
      const homeDriftCount = async (): Promise<number> =>
        StatsResponseSchema.parse((await f.support.get('/api/stats')).json).attention.drift;

      it('when a staff refresh finds drift, then its audit row names that staff member as the actor and says "status check asked by"; the reconciler’s says it is Paydesk’s', async () => {
        const tx = await flaggedSale();
        const [row] = await auditOf('transaction.drift', tx.id);
        expect(row).toMatchObject({ actor_email: FINANCE, outcome: 'failed', error_code: 'DRIFT' });
        expect(row?.actor_id).not.toBeNull();
        expect(JSON.parse(row?.summary ?? '{}')).toMatchObject({
          detectedBy: 'refresh',
          foundBy: `status check asked by ${FINANCE}`,
          reasons: ['Paydesk had the order declined; the gateway says approved'],
        });

        // The reconciler's status check (no staff member): no actor, said as the reconciler.
        const { tx: other } = await learnedOrder(f, 'sale', '11.00');
        await believeDeclined(other.id);
        await f.bff.payments.services.transactions.refresh(other.id, null, 'reconcile');
        const [auto] = await auditOf('transaction.drift', other.id);
        expect(auto).toMatchObject({ actor_id: null, actor_email: null, request_id: null });
        expect(JSON.parse(auto?.summary ?? '{}')).toMatchObject({
          detectedBy: 'reconcile',
          foundBy: "the reconciler (Paydesk's scheduled status check)",
        });
      });

      it('when a later status reply applies without drift, then the order stays flagged and its details say since when the two sides agree again; new drift starts over', async () => {
        const tx = await flaggedSale();
        const flagged = await detail(tx.id);
        expect(flagged.driftDetails).toMatchObject({
          reasons: ['Paydesk had the order declined; the gateway says approved'],
        });
        expect(flagged.driftDetails?.agreedSince).toBeUndefined();

        f.bff.clock.advance(60_000);
        const since = new Date(f.bff.clock.now()).toISOString();
        expect((await finance.post(`/api/transactions/${tx.id}/refresh`, {})).status).toBe(200);
        const agreeing = await detail(tx.id);
        expect(agreeing.drift).toBe(true);
        expect(agreeing.driftDetails).toMatchObject({ agreedSince: since });

        // A further agreeing reply keeps the first time they agreed.
        f.bff.clock.advance(60_000);
        await finance.post(`/api/transactions/${tx.id}/refresh`, {});
        expect((await detail(tx.id)).driftDetails).toMatchObject({ agreedSince: since });

        // They disagree again: new details, not agreeing.
        await believeDeclined(tx.id);
        await finance.post(`/api/transactions/${tx.id}/refresh`, {});
        const again = await detail(tx.id);
        expect(again.drift).toBe(true);
        expect(again.driftDetails?.agreedSince).toBeUndefined();
      });

      it('when finance marks the drift reviewed, then the flag clears, the timeline keeps the drift and says who reviewed it and why, the review is audited, and the list’s drift filter and Home’s count drop the order', async () => {
        const tx = await flaggedSale();
        expect(await flaggedIds()).toContain(tx.id);
        const countBefore = await homeDriftCount();

        const res = await review(finance, tx.id, {
          comment: '  Checked at the gateway: approved.  ',
        });
        expect(res.status).toBe(200);
        const reviewed = TransactionDetailSchema.parse(res.json);
        expect(reviewed.drift).toBe(false);
        expect(reviewed.driftDetails).toBeNull();
        const drifts = reviewed.timeline.filter((e) => e.kind === 'drift');
        expect(drifts.map((e) => e.title)).toEqual([
          "the gateway contradicted Paydesk's record: Paydesk had the order declined; the gateway says approved",
        ]);
        const last = reviewed.timeline.at(-1);
        expect(last).toMatchObject({
          kind: 'staff',
          title: `Drift reviewed by ${FINANCE}: Checked at the gateway: approved.`,
          actor: FINANCE,
        });
        expect(last?.data).toMatchObject({
          comment: 'Checked at the gateway: approved.',
          reviewed: { reasons: ['Paydesk had the order declined; the gateway says approved'] },
        });
        expect((await detail(tx.id)).drift).toBe(false);

        const audit = await auditOf('transaction.drift_reviewed', tx.id);
        expect(audit).toHaveLength(1);
        expect(audit[0]).toMatchObject({
          actor_email: FINANCE,
          outcome: 'success',
          error_code: null,
        });
        expect(JSON.parse(audit[0]?.summary ?? '{}')).toEqual({
          orderid: tx.orderid,
          comment: 'Checked at the gateway: approved.',
          reviewed: ['Paydesk had the order declined; the gateway says approved'],
        });

        expect(await flaggedIds()).not.toContain(tx.id);
        const clean = TransactionPageSchema.parse(
          (await f.support.get('/api/transactions?drift=false&limit=100')).json,
        );
        expect(clean.items.map((i) => i.id)).toContain(tx.id);
        expect(await homeDriftCount()).toBe(countBefore - 1);

        // Reviewed already: nothing to review, and nothing written.
        const twice = await review(finance, tx.id, { comment: 'again' });
        expect(twice.status).toBe(409);
        expect(errorCode(twice)).toBe('INVALID_STATE');
        expect((twice.json as ErrorEnvelope).error.message).toContain('is not flagged for drift');
        expect((await detail(tx.id)).timeline).toHaveLength(reviewed.timeline.length);

        // New drift later flags it again.
        await believeDeclined(tx.id);
        await finance.post(`/api/transactions/${tx.id}/refresh`, {});
        expect((await detail(tx.id)).drift).toBe(true);
        expect(await flaggedIds()).toContain(tx.id);
      });

      it('when two finance users review the same drift at once, then one succeeds and the other is told it is not flagged (409), with one review in the timeline', async () => {
        const tx = await flaggedSale();
        const replies = await Promise.all([
          review(finance, tx.id, { comment: 'first reviewer' }),
          review(finance2, tx.id, { comment: 'second reviewer' }),
        ]);
        expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
        const after = await detail(tx.id);
        expect(after.drift).toBe(false);
        expect(after.timeline.filter((e) => e.title.startsWith('Drift reviewed by'))).toHaveLength(
          1,
        );
        const audit = await auditOf('transaction.drift_reviewed', tx.id);
        expect(audit.map((r) => r.outcome).sort()).toEqual(['refused', 'success']);
      });

      it('when the order is unknown, not flagged, or the comment is empty or too long, then 404, 409 and 400 naming comment, each audited as refused, and nothing changes', async () => {
        const unknown = await review(finance, UNKNOWN_ID, { comment: 'x' });
        expect(unknown.status).toBe(404);
        expect(errorCode(unknown)).toBe('NOT_FOUND');

        const { tx } = await learnedOrder(f, 'sale', '12.00');
        const notFlagged = await review(finance, tx.id, { comment: 'nothing to see' });
        expect(notFlagged.status).toBe(409);
        expect(errorCode(notFlagged)).toBe('INVALID_STATE');

        const flagged = await flaggedSale();
        const before = await detail(flagged.id);
        for (const [body, rule] of [
          [{ comment: '   ' }, 'too_small'],
          [{ comment: 'x'.repeat(256) }, 'too_big'],
          [{}, 'invalid_type'],
        ] as const) {
          const res = await review(finance, flagged.id, body);
          expect(res.status, JSON.stringify(body)).toBe(400);
          expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
            expect.objectContaining({ path: 'comment', rule }),
          ]);
        }
        const extra = await review(finance, flagged.id, { comment: 'ok', drift: false });
        expect(extra.status).toBe(400);
        expect((extra.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('drift');

        const after = await detail(flagged.id);
        expect(after.drift).toBe(true);
        expect(after.timeline).toHaveLength(before.timeline.length);
        const audit = await auditOf('transaction.drift_reviewed', flagged.id);
        expect(audit.map((r) => [r.outcome, r.error_code])).toEqual(
          Array.from({ length: 4 }, () => ['refused', 'VALIDATION_FAILED']),
        );
        expect(await auditOf('transaction.drift_reviewed', tx.id)).toMatchObject([
          { outcome: 'refused', error_code: 'INVALID_STATE' },
        ]);
      });
    },
  );
}
