// The processes of a scale-out run, each as production starts it: the sandbox gateway
// (`node sandbox/dist/main.js`) and BFF instances (`node bff/dist/main.js`, configured only through
// the environment), plus a fresh PostgreSQL database (unique name, dropped after).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPgDatabase, PG_URL } from '../../support/pg-database.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const SANDBOX_MAIN = join(ROOT, 'sandbox', 'dist', 'main.js');
const BFF_MAIN = join(ROOT, 'bff', 'dist', 'main.js');

export { PG_URL };

export interface Process {
  /** http://127.0.0.1:port */
  origin: string;
  /** every line it wrote (JSON log lines) */
  lines: string[];
  stop(): Promise<void>;
}

/** Spawns `node main` and resolves once a log line with `msg` names the port it listens on. */
function startNode(
  what: string,
  main: string,
  env: Record<string, string>,
  listening: (entry: Record<string, unknown>) => string | null,
): Promise<Process> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run pnpm -r build`);
  const child: ChildProcess = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise<Process>((resolvePromise, reject) => {
    // 1–3 s on an idle machine; 20–30 s when a loaded machine's other work shares the 2 cores.
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${what} did not start:\n${lines.join('\n')}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${String(code)}:\n${lines.join('\n')}`));
    });
    if (child.stderr !== null)
      createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    if (child.stdout === null) throw new Error('no stdout');
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const origin = listening(entry);
      if (origin !== null) {
        clearTimeout(timer);
        resolvePromise({ origin, lines, stop });
      }
    });
  });
}

/** The sandbox gateway with its demo merchant, on a free loopback port. */
export function startSandbox(): Promise<Process> {
  return startNode(
    'the sandbox',
    SANDBOX_MAIN,
    { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    (e) =>
      e.msg === 'sandbox listening' && typeof e.url === 'string' ? new URL(e.url).origin : null,
  );
}

/** One BFF instance on a free loopback port, configured by `env` alone. */
export function startBff(name: string, env: Record<string, string>): Promise<Process> {
  return startNode(`BFF ${name}`, BFF_MAIN, { ...env, PORT: '0', HOST: '127.0.0.1' }, (e) =>
    e.msg === 'paydesk-bff listening' && typeof e.port === 'number'
      ? `http://127.0.0.1:${e.port}`
      : null,
  );
}

export interface Database {
  url: string;
  /** a connection for the test's own checks */
  client: pg.Client;
  drop(): Promise<void>;
}

/** A fresh, empty PostgreSQL database with a unique name. */
export async function createDatabase(): Promise<Database> {
  const db = await createPgDatabase('paydesk_scaleout');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return {
    url: db.url,
    client,
    drop: async () => {
      await client.end().catch(() => undefined);
      await db.drop();
    },
  };
}
