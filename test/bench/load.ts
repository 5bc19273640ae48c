// Load through the BFF with autocannon (issue 7): the transaction list, the status lookup, and the
// money-moving paths (capture, return), on SQLite or PostgreSQL. The sandbox and the BFF run as
// separate processes (built dist, logging at warn to /dev/null); autocannon runs in this process,
// on the same machine.
//   node bench/load.ts [--db sqlite|postgres] [--duration 10] [--rows 100000]
//                      [--list-c 8] [--lookup-c 16] [--money-c 16] [--only list,lookup,capture,return]
// PostgreSQL: a fresh database from PAYDESK_TEST_PG_URL, dropped after. Figures go to
// test/bench/RESULTS-load.md by hand.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import autocannon, { type Result } from 'autocannon';
import {
  arg,
  cpuMs,
  freePort,
  listenOverflows,
  machine,
  mark,
  seedPostgres,
  seedPreauths,
  seedSqlite,
  settle,
  startBff,
  startSandbox,
  stopProc,
  userWithRole,
  withPgDatabase,
  type Preauth,
  type Proc,
  type Session,
} from './payments.bench.ts';

const kind = process.argv.includes('postgres') ? 'postgres' : 'sqlite';
const duration = arg('duration', 10);
const rows = arg('rows', 100_000);
const listC = arg('list-c', 8);
const lookupC = arg('lookup-c', 16);
const moneyC = arg('money-c', 16);
const onlyAt = process.argv.indexOf('--only');
const only = new Set(
  onlyAt >= 0
    ? (process.argv[onlyAt + 1] ?? '').split(',')
    : ['list', 'list-filtered', 'lookup', 'capture', 'return'],
);

// Where the CPU goes during a run (ms over the run and its callbacks, from /proc): the BFF, the
// sandbox, this process (autocannon), the PostgreSQL backends of the bench database, every
// PostgreSQL process (WAL writer, checkpointer, other databases' backends), and the whole machine.
// With BENCH_STATEMENTS_FILE set (the BFF then preloads count-statements.mjs: see startBff), also
// the SQL statements the BFF sent per request, by statement text.
const statementsFile = process.env.BENCH_STATEMENTS_FILE;
let sandboxPid = 0;
let benchDb = '';

/** CPU ms so far of every PostgreSQL process, by pid (`bench`: a backend of the bench database). */
function pgCpuMs(): Map<string, { ms: number; bench: boolean }> {
  const byPid = new Map<string, { ms: number; bench: boolean }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      byPid.set(name, { ms, bench: benchDb !== '' && cmd.includes(` ${benchDb} `) });
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/**
 * PostgreSQL's CPU between two snapshots, per process: a backend that ended meanwhile (a seeding
 * connection closed) drops out rather than subtracting its whole past from the sum.
 */
function pgDelta(
  a: Map<string, { ms: number; bench: boolean }>,
  b: Map<string, { ms: number; bench: boolean }>,
): { bench: number; all: number } {
  let bench = 0;
  let all = 0;
  for (const [pid, end] of b) {
    const used = end.ms - (a.get(pid)?.ms ?? 0);
    all += used;
    if (end.bench) bench += used;
  }
  return { bench, all };
}

/** Busy CPU time of the whole machine (ms, every core), from /proc/stat. */
function machineBusyMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
  const [user, nice, system, , , irq, softirq, steal] = cpu.slice(1).map(Number);
  return (
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10
  );
}

/** System (kernel) CPU time of a process, ms. */
function sysMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]) * 10;
}

interface CpuSnapshot {
  bff: number;
  bffSys: number;
  sandbox: number;
  self: number;
  pg: Map<string, { ms: number; bench: boolean }>;
  machine: number;
}

function cpuSnapshot(bffPid: number): CpuSnapshot {
  const usage = process.cpuUsage();
  return {
    bff: cpuMs(bffPid),
    bffSys: sysMs(bffPid),
    sandbox: sandboxPid === 0 ? 0 : cpuMs(sandboxPid),
    self: (usage.user + usage.system) / 1000,
    pg: pgCpuMs(),
    machine: machineBusyMs(),
  };
}

function cpuSplit(a: CpuSnapshot, b: CpuSnapshot, requests: number): string {
  const per = (x: number) => (x / Math.max(1, requests)).toFixed(2);
  const pg = pgDelta(a.pg, b.pg);
  const known = b.bff - a.bff + (b.sandbox - a.sandbox) + (b.self - a.self) + pg.all;
  return (
    `  CPU ms per request: BFF ${per(b.bff - a.bff)} (of which kernel ${per(b.bffSys - a.bffSys)}), sandbox ${per(b.sandbox - a.sandbox)}, ` +
    `autocannon (this process) ${per(b.self - a.self)}, PostgreSQL bench backends ${per(pg.bench)}, ` +
    `all PostgreSQL processes ${per(pg.all)}, rest of the machine ${per(b.machine - a.machine - known)}; ` +
    `machine busy ${((b.machine - a.machine) / 1000).toFixed(1)} CPU-s\n`
  );
}

