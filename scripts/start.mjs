#!/usr/bin/env node
// `npm start` after provisioning and building (scripts/paydesk.mjs start runs this).
//
// Demo mode (GATEWAY_BASE_URL unset): starts the gateway sandbox as its own process with a
// persistent database under data/, then the BFF pointed at it and configured from the sandbox's
// demo merchant, waits until the BFF is ready, then makes sure the admin and one demo user per
// role exist (created through the BFF's own HTTP API with a one-time password, then each sets its
// documented password itself, so four-eyes sees separate people) and prints how to sign in.
// On the first start of a data directory it also seeds demo data (seedDemoData below): the
// sandbox's storefront simulator places PAYDESK_DEMO_ORDERS orders (default 300, about 40 s) with
// server_callback_url pointing at the BFF, so the BFF learns them through callbacks, dated across
// the last PAYDESK_DEMO_HISTORY_DAYS days (default 27: the sandbox's clock starts that far back and
// is moved forward to real time as they are placed, so the home charts have a history); then staff
// operations through the BFF's own API (two partial returns, a partial capture, a void, a card
// reference with a monthly subscription on it, a sale-form payment link, a payout and a
// payout-form link each waiting for its second approver). A marker file in the data directory keeps restarts from
// seeding again.
// With GATEWAY_BASE_URL set: the BFF alone, configured by the environment; no demo users.
//
// Plain JavaScript on Node 24, importing nothing from the packages: the sandbox and the BFF only
// ever meet over HTTP.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;

/** The documented demo accounts (demo mode only; change them in production). */
export const DEMO_ADMIN = { email: 'admin@paydesk.local', password: 'paydesk-admin-demo' };
export const DEMO_ROLES = ['support', 'finance', 'ops', 'admin', 'auditor'];
const demoUser = (role) => ({
  email: `${role}.demo@paydesk.local`,
  name: `Demo ${role}`,
  password: `paydesk-demo-${role}`,
  roles: [role],
});

/** Every payout needs two people: a second ops account lets a newcomer approve the demo payout. */
export const DEMO_USERS = [
  ...DEMO_ROLES.map(demoUser),
  {
    email: 'approver.demo@paydesk.local',
    name: 'Demo approver',
    password: 'paydesk-demo-approver',
    roles: ['ops'],
  },
];

const say = (line) => process.stdout.write(`[start] ${line}\n`);
const fail = (message) => {
  process.stderr.write(`[start] ${message}\n`);
  stopAll(1);
};

const children = [];
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  if (alive.length === 0) process.exit(code);
  let left = alive.length;
  for (const child of alive) {
    child.once('exit', () => {
      left -= 1;
      if (left === 0) process.exit(code);
    });
    child.kill('SIGTERM');
  }
  // A child that ignores SIGTERM is not allowed to keep the launcher alive.
  setTimeout(() => {
    for (const child of alive) if (child.exitCode === null) child.kill('SIGKILL');
  }, 15_000).unref();
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    say(`${signal}: stopping`);
    stopAll(0);
  });
}

/** The node flags the BFF runs with: bff/package.json `paydesk.nodeFlags`. */
function bffNodeFlags() {
  const manifest = JSON.parse(readFileSync(join(root, 'bff', 'package.json'), 'utf8'));
  return manifest.paydesk?.nodeFlags ?? [];
}

function startChild(name, script, childEnv, nodeFlags = []) {
  if (!existsSync(script)) {
    fail(`${name}: ${script} does not exist. Build first: pnpm -r build (npm start does this).`);
    return null;
  }
  const child = spawn(process.execPath, [...nodeFlags, script], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) fail(`${name} stopped unexpectedly (${signal ?? `exit code ${code}`})`);
  });
  return child;
}

