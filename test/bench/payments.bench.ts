// Payments benchmarks (issue 5) against the built sandbox and BFF, each a separate process logging
// at warn to /dev/null.
//   node bench/payments.bench.ts capture [--db sqlite|postgres] [--c1 N] [--c32 N]
// measures the BFF's overhead per capture against the same signed capture sent straight to the
// sandbox;
//   node bench/payments.bench.ts capture-ab [--db sqlite|postgres] [--c1 N]
// compares two builds request by request (BENCH_BFF_MAIN_A / BENCH_BFF_MAIN_B, see captureAbBench);
//   node bench/payments.bench.ts list --db sqlite|postgres [--rows N] [--samples N]
// seeds N transactions straight into the payments tables and measures list pages (keyset) and the
// CSV export (rate, peak RSS of the BFF). PostgreSQL: a fresh database from PAYDESK_TEST_PG_URL,
// dropped after. Figures go to test/bench/RESULTS-payments.md by hand. Ports are free ones.
//   node bench/payments.bench.ts callback-burst [--db sqlite|postgres] [--orders N]
// places N orders at the sandbox from 16 clients at once, each calling the BFF back, and measures
// a support agent's list page (every 100 ms) during the burst and how fast the BFF learns them.
// Investigation switches (environment): BENCH_BFF_MAIN / BENCH_SANDBOX_MAIN (another build),
// BENCH_BFF_NODE_FLAGS / BENCH_SANDBOX_NODE_FLAGS (e.g. --cpu-prof), BENCH_BFF_ENV (JSON), BENCH_MARKS=1 (phase clock for
// cutting a CPU profile), BENCH_KEEP_TEMP=1 (keep the SQLite file), BENCH_SANDBOX_DELAY (the
// sandbox's processing delay in ms, 0 by default: e.g. 45000 keeps callbacks out of a short run).
// load.ts reuses the helpers.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { controlValue, formEncode } from '@paydesk/shared/protocol';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const merchantDir = join(root, 'sandbox', 'demo-merchant');
export const merchant = JSON.parse(readFileSync(join(merchantDir, 'merchant.json'), 'utf8')) as {
  login: string;
  controlKey: string;
};

/** Temporary directories of this run, removed when the process exits. */
const tempDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(prefix);
  tempDirs.push(dir);
  return dir;
}
process.on('exit', () => {
  // BENCH_KEEP_TEMP=1 keeps them (the BFF's SQLite file, to look at afterwards).
  if (process.env.BENCH_KEEP_TEMP === '1') return;
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

export interface Proc {
  child: ChildProcess;
  url: string;
}

async function waitOk(url: string, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url}`);
}

/** A port the kernel has just handed out (listen on 0, close): no fixed ports on a shared machine. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/**
 * The BFF's node flags: its own (bff/package.json `paydesk.nodeFlags`, as `npm start`, its `start`
 * script and the README's deployment run it), then extra ones from the environment (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/x`). `BENCH_BFF_PLAIN_NODE=1` leaves its own out (plain
 * `node main.js`, to compare).
 */
const BFF_NODE_FLAGS = [
  ...(process.env.BENCH_BFF_PLAIN_NODE === '1'
    ? []
    : ((
        JSON.parse(readFileSync(join(root, 'bff', 'package.json'), 'utf8')) as {
          paydesk?: { nodeFlags?: string[] };
        }
      ).paydesk?.nodeFlags ?? [])),
  ...(process.env.BENCH_BFF_NODE_FLAGS ?? '').split(' ').filter((f) => f !== ''),
];
/**
 * BENCH_STATEMENTS_FILE: the BFF preloads count-statements.mjs, which counts the SQL statements it
 * sends to PostgreSQL and writes them to that file on SIGUSR2 (load.ts prints them per request).
 */
const statementsFile = process.env.BENCH_STATEMENTS_FILE;
const countStatements = join(dirname(fileURLToPath(import.meta.url)), 'count-statements.mjs');
/** The same for the sandbox process (BENCH_SANDBOX_NODE_FLAGS). */
const SANDBOX_NODE_FLAGS = (process.env.BENCH_SANDBOX_NODE_FLAGS ?? '')
  .split(' ')
  .filter((f) => f !== '');

function start(
  script: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): ChildProcess {
  const child = spawn(
    process.execPath,
    [...nodeFlags, isAbsolute(script) ? script : join(root, script)],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return child;
}

/** The sandbox with the demo merchant; operations final at once (processingDelayMs 0). */
export async function startSandbox(port: number): Promise<Proc> {
  const dir = tempDir(join(tmpdir(), 'paydesk-bench-sandbox-'));
  const config = join(dir, 'sandbox.json');
  writeFileSync(
    config,
    JSON.stringify({
      merchants: [
        {
          login: merchant.login,
          controlKey: merchant.controlKey,
          publicKeyFile: join(merchantDir, 'public-key.pem'),
          endpoints: [
            { id: 1001, currency: 'EUR' },
            { id: 1002, currency: 'USD' },
          ],
        },
      ],
      processingDelayMs: Number(process.env.BENCH_SANDBOX_DELAY ?? 0),
    }),
  );
  const child = start(
    process.env.BENCH_SANDBOX_MAIN ?? 'sandbox/dist/main.js',
    {
      SANDBOX_PORT: String(port),
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_CONFIG: config,
      LOG_LEVEL: 'warn',
    },
    SANDBOX_NODE_FLAGS,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitOk(`${url}/paynet/openapi.json`, 'the sandbox');
  return { child, url };
}

export const ADMIN = { email: 'admin@bench.local', password: 'bench-admin-password' };

/** The BFF against the sandbox on `gatewayPort`, with the given DATABASE_URL. */
export async function startBff(
  port: number,
  gatewayPort: number,
  databaseUrl: string,
  main = process.env.BENCH_BFF_MAIN ?? 'bff/dist/main.js',
): Promise<Proc> {
  const dir = tempDir(join(tmpdir(), 'paydesk-bench-bff-'));
  const secret = join(dir, 'session-secret');
  writeFileSync(secret, 'bench-session-secret-0123456789abcdef-0123456789', { mode: 0o600 });
  const child = start(
    main,
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_ORIGIN: `http://localhost:${port}`,
      DATABASE_URL: databaseUrl,
      SESSION_SECRET_FILE: secret,
      GATEWAY_BASE_URL: `http://127.0.0.1:${gatewayPort}/paynet`,
      MERCHANT_LOGIN: merchant.login,
      MERCHANT_CONTROL_KEY: merchant.controlKey,
      MERCHANT_RSA_KEY_FILE: join(merchantDir, 'private-key.pem'),
      MERCHANT_ENDPOINTS: '1001:EUR,1002:USD',
      PAYDESK_ADMIN_EMAIL: ADMIN.email,
      PAYDESK_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      // more variables for an experiment, e.g. BENCH_BFF_ENV='{"MALLOC_ARENA_MAX":"2"}'
      ...(JSON.parse(process.env.BENCH_BFF_ENV ?? '{}') as Record<string, string>),
      ...(statementsFile === undefined ? {} : { BENCH_STATEMENTS_FILE: statementsFile }),
    },
    statementsFile === undefined
      ? BFF_NODE_FLAGS
      : [...BFF_NODE_FLAGS, '--import', countStatements],
  );
  const url = `http://127.0.0.1:${port}`;
  await waitOk(`${url}/readyz`, 'the BFF');
  return { child, url };
}

export async function stopProc(p: Proc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => {
    p.child.once('exit', () => {
      r();
    });
  });
  p.child.kill('SIGTERM');
  await exited;
}

export interface Session {
  /** the session cookie (name=value), for clients that build their own requests */
  cookie(): Promise<string>;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; text: string }>;
}

