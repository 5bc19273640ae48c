// `npm start` end to end: the launcher on free ports with a temporary data directory starts the
// sandbox and the BFF, seeds the demo users and the demo data (storefront orders learned through
// callbacks, a preauth left to capture, returns, a capture, a void, a card reference with a
// subscription, payment links, a payout waiting for approval; the storefront's orders dated across
// the past weeks, the gateway's clock back at real time); every demo user can log in over HTTP;
// after a stop and a second start the same users and the same data (no duplicates, no second
// seeding) are there, and a gateway clock left behind by an interrupted seeding runs at real time.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROLES = ['support', 'finance', 'ops', 'admin', 'auditor'] as const;
const ADMIN = { email: 'admin@paydesk.local', password: 'paydesk-admin-demo' };
/** Storefront orders in the test: one of each of the simulator's 14 scenarios. */
const DEMO_ORDERS = 14;
const FINAL = ['approved', 'declined', 'error', 'filtered'];

interface Summary {
  id: string;
  orderid: string;
  clientOrderId: string;
  type: string;
  status: string;
  amount: string;
  createdAt: string;
}
interface Detail extends Summary {
  amounts: { remainingCapturable: string };
  allowedActions: string[];
  cardRefId: string | null;
  operations: { kind: string; origin: string; state: string; amount: string | null }[];
  timeline: { kind: string }[];
}
interface Subscription {
  id: string;
  state: string;
  amount: string;
  cardRefId: string;
  schedule: { paymentsMade: number };
}
interface Link {
  kind: string;
  state: string;
  amount: string | null;
  redirectUrl: string | null;
}
interface Payout {
  state: string;
  amount: string;
  preparedBy: { email: string };
  destination: { masked: string };
  canDecide: boolean;
}

/** Signs in over HTTP and calls the BFF the way the SPA does. */
async function session(port: number, email: string, password: string) {
  const origin = `http://localhost:${port}`;
  const res = await fetch(`http://127.0.0.1:${port}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'paydesk', Origin: origin },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  return async <T>(path: string): Promise<T> => {
    const reply = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Cookie: cookie } });
    expect(reply.status, path).toBe(200);
    return (await reply.json()) as T;
  };
}

async function allTransactions(get: <T>(path: string) => Promise<T>): Promise<Summary[]> {
  const items: Summary[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await get<{ items: Summary[]; nextCursor: string | null }>(
      `/api/transactions?limit=200${query}`,
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolvePort(port);
      });
    });
  });
}

interface Launched {
  child: ChildProcess;
  output: string[];
  ready: Promise<void>;
}

function launch(env: Record<string, string>): Launched {
  const { GATEWAY_BASE_URL: _unset, ...inherited } = process.env;
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const ready = new Promise<void>((resolveReady, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('Ctrl-C stops the BFF and the sandbox')) resolveReady();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      reject(
        new Error(
          `launcher exited (${String(code)}) before it was ready:\n${output.join('').slice(-3000)}`,
        ),
      );
    });
  });
  return { child, output, ready };
}

async function stop(l: Launched): Promise<number | null> {
  if (l.child.exitCode !== null) return l.child.exitCode;
  const exited = new Promise<number | null>((r) =>
    l.child.once('exit', (code) => {
      r(code);
    }),
  );
  l.child.kill('SIGINT');
  return exited;
}

async function login(
  port: number,
  email: string,
  password: string,
): Promise<{ status: number; roles: string[] }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/session`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Requested-With': 'paydesk',
      Origin: `http://localhost:${port}`,
    },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json()) as { user?: { roles: string[] } };
  return { status: res.status, roles: body.user?.roles ?? [] };
}