async function waitReady(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return await res.json();
      last = `HTTP ${res.status}: ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!stopping) fail(`${url} was not ready after ${timeoutMs / 1000} s (${last})`);
  throw new Error('not ready');
}

/** A tiny client of the BFF's own API, behaving like the SPA (CSRF header, Origin, cookie). */
function bffClient(baseUrl, origin) {
  let cookie = '';
  const call = async (method, path, body, extraHeaders = {}) => {
    const headers = {
      'X-Requested-With': 'paydesk',
      Origin: origin,
      Accept: 'application/json',
      ...extraHeaders,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (cookie) headers.Cookie = cookie;
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.getSetCookie()[0];
    if (set) cookie = set.split(';')[0];
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  return { call };
}

/**
 * Four-eyes counts an account whose password another account chose as that account's (whoever
 * chose it could sign in as it): the admin that creates the demo users gives each a one-time
 * password, and each user then sets the documented one itself, as a new member of staff must (a
 * password the admin chose is temporary: until its holder chooses their own, the BFF allows that
 * session nothing else, 403 PASSWORD_CHANGE_REQUIRED).
 * So approver.demo can approve what ops.demo prepared. A demo user created before that rule (an
 * older data directory) whose own password change is not in the audit log makes it now.
 */
async function ownPassword(baseUrl, origin, user, currentPassword) {
  const api = bffClient(baseUrl, origin);
  const login = await api.call('POST', '/api/session', {
    email: user.email,
    password: currentPassword,
  });
  if (login.status !== 200) return `could not sign in (${login.json?.error?.code ?? login.status})`;
  const changed = await api.call('POST', '/api/session/password', {
    currentPassword,
    newPassword: user.password,
  });
  await api.call('DELETE', '/api/session');
  return changed.status === 200
    ? null
    : `could not set its own password (${changed.json?.error?.code ?? changed.status})`;
}

/** Whether the audit log shows `email` changing its own password (null: the log cannot be read). */
async function changedOwnPassword(api, email) {
  const query = new URLSearchParams({
    actor: email,
    action: 'session.password_change',
    outcome: 'success',
    pageSize: '1',
  });
  const res = await api.call('GET', `/api/audit?${query}`);
  if (res.status !== 200) return null;
  return (res.json?.items ?? []).length > 0;
}

async function seedDemoUsers(baseUrl, origin, admin) {
  const api = bffClient(baseUrl, origin);
  const login = await api.call('POST', '/api/session', {
    email: admin.email,
    password: admin.password,
  });
  if (login.status !== 200) {
    say(
      `could not sign in as ${admin.email} (${login.json?.error?.code ?? login.status}); demo users were not checked. ` +
        'Set PAYDESK_ADMIN_EMAIL / PAYDESK_ADMIN_PASSWORD to the current admin to seed them.',
    );
    return [];
  }
  const list = await api.call('GET', '/api/users');
  const existing = new Set((list.json?.items ?? []).map((u) => u.email));
  const users = [];
  for (const user of DEMO_USERS) {
    let current = user.password;
    if (!existing.has(user.email)) {
      current = `one-time-${randomUUID()}`;
      // A reason, which giving Finance or Operations requires (kept in the audit log).
      const created = await api.call('POST', '/api/users', {
        ...user,
        password: current,
        reason: 'Demo account',
      });
      if (created.status !== 201) {
        say(`could not create ${user.email}: ${created.json?.error?.message ?? created.status}`);
        continue;
      }
    } else if ((await changedOwnPassword(api, user.email)) === true) {
      users.push(user);
      continue;
    }
    const problem = await ownPassword(baseUrl, origin, user, current);
    if (problem !== null) {
      say(`${user.email}: ${problem}`);
      // A new account still has its one-time password: the documented one would not work.
      if (current !== user.password) continue;
    }
    users.push(user);
  }
  await api.call('DELETE', '/api/session');
  return users;
}

/** The marker file that says this data directory has had its demo data. */
export const DEMO_SEED_MARKER = 'demo-data-seeded.json';
const DEMO_ORDERS_DEFAULT = 300;
/** Days the storefront's orders are spread over: the simulator's maximum (MAX_HISTORY_DAYS). */
const DEMO_HISTORY_DAYS_MAX = 27;

/** Runs the sandbox's storefront simulator once; resolves to its summary (or null). */
function runStorefront(gateway, callbackUrl, orders, historyDays) {
  const script = join(root, 'sandbox', 'dist', 'storefront', 'main.js');
  if (!existsSync(script)) {
    say(`${script} does not exist: no storefront orders were placed (build the sandbox).`);
    return Promise.resolve(null);
  }
  const args = [script, '--gateway', gateway, '--callback-url', callbackUrl];
  args.push('--orders', String(orders), '--concurrency', '4');
  args.push('--history-days', String(historyDays));
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let summary = null;
  const failures = [];
  const notes = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const parsed = JSON.parse(line);
      if (parsed.summary) summary = parsed.summary;
      else if (parsed.note) {
        notes.push(parsed.note);
        say(`storefront: ${parsed.note}`);
      } else if (parsed.error !== undefined || parsed.final !== parsed.expected)
        failures.push(line);
    } catch {
      process.stdout.write(`[storefront] ${line}\n`);
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    process.stdout.write(`[storefront] ${line}\n`);
  });
  return new Promise((resolveRun) => {
    child.once('exit', () => {
      for (const line of failures.slice(0, 3)) say(`storefront order not as expected: ${line}`);
      resolveRun(summary && { ...summary, historyDays: notes.length > 0 ? 0 : historyDays });
    });
  });
}

/** Places an approved preauth straight at the gateway, as a storefront would (v2, control). */
async function placePreauth(gateway, merchant, endpoint, callbackUrl, amount, clientOrderId) {
  const email = 'demo.shopper@example.com';
  const [units, cents = ''] = amount.split('.');
  const minor = BigInt(units) * 100n + BigInt(cents.padEnd(2, '0'));
  const control = createHash('sha1')
    .update(`${endpoint.id}${clientOrderId}${minor}${email}${merchant.controlKey}`, 'utf8')
    .digest('hex');
  const fields = {
    client_orderid: clientOrderId,
    order_desc: `Demo preauthorization ${clientOrderId}`,
    amount,
    currency: endpoint.currency,
    address1: '1 Demo Street',
    city: 'Springfield',
    zip_code: '12345',
    country: 'DE',
    phone: '+49 30 5550100',
    email,
    ipaddress: '198.51.100.23',
    credit_card_number: '4111111111111111',
    card_printed_name: 'DEMO SHOPPER',
    expire_month: '12',
    expire_year: String(new Date().getUTCFullYear() + 2),
    cvv2: '123',
    redirect_url: 'https://storefront.example/return',
    server_callback_url: callbackUrl,
    control,
  };
  const res = await fetch(`${gateway}/api/v2/preauth/${endpoint.id}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/vnd.pay+json',
    },
    body: new URLSearchParams(fields).toString(),
  });
  if (res.status !== 200) throw new Error(`preauth answered HTTP ${res.status}`);
}

