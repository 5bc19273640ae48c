#!/usr/bin/env node
// Audit screen filters on PostgreSQL: the list page (50 rows and its count) filtered by the
// beginning of an actor's e-mail or of an action, over a seeded log, selective and broad.
// Run after `pnpm -r build`:
//   PAYDESK_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/postgres \
//     node test/bench/audit-filter-bench.mjs [rows=500000] [samples=12]
// Uses the BFF's built code (bff/dist) and a fresh database made from PAYDESK_TEST_PG_URL, dropped
// afterwards. The rows are inserted in one statement (the chain's trigger links them); their
// summaries are empty, which does not matter to a filter.
import { cpus, loadavg, totalmem } from 'node:os';
import { createRequire } from 'node:module';
import { openDatabase } from '../../bff/dist/db/connect.js';
import { AuditLog } from '../../bff/dist/services/audit.js';

const require = createRequire(new URL('../../bff/package.json', import.meta.url));
const pg = require('pg');
const { sql } = require('kysely');

const base = process.env.PAYDESK_TEST_PG_URL;
if (base === undefined) throw new Error('PAYDESK_TEST_PG_URL is required');
const rows = Number(process.argv[2] ?? 500_000);
const samples = Number(process.argv[3] ?? 12);

const [one, five] = loadavg();
console.log(
  `Linux ${process.arch}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.versions.node}; load average ${one.toFixed(2)} / ${five.toFixed(2)}; ` +
    `${new Date().toISOString()}`,
);

const admin = new pg.Client({ connectionString: base });
await admin.connect();
const name = `paydesk_audit_filter_${Date.now()}`;
await admin.query(`create database ${name}`);
try {
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'postgres', url: url.toString() });
  const t0 = performance.now();
  // One actor in a thousand rows and one action in 997 are rare; the rest share five actors and
  // six actions (a fifth or a sixth of the log each).
  await sql`insert into audit_log (seq, at, actor_id, actor_email, actor_roles, action, target,
      summary, outcome, prev_hash, hash)
    select 0, 1790000000000 + g, null,
      case when g % 1000 = 0 then 'rare.person@paydesk.local'
        else (array['finance.demo@paydesk.local', 'support.demo@paydesk.local',
          'ops.demo@paydesk.local', 'approver.demo@paydesk.local',
          'auditor.demo@paydesk.local'])[1 + g % 5] end,
      '["finance"]',
      case when g % 997 = 0 then 'user.disable'
        else (array['transaction.return', 'transaction.capture', 'session.login',
          'transaction.lookup', 'payout.approve', 'audit.verify'])[1 + g % 6] end,
      'transaction:' || g, '{}', 'success', '', ''
    from generate_series(1, ${rows}) g`.execute(db.k);
  await sql`analyze audit_log`.execute(db.k);
  console.log(`seeded ${rows} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const log = new AuditLog(db, { now: () => Date.now() });
  console.log('| filter | rows matching | p50 | max |\n| --- | --- | --- | --- |');
  for (const [label, filter] of [
    ['actor=rare (selective)', { actor: 'rare' }],
    ['action=user. (selective)', { action: 'user.' }],
    ['actor=approver (a fifth)', { actor: 'approver' }],
    ['action=payout. (a sixth)', { action: 'payout.' }],
  ]) {
    const latencies = [];
    let total = 0;
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      total = (await log.list(filter, 1, 50)).total;
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? NaN;
    const max = latencies.at(-1) ?? NaN;
    console.log(`| ${label} | ${total} | ${p50.toFixed(1)} ms | ${max.toFixed(1)} ms |`);
  }
  await db.close();
} finally {
  await admin.query(`drop database ${name} with (force)`);
  await admin.end();
}
