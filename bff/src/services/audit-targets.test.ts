import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import {
  AuditListResponseSchema,
  AuditVerifyResponseSchema,
  type AuditListItem,
} from '@paydesk/shared/api';
import type { Database } from '../db/schema.js';
import type { PaymentsTables } from '../payments/migration.js';
import type { PayoutsTables } from '../payouts/migration.js';
import type { ViewsTables } from '../views/migration.js';
import {
  ADMIN,
  DB_VARIANTS,
  startApp,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';
import { toAuditRow, type AuditEntry } from './audit.js';
import { resolveTargets } from './audit-targets.js';

type AllTables = Database & PaymentsTables & PayoutsTables & ViewsTables;

const TX = '11111111-1111-4111-8111-111111111111';
const TX_PENDING = '22222222-2222-4222-8222-222222222222';
const TX_GONE = '33333333-3333-4333-8333-333333333333';
const PAYOUT = '44444444-4444-4444-8444-444444444444';
const LINK = '55555555-5555-4555-8555-555555555555';
const LINK_NO_ORDER = '66666666-6666-4666-8666-666666666666';
const PLAN = '77777777-7777-4777-8777-777777777777';
const VIEW = '88888888-8888-4888-8888-888888888888';

const row = (target: string | null, action = 'test.target'): AuditEntry => ({
  actorId: null,
  actorEmail: 'someone@paydesk.test',
  actorRoles: ['finance'],
  action,
  target,
  summary: { note: target ?? 'none' },
  outcome: 'success',
  errorCode: null,
  requestId: null,
  ip: null,
  userAgent: null,
});

/**
 * Inserts `rows` into `table` with only the columns a test needs (the tables' types list every
 * column, those with defaults too).
 */
async function insert(
  k: Kysely<AllTables>,
  table: keyof AllTables,
  ...rows: Record<string, string | number | null>[]
): Promise<void> {
  for (const row of rows) {
    const columns = Object.keys(row);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
      values (${sql.join(columns.map((c) => row[c]))})`.execute(k);
  }
}

async function seedRecords(k: Kysely<AllTables>, adminId: string, at: number): Promise<void> {
  const tx = (id: string, orderid: string, clientOrderid: string) => ({
    id,
    endpoint_id: '1001',
    orderid,
    client_orderid: clientOrderid,
    type: 'sale',
    status: 'approved',
    stage: null,
    currency: 'EUR',
    amount_minor: 1000,
    source: 'paydesk',
    created_at: at,
    updated_at: at,
  });
  await insert(
    k,
    'transactions',
    tx(TX, '9000123', 'shop-order-1'),
    // A rebill the gateway has not named yet: its orderid is a placeholder.
    tx(TX_PENDING, 'pending:rb-abc', 'rb-abc'),
  );
  const order = {
    endpoint_id: '1001',
    currency: 'EUR',
    order_desc: 'test',
    created_at: at,
    updated_at: at,
  };
  await insert(k, 'payouts', {
    ...order,
    id: PAYOUT,
    mode: 'two-step',
    state: 'pending_approval',
    client_orderid: 'pd-payout-1',
    orderid: '9000200',
    amount_minor: 2500,
    destination_kind: 'card',
    destination_masked: '411111******1111',
    destination_label: 'Visa •••• 1111',
    destination_hash: 'h',
    client_ip: '127.0.0.1',
    prepared_by: adminId,
    prepared_by_email: ADMIN.email,
  });
  const link = (id: string, clientOrderid: string, orderid: string | null) => ({
    ...order,
    id,
    kind: 'sale-form',
    state: 'sent',
    client_orderid: clientOrderid,
    orderid,
    request: '{}',
    created_by: adminId,
    created_by_email: ADMIN.email,
  });
  await insert(
    k,
    'payment_links',
    link(LINK, 'pd-link-1', '9000300'),
    link(LINK_NO_ORDER, 'pd-link-2', null),
  );
  await insert(k, 'subscriptions', {
    id: PLAN,
    endpoint_id: '1001',
    client_orderid: 'pd-sub-1',
    recurring_payment_id: '223706339',
    card_ref_id: '910000022',
    amount_minor: 999,
    currency: 'EUR',
    period: 'month',
    interval_count: 1,
    first_charge_at: at,
    order_desc: 'Monthly',
    email: 'subscriber@example.com',
    state: 'active',
    created_by: adminId,
    created_by_email: ADMIN.email,
    created_at: at,
    updated_at: at,
  });
  await insert(k, 'saved_views', {
    id: VIEW,
    screen: 'transactions',
    name: 'Declined this week',
    name_key: 'declined this week',
    role: 'finance',
    query: 'status=declined',
    created_by: adminId,
    created_by_email: ADMIN.email,
    created_at: at,
  });
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`audit list targets (${variant.name})`, () => {
    let t: TestApp;
    let auditor: TestClient;
    let adminId: string;
    beforeEach(async () => {
      t = await startApp(variant);
      auditor = t.client();
      await auditor.login(ADMIN.email, ADMIN.password);
      const admin = await t.db.k
        .selectFrom('users')
        .select('id')
        .where('email', '=', ADMIN.email)
        .executeTakeFirstOrThrow();
      adminId = admin.id;
      await seedRecords(t.db.k, adminId, t.clock.now());
    });
    afterEach(async () => {
      await t.close();
    });

    const list = async (query = '') =>
      AuditListResponseSchema.parse((await auditor.get(`/api/audit${query}`)).json);
    const byTarget = (items: AuditListItem[]) =>
      Object.fromEntries(items.map((item) => [item.target ?? 'null', item.targetRef]));

    it('when rows name records, then the list resolves each target to what the screens show and keeps the stored row and its hash', async () => {
      const targets = [
        `transaction:${TX}`,
        `transaction:${TX_PENDING}`,
        `transaction:${TX_GONE}`,
        `payout:${PAYOUT}`,
        `link:${LINK}`,
        `link:${LINK_NO_ORDER}`,
        `subscription:${PLAN}`,
        `user:${adminId}`,
        `account:${ADMIN.email}`,
        'account:nobody@paydesk.test',
        `view:${VIEW}`,
        'card-ref:910000022',
        'thing:1',
        null,
      ];
      for (const target of targets) await t.services.audit.append(row(target));
      const page = await list('?action=test.target');
      expect(page.total).toBe(targets.length);
      expect(byTarget(page.items)).toEqual({
        [`transaction:${TX}`]: {
          kind: 'transaction',
          id: TX,
          label: '9000123',
          orderid: '9000123',
        },
        // no gateway orderid yet: the client_orderid, never the placeholder
        [`transaction:${TX_PENDING}`]: {
          kind: 'transaction',
          id: TX_PENDING,
          label: 'rb-abc',
          orderid: null,
        },
        [`transaction:${TX_GONE}`]: null,
        [`payout:${PAYOUT}`]: { kind: 'payout', id: PAYOUT, label: '9000200', orderid: '9000200' },
        [`link:${LINK}`]: { kind: 'link', id: LINK, label: '9000300', orderid: '9000300' },
        [`link:${LINK_NO_ORDER}`]: {
          kind: 'link',
          id: LINK_NO_ORDER,
          label: 'pd-link-2',
          orderid: null,
        },
        [`subscription:${PLAN}`]: {
          kind: 'subscription',
          id: PLAN,
          label: '223706339',
          orderid: '223706339',
        },
        [`user:${adminId}`]: { kind: 'user', id: adminId, label: ADMIN.email, orderid: null },
        [`account:${ADMIN.email}`]: {
          kind: 'user',
          id: adminId,
          label: ADMIN.email,
          orderid: null,
        },
        'account:nobody@paydesk.test': null,
        [`view:${VIEW}`]: {
          kind: 'view',
          id: VIEW,
          label: 'Declined this week',
          orderid: null,
        },
        'card-ref:910000022': null,
        'thing:1': null,
        null: null,
      });
      // The stored rows are as they were written: same target text, same hash, chain intact.
      const stored = await t.db.k
        .selectFrom('audit_log')
        .select(['seq', 'target', 'hash'])
        .where('action', '=', 'test.target')
        .orderBy('seq', 'desc')
        .execute();
      expect(page.items.map((item) => [item.seq, item.target, item.hash])).toEqual(
        stored.map((r) => [r.seq, r.target, r.hash]),
      );
      const verified = AuditVerifyResponseSchema.parse(
        (await auditor.get('/api/audit/verify')).json,
      );
      expect(verified.ok).toBe(true);
    });

    it('when a page holds many rows of a few kinds, then their targets are read with one query per kind', async () => {
      for (let i = 0; i < 30; i += 1) {
        const target = [`transaction:${TX}`, `transaction:${TX_PENDING}`, `payout:${PAYOUT}`][
          i % 3
        ];
        await t.services.audit.append(row(target ?? null));
      }
      const rows = (
        await t.db.k.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').execute()
      ).map(toAuditRow);
      let queries = 0;
      const counting: KyselyPlugin = {
        transformQuery: (args) => {
          queries += 1;
          return args.node;
        },
        transformResult: (args) => Promise.resolve(args.result),
      };
      const items = await resolveTargets({ ...t.db, k: t.db.k.withPlugin(counting) }, rows);
      // transactions, payouts, and users (the bootstrap row and the login name the admin)
      expect(queries).toBe(3);
      expect(items.filter((item) => item.targetRef?.kind === 'transaction')).toHaveLength(20);
      expect(items.filter((item) => item.targetRef?.kind === 'payout')).toHaveLength(10);
    });

    it('when the filter holds an orderid, a client_orderid, an e-mail, a card reference or a record id, then it finds the rows of what it names; the stored target still works', async () => {
      for (const target of [
        `transaction:${TX}`,
        `transaction:${TX_PENDING}`,
        `payout:${PAYOUT}`,
        `link:${LINK}`,
        `subscription:${PLAN}`,
        `user:${adminId}`,
        `account:${ADMIN.email}`,
        'card-ref:910000022',
        'thing:1',
      ])
        await t.services.audit.append(row(target));
      const targetsOf = async (text: string) =>
        (await list(`?action=test.target&target=${encodeURIComponent(text)}`)).items.map(
          (item) => item.target,
        );
      expect(await targetsOf('9000123')).toEqual([`transaction:${TX}`]);
      expect(await targetsOf('shop-order-1')).toEqual([`transaction:${TX}`]);
      expect(await targetsOf(TX)).toEqual([`transaction:${TX}`]);
      expect(await targetsOf(`transaction:${TX}`)).toEqual([`transaction:${TX}`]);
      expect(await targetsOf('rb-abc')).toEqual([`transaction:${TX_PENDING}`]);
      expect(await targetsOf('9000200')).toEqual([`payout:${PAYOUT}`]);
      expect(await targetsOf('pd-payout-1')).toEqual([`payout:${PAYOUT}`]);
      expect(await targetsOf('9000300')).toEqual([`link:${LINK}`]);
      expect(await targetsOf('223706339')).toEqual([`subscription:${PLAN}`]);
      // an e-mail finds the user's rows and the sign-ins to it, in any case
      expect(await targetsOf(ADMIN.email.toUpperCase())).toEqual([
        `account:${ADMIN.email}`,
        `user:${adminId}`,
      ]);
      // a card reference by its id, as the list shows it (a plan charges it: not the plan's rows)
      expect(await targetsOf('910000022')).toEqual(['card-ref:910000022']);
      expect(await targetsOf('thing:1')).toEqual(['thing:1']);
      expect(await targetsOf('no-such-order')).toEqual([]);
      // The export filters as the list does.
      const csv = await auditor.get('/api/audit/export?format=jsonl&target=9000123');
      expect(csv.status).toBe(200);
      expect(
        csv.text
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { target: string | null }).target),
      ).toEqual([`transaction:${TX}`]);
    });

    it('when the filter holds a record’s id (with or without its kind, in any case), its orderid or client_orderid, then it finds that record’s rows; a row naming a record that is gone is found by the id it holds', async () => {
      const targets = [`transaction:${TX}`, `link:${LINK_NO_ORDER}`, `payout:${TX_GONE}`];
      for (const target of targets) await t.services.audit.append(row(target));
      const page = await list('?action=test.target');
      const refs = byTarget(page.items);
      expect(refs[`transaction:${TX}`]).toEqual({
        kind: 'transaction',
        id: TX,
        label: '9000123',
        orderid: '9000123',
      });
      expect(refs[`link:${LINK_NO_ORDER}`]).toMatchObject({ kind: 'link', id: LINK_NO_ORDER });
      expect(refs[`payout:${TX_GONE}`]).toBeNull();
      const targetsOf = async (text: string) =>
        (await list(`?action=test.target&target=${encodeURIComponent(text)}`)).items.map(
          (item) => item.target,
        );
      for (const typed of [TX, TX.toUpperCase(), `transaction:${TX}`, '9000123', 'shop-order-1'])
        expect(await targetsOf(typed), typed).toEqual([`transaction:${TX}`]);
      for (const typed of [LINK_NO_ORDER, `link:${LINK_NO_ORDER}`, 'pd-link-2'])
        expect(await targetsOf(typed), typed).toEqual([`link:${LINK_NO_ORDER}`]);
      expect(await targetsOf(TX_GONE)).toEqual([`payout:${TX_GONE}`]);
      // a kind before the text searches that kind only
      expect(await targetsOf(`payout:${TX}`)).toEqual([]);
      const verified = AuditVerifyResponseSchema.parse(
        (await auditor.get('/api/audit/verify')).json,
      );
      expect(verified.ok).toBe(true);
    });

    it('when the chain is verified, then the reply names the row that records it, the row after the head, and the list holds it', async () => {
      const verified = AuditVerifyResponseSchema.parse(
        (await auditor.get('/api/audit/verify')).json,
      );
      const head = verified.head?.seq ?? 0;
      expect(verified.recordedSeq).toBe(head + 1);
      const page = await list();
      expect(page.total).toBe(head + 1);
      expect(page.items[0]).toMatchObject({
        seq: head + 1,
        action: 'audit.verify',
        outcome: 'success',
        summary: { headSeq: head, ok: true },
      });
      // one row for the verification: the runner appends none of its own
      const again = AuditVerifyResponseSchema.parse((await auditor.get('/api/audit/verify')).json);
      expect(again.head?.seq).toBe(head + 1);
      expect(again.recordedSeq).toBe(head + 2);
      expect((await list()).total).toBe(head + 2);
    });
  });
}
