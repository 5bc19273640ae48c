#!/usr/bin/env node
// `npm start` after provisioning and building (scripts/paydesk.mjs start runs this).
//
// Demo mode (GATEWAY_BASE_URL unset): starts the gateway sandbox as its own process with a
// persistent database under data/, then the BFF pointed at it and configured from the sandbox's
// demo merchant, waits until the BFF is ready, then makes sure the admin and one demo user per
// role exist (created through the BFF's own HTTP API) and prints how to sign in.
// With GATEWAY_BASE_URL set: the BFF alone, configured by the environment; no demo users.
//
// Plain JavaScript on Node 24, importing nothing from the packages: the sandbox and the BFF only
// ever meet over HTTP.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

function startChild(name, script, childEnv) {
  if (!existsSync(script)) {
    fail(`${name}: ${script} does not exist. Build first: pnpm -r build (npm start does this).`);
    return null;
  }
  const child = spawn(process.execPath, [script], {
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
      if (res.ok) return;
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
  const call = async (method, path, body) => {
    const headers = { 'X-Requested-With': 'paydesk', Origin: origin, Accept: 'application/json' };
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
  for (const role of DEMO_ROLES) {
    const user = demoUser(role);
    if (!existing.has(user.email)) {
      const created = await api.call('POST', '/api/users', user);
      if (created.status !== 201) {
        say(`could not create ${user.email}: ${created.json?.error?.message ?? created.status}`);
        continue;
      }
    }
    users.push(user);
  }
  await api.call('DELETE', '/api/session');
  return users;
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

  if (demo) {
    const sandboxPort = env.SANDBOX_PORT ?? '8081';
    const merchantDir = join(root, 'sandbox', 'demo-merchant');
    const merchantFile = join(merchantDir, 'merchant.json');
    if (!existsSync(merchantFile)) return fail(`${merchantFile} is missing`);
    const merchant = JSON.parse(readFileSync(merchantFile, 'utf8'));
    const keyFile = (f) => (isAbsolute(f) ? f : join(merchantDir, f));
    const endpoints = [
      ...(merchant.endpoints ?? []).map((e) => `${e.id}:${e.currency}`),
      ...(merchant.endpointGroups ?? []).map((g) => `group:${g.id}`),
    ];
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

  const bff = startChild('bff', join(root, 'bff', 'dist', 'main.js'), bffEnv);
  if (bff === null) return;
  const localUrl = `http://127.0.0.1:${port}`;
  await waitReady(`${localUrl}/readyz`, Number(env.PAYDESK_START_TIMEOUT_MS ?? 60_000));

  if (!demo) {
    say(`Paydesk is ready at ${publicOrigin} (gateway ${env.GATEWAY_BASE_URL}). Ctrl-C stops it.`);
    return;
  }
  const admin = { email: bffEnv.PAYDESK_ADMIN_EMAIL, password: bffEnv.PAYDESK_ADMIN_PASSWORD };
  const users = await seedDemoUsers(localUrl, publicOrigin, admin);
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
