import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompiledQuery, SelectQueryNode, sql, type KyselyPlugin } from 'kysely';
import {
  AUDIT_ANCHOR_RULE_MESSAGE,
  AuditListResponseSchema,
  AuditRowSchema,
  AuditVerifyResponseSchema,
  type AuditChainHead,
  type AuditFilter,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { openDatabase } from '../db/connect.js';
import {
  ADMIN,
  DB_VARIANTS,
  startApp,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';
import { AuditLog, rowHash, verifyChain, type AuditEntry } from './audit.js';
import { maskPans } from './redact.js';

const entry = (i: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  actorId: null,
  actorEmail: `actor${i % 3}@paydesk.test`,
  actorRoles: ['support'],
  action: i % 2 === 0 ? 'test.even' : 'test.odd',
  target: `thing:${i}`,
  summary: {
    i,
    password: 'must-not-appear',
    card: '4111111111111111',
    note: 'Zoë 🚀 ü "quoted" ~ 12:x',
  },
  outcome: 'success',
  errorCode: null,
  requestId: `req-${i}`,
  ip: '127.0.0.1',
  userAgent: 'vitest',
  ...over,
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`audit log (${variant.name})`, () => {
    let t: TestApp;
    let auditor: TestClient;
    beforeEach(async () => {
      t = await startApp(variant);
      auditor = t.client();
      await auditor.login(ADMIN.email, ADMIN.password);
    });
    afterEach(async () => {
      await t.close();
    });

    it('when rows are appended, then each links to the previous one and verify reports the whole chain', async () => {
      for (let i = 0; i < 20; i += 1) await t.services.audit.append(entry(i));
      const res = await auditor.get('/api/audit/verify');
      const v = AuditVerifyResponseSchema.parse(res.json);
      expect(v.ok).toBe(true);
      expect(v.firstBrokenSeq).toBeNull();
      // bootstrap + login + 20 rows (the verify call is audited after it ran)
      expect(v.verifiedUpToSeq).toBe(22);
      const rows = await t.db.k.selectFrom('audit_log').selectAll().orderBy('seq').execute();
      for (let i = 1; i < rows.length; i += 1) expect(rows[i]?.prev_hash).toBe(rows[i - 1]?.hash);
    });

    it('when a summary holds a password or a card number, then the row keeps neither', async () => {
      await t.services.audit.append(entry(1));
      const row = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('request_id', '=', 'req-1')
        .executeTakeFirstOrThrow();
      expect(row.summary).not.toContain('must-not-appear');
      expect(row.summary).not.toContain('4111111111111111');
      expect(JSON.parse(row.summary)).toEqual({
        card: '411111…1111',
        i: 1,
        note: 'Zoë 🚀 ü "quoted" ~ 12:x',
        password: '[redacted]',
      });
    });

    it('when a card number is written in groups in a summary, a target or a user agent cut at its limit, then the row keeps only its BIN and last four', async () => {
      await t.services.audit.append(
        entry(2, {
          summary: { comment: 'card 4111 1111 1111 1111 charged twice' },
          target: 'order:4111-1111-1111-1111',
          // 302 characters: the user agent is kept to 300, which would cut the card number.
          userAgent: `${'x'.repeat(283)}4111 1111 1111 1111`,
        }),
      );
      const row = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('request_id', '=', 'req-2')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.summary)).toEqual({ comment: 'card 411111…1111 charged twice' });
      expect(row.target).toBe('order:411111…1111');
      expect(row.user_agent).toBe(`${'x'.repeat(283)}411111…1111`);
    });

    it('when someone tries UPDATE or DELETE on the audit log, then the database refuses', async () => {
      await expect(
        t.db.k.updateTable('audit_log').set({ action: 'x' }).where('seq', '=', 1).execute(),
      ).rejects.toThrow(/append-only/);
      await expect(t.db.k.deleteFrom('audit_log').where('seq', '=', 1).execute()).rejects.toThrow(
        /append-only/,
      );
      expect(
        await t.db.k
          .selectFrom('audit_log')
          .select('action')
          .where('seq', '=', 1)
          .executeTakeFirstOrThrow(),
      ).toEqual({ action: 'user.create' });
    });

    it('when a row is edited directly in the database, then verify reports that row as the first broken one', async () => {
      for (let i = 0; i < 10; i += 1) await t.services.audit.append(entry(i));
      const trigger =
        variant.name === 'postgres' ? 'audit_log_no_change on audit_log' : 'audit_log_no_update';
      await sql.raw(`drop trigger ${trigger}`).execute(t.db.k);
      await t.db.k
        .updateTable('audit_log')
        .set({ outcome: 'refused' })
        .where('seq', '=', 7)
        .execute();
      const v = AuditVerifyResponseSchema.parse((await auditor.get('/api/audit/verify')).json);
      expect(v).toMatchObject({
        ok: false,
        firstBrokenSeq: 7,
        verifiedUpToSeq: 6,
        reason: 'hash_mismatch',
      });
    });

    it('when a row is removed and the rest re-linked, then verify reports the gap', async () => {
      for (let i = 0; i < 5; i += 1) await t.services.audit.append(entry(i));
      const trigger =
        variant.name === 'postgres' ? 'audit_log_no_change on audit_log' : 'audit_log_no_delete';
      await sql.raw(`drop trigger ${trigger}`).execute(t.db.k);
      await t.db.k.deleteFrom('audit_log').where('seq', '=', 4).execute();
      const v = AuditVerifyResponseSchema.parse((await auditor.get('/api/audit/verify')).json);
      expect(v).toMatchObject({
        ok: false,
        firstBrokenSeq: 4,
        verifiedUpToSeq: 3,
        reason: 'sequence_gap',
      });
    });

    it('when a whole read batch of rows is missing, then verify still reports the gap', async () => {
      for (let i = 0; i < 12; i += 1) await t.services.audit.append(entry(i));
      const trigger =
        variant.name === 'postgres' ? 'audit_log_no_change on audit_log' : 'audit_log_no_delete';
      await sql.raw(`drop trigger ${trigger}`).execute(t.db.k);
      await t.db.k.deleteFrom('audit_log').where('seq', '>=', 5).where('seq', '<', 9).execute();
      // batches of 4 rows: [1,5) full, [5,9) empty, [9,13) beyond it
      expect(await verifyChain(t.db, 4)).toMatchObject({
        ok: false,
        firstBrokenSeq: 5,
        verifiedUpToSeq: 4,
        reason: 'sequence_gap',
      });
      expect(await verifyChain(t.db, 3)).toMatchObject({
        ok: false,
        firstBrokenSeq: 5,
        reason: 'sequence_gap',
      });
    });

    const verifyAt = async (query = '') => {
      const res = await auditor.get(`/api/audit/verify${query}`);
      expect(res.status).toBe(200);
      return AuditVerifyResponseSchema.parse(res.json);
    };
    const anchorOf = (head: AuditChainHead | null) => {
      if (head === null) throw new Error('the log has no head');
      return `${head.seq}:${head.hash}`;
    };
    // Like any text in a summary, a run of 13+ digits in the hash is masked as a card number
    // would be (an anchor can carry any hex digits).
    const recordedAnchor = (head: AuditChainHead | null) => maskPans(anchorOf(head));
    /** The summary of the newest `audit.verify` row. */
    const lastVerifySummary = async () =>
      JSON.parse(
        (
          await t.db.k
            .selectFrom('audit_log')
            .select('summary')
            .where('action', '=', 'audit.verify')
            .orderBy('seq', 'desc')
            .limit(1)
            .executeTakeFirstOrThrow()
        ).summary,
      ) as unknown;
    const dropTrigger = async (change: 'update' | 'delete') => {
      const trigger =
        variant.name === 'postgres' ? 'audit_log_no_change on audit_log' : `audit_log_no_${change}`;
      await sql.raw(`drop trigger ${trigger}`).execute(t.db.k);
    };

    it('when rows are appended, then verify returns the head, logs it, and verifies against it as an anchor', async () => {
      for (let i = 0; i < 5; i += 1) await t.services.audit.append(entry(i));
      const last = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const first = await verifyAt();
      expect(first).toMatchObject({ ok: true, verifiedUpToSeq: 7, reason: null });
      expect(first.head).toEqual({
        seq: 7,
        hash: last.hash,
        createdAt: new Date(last.at).toISOString(),
      });
      const heads = t.logs
        .map((line) => JSON.parse(line) as { msg?: string; level?: number; head?: unknown })
        .filter((line) => line.msg === 'audit chain head');
      expect(heads).toEqual([
        expect.objectContaining({ level: 30, head: { seq: 7, hash: last.hash }, ok: true }),
      ]);
      expect(await lastVerifySummary()).toEqual({
        anchor: null,
        check: 'explicit',
        ok: true,
        reason: null,
        firstBrokenSeq: null,
        headSeq: 7,
      });

      const anchored = await verifyAt(`?anchor=${anchorOf(first.head)}`);
      // the first verification's own audit row is the head now
      expect(anchored).toMatchObject({
        ok: true,
        reason: null,
        firstBrokenSeq: null,
        verifiedUpToSeq: 8,
      });
      expect(anchored.head?.seq).toBe(8);
      expect(await lastVerifySummary()).toEqual({
        anchor: recordedAnchor(first.head),
        check: 'explicit',
        ok: true,
        reason: null,
        firstBrokenSeq: null,
        headSeq: 8,
      });
    });

    it('when the newest rows are deleted in the database, then the chain alone still verifies but the recorded head gives anchor_missing', async () => {
      for (let i = 0; i < 10; i += 1) await t.services.audit.append(entry(i));
      const recorded = (await verifyAt()).head;
      expect(recorded?.seq).toBe(12);
      await dropTrigger('delete');
      // rows 10..13 (13: the verification's own row)
      await t.db.k.deleteFrom('audit_log').where('seq', '>=', 10).execute();
      // The gap the anchors close: without one, the cut log verifies.
      expect(await verifyChain(t.db)).toMatchObject({
        ok: true,
        verifiedUpToSeq: 9,
        head: { seq: 9 },
      });
      const v = await verifyAt(`?anchor=${anchorOf(recorded)}`);
      expect(v).toMatchObject({
        ok: false,
        reason: 'anchor_missing',
        firstBrokenSeq: 12,
        verifiedUpToSeq: null,
        rowsChecked: 9,
      });
      expect(await lastVerifySummary()).toMatchObject({
        anchor: recordedAnchor(recorded),
        ok: false,
        reason: 'anchor_missing',
        firstBrokenSeq: 12,
      });
    });

    it('when a row is edited and every later hash recomputed, then the chain alone still verifies but the recorded head gives anchor_mismatch', async () => {
      for (let i = 0; i < 5; i += 1) await t.services.audit.append(entry(i));
      const recorded = (await verifyAt()).head;
      expect(recorded?.seq).toBe(7);
      await dropTrigger('update');
      // What an attacker with database access does: edit row 1, re-hash the chain with rowHash.
      const rows = await t.db.k.selectFrom('audit_log').selectAll().orderBy('seq').execute();
      let prevHash = rows[0]!.prev_hash;
      for (const { hash: _old, ...row } of rows) {
        const edited = {
          ...row,
          prev_hash: prevHash,
          actor_email: row.seq === 1 ? 'mallory@paydesk.test' : row.actor_email,
        };
        prevHash = rowHash(edited);
        await t.db.k
          .updateTable('audit_log')
          .set({ actor_email: edited.actor_email, prev_hash: edited.prev_hash, hash: prevHash })
          .where('seq', '=', row.seq)
          .execute();
      }
      expect(await verifyChain(t.db)).toMatchObject({ ok: true, verifiedUpToSeq: 8 });
      const v = await verifyAt(`?anchor=${anchorOf(recorded)}`);
      expect(v).toMatchObject({
        ok: false,
        reason: 'anchor_mismatch',
        firstBrokenSeq: 7,
        verifiedUpToSeq: null,
        rowsChecked: 7,
      });
      expect(v.head?.seq).toBe(8);
      expect(await lastVerifySummary()).toMatchObject({
        anchor: recordedAnchor(recorded),
        reason: 'anchor_mismatch',
      });
    });

    /** The outcome and summary of the `audit.verify` rows, oldest first. */
    const verifyRows = async () =>
      (
        await t.db.k
          .selectFrom('audit_log')
          .select(['seq', 'outcome', 'error_code', 'summary'])
          .where('action', '=', 'audit.verify')
          .orderBy('seq')
          .execute()
      ).map((r) => ({
        seq: r.seq,
        outcome: r.outcome,
        errorCode: r.error_code,
        summary: JSON.parse(r.summary) as Record<string, unknown>,
      }));

    it('when a check finds a recorded head not held or the chain broken, then its row is failed with the reason; a clean one stays success', async () => {
      for (let i = 0; i < 5; i += 1) await t.services.audit.append(entry(i));
      const clean = await verifyAt();
      const wrongHead = await verifyAt(`?anchor=3:${'f'.repeat(64)}`);
      expect(wrongHead).toMatchObject({ ok: false, reason: 'anchor_mismatch' });
      const notFound = await verifyAt(`?anchor=999:${'f'.repeat(64)}`);
      expect(notFound).toMatchObject({ ok: false, reason: 'anchor_missing' });
      await dropTrigger('update');
      await t.db.k
        .updateTable('audit_log')
        .set({ outcome: 'refused' })
        .where('seq', '=', 4)
        .execute();
      const broken = await verifyAt();
      expect(broken).toMatchObject({ ok: false, reason: 'hash_mismatch', firstBrokenSeq: 4 });
      const rows = await verifyRows();
      expect(rows.map((r) => r.seq)).toEqual([
        clean.recordedSeq,
        wrongHead.recordedSeq,
        notFound.recordedSeq,
        broken.recordedSeq,
      ]);
      expect(rows.map((r) => [r.outcome, r.errorCode, r.summary.reason])).toEqual([
        ['success', null, null],
        ['failed', null, 'anchor_mismatch'],
        ['failed', null, 'anchor_missing'],
        ['failed', null, 'hash_mismatch'],
      ]);
      // What an auditor filters on finds the three.
      const failed = AuditListResponseSchema.parse(
        (await auditor.get('/api/audit?action=audit.verify&outcome=failed')).json,
      );
      expect(failed.items.map((r) => r.seq)).toEqual(
        [wrongHead.recordedSeq, notFound.recordedSeq, broken.recordedSeq].reverse(),
      );
    });

    it('when the check is automatic and the chain is intact, then it is not recorded (no row, no recordedSeq); an explicit one, or an automatic one that finds a problem, is', async () => {
      for (let i = 0; i < 3; i += 1) await t.services.audit.append(entry(i));
      const count = async () =>
        Number(
          (
            await t.db.k
              .selectFrom('audit_log')
              .select((eb) => eb.fn.countAll<number | string>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      for (let i = 0; i < 3; i += 1) {
        const auto = await verifyAt('?check=automatic');
        expect(auto).toMatchObject({ ok: true, head: { seq: before } });
        expect(auto.recordedSeq).toBeUndefined();
      }
      expect(await count()).toBe(before);
      expect(await verifyRows()).toEqual([]);

      const explicit = await verifyAt('?check=explicit');
      expect(explicit.recordedSeq).toBe(before + 1);
      const autoAgainst = await verifyAt(`?check=automatic&anchor=2:${'e'.repeat(64)}`);
      expect(autoAgainst).toMatchObject({ ok: false, reason: 'anchor_mismatch' });
      expect(autoAgainst.recordedSeq).toBe(before + 2);
      expect(
        (await verifyRows()).map((r) => [r.seq, r.outcome, r.summary.check, r.summary.reason]),
      ).toEqual([
        [before + 1, 'success', 'explicit', null],
        [before + 2, 'failed', 'automatic', 'anchor_mismatch'],
      ]);
      const bad = await auditor.get('/api/audit/verify?check=sometimes');
      expect(bad.status).toBe(400);
      expect((bad.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('query.check');
    });

    it('when the chain itself breaks below the anchor, then that break is reported, not the anchor', async () => {
      for (let i = 0; i < 6; i += 1) await t.services.audit.append(entry(i));
      const head = (await verifyChain(t.db)).head!;
      await dropTrigger('update');
      await t.db.k
        .updateTable('audit_log')
        .set({ outcome: 'refused' })
        .where('seq', '=', 4)
        .execute();
      expect(await verifyChain(t.db, 3, head)).toMatchObject({
        ok: false,
        reason: 'hash_mismatch',
        firstBrokenSeq: 4,
        verifiedUpToSeq: 3,
      });
      expect(await verifyChain(t.db, 3, { seq: 2, hash: 'f'.repeat(64) })).toMatchObject({
        reason: 'anchor_mismatch',
        firstBrokenSeq: 2,
      });
    });

    it('when the anchor is malformed or the verify query has an unknown parameter, then 400 names it', async () => {
      const hash = 'a'.repeat(64);
      for (const anchor of [hash, `0:${hash}`, `3:${hash.toUpperCase()}`, `3:${hash}ff`, '3']) {
        const res = await auditor.get(`/api/audit/verify?anchor=${anchor}`);
        expect(res.status, anchor).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields, anchor).toEqual([
          { path: 'query.anchor', rule: 'anchor', message: AUDIT_ANCHOR_RULE_MESSAGE },
        ]);
      }
      const unknown = await auditor.get(`/api/audit/verify?anchr=3:${hash}`);
      expect(unknown.status).toBe(400);
      expect((unknown.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'query.anchr',
          rule: 'unrecognized_keys',
          message: 'is not a parameter of this request',
        },
      ]);
    });

    it('when batches are small, then a long intact chain still verifies to its last row', async () => {
      for (let i = 0; i < 25; i += 1) await t.services.audit.append(entry(i));
      expect(await verifyChain(t.db, 4)).toMatchObject({
        ok: true,
        rowsChecked: 27,
        verifiedUpToSeq: 27,
      });
      expect(await verifyChain(t.db, 27)).toMatchObject({ ok: true, verifiedUpToSeq: 27 });
    });

    it('when the list is filtered and paged, then the reply holds exactly the matching rows, newest first', async () => {
      for (let i = 0; i < 30; i += 1)
        await t.services.audit.append(
          entry(i, i === 5 ? { outcome: 'refused', errorCode: 'FORBIDDEN' } : {}),
        );
      const page1 = AuditListResponseSchema.parse(
        (await auditor.get('/api/audit?action=test.even&pageSize=10')).json,
      );
      expect(page1.total).toBe(15);
      expect(page1.items).toHaveLength(10);
      expect(page1.items.every((r) => r.action === 'test.even')).toBe(true);
      expect(page1.items[0]!.seq).toBeGreaterThan(page1.items[1]!.seq);
      const page2 = AuditListResponseSchema.parse(
        (await auditor.get('/api/audit?action=test.even&pageSize=10&page=2')).json,
      );
      expect(page2.items).toHaveLength(5);
      const prefix = AuditListResponseSchema.parse(
        (await auditor.get('/api/audit?action=test.&pageSize=100')).json,
      );
      expect(prefix.total).toBe(30);
      const refused = AuditListResponseSchema.parse(
        (await auditor.get('/api/audit?outcome=refused')).json,
      );
      expect(refused.items.map((r) => r.target)).toEqual(['thing:5']);
      // An action or an e-mail by its beginning, in any case; wildcards are plain text.
      const filtered = async (query: string) =>
        AuditListResponseSchema.parse((await auditor.get(`/api/audit?pageSize=100&${query}`)).json)
          .items;
      expect(await filtered('action=test')).toHaveLength(30);
      expect(await filtered('action=TEST.E')).toHaveLength(15);
      expect(await filtered('action=test.odd')).toHaveLength(15);
      expect(await filtered('action=test%25')).toHaveLength(0);
      expect(await filtered('action=test_even')).toHaveLength(0);
      expect(await filtered('action=test.evens')).toHaveLength(0);
      const actor1 = await filtered('actor=Actor1');
      expect(actor1).toHaveLength(10);
      expect(actor1.every((r) => r.actorEmail === 'actor1@paydesk.test')).toBe(true);
      expect(await filtered('actor=actor')).toHaveLength(30);
      expect(await filtered('actor=actor_')).toHaveLength(0);
      expect(await filtered('actor=actor1@paydesk.test.x')).toHaveLength(0);
      const byActor = AuditListResponseSchema.parse(
        (await auditor.get('/api/audit?actor=ACTOR1@paydesk.test&target=thing:4')).json,
      );
      expect(byActor.items.map((r) => r.requestId)).toEqual(['req-4']);
      const now = new Date(t.clock.now());
      const later = AuditListResponseSchema.parse(
        (await auditor.get(`/api/audit?from=${new Date(now.getTime() + 1000).toISOString()}`)).json,
      );
      expect(later.total).toBe(0);
      const bad = await auditor.get('/api/audit?pageSize=100000&outcome=maybe');
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.json)).toContain('query.pageSize');
      expect(JSON.stringify(bad.json)).toContain('query.outcome');
    });

    /**
     * An audit log whose reads are kept (`selects`) as they are run, to ask the database how it
     * would run them.
     */
    const listedReads = () => {
      const selects: CompiledQuery[] = [];
      const capture: KyselyPlugin = {
        transformQuery: ({ node, queryId }) => {
          if (SelectQueryNode.is(node))
            selects.push(t.db.k.getExecutor().compileQuery(node, queryId));
          return node;
        },
        transformResult: ({ result }) => Promise.resolve(result),
      };
      return { log: new AuditLog({ ...t.db, k: t.db.k.withPlugin(capture) }, t.clock), selects };
    };

    // PostgreSQL's planner may rightly prefer to read a table this small whole: its plan is not
    // asserted (the test is SQLite's alone, not a skipped one). SQLite chooses by the query's
    // shape, as it would on a large log.
    const onSqlite = variant.name === 'sqlite' ? it : () => undefined;
    onSqlite(
      'when the list is filtered by target, then its page and its count read the rows of those targets from audit_log_target, not the whole log',
      async () => {
        for (let i = 0; i < 30; i += 1) await t.services.audit.append(entry(i));
        const { log, selects } = listedReads();
        const plans = async (filter: AuditFilter) => {
          selects.length = 0;
          const page = await log.list(filter, 1, 10);
          const all = selects.filter((q) => q.sql.includes('from "audit_log"'));
          // which of the targets named some row holds (services/audit-targets.ts), then the page
          // and its count
          const reads = all.filter((q) => !q.sql.startsWith('select distinct'));
          expect(all).toHaveLength(3);
          expect(reads).toHaveLength(2);
          reads.push(...all.filter((q) => q.sql.startsWith('select distinct')));
          const explained = await Promise.all(
            reads.map((q) =>
              t.db.k.executeQuery(
                CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
              ),
            ),
          );
          return { page, plans: explained.map((p) => JSON.stringify(p.rows)) };
        };

        const one = await plans({ target: 'thing:4' });
        expect(one.page.items.map((r) => r.target)).toEqual(['thing:4']);
        for (const plan of one.plans) expect(plan).toContain('audit_log_target');
        // One target: its rows come from the index newest first, with no sort of the whole set.
        expect(one.plans[0]).not.toContain('TEMP B-TREE');

        // An e-mail names its user's rows and the sign-ins to it: several targets, same index.
        const several = await plans({ target: ADMIN.email });
        expect(several.page.items.length).toBeGreaterThan(0);
        for (const plan of several.plans) expect(plan).toContain('audit_log_target');
      },
    );

    it('when the list is filtered by the beginning of an action or an actor’s e-mail, then its count reads the matching rows from an index of the column, not the whole log', async () => {
      for (let i = 0; i < 30; i += 1) await t.services.audit.append(entry(i));
      const { log, selects } = listedReads();
      const countPlan = async (filter: AuditFilter) => {
        selects.length = 0;
        const page = await log.list(filter, 1, 100);
        const count = selects.find(
          (q) => q.sql.includes('from "audit_log"') && q.sql.includes('count('),
        );
        if (count === undefined) throw new Error('no count query');
        const parameters = [...count.parameters];
        // SQLite chooses by the query's shape. PostgreSQL would rightly read a table this small
        // whole: with sequential scans priced out, it shows whether an index can answer at all.
        const plan =
          variant.name === 'sqlite'
            ? await t.db.k.executeQuery(
                CompiledQuery.raw(`explain query plan ${count.sql}`, parameters),
              )
            : await t.db.k.transaction().execute(async (trx) => {
                await sql`set local enable_seqscan = off`.execute(trx);
                return trx.executeQuery(CompiledQuery.raw(`explain ${count.sql}`, parameters));
              });
        return { total: page.total, plan: JSON.stringify(plan.rows) };
      };
      const byAction = await countPlan({ action: 'test.ev' });
      expect(byAction.total).toBe(15);
      expect(byAction.plan).toContain(
        variant.name === 'sqlite' ? 'audit_log_action' : 'audit_log_action_c',
      );
      const byActor = await countPlan({ actor: 'actor2' });
      expect(byActor.total).toBe(10);
      expect(byActor.plan).toContain(
        variant.name === 'sqlite' ? 'audit_log_actor' : 'audit_log_actor_c',
      );
    });

    it('when the list or the export is asked with a parameter it does not know, then 400 names it (never a default page of everything)', async () => {
      for (const [path, field] of [
        ['/api/audit?limit=10', 'query.limit'],
        ['/api/audit?action=test.&actions=x', 'query.actions'],
        ['/api/audit/export?format=csv&pageSize=10', 'query.pageSize'],
      ] as const) {
        const res = await auditor.get(path);
        expect(res.status, path).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields, path).toEqual([
          { path: field, rule: 'unrecognized_keys', message: 'is not a parameter of this request' },
        ]);
      }
    });

    it('when the filtered set is exported, then CSV and JSONL stream exactly those rows, oldest first', async () => {
      for (let i = 0; i < 12; i += 1) await t.services.audit.append(entry(i));
      const jsonl = await auditor.get('/api/audit/export?format=jsonl&action=test.odd');
      expect(jsonl.status).toBe(200);
      expect(jsonl.headers.get('content-type')).toContain('application/x-ndjson');
      expect(jsonl.headers.get('content-disposition')).toMatch(
        /attachment; filename="paydesk-audit-.*\.jsonl"/,
      );
      const rows = jsonl.text
        .trim()
        .split('\n')
        .map((l) => AuditRowSchema.parse(JSON.parse(l)));
      expect(rows.map((r) => r.target)).toEqual([
        'thing:1',
        'thing:3',
        'thing:5',
        'thing:7',
        'thing:9',
        'thing:11',
      ]);
      const csv = await auditor.get('/api/audit/export?format=csv&action=test.odd');
      const lines = csv.text.trim().split('\r\n');
      expect(lines[0]).toBe(
        'seq,atUtc,actorId,actorEmail,actorRoles,action,target,summary,outcome,errorCode,requestId,ip,userAgent,prevHash,hash,targetInWords',
      );
      expect(lines).toHaveLength(7);
      expect(lines[1]).toContain(',test.odd,thing:1,');
      const exported = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'audit.export')
        .execute();
      expect(exported).toHaveLength(2);
    });

    it('when the audit is exported as CSV, then it starts with a UTF-8 byte-order mark (as the transactions CSV) and quotes a semicolon; JSONL has none', async () => {
      await t.services.audit.append(
        entry(1, { target: 'Zoë; Müller', summary: { note: 'Grüße' } }),
      );
      const raw = async (path: string) => {
        const cookie = [...auditor.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const res = await fetch(auditor.baseUrl + path, { headers: { Cookie: cookie } });
        expect(res.status).toBe(200);
        return Buffer.from(await res.arrayBuffer());
      };
      const csv = await raw('/api/audit/export?format=csv&action=test.odd');
      expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = csv.subarray(3).toString('utf8');
      expect(text.startsWith('seq,atUtc,actorId,')).toBe(true);
      const line = text.split('\r\n')[1] ?? '';
      expect(line).toContain(',test.odd,"Zoë; Müller",');
      expect(line).toContain('Grüße');
      const jsonl = await raw('/api/audit/export?format=jsonl&action=test.odd');
      expect(jsonl[0]).toBe('{'.charCodeAt(0));
    });

    it('when the CSV is asked with delimiter=semicolon, then every line is split on `;`, the time column says UTC, and the BOM, CRLF, quoting (of `,` and `;`) and formula guard stay; another delimiter is 400 naming it', async () => {
      await t.services.audit.append(
        entry(1, {
          actorEmail: 'a@paydesk.test',
          target: '=HYPERLINK("x")',
          summary: { n: 1 },
          userAgent: 'Zoë; Müller, Köln',
        }),
      );
      const cookie = [...auditor.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(
        `${auditor.baseUrl}/api/audit/export?format=csv&action=test.odd&delimiter=semicolon`,
        { headers: { Cookie: cookie } },
      );
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const lines = bytes.subarray(3).toString('utf8').split('\r\n');
      expect(lines[0]).toBe(
        'seq;atUtc;actorId;actorEmail;actorRoles;action;target;summary;outcome;errorCode;requestId;ip;userAgent;prevHash;hash;targetInWords',
      );
      const row = (await t.services.audit.list({ action: 'test.odd' }, 1, 1)).items[0]!;
      expect(row.at).toMatch(/Z$/);
      expect(lines[1]).toBe(
        [
          String(row.seq),
          row.at,
          '',
          'a@paydesk.test',
          '"[""support""]"',
          'test.odd',
          `"'=HYPERLINK(""x"")"`,
          '"{""n"":1}"',
          'success',
          '',
          'req-1',
          '127.0.0.1',
          '"Zoë; Müller, Köln"',
          row.prevHash,
          row.hash,
          // a target of no kind Paydesk knows: nothing to say in words
          '',
        ].join(';'),
      );
      expect(lines.slice(2)).toEqual(['']);
      const exported = await t.db.k
        .selectFrom('audit_log')
        .select('summary')
        .where('action', '=', 'audit.export')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(exported.summary)).toEqual({
        format: 'csv',
        delimiter: 'semicolon',
        filter: { action: 'test.odd' },
      });

      for (const delimiter of ['tab', 'SEMICOLON', ';', '']) {
        const bad = await auditor.get(
          `/api/audit/export?format=csv&delimiter=${encodeURIComponent(delimiter)}`,
        );
        expect(bad.status, delimiter).toBe(400);
        expect(
          (bad.json as ErrorEnvelope).error.details?.fields?.map((f) => [f.path, f.rule]),
          delimiter,
        ).toEqual([['query.delimiter', 'invalid_value']]);
      }
    });

    it('when many appends run at once in one instance, then the chain stays linear and intact', async () => {
      await Promise.all(Array.from({ length: 60 }, (_, i) => t.services.audit.append(entry(i))));
      expect(await t.services.audit.verify()).toMatchObject({ ok: true, verifiedUpToSeq: 62 });
    });
  });
}