/**
 * A storefront history whose start was interrupted leaves the sandbox's clock in the past (it is
 * kept across restarts); it is moved forward to real time, so that new orders are dated now.
 */
async function catchUpSandboxClock(sandboxOrigin) {
  const clock = await (await fetch(`${sandboxOrigin}/sandbox/clock`)).json();
  if (!(clock.offsetMs < 0)) return;
  const seconds = Math.ceil(-clock.offsetMs / 1000);
  const res = await fetch(`${sandboxOrigin}/sandbox/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ seconds }),
  });
  await res.body?.cancel();
  if (res.status !== 200)
    throw new Error(`the sandbox's clock could not be moved (HTTP ${res.status})`);
  say(
    `the sandbox's clock was ${seconds} s behind real time (an interrupted demo seeding); it now runs at real time.`,
  );
}

/** Waits until the sandbox has no callback delivery still pending. */
async function callbacksDelivered(sandboxOrigin, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    const res = await fetch(`${sandboxOrigin}/sandbox/callbacks`);
    const body = await res.json();
    const callbacks = body.callbacks ?? [];
    if (!callbacks.some((c) => c.state === 'pending')) return callbacks;
    await new Promise((r) => setTimeout(r, 200));
  }
  return null;
}

/**
 * Waits until the BFF has learned the outcome of every operation on these transactions: a
 * capture, void or return is `processing` until the sandbox finishes it and its callback arrives
 * (before then the sandbox has no callback pending either, so that alone proves nothing).
 */
