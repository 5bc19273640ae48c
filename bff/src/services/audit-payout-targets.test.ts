// The audit log names a payout one way (QA finding: the screen said it by its gateway orderid or
// its client_orderid, the CSV as `payout:<uuid>`): every row about a payout or payment link holds
// `payout:<id>` / `link:<id>` (its page's address), the Target filter finds them by its id (with
// or without `payout:`), its gateway orderid or its client_orderid, and the CSV says them in the
// screen's words.
// Against the real sandbox process, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditListResponseSchema,
  AuditVerifyResponseSchema,
  PayoutResultSchema,
  type AuditListItem,
} from '@paydesk/shared/api';
import {
  cardPayout,
  payoutFormLink,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from '../payouts/test-support/app.js';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`audit targets of payouts and links (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    let auditor: TestClient & { email: string };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      auditor = await bff.userWithRoles(['auditor']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    const list = async (target: string) => {
      const res = await auditor.get(`/api/audit?pageSize=500&target=${encodeURIComponent(target)}`);
      expect(res.status, res.text).toBe(200);
      return AuditListResponseSchema.parse(res.json).items;
    };
    const seqs = (items: AuditListItem[]) => items.map((i) => i.seq);

    it('when a payout is prepared and approved, then each of its rows names it payout:<id>, and its id, orderid and client_orderid find them', async () => {
      const prepared = await post(opsA, '/api/payouts', cardPayout('12.34'));
      expect(prepared.status, prepared.text).toBe(200);
      const { payout } = PayoutResultSchema.parse(prepared.json);
      const approved = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(approved.status, approved.text).toBe(200);
      const after = PayoutResultSchema.parse(approved.json).payout;
      const orderid = after.orderid;
      expect(orderid).not.toBeNull();
      if (orderid === null) return;
      const clientOrderId = after.clientOrderId;

      // Written: every row about the payout (by whatever it holds) names it by its id.
      const about = await bff.k
        .selectFrom('audit_log')
        .select(['action', 'target'])
        .where((eb) =>
          eb.or([
            eb('target', 'like', `%${payout.id}%`),
            eb('target', 'like', `%${orderid}%`),
            eb('target', 'like', `%${clientOrderId}%`),
          ]),
        )
        .execute();
      expect(about.map((r) => r.action)).toEqual(
        expect.arrayContaining(['payout.prepare', 'payout.approve']),
      );
      for (const r of about) expect(r.target, r.action).toBe(`payout:${payout.id}`);

      const all = await list(payout.id);
      expect(all.length).toBe(about.length);
      // The page's id with the prefix, in capitals, the gateway's orderid, the client_orderid: the
      // same rows.
      for (const typed of [`payout:${payout.id}`, payout.id.toUpperCase(), orderid, clientOrderId])
        expect(seqs(await list(typed)), typed).toEqual(seqs(all));
      // Each said as the payout: its id (the page's address) and its order.
      for (const item of all)
        expect(item.targetRef, item.target ?? '').toEqual({
          kind: 'payout',
          id: payout.id,
          label: orderid,
          orderid,
        });

      // The CSV says the target in the same words, ids whole; the stored target stays beside it.
      const csv = await auditor.get(
        `/api/audit/export?format=csv&target=${encodeURIComponent(orderid)}`,
      );
      expect(csv.status).toBe(200);
      const lines = csv.text.trim().split('\r\n').slice(1);
      expect(lines).toHaveLength(all.length);
      for (const line of lines) {
        expect(line.endsWith(`,Payout ${payout.id} · order ${orderid}`)).toBe(true);
        expect(line).toContain(`,payout:${payout.id},`);
      }

      // The chain holds.
      const verified = AuditVerifyResponseSchema.parse(
        (await auditor.get('/api/audit/verify')).json,
      );
      expect(verified.ok).toBe(true);
    });

    it('when a payout-form link is created, then its row names it link:<id> and its id finds it', async () => {
      const created = await post(opsA, '/api/payment-links', payoutFormLink());
      expect(created.status, created.text).toBe(200);
      const { link } = created.json as { link: { id: string } };
      const rows = await bff.k
        .selectFrom('audit_log')
        .select(['action', 'target'])
        .where('action', '=', 'payment_link.create')
        .where('outcome', '=', 'success')
        .execute();
      expect(rows.map((r) => r.target)).toContain(`link:${link.id}`);
      const found = await list(link.id);
      expect(found.map((i) => [i.action, i.target, i.targetRef?.kind])).toEqual([
        ['payment_link.create', `link:${link.id}`, 'link'],
      ]);
      expect(seqs(await list(`link:${link.id}`))).toEqual(seqs(found));
    });
  });
}