function signalStatements(pid: number): void {
  if (statementsFile === undefined) return;
  process.kill(pid, 'SIGUSR2');
}

async function statementsPerRequest(requests: number): Promise<string> {
  if (statementsFile === undefined) return '';
  await new Promise((r) => setTimeout(r, 200)); // the BFF writes the file on the signal
  if (!existsSync(statementsFile)) return '';
  const counts = JSON.parse(readFileSync(statementsFile, 'utf8')) as Record<string, number>;
  const entries = Object.entries(counts).sort((x, y) => y[1] - x[1]);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const per = (n: number) => (n / Math.max(1, requests)).toFixed(2);
  return (
    `  SQL statements per request: ${per(total)}\n` +
    entries.map(([text, n]) => `    ${per(n).padStart(6)}  ${text}\n`).join('')
  );
}

/** The signed-in session's cookie and the SPA's CSRF header, for autocannon's raw requests. */
interface Client {
  headers: Record<string, string>;
}

async function clientOf(bff: Proc, session: Session): Promise<Client> {
  const cookie = await session.cookie();
  return {
    headers: {
      Cookie: cookie,
      'X-Requested-With': 'paydesk',
      Origin: bff.url.replace('127.0.0.1', 'localhost'),
      Accept: 'application/json',
      'Content-Type': 'application/json',
    },
  };
}

interface Row {
  name: string;
  connections: number;
  result: Result;
  cpuPerRequest: number;
  load: number;
  drops: number;
}

async function measure(
  bff: Proc,
  name: string,
  connections: number,
  options: Omit<Parameters<typeof autocannon>[0], 'url' | 'connections'> & { url?: string },
): Promise<Result> {
  // What the previous run left (callbacks of its captures and returns) is not this run's.
  await settle(bff);
  const load = loadavg()[0] ?? 0;
  const cpu0 = cpuMs(bff.child.pid ?? 0);
  const split0 = cpuSnapshot(bff.child.pid ?? 0);
  signalStatements(bff.child.pid ?? 0);
  const drops0 = listenOverflows();
  mark(`${name} start`);
  const result = await autocannon({ url: bff.url, connections, timeout: 10, ...options });
  mark(`${name} end`);
  await settle(bff); // its callbacks and status checks belong to its CPU per request
  const cpuPerRequest = (cpuMs(bff.child.pid ?? 0) - cpu0) / Math.max(1, result.requests.total);
  const split1 = cpuSnapshot(bff.child.pid ?? 0);
  signalStatements(bff.child.pid ?? 0);
  const drops = listenOverflows() - drops0;
  process.stdout.write(`${line({ name, connections, result, cpuPerRequest, load, drops })}\n`);
  process.stdout.write(cpuSplit(split0, split1, result.requests.total));
  process.stdout.write(await statementsPerRequest(result.requests.total));
  if (result.non2xx > 0) {
    process.stdout.write(`  status codes: ${JSON.stringify(result.statusCodeStats)}\n`);
  }
  return result;
}

function line(r: Row): string {
  const x = r.result;
  const errors = x.errors + x.timeouts + x.non2xx;
  return (
    `| ${r.name} | ${r.connections} | ${x.duration.toFixed(1)} | ${x.requests.total} | ` +
    `${x.requests.average.toFixed(0)} | ${x.latency.p50} | ${x.latency.p99} | ${x.latency.max} | ` +
    `${errors} (${x.non2xx} non-2xx, ${x.errors} errors, ${x.timeouts} timeouts) | ` +
    `${r.cpuPerRequest.toFixed(2)} ms | ${r.load.toFixed(2)} | ${r.drops} |`
  );
}