async function operationsSettled(api, transactionIds, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const open = new Set(['sending', 'processing', 'unknown']);
  while (Date.now() < deadline && !stopping) {
    let settled = true;
    for (const id of transactionIds) {
      const detail = await api.call('GET', `/api/transactions/${id}`);
      if ((detail.json?.operations ?? []).some((o) => open.has(o.state))) settled = false;
    }
    if (settled) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Finds one transaction of the BFF by client_orderid, waiting until it has a final status. */
async function learned(api, clientOrderId, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    const page = await api.call('GET', `/api/transactions?q=${encodeURIComponent(clientOrderId)}`);
    const item = page.json?.items?.[0];
    if (item && item.status !== 'processing' && item.status !== 'unknown') return item;
    await new Promise((r) => setTimeout(r, 200));
  }
  return null;
}

const idem = () => ({ 'Idempotency-Key': `demo-seed-${randomUUID()}` });

/** Waits until the subscription's first charge has a final status at the BFF (its callback). */
async function firstCharge(api, subscriptionId, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    const res = await api.call('GET', `/api/subscriptions/${subscriptionId}`);
    const charge = res.json?.charges?.[0];
    if (charge && charge.status !== 'processing' && charge.status !== 'unknown') return charge;
    await new Promise((r) => setTimeout(r, 200));
  }
  return null;
}

/**
 * Finance's stored-card demo, through the BFF's API: a card reference on an approved sale (not the
 * one with the returns), a monthly subscription on it (v4, signed with the demo merchant's RSA
 * key; the sandbox charges it at once), and a sale-form payment link. Returns the first charge.
 */
async function seedStoredCard(fin, approvedSales, returned, endpoint, step, refused) {
  const sale = approvedSales.find((t) => t.id !== returned?.id) ?? returned;
  if (!sale) {
    refused.push('card reference: no approved sale was learned');
    return null;
  }
  const ref = await fin.call('POST', `/api/transactions/${sale.id}/card-ref`, {}, idem());
  step('a card reference', ref);
  const cardRefId = ref.json?.transaction?.cardRefId;
  let charge = null;
  if (typeof cardRefId === 'string') {
    const plan = await fin.call(
      'POST',
      '/api/subscriptions',
      {
        cardRefId,
        amount: '9.99',
        currency: endpoint.currency,
        period: 'month',
        interval: 1,
        maxPayments: 12,
        orderDesc: 'Demo monthly membership',
        email: 'demo.subscriber@example.com',
        endpointId: String(endpoint.id),
      },
      idem(),
    );
    step('a monthly subscription', plan);
    const id = plan.json?.subscription?.id;
    if (typeof id === 'string') {
      charge = await firstCharge(fin, id, 30_000);
      if (!charge) refused.push('subscription: its first charge was not learned within 30 s');
    }
  } else refused.push('subscription: the card reference has no id');
  const link = await fin.call(
    'POST',
    '/api/payment-links',
    {
      kind: 'sale-form',
      amount: '19.90',
      currency: endpoint.currency,
      endpointId: String(endpoint.id),
      orderDesc: 'Demo invoice paid on the hosted sale form',
      customer: {
        email: 'demo.payer@example.com',
        firstName: 'Dana',
        lastName: 'Payer',
        address1: '1 Demo Street',
        city: 'Springfield',
        zipCode: '12345',
        country: 'DE',
        phone: '+49 30 5550100',
      },
    },
    idem(),
  );
  step('a sale-form payment link', link);
  return charge;
}

async function signIn(baseUrl, origin, user) {
  const api = bffClient(baseUrl, origin);
  const res = await api.call('POST', '/api/session', {
    email: user.email,
    password: user.password,
  });
  return res.status === 200 ? api : null;
}

/**
 * First start of a demo data directory only: storefront orders learned through callbacks, three
 * preauths of our own (one left authorized), then staff operations through the BFF's API. Returns
 * the summary line.
 */
