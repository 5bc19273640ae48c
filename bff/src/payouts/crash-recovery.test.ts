// Recovery of a payout whose approver's instance stopped between sending payout-pay and recording
// the outcome: the poller finds it `sending`, makes it `unknown` and reconciles it with `status`,
// never sending it again. Both databases, the real sandbox process (demo merchant).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutResultSchema } from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import {
  cardPayout,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payouts crash recovery (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    const row = (id: string) =>
      bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    it('when the instance sending a checked payout-pay stopped, then it is judged from the approval, not the check: unknown until notAppliedAfterMs has passed since, then failed NOT_APPLIED, audited naming the approver', async () => {
      const res = await post(opsA, '/api/payouts', cardPayout('8.40'));
      const prepared = PayoutResultSchema.parse(res.json).payout;
      expect(prepared.state).toBe('pending_approval');
      // Approved ten minutes after the check; the approver's instance died right after claiming it.
      bff.clock.advance(10 * 60_000);
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
          decided_at: bff.clock.now() - 40_000,
        })
        .where('id', '=', prepared.id)
        .execute();

      // Stale (gateway timeout + lease passed): unknown, and 40 s after sending not yet judged.
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'unknown' });
      // the timeline says why, naming the approver
      const events = await bff.k
        .selectFrom('payout_events')
        .selectAll()
        .where('subject', '=', `payout:${prepared.id}`)
        .orderBy('id')
        .execute();
      const recovered = events.find((e) => e.title.startsWith('outcome unknown'));
      expect(recovered).toMatchObject({
        kind: 'reconcile',
        title:
          'outcome unknown: the instance sending it stopped before recording the outcome; followed with status, never sent again',
        actor: null,
      });
      expect(JSON.parse(recovered?.data ?? '{}')).toMatchObject({ approvedBy: opsB.email });
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'unknown' });

      // A minute after the approval the gateway still shows it registered, not paid.
      bff.clock.advance(25_000);
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
      const audit = await bff.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'payout.reconciled')
        .where('target', '=', `payout:${prepared.id}`)
        .execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
        state: 'failed',
        approvedBy: opsB.email,
        preparedBy: opsA.email,
      });
      const order = await sandbox.order(prepared.orderid ?? '');
      expect(order.operations.map((o) => o.type)).toEqual(['payout-check']);
    });
  });
}