/** Signs in and sends one state-changing request as the SPA does (CSRF header, a fresh key). */
async function postAs(
  port: number,
  user: { email: string; password: string },
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const headers = {
    'Content-Type': 'application/json',
    'X-Requested-With': 'paydesk',
    Origin: `http://localhost:${port}`,
  };
  const signedIn = await fetch(`http://127.0.0.1:${port}/api/session`, {
    method: 'POST',
    headers,
    body: JSON.stringify(user),
  });
  const cookie = (signedIn.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { ...headers, Cookie: cookie, 'Idempotency-Key': `launcher-${randomUUID()}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function portIsClosed(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) });
    return false;
  } catch {
    return true;
  }
}

describe('npm start launcher (demo mode)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-launcher-'));
  const running: Launched[] = [];
  afterAll(async () => {
    for (const l of running) await stop(l);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the sandbox and BFF are built, then their entry points exist (build with pnpm -r build)', () => {
    expect(
      existsSync(join(root, 'sandbox', 'dist', 'main.js')),
      'sandbox/dist/main.js is missing: run pnpm -r build',
    ).toBe(true);
    expect(
      existsSync(join(root, 'bff', 'dist', 'main.js')),
      'bff/dist/main.js is missing: run pnpm -r build',
    ).toBe(true);
  });

  it('when started, stopped and started again, then every demo user logs in both times, the demo data is seeded once and nothing is duplicated', async () => {
    const port = await freePort();
    const sandboxPort = await freePort();
    const env = {
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      PAYDESK_DATA_DIR: dataDir,
      PAYDESK_DEMO_ORDERS: String(DEMO_ORDERS),
      LOG_LEVEL: 'warn',
    };

    const first = launch(env);
    running.push(first);
    await first.ready;
    const printed = first.output.join('');
    expect(printed).toContain(`Paydesk is ready at http://localhost:${port}`);
    expect(printed).toContain(ADMIN.email);
    expect((await login(port, ADMIN.email, ADMIN.password)).roles).toEqual(['admin', 'auditor']);
    for (const role of ROLES) {
      expect(printed).toContain(`${role}.demo@paydesk.local`);
      const res = await login(port, `${role}.demo@paydesk.local`, `paydesk-demo-${role}`);
      expect(res).toEqual({ status: 200, roles: [role] });
    }

    // Demo data: every order the storefront placed reached the BFF through a callback, final.
    // Every scripted order ends as its scenario says.
    expect(printed).toMatch(
      new RegExp(
        `demo data seeded in [0-9.]+ s: ${DEMO_ORDERS} storefront orders \\(${DEMO_ORDERS} as expected\\) dated across the last 27 days`,
      ),
    );
    expect(printed).not.toContain('not done:');
    // The history moved the gateway's clock from 27 days ago back to real time exactly, so no
    // order is dated ahead of real time.
    const clock = (await (await fetch(`http://127.0.0.1:${sandboxPort}/sandbox/clock`)).json()) as {
      offsetMs: number;
    };
    expect(clock.offsetMs).toBe(0);
    const sandbox = (await (
      await fetch(`http://127.0.0.1:${sandboxPort}/sandbox/callbacks`)
    ).json()) as { callbacks: { orderid: string; state: string; url: string }[] };
    expect(sandbox.callbacks.length).toBeGreaterThan(DEMO_ORDERS);
    for (const c of sandbox.callbacks) {
      expect(c.state).toBe('delivered');
      // Storefront orders call back the launcher's loopback address; the BFF's own requests
      // (subscriptions, payment links) give its PUBLIC_ORIGIN, here localhost.
      expect(c.url).toMatch(
        new RegExp(`^http://(127\\.0\\.0\\.1|localhost):${port}/gateway/callback\\?endpoint=1001`),
      );
    }
    const support = await session(port, 'support.demo@paydesk.local', 'paydesk-demo-support');
    const seeded = await allTransactions(support);
    const byOrderid = new Map(seeded.map((t) => [t.orderid, t]));
    for (const c of sandbox.callbacks) expect(byOrderid.has(c.orderid), c.orderid).toBe(true);
    const storefront = seeded.filter((t) => t.clientOrderId.startsWith('sf-'));
    expect(new Set(storefront.map((t) => t.status))).toEqual(new Set(FINAL));
    // Dated across the past weeks (so the home charts have a history), never in the future.
    const dated = storefront.map((t) => Date.parse(t.createdAt));
    const DAY_MS = 86_400_000;
    expect(Math.min(...dated)).toBeLessThan(Date.now() - 20 * DAY_MS);
    expect(Math.min(...dated)).toBeGreaterThan(Date.now() - 28 * DAY_MS);
    expect(Math.max(...dated)).toBeLessThanOrEqual(Date.now());
    expect(new Set(dated.map((t) => new Date(t).toISOString().slice(0, 10))).size).toBeGreaterThan(
      2,
    );
    const details = await Promise.all(
      seeded.map((t) => support<Detail>(`/api/transactions/${t.id}`)),
    );
    for (const d of details) {
      expect(FINAL, `${d.clientOrderId} ${d.status}`).toContain(d.status);
      expect(
        d.timeline.some((e) => e.kind === 'callback'),
        d.clientOrderId,
      ).toBe(true);
    }
    // The staff operations, sent by Paydesk and approved by the gateway.
    const staff = details.flatMap((d) =>
      d.operations
        .filter((o) => o.origin === 'paydesk')
        .map((o) => `${d.type} ${o.kind} ${o.amount ?? '-'} ${o.state}`),
    );
    expect(staff.sort()).toEqual([
      'preauth capture 50.00 approved',
      'preauth void - approved',
      'sale card-ref - approved',
      'sale return 1.00 approved',
      'sale return 2.00 approved',
    ]);
    // One preauthorization is left for the user to capture or void.
    const held = details.filter(
      (d) => d.type === 'preauth' && d.amounts.remainingCapturable !== '0.00',
    );
    expect(held.map((d) => [d.status, d.amount, d.amounts.remainingCapturable])).toEqual([
      ['approved', '65.00', '65.00'],
    ]);
    expect(held[0]?.allowedActions).toEqual(expect.arrayContaining(['capture', 'void']));
    // Cards, subscriptions and payment links: a card reference on a sale, a monthly plan on it
    // whose first charge the BFF learned, a sale-form link to share and a payout-form link held
    // for a second ops user.
    const referenced = details.find((d) =>
      d.operations.some((o) => o.kind === 'card-ref' && o.origin === 'paydesk'),
    );
    expect([referenced?.type, referenced?.status]).toEqual(['sale', 'approved']);
    const cardRefId = referenced?.cardRefId ?? null;
    expect(cardRefId).not.toBeNull();
    const cards = (await support<{ items: { cardRefId: string }[] }>('/api/cards')).items;
    expect(cards.map((c) => c.cardRefId)).toContain(cardRefId);
    const plans = (await support<{ items: Subscription[] }>('/api/subscriptions')).items;
    expect(plans.map((p) => [p.state, p.amount, p.cardRefId, p.schedule.paymentsMade])).toEqual([
      ['active', '9.99', cardRefId, 1],
    ]);
    const plan = await support<Subscription & { charges: Summary[] }>(
      `/api/subscriptions/${plans[0]?.id ?? ''}`,
    );
    expect(plan.charges.map((c) => [c.type, c.status, c.amount])).toEqual([
      ['rebill', 'approved', '9.99'],
    ]);
    expect(seeded.map((t) => t.id)).toContain(plan.charges[0]?.id);
    const links = (await support<{ items: Link[] }>('/api/payment-links')).items;
    expect(links.map((l) => [l.kind, l.state, l.amount, l.redirectUrl === null]).sort()).toEqual([
      ['payout-form', 'pending_approval', '40.00', true],
      ['sale-form', 'sent', '19.90', false],
    ]);
    expect(links.find((l) => l.kind === 'sale-form')?.redirectUrl).toMatch(
      /^http:\/\/127\.0\.0\.1:/,
    );
    const ops = await session(port, 'ops.demo@paydesk.local', 'paydesk-demo-ops');
    const payouts = (await ops<{ items: Payout[] }>('/api/payouts')).items;
    expect(
      payouts.map((p) => [p.state, p.amount, p.preparedBy.email, p.destination.masked]),
    ).toEqual([['pending_approval', '25.00', 'ops.demo@paydesk.local', '411111******1111']]);
    // The second ops account can approve it (the preparer cannot).
    expect(await login(port, 'approver.demo@paydesk.local', 'paydesk-demo-approver')).toEqual({
      status: 200,
      roles: ['ops'],
    });
    const approver = await session(port, 'approver.demo@paydesk.local', 'paydesk-demo-approver');
    const queue = (await approver<{ items: Payout[] }>('/api/payouts?view=awaiting-my-approval'))
      .items;
    expect(queue.map((p) => [p.amount, p.canDecide])).toEqual([['25.00', true]]);
    expect(payouts.map((p) => p.canDecide)).toEqual([false]);
    // The demo's endpoint group is configured with its endpoints' currencies, so a currency that
    // neither takes is refused by the BFF itself, naming the field, before anything is written
    // (the transactions are compared after the restart below) or sent to the gateway.
    const gbp = await postAs(
      port,
      { email: 'finance.demo@paydesk.local', password: 'paydesk-demo-finance' },
      '/api/rebills',
      {
        cardRefId,
        amount: '1.00',
        currency: 'GBP',
        orderDesc: 'launcher check',
        reason: 'a currency the demo merchant has no endpoint for',
      },
    );
    expect(gbp.status, JSON.stringify(gbp.json)).toBe(400);
    expect(
      (gbp.json as { error: { details: { fields: { path: string; rule: string }[] } } }).error
        .details.fields,
    ).toEqual([expect.objectContaining({ path: 'currency', rule: 'endpoint_currency' })]);

    expect(await stop(first)).toBe(0);
    expect(await portIsClosed(port)).toBe(true);
    expect(await portIsClosed(sandboxPort)).toBe(true);

    // As if a seeding had stopped half-way through its history: the gateway's clock, kept across
    // restarts, an hour behind real time. The next start moves it to real time.
    const sandboxDb = new DatabaseSync(join(dataDir, 'sandbox.sqlite'));
    sandboxDb.prepare("UPDATE meta SET value = '-3600000' WHERE key = 'clockOffsetMs'").run();
    sandboxDb.close();

    const second = launch(env);
    running.push(second);
    await second.ready;
    for (const role of ROLES) {
      expect((await login(port, `${role}.demo@paydesk.local`, `paydesk-demo-${role}`)).status).toBe(
        200,
      );
    }
    // Log in as admin and count the users (admin + five roles + the second ops approver): the second start created none.
    const res = await fetch(`http://127.0.0.1:${port}/api/session`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Requested-With': 'paydesk',
        Origin: `http://localhost:${port}`,
      },
      body: JSON.stringify(ADMIN),
    });
    const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const users = (await (
      await fetch(`http://127.0.0.1:${port}/api/users`, { headers: { Cookie: cookie } })
    ).json()) as { items: unknown[] };
    expect(users.items).toHaveLength(7);
    // No second seeding: the same transactions and the one payout.
    expect(second.output.join('')).not.toContain('seeding demo data');
    expect(second.output.join('')).toContain(
      "the sandbox's clock was 3600 s behind real time (an interrupted demo seeding); it now runs at real time.",
    );
    const caughtUp = (await (
      await fetch(`http://127.0.0.1:${sandboxPort}/sandbox/clock`)
    ).json()) as { offsetMs: number };
    expect(caughtUp.offsetMs).toBe(0);
    const again = await session(port, 'support.demo@paydesk.local', 'paydesk-demo-support');
    expect((await allTransactions(again)).map((t) => t.id).sort()).toEqual(
      seeded.map((t) => t.id).sort(),
    );
    const opsAgain = await session(port, 'ops.demo@paydesk.local', 'paydesk-demo-ops');
    expect((await opsAgain<{ items: Payout[] }>('/api/payouts')).items).toHaveLength(1);
    expect((await opsAgain<{ items: unknown[] }>('/api/subscriptions')).items).toHaveLength(1);
    expect((await opsAgain<{ items: unknown[] }>('/api/payment-links')).items).toHaveLength(2);
    expect(await stop(second)).toBe(0);
  });
});