async function seedDemoData({ dataDir, localUrl, origin, sandboxOrigin, merchant, users }) {
  const marker = join(dataDir, DEMO_SEED_MARKER);
  if (existsSync(marker)) return null;
  const finance = users.find((u) => u.roles.includes('finance'));
  const ops = users.find((u) => u.roles.includes('ops'));
  const endpoint = merchant.endpoints?.[0];
  if (!finance || !ops || !endpoint) {
    say('demo data not seeded: the finance and ops demo users (or an endpoint) are missing.');
    return null;
  }
  const orders = Number(env.PAYDESK_DEMO_ORDERS ?? DEMO_ORDERS_DEFAULT);
  if (!Number.isInteger(orders) || orders < 0 || orders > 100_000) {
    say('demo data not seeded: PAYDESK_DEMO_ORDERS must be a whole number from 0 to 100000.');
    return null;
  }
  const historyDays = Number(env.PAYDESK_DEMO_HISTORY_DAYS ?? DEMO_HISTORY_DAYS_MAX);
  if (!Number.isInteger(historyDays) || historyDays < 0 || historyDays > DEMO_HISTORY_DAYS_MAX) {
    say(
      `demo data not seeded: PAYDESK_DEMO_HISTORY_DAYS must be a whole number from 0 to ${DEMO_HISTORY_DAYS_MAX}.`,
    );
    return null;
  }
  const started = Date.now();
  const gateway = `${sandboxOrigin}/paynet`;
  const callbackUrl = `${localUrl}/gateway/callback?endpoint=${endpoint.id}`;
  // Written first: a start interrupted half-way never places the storefront orders twice.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(marker, `${JSON.stringify({ startedAt: new Date().toISOString(), orders })}\n`);
  say(`seeding demo data: the storefront simulator places ${orders} orders...`);

  const summary =
    orders > 0 ? await runStorefront(gateway, callbackUrl, orders, historyDays) : null;
  const run = randomUUID().slice(0, 8);
  const preauths = [`demo-preauth-${run}-1`, `demo-preauth-${run}-2`, `demo-preauth-${run}-3`];
  await placePreauth(gateway, merchant, endpoint, callbackUrl, '120.00', preauths[0]);
  await placePreauth(gateway, merchant, endpoint, callbackUrl, '80.00', preauths[1]);
  // Left authorized: the held funds a finance user can capture (or release) on the first visit.
  await placePreauth(gateway, merchant, endpoint, callbackUrl, '65.00', preauths[2]);
  if ((await callbacksDelivered(sandboxOrigin, 60_000)) === null) {
    say('some gateway callbacks were still pending after 60 s; the BFF learns them later.');
  }

  const done = [];
  const refused = [];
  const step = (what, res) => {
    if (res.status >= 200 && res.status < 300) done.push(what);
    else refused.push(`${what}: ${res.json?.error?.message ?? `HTTP ${res.status}`}`);
  };
  const fin = await signIn(localUrl, origin, finance);
  if (fin) {
    const [toCapture, toVoid] = [
      await learned(fin, preauths[0], 30_000),
      await learned(fin, preauths[1], 30_000),
    ];
    if (toCapture) {
      const res = await fin.call(
        'POST',
        `/api/transactions/${toCapture.id}/capture`,
        { amount: '50.00' },
        idem(),
      );
      step('a partial capture (50.00 of 120.00)', res);
    } else refused.push('capture: the BFF did not learn the preauth');
    if (toVoid) {
      const res = await fin.call(
        'POST',
        `/api/transactions/${toVoid.id}/void`,
        { comment: 'Demo: order cancelled by the customer' },
        idem(),
      );
      step('a void', res);
    } else refused.push('void: the BFF did not learn the preauth');
    // Returns need a final approval only, not settlement: the sandbox clock is left alone here
    // (moving it a day would date every later demo order a day ahead), as it is by the storefront.
    const sales = await fin.call('GET', '/api/transactions?type=sale&status=approved&limit=20');
    const sale = (sales.json?.items ?? []).find((t) => Number(t.amount) >= 5);
    if (sale) {
      for (const [amount, reasonCode] of [
        ['1.00', 'customer_request'],
        ['2.00', 'product_unacceptable'],
      ]) {
        const res = await fin.call(
          'POST',
          `/api/transactions/${sale.id}/return`,
          { amount, reasonCode, comment: `Demo partial return of ${amount}` },
          idem(),
        );
        step(`a partial return (${amount})`, res);
      }
    } else refused.push('returns: no approved sale was learned');
    const charged = await seedStoredCard(
      fin,
      sales.json?.items ?? [],
      sale,
      endpoint,
      step,
      refused,
    );
    const touched = [toCapture, toVoid, sale, charged].filter(Boolean).map((t) => t.id);
    if (!(await operationsSettled(fin, touched, 30_000))) {
      say('some staff operations were still processing after 30 s; the BFF learns them later.');
    }
    await fin.call('DELETE', '/api/session');
  } else refused.push(`could not sign in as ${finance.email}`);

  const op = await signIn(localUrl, origin, ops);
  if (op) {
    const res = await op.call(
      'POST',
      '/api/payouts',
      {
        destination: {
          kind: 'card',
          cardNumber: '4111111111111111',
          cardholderName: 'Demo Payee',
          expiryMonth: '12',
          expiryYear: String(new Date().getUTCFullYear() + 2),
        },
        amount: '25.00',
        currency: endpoint.currency,
        endpointId: String(endpoint.id),
        orderDesc: 'Demo payout waiting for a second ops approver',
        mode: 'two-step',
      },
      idem(),
    );
    step('a payout waiting for a second approver', res);
    const form = await op.call(
      'POST',
      '/api/payment-links',
      {
        kind: 'payout-form',
        amount: '40.00',
        currency: endpoint.currency,
        endpointId: String(endpoint.id),
        orderDesc: 'Demo payout form waiting for a second ops approver',
      },
      idem(),
    );
    step('a payout-form link waiting for a second approver', form);
    await op.call('DELETE', '/api/session');
  } else refused.push(`could not sign in as ${ops.email}`);

  // The callbacks of the staff operations too, so the screens show their final outcome.
  await callbacksDelivered(sandboxOrigin, 30_000);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const placed = summary
    ? `${summary.orders} storefront orders (${summary.asExpected} as expected)` +
      (summary.historyDays > 0 ? ` dated across the last ${summary.historyDays} days` : '')
    : 'no storefront orders';
  const line =
    `demo data seeded in ${seconds} s: ${placed} and 3 preauths (one left to capture), ` +
    'learned through callbacks; ' +
    `${done.join(', ') || 'no staff operations'}` +
    (refused.length > 0 ? `; not done: ${refused.join('; ')}` : '');
  writeFileSync(
    marker,
    `${JSON.stringify({ seededAt: new Date().toISOString(), orders, summary, done, refused })}\n`,
  );
  return line;
}

