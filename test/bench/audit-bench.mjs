#!/usr/bin/env node
// Audit log benchmark: append throughput (each append its own transaction, hash-chained) and chain
// verification rate, on SQLite and (when PAYDESK_TEST_PG_URL is set) PostgreSQL.
// Run after `pnpm -r build`:  node test/bench/audit-bench.mjs [appends=5000] [verifyRows=200000]
// Uses the BFF's built code (bff/dist) and a temporary database that is removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { openDatabase } from '../../bff/dist/db/connect.js';
import { AuditLog, GENESIS_HASH, rowHash, verifyChain } from '../../bff/dist/services/audit.js';

// pg is the BFF's dependency; resolve it from there rather than adding it to the test package.
const pg = createRequire(new URL('../../bff/package.json', import.meta.url))('pg');

const appends = Number(process.argv[2] ?? 5_000);
const verifyRows = Number(process.argv[3] ?? 200_000);
const clock = { now: () => Date.now() };

const entry = (i) => ({
  actorId: 'b3c1d6f0-5d8e-4d6b-9a55-0c7f6e1f2a10',
  actorEmail: 'finance.demo@paydesk.local',
  actorRoles: ['finance'],
  action: 'transaction.return',
  target: `transaction:${100000 + i}`,
  summary: {
    amount: '12.50',
    currency: 'EUR',
    reasonCode: 'customer-request',
    comment: `bench row ${i}`,
  },
  outcome: 'success',
  errorCode: null,
  requestId: `bench-${i}`,
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench',
});

async function appendRate(db, concurrency) {
  const log = new AuditLog(db, clock);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < appends) {
        const i = next++;
        await log.append(entry(i));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return appends / seconds;
}

/** Fills the log with `rows` valid chained rows quickly (multi-row inserts), for the verify run. */
async function fill(db, rows) {
  const head = await db.k
    .selectFrom('audit_log')
    .select(['seq', 'hash'])
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  let seq = head?.seq ?? 0;
  let prev = head?.hash ?? GENESIS_HASH;
  const batch = db.kind === 'postgres' ? 2_000 : 500;
  for (let done = 0; done < rows; done += batch) {
    const values = [];
    for (let j = 0; j < Math.min(batch, rows - done); j += 1) {
      seq += 1;
      const e = entry(seq);
      const row = {
        seq,
        at: Date.now(),
        actor_id: e.actorId,
        actor_email: e.actorEmail,
        actor_roles: JSON.stringify(e.actorRoles),
        action: e.action,
        target: e.target,
        summary: JSON.stringify(e.summary),
        outcome: e.outcome,
        error_code: null,
        request_id: e.requestId,
        ip: e.ip,
        user_agent: e.userAgent,
        prev_hash: prev,
      };
      row.hash = rowHash(row);
      prev = row.hash;
      values.push(row);
    }
    await db.k.insertInto('audit_log').values(values).execute();
  }
}

async function verifyRate(db) {
  const started = performance.now();
  const result = await verifyChain(db);
  const seconds = (performance.now() - started) / 1000;
  if (!result.ok) throw new Error(`chain broken at ${result.firstBrokenSeq}`);
  return { rows: result.rowsChecked, perSecond: result.rowsChecked / seconds };
}

async function run(name, database, drop) {
  const db = await openDatabase(database, 16);
  try {
    const seq1 = await appendRate(db, 1);
    const conc = await appendRate(db, 16);
    await fill(db, verifyRows);
    const verify = await verifyRate(db);
    return { name, seq1, conc, verify };
  } finally {
    await db.close();
    await drop();
  }
}

const results = [];
const dir = mkdtempSync(join(tmpdir(), 'paydesk-audit-bench-'));
results.push(
  await run(
    'SQLite (node:sqlite, WAL, file)',
    { kind: 'sqlite', file: join(dir, 'bench.sqlite') },
    async () => {
      rmSync(dir, { recursive: true, force: true });
    },
  ),
);
const pgUrl = process.env.PAYDESK_TEST_PG_URL;
if (pgUrl) {
  const name = `paydesk_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  results.push(
    await run('PostgreSQL (pg, localhost)', { kind: 'postgres', url: url.toString() }, async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    }),
  );
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(
  `machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform}, Node ${process.version}`,
);
console.log(`appends per run: ${appends}; rows verified: ~${verifyRows + 2 * appends}`);
console.log(
  '| database | appends/s (1 writer) | appends/s (16 concurrent) | rows verified | verified rows/s |',
);
console.log('|---|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${fmt(r.seq1)} | ${fmt(r.conc)} | ${fmt(r.verify.rows)} | ${fmt(r.verify.perSecond)} |`,
  );
}