// Several instances share only PostgreSQL (SQLite is the single-instance embedded default).
const postgres = DB_VARIANTS.find((v) => v.name === 'postgres')!;
describe.skipIf(postgres.skip)('audit log with two BFF instances (postgres)', () => {
  it('when two instances append at once, then the chain stays linear and intact', async () => {
    const t = await startApp(postgres);
    const other = await openDatabase(t.config.database, 4);
    try {
      const a = t.services.audit;
      const b = new AuditLog(other, t.clock);
      await Promise.all(
        Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? a : b).append(entry(i))),
      );
      // bootstrap row + 80
      expect(await a.verify()).toMatchObject({ ok: true, verifiedUpToSeq: 81 });
      const seqs = (
        await t.db.k.selectFrom('audit_log').select('seq').orderBy('seq').execute()
      ).map((r) => r.seq);
      expect(seqs).toEqual(Array.from({ length: 81 }, (_, i) => i + 1));
    } finally {
      await other.close();
      await t.close();
    }
  });

  it('when any statement inserts rows, then the database links them itself, whatever seq and hashes they carried', async () => {
    const t = await startApp(postgres);
    try {
      const [first] = await Promise.all([
        t.services.audit.append(entry(1)),
        t.services.audit.append(entry(2)),
      ]);
      expect(first).toBe(2);
      const forged = { seq: 999, prev_hash: 'f'.repeat(64), hash: 'e'.repeat(64) };
      const row = (i: number) => ({
        ...forged,
        at: 1_700_000_000_000 + i,
        actor_id: null,
        actor_email: null,
        actor_roles: '[]',
        action: 'test.raw',
        target: null,
        summary: '{}',
        outcome: 'success',
        error_code: null,
        request_id: null,
        ip: null,
        user_agent: 'Zoë 🚀',
      });
      const inserted = await t.db.k
        .insertInto('audit_log')
        .values([row(1), row(2)])
        .returning(['seq', 'prev_hash', 'hash'])
        .execute();
      expect(inserted.map((r) => r.seq)).toEqual([4, 5]);
      expect(inserted[1]?.prev_hash).toBe(inserted[0]?.hash);
      expect(await t.services.audit.verify()).toMatchObject({ ok: true, verifiedUpToSeq: 5 });
    } finally {
      await t.close();
    }
  });
});