/** `fetch`, whose failure (no reply at all) names the request: which process stopped answering. */
async function fetchOrSay(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : '';
    throw new Error(`${init?.method ?? 'GET'} ${url}: no reply (${cause})`, { cause: err });
  }
}

/** Signs in as `email` (the CSRF header and Origin of the SPA on every call). */
export async function signIn(bff: Proc, email: string, password: string): Promise<Session> {
  const origin = bff.url.replace('127.0.0.1', 'localhost');
  let cookie = '';
  const call: Session['call'] = async (method, path, body, headers = {}) => {
    const res = await fetchOrSay(bff.url + path, {
      method,
      headers: {
        'X-Requested-With': 'paydesk',
        Origin: origin,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(cookie ? { Cookie: cookie } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.getSetCookie()[0];
    if (set) cookie = set.split(';')[0] ?? '';
    return { status: res.status, text: await res.text() };
  };
  const login = await call('POST', '/api/session', { email, password });
  if (login.status !== 200) throw new Error(`sign-in as ${email}: HTTP ${login.status}`);
  return { call, cookie: () => Promise.resolve(cookie) };
}

/**
 * Creates a user with one role as the bootstrap admin and signs in as that user. The admin's
 * password is temporary (the BFF allows nothing else until it is changed): the user first sets
 * their own, as a new member of staff does.
 */
export async function userWithRole(bff: Proc, role: string): Promise<Session> {
  const admin = await signIn(bff, ADMIN.email, ADMIN.password);
  const email = `${role}@bench.local`;
  // Neither holds the role: it is the e-mail's local part, and the BFF refuses a password holding it.
  const password = 'bench quiet harbour lantern';
  const oneTime = 'bench one-time copper kettle';
  const created = await admin.call('POST', '/api/users', {
    email,
    name: `Bench ${role}`,
    password: oneTime,
    roles: [role],
    // Required when the role is Finance or Operations.
    reason: 'Benchmark account',
  });
  if (created.status === 201) {
    const first = await signIn(bff, email, oneTime);
    const own = await first.call('POST', '/api/session/password', {
      currentPassword: oneTime,
      newPassword: password,
    });
    if (own.status !== 200) throw new Error(`${email} setting a password: HTTP ${own.status}`);
  } else if (created.status !== 409) {
    throw new Error(`creating ${email}: HTTP ${created.status} ${created.text}`);
  }
  return signIn(bff, email, password);
}

/**
 * With BENCH_MARKS=1, prints the monotonic clock (µs, the clock of V8's CPU profiles) at a phase
 * boundary, so a `--cpu-prof` profile of the BFF can be cut to one phase.
 */
export function mark(label: string): void {
  if (process.env.BENCH_MARKS === '1') {
    process.stdout.write(`mark ${label} ${process.hrtime.bigint() / 1000n}\n`);
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

export const ms = (v: number): string => `${v.toFixed(2)} ms`;

export function machine(): string {
  const [one, five] = loadavg();
  return (
    `Linux ${process.arch}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.versions.node}; load average ${(one ?? 0).toFixed(2)} / ${(five ?? 0).toFixed(2)} (1 / 5 min) at the start`
  );
}

/** Runs `task(i)` for i in [0, count) with `concurrency` in flight; returns each latency (ms). */
export async function timed(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await task(i);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies.sort((a, b) => a - b);
}

/** Reads an option `--name value` from argv, or the default. */
export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a number`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// (a) capture overhead

export interface Preauth {
  id: string;
  orderid: string;
  clientOrderId: string;
}

function orderBody(
  kind: 'preauth' | 'sale',
  clientOrderId: string,
  callbackUrl: string,
  amount: string,
): string {
  const fields: Record<string, string> = {
    client_orderid: clientOrderId,
    order_desc: 'bench',
    amount,
    currency: 'EUR',
    address1: '1 Bench Street',
    city: 'Benchville',
    zip_code: '10115',
    country: 'DE',
    phone: '+49 30 1234567',
    email: 'bench@example.com',
    ipaddress: '192.0.2.1',
    credit_card_number: '4111111111111111',
    card_printed_name: 'BENCH USER',
    expire_month: '12',
    expire_year: String(new Date().getUTCFullYear() + 2),
    cvv2: '123',
    redirect_url: 'https://shop.example/return',
    server_callback_url: callbackUrl,
  };
  fields.control = controlValue(kind, { ...fields, endpointId: '1001' }, merchant.controlKey);
  return formEncode(Object.entries(fields));
}

const GATEWAY_HEADERS = {
  Accept: 'application/vnd.pay+json',
  'Content-Type': 'application/x-www-form-urlencoded',
};

/**
 * Approved orders (preauths of 10.00 by default) placed at the sandbox with server_callback_url =
 * the BFF, as a shop would; returns them once the BFF has learned them all through the callbacks.
 */
export async function seedPreauths(
  sandbox: Proc,
  bff: Proc,
  reader: Session,
  count: number,
  kind: 'preauth' | 'sale' = 'preauth',
  amount = '10.00',
): Promise<Preauth[]> {
  // Unique across BFFs seeded at once (capture-ab): the sandbox takes a repeated client_orderid
  // as the same order.
  const run = `${kind}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const callbackUrl = `${bff.url}/gateway/callback?endpoint=1001`;
  await timed(count, 16, async (i) => {
    const res = await fetchOrSay(`${sandbox.url}/paynet/api/v2/${kind}/1001`, {
      method: 'POST',
      headers: GATEWAY_HEADERS,
      body: orderBody(kind, `bench-${run}-${i}`, callbackUrl, amount),
    });
    if (res.status !== 200) throw new Error(`${kind}: HTTP ${res.status} ${await res.text()}`);
    await res.text();
  });
  // The BFF learns them through the callbacks.
  const found: Preauth[] = [];
  for (let attempt = 0; attempt < 600; attempt++) {
    found.length = 0;
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await reader.call(
        'GET',
        `/api/transactions?type=${kind}&status=approved&limit=200${query}`,
      );
      const body = JSON.parse(page.text) as { items: Preauth[]; nextCursor: string | null };
      found.push(...body.items.filter((t) => t.clientOrderId.startsWith(`bench-${run}-`)));
      cursor = body.nextCursor;
    } while (cursor !== null);
    if (found.length >= count) {
      await callbacksDelivered(sandbox);
      return found;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the BFF learned ${found.length} of ${count} preauths`);
}

/**
 * Waits until the sandbox has no callback delivery left to retry. A burst of orders can outrun
 * the BFF's callback receiver: a delivery it answers after the sandbox's 5 s timeout is applied
 * all the same, but retried 5–20 s later, and a retry landing in a timed run would count as that
 * run's work. Says how many deliveries needed a retry.
 */
async function callbacksDelivered(sandbox: Proc): Promise<void> {
  const deliveries = async (query: string) =>
    (
      (await (await fetchOrSay(`${sandbox.url}/sandbox/callbacks${query}`)).json()) as {
        callbacks: { attempts: unknown[] }[];
      }
    ).callbacks;
  for (let attempt = 0; attempt < 600; attempt++) {
    if ((await deliveries('?state=pending')).length === 0) {
      const all = await deliveries('');
      const retried = all.filter((c) => c.attempts.length > 1).length;
      if (retried > 0) {
        process.stdout.write(
          `(${retried} of ${all.length} callbacks so far were answered after the sandbox's timeout and delivered again)\n`,
        );
      }
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('callback deliveries still pending after 5 minutes');
}

function nth<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`no item ${i}`);
  return item;
}

async function directCapture(sandbox: Proc, p: Preauth): Promise<void> {
  const fields: Record<string, string> = {
    login: merchant.login,
    client_orderid: p.clientOrderId,
    orderid: p.orderid,
    amount: '1.00',
    currency: 'EUR',
  };
  fields.control = controlValue('capture', fields, merchant.controlKey);
  const res = await fetch(`${sandbox.url}/paynet/api/v2/capture/1001`, {
    method: 'POST',
    headers: GATEWAY_HEADERS,
    body: formEncode(Object.entries(fields)),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`direct capture: HTTP ${res.status} ${text}`);
}

async function bffCapture(finance: Session, p: Preauth): Promise<void> {
  const res = await finance.call(
    'POST',
    `/api/transactions/${p.id}/capture`,
    { amount: '1.00' },
    { 'Idempotency-Key': `bench-capture-${p.id}` },
  );
  if (res.status !== 200) throw new Error(`BFF capture: HTTP ${res.status} ${res.text}`);
}

async function captureBench(): Promise<void> {
  const c1 = arg('c1', 200);
  const c32 = arg('c32', 800);
  const warm = 64;
  const sandboxPort = arg('sandbox-port', 0) || (await freePort());
  const bffPort = arg('bff-port', 0) || (await freePort());
  const kind = process.argv.includes('postgres') ? 'postgres' : 'sqlite';
  if (kind === 'postgres') {
    await withPgDatabase((url) => captureRun(url, { c1, c32, warm, sandboxPort, bffPort }));
  } else {
    const dir = tempDir(join(tmpdir(), 'paydesk-bench-capture-'));
    const url = `sqlite:${join(dir, 'paydesk.sqlite')}`;
    await captureRun(url, { c1, c32, warm, sandboxPort, bffPort });
  }
}

async function captureRun(
  databaseUrl: string,
  o: { c1: number; c32: number; warm: number; sandboxPort: number; bffPort: number },
): Promise<void> {
  const { c1, c32, warm, sandboxPort, bffPort } = o;
  const sandbox = await startSandbox(sandboxPort);
  const bff = await startBff(bffPort, sandboxPort, databaseUrl);
  try {
    process.stdout.write(`${machine()}\n${databaseUrl.split(':')[0] ?? ''}\n`);
    const finance = await userWithRole(bff, 'finance');
    const total = 2 * (warm + c1 + c32);
    const t0 = performance.now();
    const preauths = await seedPreauths(sandbox, bff, finance, total);
    process.stdout.write(
      `seeded ${total} preauths through callbacks in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    let next = 0;
    const take = (n: number) => preauths.slice(next, (next += n));
    // Warm both paths (JIT, prepared statements, and the 32 keep-alive connections of the c=32
    // run: a connection opened during a measured run adds its handshake to that capture).
    const warmDirect = take(warm);
    const warmBff = take(warm);
    await timed(warm, 32, (i) => directCapture(sandbox, nth(warmDirect, i)));
    await timed(warm, 32, (i) => bffCapture(finance, nth(warmBff, i)));
    const rows: string[] = [];
    for (const [count, concurrency] of [
      [c1, 1],
      [c32, 32],
    ] as const) {
      if (count === 0) continue;
      const forDirect = take(count);
      const forBff = take(count);
      // Every direct capture makes the sandbox call the BFF back (the preauths carry its
      // callback URL): let the BFF finish that work before its own captures are timed.
      await settle(bff);
      const direct = await timed(count, concurrency, (i) =>
        directCapture(sandbox, nth(forDirect, i)),
      );
      await settle(bff);
      mark(`bff c=${concurrency} start`);
      const cpu0 = cpuMs(bff.child.pid ?? 0);
      const drops0 = listenOverflows();
      const through = await timed(count, concurrency, (i) => bffCapture(finance, nth(forBff, i)));
      const drops = listenOverflows() - drops0;
      const slow = through.filter((t) => t >= 1000).length;
      // Callbacks and their status checks follow each capture; let them finish before reading CPU.
      await settle(bff);
      const cpuPer = (cpuMs(bff.child.pid ?? 0) - cpu0) / count;
      mark(`bff c=${concurrency} end`);
      const d50 = percentile(direct, 50);
      const b50 = percentile(through, 50);
      const d99 = percentile(direct, 99);
      const b99 = percentile(through, 99);
      rows.push(
        `| ${concurrency} | ${count} | ${ms(d50)} / ${ms(d99)} | ${ms(b50)} / ${ms(b99)} | ${ms(b50 - d50)} / ${ms(b99 - d99)} | ${cpuPer.toFixed(2)} ms | ${slow} | ${drops} |`,
      );
    }
    process.stdout.write(
      [
        '| concurrency | captures per path | sandbox direct p50 / p99 | through the BFF p50 / p99 | BFF overhead p50 / p99 | BFF CPU per capture | BFF captures ≥ 1 s | listen-queue drops (machine) |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        ...rows,
      ].join('\n') + '\n',
    );
  } finally {
    await stopProc(bff);
    await stopProc(sandbox);
  }
}

/**
 * Two builds of the BFF compared request by request (`capture-ab`): both run at once, each on its
 * own database, against one sandbox, and every round sends one capture straight to the sandbox
 * and one through each build, one after the other, in a rotating order. A slower or faster spell
 * of the machine then falls on all three paths alike, which runs minutes apart do not ensure.
 * BENCH_BFF_MAIN_A (default bff/dist/main.js) and BENCH_BFF_MAIN_B name the builds.
 */
async function captureAbBench(): Promise<void> {
  const rounds = arg('c1', 1000);
  const warm = 64;
  const mainA = process.env.BENCH_BFF_MAIN_A ?? 'bff/dist/main.js';
  const mainB = process.env.BENCH_BFF_MAIN_B;
  if (mainB === undefined) throw new Error('capture-ab needs BENCH_BFF_MAIN_B');
  const kind = process.argv.includes('postgres') ? 'postgres' : 'sqlite';
  const withDb = (run: (url: string) => Promise<void>) => {
    if (kind === 'postgres') return withPgDatabase(run);
    const dir = tempDir(join(tmpdir(), 'paydesk-bench-capture-'));
    return run(`sqlite:${join(dir, 'paydesk.sqlite')}`);
  };
  await withDb((urlA) =>
    withDb(async (urlB) => {
      const sandbox = await startSandbox(await freePort());
      const gatewayPort = Number(new URL(sandbox.url).port);
      const procs = [
        await startBff(await freePort(), gatewayPort, urlA, mainA),
        await startBff(await freePort(), gatewayPort, urlB, mainB),
      ] as const;
      try {
        process.stdout.write(`${machine()}\n${kind}\nA ${mainA}\nB ${mainB}\n`);
        const sides = await Promise.all(
          procs.map(async (bff) => {
            const finance = await userWithRole(bff, 'finance');
            const preauths = await seedPreauths(sandbox, bff, finance, 2 * (warm + rounds));
            return { bff, finance, preauths };
          }),
        );
        const a = nth(sides, 0);
        const b = nth(sides, 1);
        // The direct captures' orders alternate between the builds, so their callbacks load both
        // alike.
        const spare = [a, b].map((side) => side.preauths.slice(warm + rounds));
        const direct = Array.from({ length: rounds + warm }, (_, i) =>
          nth(nth(spare, i % 2), Math.floor(i / 2)),
        );
        await timed(warm, 8, (i) => directCapture(sandbox, nth(direct, rounds + i)));
        for (const side of sides) {
          await timed(warm, 8, (i) => bffCapture(side.finance, nth(side.preauths, rounds + i)));
        }
        for (const p of procs) await settle(p);
        const paths = [
          (i: number) => directCapture(sandbox, nth(direct, i)),
          (i: number) => bffCapture(a.finance, nth(a.preauths, i)),
          (i: number) => bffCapture(b.finance, nth(b.preauths, i)),
        ];
        const orders = [
          [0, 1, 2],
          [1, 2, 0],
          [2, 0, 1],
          [0, 2, 1],
          [2, 1, 0],
          [1, 0, 2],
        ] as const;
        const took: [number[], number[], number[]] = [[], [], []];
        const cpu0 = procs.map((p) => cpuMs(p.child.pid ?? 0));
        for (let i = 0; i < rounds; i++) {
          for (const path of nth(orders, i % orders.length)) {
            const t0 = performance.now();
            await nth(paths, path)(i);
            took[path].push(performance.now() - t0);
          }
        }
        for (const p of procs) await settle(p);
        const cpu = procs.map((p, i) => (cpuMs(p.child.pid ?? 0) - nth(cpu0, i)) / rounds);
        for (const t of took) t.sort((x, y) => x - y);
        const [d, ta, tb] = took;
        const line = (name: string, t: number[], cpuPer: number) =>
          `| ${name} | ${ms(percentile(t, 50))} / ${ms(percentile(t, 99))} | ${ms(percentile(t, 50) - percentile(d, 50))} / ${ms(percentile(t, 99) - percentile(d, 99))} | ${cpuPer.toFixed(2)} ms |`;
        process.stdout.write(
          [
            `${rounds} rounds at concurrency 1; sandbox direct p50 / p99: ${ms(percentile(d, 50))} / ${ms(percentile(d, 99))}`,
            '| build | through the BFF p50 / p99 | BFF overhead p50 / p99 | BFF CPU per capture |',
            '| --- | --- | --- | --- |',
            line('A', ta, nth(cpu, 0)),
            line('B', tb, nth(cpu, 1)),
          ].join('\n') + '\n',
        );
      } finally {
        for (const p of procs) await stopProc(p);
        await stopProc(sandbox);
      }
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// (b) list latency and (c) CSV export over N seeded transactions

const BASE_MS = Date.UTC(2026, 0, 1);
const COLUMNS =
  'id, endpoint_id, orderid, client_orderid, type, status, stage, currency, amount_minor, ' +
  'authorized_minor, captured_minor, card_bin, card_last4, card_brand, customer_email, ' +
  'customer_name, source, created_at, updated_at';

/** Row i of the seeded set, as SQL over the integer column `i` (same values on both databases). */
function seedSelect(kind: 'sqlite' | 'postgres'): string {
  const id =
    kind === 'sqlite'
      ? `printf('b0000000-0000-4000-8000-%012d', i)`
      : `'b0000000-0000-4000-8000-' || lpad(i::text, 12, '0')`;
  const last4 = kind === 'sqlite' ? `printf('%04d', i % 10000)` : `lpad((i % 10000)::text, 4, '0')`;
  const text = (e: string) => (kind === 'sqlite' ? `cast(${e} as text)` : `(${e})::text`);
  const amount = `(100 + (i * 7919) % 99900)`;
  return `select ${id}, case when i % 2 = 0 then '1001' else '1002' end, ${text('900000000 + i')},
    'bench-' || ${text('i')}, case when i % 3 = 0 then 'preauth' else 'sale' end,
    case i % 10 when 0 then 'declined' when 1 then 'error' when 2 then 'filtered' else 'approved' end,
    case i % 10 when 0 then 'declined' when 1 then 'error' when 2 then 'filtered' else 'captured' end,
    case when i % 2 = 0 then 'EUR' else 'USD' end, ${amount}, ${amount}, ${amount},
    '411111', ${last4}, 'VISA', 'customer' || ${text('i % 50000')} || '@example.com',
    'Bench Customer', 'callback', ${BASE_MS} + i * 1000, ${BASE_MS} + i * 1000`;
}

/** Every this many orders, one return staff sent in the last days that the gateway did not make. */
const NOT_MADE_EVERY = 2000;
const OPERATION_COLUMNS =
  'id, transaction_id, kind, origin, state, amount_minor, requested_by, created_at, updated_at';

/**
 * Order i's return not made (for the list's `notMade=true`), sent up to six days before `now` (the
 * second parameter); every other one was made again a minute later (approved), so it is not
 * listed: the filter's partial index finds the 1-in-2,000, its redo check reads each one's order.
 */
function notMadeSelect(kind: 'sqlite' | 'postgres', from: string): string {
  const pad = (prefix: string) =>
    kind === 'sqlite'
      ? `printf('${prefix}-0000-4000-8000-%012d', i)`
      : `'${prefix}-0000-4000-8000-' || lpad(i::text, 12, '0')`;
  const now = kind === 'sqlite' ? '?2' : '$2::bigint';
  const at = `${now} - ((i / ${NOT_MADE_EVERY}) % 6) * 86400000 - 3600000`;
  return `select ${pad('c0000000')}, ${pad('b0000000')}, 'return', 'paydesk', 'not_applied', 100,
      'finance@example.com', ${at}, ${at} from ${from}
    union all
    select ${pad('d0000000')}, ${pad('b0000000')}, 'return', 'paydesk', 'approved', 100,
      'finance@example.com', ${at} + 60000, ${at} + 60000 from ${from}
    where (i / ${NOT_MADE_EVERY}) % 2 = 0`;
}

export async function seedSqlite(file: string, rows: number): Promise<void> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(file);
  db.exec('pragma busy_timeout = 30000');
  db.exec('begin immediate');
  db.prepare(
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
     insert into transactions (${COLUMNS}) ${seedSelect('sqlite')} from n`,
  ).run(rows);
  db.prepare(
    `with recursive n(i) as (select ${NOT_MADE_EVERY} union all select i + ${NOT_MADE_EVERY} from n where i + ${NOT_MADE_EVERY} <= ?)
     insert into transaction_operations (${OPERATION_COLUMNS}) ${notMadeSelect('sqlite', 'n')}`,
  ).run(rows, Date.now());
  db.exec('commit');
  db.exec('analyze');
  db.close();
}

export async function seedPostgres(url: string, rows: number): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    `insert into transactions (${COLUMNS}) ${seedSelect('postgres')} from generate_series(1, $1::bigint) as i`,
    [rows],
  );
  await client.query(
    `insert into transaction_operations (${OPERATION_COLUMNS}) ${notMadeSelect(
      'postgres',
      `generate_series(${NOT_MADE_EVERY}, $1::bigint, ${NOT_MADE_EVERY}) as i`,
    )}`,
    [rows, Date.now()],
  );
  await client.query('analyze transactions');
  await client.query('analyze transaction_operations');
  await client.end();
}

export async function withPgDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const adminUrl = process.env.PAYDESK_TEST_PG_URL;
  if (!adminUrl) throw new Error('--db postgres needs PAYDESK_TEST_PG_URL');
  const { default: pg } = await import('pg');
  // Unique even for two databases made in the same millisecond (capture-ab makes two).
  const name = `paydesk_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/**
 * The kernel's count of connections dropped because a listen queue was full (all processes on the
 * machine: other work counts too). Each drop costs the client a SYN retransmission (1 s, then 3 s).
 */
export function listenOverflows(): number {
  const text = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  for (let i = 0; i + 1 < text.length; i += 2) {
    const names = (text[i] ?? '').split(' ');
    const values = (text[i + 1] ?? '').split(' ');
    const at = names.indexOf('ListenOverflows');
    if (names[0] === 'TcpExt:' && at > 0) return Number(values[at]);
  }
  return Number.NaN;
}

/**
 * Waits until the process has been nearly idle (under 10 % of a core) for 250 ms: the work a
 * previous phase left behind (callbacks the sandbox is still delivering, their status checks)
 * must not be measured as part of the next one. Gives up after 60 s.
 */
export async function settle(p: Proc): Promise<void> {
  const pid = p.child.pid ?? 0;
  for (let i = 0; i < 240; i++) {
    const before = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 250));
    if (cpuMs(pid) - before <= 25) return;
  }
}

/** CPU time (user + system, ms) the process has used so far, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return Number(match?.[1] ?? Number.NaN);
}

async function listBench(): Promise<void> {
  const kind = process.argv.includes('postgres') ? 'postgres' : 'sqlite';
  const rows = arg('rows', 1_000_000);
  const samples = arg('samples', 100);
  const exportRounds = Math.max(1, arg('exports', 1));
  const sandboxPort = arg('sandbox-port', 0) || (await freePort());
  const bffPort = arg('bff-port', 0) || (await freePort());
  process.stdout.write(
    `${machine()}\n${kind}, ${rows} transactions, ${samples} samples per query\n`,
  );
  const sandbox = await startSandbox(sandboxPort);
  const run = async (databaseUrl: string, seed: () => Promise<void>) => {
    const bff = await startBff(bffPort, sandboxPort, databaseUrl);
    try {
      mark('bff ready');
      const t0 = performance.now();
      await seed();
      mark('seeded');
      process.stdout.write(
        `seeded ${rows} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s (then ANALYZE)\n`,
      );
      const support = await userWithRole(bff, 'support');
      mark('signed in');
      const page = async (query: string) => {
        const res = await support.call('GET', `/api/transactions?${query}`);
        if (res.status !== 200) throw new Error(`${query}: HTTP ${res.status} ${res.text}`);
        return JSON.parse(res.text) as { items: unknown[]; nextCursor: string | null };
      };
      // A cursor 100 pages deep (5,000 rows in), and page 2 of a filter.
      let deep: string | null = null;
      for (let i = 0; i < 100; i++) {
        const p = await page(`limit=50${deep ? `&cursor=${encodeURIComponent(deep)}` : ''}`);
        deep = p.nextCursor;
      }
      const declined2 = (await page('status=declined&limit=50')).nextCursor;
      // The seeded returns not made and not made again (notMadeSelect): a page of them, or all.
      const notMadeWanted = Math.min(50, Math.ceil(Math.floor(rows / NOT_MADE_EVERY) / 2));
      const notMadeGot = (await page('notMade=true&limit=50')).items.length;
      if (notMadeGot !== notMadeWanted)
        throw new Error(`notMade=true: ${notMadeGot} orders, ${notMadeWanted} seeded`);
      const mid = new Date(BASE_MS + Math.floor(rows / 2) * 1000);
      const queries: [string, string][] = [
        ['first page (newest 50)', 'limit=50'],
        ['keyset page 101 (cursor)', `limit=50&cursor=${encodeURIComponent(deep ?? '')}`],
        ['status=declined, first page', 'status=declined&limit=50'],
        [
          'status=declined, page 2 (cursor)',
          `status=declined&limit=50&cursor=${encodeURIComponent(declined2 ?? '')}`,
        ],
        ['type + status + currency', 'type=preauth&status=approved&currency=EUR&limit=50'],
        ['currency + amount range', 'currency=USD&amountMin=500.00&amountMax=510.00&limit=50'],
        [
          'created range (1 h)',
          `createdFrom=${mid.toISOString()}&createdTo=${new Date(mid.getTime() + 3_600_000).toISOString()}&limit=50`,
        ],
        ['sort=amount_desc, first page', 'sort=amount_desc&limit=50'],
        ['q = e-mail', `q=customer4242%40example.com&limit=50`],
        ['q = last four', 'q=4242&limit=50'],
        ['q = orderid', `q=${900000000 + Math.floor(rows / 3)}&limit=50`],
        ['q = client_orderid', `q=bench-${Math.floor(rows / 4)}&limit=50`],
        ['notMade=true (1 in 4,000 orders)', 'notMade=true&limit=50'],
      ];
      const lines = ['| query | p50 | p95 | max |', '| --- | --- | --- | --- |'];
      for (const [label, query] of queries) {
        await page(query);
        const lat = await timed(samples, 1, async () => {
          await page(query);
        });
        lines.push(
          `| ${label} | ${ms(percentile(lat, 50))} | ${ms(percentile(lat, 95))} | ${ms(lat.at(-1) ?? Number.NaN)} |`,
        );
      }
      process.stdout.write(`${lines.join('\n')}\n`);
      mark('list done');

      // (c) the whole set as CSV; peak RSS of the BFF process during the export (`--exports N`
      // repeats it on the same BFF, to see how often a peak stands out).
      const pid = bff.child.pid ?? 0;
      for (let round = 1; round <= exportRounds; round++) {
        writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM (peak RSS) to the current RSS
        const before = rssKiB(pid, 'VmRSS');
        // what the RSS before is made of: file-backed pages (mostly the node binary's code) and
        // anonymous memory (V8's heap, malloc)
        const beforeFile = rssKiB(pid, 'RssFile');
        const beforeAnon = rssKiB(pid, 'RssAnon');
        let sampledPeak = before;
        const sampler = setInterval(() => {
          sampledPeak = Math.max(sampledPeak, rssKiB(pid, 'VmRSS'));
        }, 50);
        mark('export start');
        const t1 = performance.now();
        const res = await support.call('GET', '/api/transactions/export');
        const seconds = (performance.now() - t1) / 1000;
        mark('export end');
        clearInterval(sampler);
        if (res.status !== 200) throw new Error(`export: HTTP ${res.status}`);
        let lineCount = 0;
        for (let i = res.text.indexOf('\n'); i >= 0; i = res.text.indexOf('\n', i + 1)) lineCount++;
        const dataRows = lineCount - 1;
        const peak = Math.max(sampledPeak, rssKiB(pid, 'VmHWM'));
        process.stdout.write(
          `export: ${dataRows} rows, ${(res.text.length / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(2)} s = ` +
            `${Math.round(dataRows / seconds)} rows/s; BFF RSS ${Math.round(before / 1024)} MiB before ` +
            `(${Math.round(beforeFile / 1024)} file-backed, ${Math.round(beforeAnon / 1024)} anonymous), ` +
            `peak ${Math.round(peak / 1024)} MiB during the export` +
            `${exportRounds > 1 ? ` (export ${String(round)} of ${String(exportRounds)})` : ''}\n`,
        );
      }
    } finally {
      await stopProc(bff);
    }
  };
  try {
    if (kind === 'sqlite') {
      const file = join(tempDir(join(tmpdir(), 'paydesk-bench-list-')), 'paydesk.sqlite');
      await run(`sqlite:${file}`, () => seedSqlite(file, rows));
    } else {
      await withPgDatabase((url) => run(url, () => seedPostgres(url, rows)));
    }
  } finally {
    await stopProc(sandbox);
  }
}

// ---------------------------------------------------------------------------------------------
// callback burst: a storefront's busy hour, every order calling the BFF back at once

/** How many orders the BFF knows, read from its database (a second connection). */
async function learnedCounter(databaseUrl: string): Promise<{
  count(): Promise<number>;
  close(): Promise<void>;
}> {
  if (databaseUrl.startsWith('sqlite:')) {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(databaseUrl.slice('sqlite:'.length), { readOnly: true });
    const stmt = db.prepare('select count(*) as n from transactions');
    return {
      count: () => Promise.resolve((stmt.get() as { n: number }).n),
      close: () => {
        db.close();
        return Promise.resolve();
      },
    };
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    count: async () =>
      (await client.query<{ n: number }>('select count(*)::int as n from transactions')).rows[0]
        ?.n ?? 0,
    close: () => client.end(),
  };
}

async function callbackBurstBench(): Promise<void> {
  const orders = arg('orders', 4000);
  const kind = process.argv.includes('postgres') ? 'postgres' : 'sqlite';
  const run = async (databaseUrl: string) => {
    const sandbox = await startSandbox(await freePort());
    const bff = await startBff(await freePort(), Number(new URL(sandbox.url).port), databaseUrl);
    try {
      process.stdout.write(
        `${machine()}\n${kind}; BENCH_BFF_ENV ${process.env.BENCH_BFF_ENV ?? '{}'}\n`,
      );
      const finance = await userWithRole(bff, 'finance');
      const support = await userWithRole(bff, 'support');
      // The BFF's database exists once it has started: open the counter now.
      const counter = await learnedCounter(databaseUrl);
      // mutated when the burst is over (an object, so the loops below do not read it as constant)
      const burst = { over: false };
      const list: number[] = [];
      const listing = (async () => {
        while (!burst.over) {
          const t = performance.now();
          const res = await support.call('GET', '/api/transactions?limit=50');
          if (res.status !== 200) throw new Error(`list: HTTP ${res.status}`);
          list.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const t0 = performance.now();
      const learnedAt = new Map<number, number>();
      let all = 0;
      const counting = (async () => {
        while (!burst.over) {
          const n = await counter.count();
          const s = (performance.now() - t0) / 1000;
          for (const mark of [10, 20])
            if (s >= mark && !learnedAt.has(mark)) learnedAt.set(mark, n);
          if (n >= orders && all === 0) all = s;
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      await seedPreauths(sandbox, bff, finance, orders);
      burst.over = true;
      await Promise.all([listing, counting]);
      // A short burst can end between two counts.
      if (all === 0 && (await counter.count()) >= orders) all = (performance.now() - t0) / 1000;
      await counter.close();
      const sorted = list.sort((a, b) => a - b);
      process.stdout.write(
        `${orders} orders: learned ${learnedAt.get(10) ?? '–'} after 10 s, ${learnedAt.get(20) ?? '–'} after 20 s, all after ${all.toFixed(1)} s; ` +
          `list page during the burst (${sorted.length} requests) p50 ${ms(percentile(sorted, 50))}, ` +
          `p95 ${ms(percentile(sorted, 95))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1) ?? 0)}\n`,
      );
    } finally {
      await stopProc(bff);
      await stopProc(sandbox);
    }
  };
  if (kind === 'postgres') await withPgDatabase(run);
  else {
    const dir = tempDir(join(tmpdir(), 'paydesk-bench-burst-'));
    await run(`sqlite:${join(dir, 'paydesk.sqlite')}`);
  }
}

// Run as a script (load.ts imports the helpers above without running anything).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const which = process.argv[2];
  if (which === 'capture') await captureBench();
  else if (which === 'capture-ab') await captureAbBench();
  else if (which === 'list') await listBench();
  else if (which === 'callback-burst') await callbackBurstBench();
  else {
    process.stderr.write(
      'usage: node bench/payments.bench.ts capture|capture-ab|list|callback-burst [options]\n',
    );
    process.exit(2);
  }
}