/**
 * The demo merchant's MERCHANT_ENDPOINTS: each endpoint as `ID:CUR`, each group as
 * `group:ID:CUR/CUR` with the currencies of the endpoints it holds (as the sandbox lands an order
 * on the group's endpoint of its currency), so that the BFF refuses a currency no group takes.
 */
function merchantEndpoints(merchant) {
  const endpoints = merchant.endpoints ?? [];
  return [
    ...endpoints.map((e) => `${e.id}:${e.currency}`),
    ...(merchant.endpointGroups ?? []).map((g) => {
      const currencies = [
        ...new Set(endpoints.filter((e) => g.endpoints.includes(e.id)).map((e) => e.currency)),
      ];
      return currencies.length === 0 ? `group:${g.id}` : `group:${g.id}:${currencies.join('/')}`;
    }),
  ];
}

async function main() {
  const dataDir = resolve(root, env.PAYDESK_DATA_DIR ?? 'data');
  const port = env.PORT ?? '8080';
  const publicOrigin = env.PUBLIC_ORIGIN ?? `http://localhost:${port}`;
  const bffEnv = {
    ...env,
    PORT: port,
    PUBLIC_ORIGIN: publicOrigin,
    DATABASE_URL: env.DATABASE_URL ?? `sqlite:${join(dataDir, 'paydesk.sqlite')}`,
  };
  const demo = !env.GATEWAY_BASE_URL;
  let demoMerchant = null;

  if (demo) {
    const sandboxPort = env.SANDBOX_PORT ?? '8081';
    const merchantDir = join(root, 'sandbox', 'demo-merchant');
    const merchantFile = join(merchantDir, 'merchant.json');
    if (!existsSync(merchantFile)) return fail(`${merchantFile} is missing`);
    const merchant = JSON.parse(readFileSync(merchantFile, 'utf8'));
    demoMerchant = merchant;
    const keyFile = (f) => (isAbsolute(f) ? f : join(merchantDir, f));
    const endpoints = merchantEndpoints(merchant);
    const sandbox = startChild('sandbox', join(root, 'sandbox', 'dist', 'main.js'), {
      ...env,
      SANDBOX_PORT: sandboxPort,
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_DB: env.SANDBOX_DB ?? join(dataDir, 'sandbox.sqlite'),
    });
    if (sandbox === null) return;
    Object.assign(bffEnv, {
      GATEWAY_BASE_URL: `http://127.0.0.1:${sandboxPort}/paynet`,
      MERCHANT_LOGIN: merchant.login,
      MERCHANT_CONTROL_KEY: merchant.controlKey,
      MERCHANT_RSA_KEY_FILE: keyFile(merchant.privateKeyFile),
      MERCHANT_ENDPOINTS: endpoints.join(','),
      // Demo passwords are printed: listen on loopback only unless told otherwise.
      HOST: env.HOST ?? '127.0.0.1',
      PAYDESK_ADMIN_EMAIL: env.PAYDESK_ADMIN_EMAIL ?? DEMO_ADMIN.email,
      PAYDESK_ADMIN_PASSWORD: env.PAYDESK_ADMIN_PASSWORD ?? DEMO_ADMIN.password,
    });
    delete bffEnv.MERCHANT_CONTROL_KEY_FILE;
  }

  // The BFF's own node flags (bff/package.json `paydesk.nodeFlags`, as its `start` script and the
  // README's deployment run it): a smaller young generation keeps a long CSV export's garbage from
  // growing the heap by 60-100 MB (test/bench/RESULTS-payments.md).
  const bff = startChild('bff', join(root, 'bff', 'dist', 'main.js'), bffEnv, bffNodeFlags());
  if (bff === null) return;
  const localUrl = `http://127.0.0.1:${port}`;
  const ready = await waitReady(
    `${localUrl}/readyz`,
    Number(env.PAYDESK_START_TIMEOUT_MS ?? 60_000),
  );

  if (!demo) {
    say(`Paydesk is ready at ${publicOrigin} (gateway ${env.GATEWAY_BASE_URL}). Ctrl-C stops it.`);
    if (ready?.checks?.gateway !== 'ok')
      say(
        'The gateway does not answer yet: staff can sign in and read, and operations that need the gateway say it is unavailable until it does.',
      );
    return;
  }
  const admin = { email: bffEnv.PAYDESK_ADMIN_EMAIL, password: bffEnv.PAYDESK_ADMIN_PASSWORD };
  const users = await seedDemoUsers(localUrl, publicOrigin, admin);
  const sandboxOrigin = `http://127.0.0.1:${env.SANDBOX_PORT ?? '8081'}`;
  await catchUpSandboxClock(sandboxOrigin);
  const seeded = await seedDemoData({
    dataDir,
    localUrl,
    origin: publicOrigin,
    sandboxOrigin,
    merchant: demoMerchant,
    users,
  });
  if (seeded) say(seeded);
  const width = Math.max(...[admin, ...users].map((u) => u.email.length));
  const lines = [
    `Paydesk is ready at ${publicOrigin} (demo mode: sandbox gateway on port ${env.SANDBOX_PORT ?? '8081'}, data in ${dataDir}).`,
    'Sign in as:',
    `  ${admin.email.padEnd(width)}  ${admin.password}  (admin, auditor)`,
    ...users.map((u) => `  ${u.email.padEnd(width)}  ${u.password}  (${u.roles.join(', ')})`),
    'Ctrl-C stops the BFF and the sandbox; data and users are kept for the next start.',
  ];
  for (const line of lines) say(line);
}

main().catch((err) => {
  if (!stopping) fail(err instanceof Error ? err.message : String(err));
});