async function run(databaseUrl: string, seed: (() => Promise<void>) | null): Promise<void> {
  const sandbox = await startSandbox(await freePort());
  const bff = await startBff(await freePort(), Number(new URL(sandbox.url).port), databaseUrl);
  sandboxPid = sandbox.child.pid ?? 0;
  benchDb = kind === 'postgres' ? new URL(databaseUrl).pathname.slice(1) : '';
  try {
    process.stdout.write(`${machine()}\n${kind}; autocannon in this process, same machine\n`);
    const support = await userWithRole(bff, 'support');
    const finance = await userWithRole(bff, 'finance');
    if (seed !== null && (only.has('list') || only.has('list-filtered'))) {
      const t0 = performance.now();
      await seed();
      process.stdout.write(
        `seeded ${rows} list rows in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    }
    // Orders the sandbox knows, learned by the BFF through callbacks: preauths to capture (one
    // capture each), sales to return from (many small returns each, spread over many orders).
    // A generous upper bound of req/s (SQLite on this machine reached 680 captures/s), so the
    // preauths do not run out: a capture past the last one fails loudly (non-2xx).
    const moneyRate = 1000;
    const preauthCount = only.has('capture') ? Math.ceil(moneyRate * duration) + 200 : 0;
    const saleCount = only.has('return') || only.has('lookup') ? 1000 : 0;
    const t1 = performance.now();
    const preauths =
      preauthCount > 0 ? await seedPreauths(sandbox, bff, finance, preauthCount) : [];
    const sales =
      saleCount > 0 ? await seedPreauths(sandbox, bff, finance, saleCount, 'sale', '1000.00') : [];
    process.stdout.write(
      `seeded ${preauths.length} preauths and ${sales.length} sales through the sandbox's callbacks ` +
        `in ${((performance.now() - t1) / 1000).toFixed(1)} s\n`,
    );
    await settle(bff); // the last callbacks' work

    process.stdout.write(
      '| path | connections | seconds | requests | req/s | p50 ms | p99 ms | max ms | errors | BFF CPU per request | load (1 min) | listen-queue drops (machine) |\n' +
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n',
    );
    // What one list reply holds (autocannon checks only the status code, so each run's bytes per
    // reply are compared with it below).
    const listBytes = new Map<string, number>();
    for (const query of ['limit=50', 'status=approved&currency=EUR&limit=50']) {
      const sample = await support.call('GET', `/api/transactions?${query}`);
      const page = JSON.parse(sample.text) as { items: unknown[]; total: number };
      listBytes.set(query, Buffer.byteLength(sample.text));
      process.stdout.write(
        `GET /api/transactions?${query}: HTTP ${sample.status}, ${page.items.length} items, ` +
          `total ${page.total}, ${(sample.text.length / 1024).toFixed(1)} KiB\n`,
      );
    }
    const reader = await clientOf(bff, support);
    const money = await clientOf(bff, finance);

    const listRun = async (name: string, query: string) => {
      // The path belongs in the URL: autocannon has no top-level `path` option (one given is
      // ignored, and the run measures GET /, the SPA's index.html).
      const list = {
        url: `${bff.url}/api/transactions?${query}`,
        method: 'GET' as const,
        headers: reader.headers,
      };
      await autocannon({ connections: listC, duration: 2, ...list }); // warm-up
      const result = await measure(bff, name, listC, { duration, ...list });
      const perReply = result.throughput.total / Math.max(1, result.requests.total);
      const expected = listBytes.get(query) ?? 0;
      if (perReply < expected) {
        throw new Error(
          `${name}: ${perReply.toFixed(0)} bytes per reply, the list reply is ${expected}: not the list route`,
        );
      }
    };
    if (only.has('list')) await listRun('list: first page (50, newest)', 'limit=50');
    if (only.has('list-filtered')) {
      await listRun('list: status + currency, first page', 'status=approved&currency=EUR&limit=50');
    }
    if (only.has('lookup')) {
      let n = 0;
      await measure(bff, 'status lookup (gateway status)', lookupC, {
        duration,
        requests: [
          {
            method: 'POST',
            path: '/api/transactions/lookup',
            headers: reader.headers,
            setupRequest: (req) => {
              const order = nth(sales, n++ % sales.length);
              return {
                ...req,
                body: JSON.stringify({ orderid: order.orderid, endpointId: '1001' }),
              };
            },
          },
        ],
      });
    }
    if (only.has('capture')) {
      let n = 0;
      await measure(bff, 'capture (one per preauth)', moneyC, {
        duration,
        requests: [
          {
            method: 'POST',
            headers: money.headers,
            setupRequest: (req) => {
              const order = preauths[n++];
              // Out of preauths: a request that fails loudly (counted as non-2xx).
              const id = order?.id ?? '00000000-0000-4000-8000-000000000000';
              return {
                ...req,
                path: `/api/transactions/${id}/capture`,
                body: JSON.stringify({ amount: '1.00' }),
                headers: { ...money.headers, 'Idempotency-Key': randomUUID() },
              };
            },
          },
        ],
      });
    }
    if (only.has('return')) {
      let n = 0;
      await measure(bff, 'return (0.01 each, across 1,000 orders)', moneyC, {
        duration,
        requests: [
          {
            method: 'POST',
            headers: money.headers,
            setupRequest: (req) => {
              const order = nth(sales, n++ % sales.length);
              return {
                ...req,
                path: `/api/transactions/${order.id}/return`,
                body: JSON.stringify({ amount: '0.01', reasonCode: 'other', comment: 'load' }),
                headers: { ...money.headers, 'Idempotency-Key': randomUUID() },
              };
            },
          },
        ],
      });
    }
  } finally {
    await stopProc(bff);
    await stopProc(sandbox);
  }
}

function nth(items: readonly Preauth[], i: number): Preauth {
  const item = items[i];
  if (item === undefined) throw new Error(`no order ${i}`);
  return item;
}

if (kind === 'postgres') {
  await withPgDatabase((url) => run(url, () => seedPostgres(url, rows)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-bench-load-'));
  try {
    const file = join(dir, 'paydesk.sqlite');
    await run(`sqlite:${file}`, () => seedSqlite(file, rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
