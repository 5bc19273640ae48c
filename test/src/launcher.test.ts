// `npm start` end to end: the launcher on free ports with a temporary data directory starts the
// sandbox and the BFF, seeds the demo users; every demo user can log in over HTTP; after a stop
// and a second start the same users (and no duplicates) are there.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROLES = ['support', 'finance', 'ops', 'admin', 'auditor'] as const;
const ADMIN = { email: 'admin@paydesk.local', password: 'paydesk-admin-demo' };

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

  it('when started, stopped and started again, then every demo user logs in both times and nothing is duplicated', async () => {
    const port = await freePort();
    const sandboxPort = await freePort();
    const env = {
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      PAYDESK_DATA_DIR: dataDir,
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
    expect(await stop(first)).toBe(0);
    expect(await portIsClosed(port)).toBe(true);
    expect(await portIsClosed(sandboxPort)).toBe(true);

    const second = launch(env);
    running.push(second);
    await second.ready;
    for (const role of ROLES) {
      expect((await login(port, `${role}.demo@paydesk.local`, `paydesk-demo-${role}`)).status).toBe(
        200,
      );
    }
    // Log in as admin and count the users: the second start created none.
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
    expect(users.items).toHaveLength(6);
    expect(await stop(second)).toBe(0);
  });
});
