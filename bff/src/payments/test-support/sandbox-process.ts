// The real sandbox as its own process (`node sandbox/dist/main.js`), on a free port, with a
// merchant config written for the test; its control API for the clock, faults and orders.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../../config.js';

export const SANDBOX_MAIN = join(REPO_ROOT, 'sandbox', 'dist', 'main.js');
export const DEMO_MERCHANT_DIR = join(REPO_ROOT, 'sandbox', 'demo-merchant');
export const MERCHANT_PRIVATE_KEY_PEM = readFileSync(
  join(DEMO_MERCHANT_DIR, 'private-key.pem'),
  'utf8',
);

export const TEST_MERCHANT = {
  login: 'paydesk-payments-test',
  controlKey: 'PAYMENTS-TEST-CONTROL-KEY-7c1d2e',
};

export interface SandboxOrder {
  orderid: string;
  status: string;
  replyStatus: string;
  orderStage: string;
  capturedMinor: string;
  returnedMinor: string;
  authorizedMinor: string;
  voided: boolean;
  operations: { serial: string; type: string; amountMinor: string; status: string }[];
}

export interface SandboxProcess {
  origin: string;
  /** GATEWAY_BASE_URL for the BFF */
  baseUrl: string;
  control(path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** moves the sandbox clock and waits for what became due (completions, callbacks) */
  advance(seconds: number): Promise<void>;
  faults(faults: {
    errorRate?: number;
    latencyMs?: number;
    dropResponseRate?: number;
    /** held before handling until a later call lifts it */
    hold?: boolean;
    operations?: string[];
  }): Promise<void>;
  order(orderid: string): Promise<SandboxOrder>;
  stop(): Promise<void>;
}

export interface SandboxProcessOptions {
  /** virtual milliseconds an operation stays processing (tests advance the clock past it) */
  processingDelayMs?: number;
  callbackBackoffSeconds?: number;
}

export async function startSandboxProcess(
  options: SandboxProcessOptions = {},
): Promise<SandboxProcess> {
  if (!existsSync(SANDBOX_MAIN)) {
    throw new Error(
      `the sandbox is not built (${SANDBOX_MAIN}); run: pnpm --filter @paydesk/sandbox build`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-sandbox-'));
  const configFile = join(dir, 'sandbox.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      merchants: [
        {
          login: TEST_MERCHANT.login,
          controlKey: TEST_MERCHANT.controlKey,
          publicKeyFile: join(DEMO_MERCHANT_DIR, 'public-key.pem'),
          endpoints: [
            { id: 1001, currency: 'EUR' },
            { id: 1002, currency: 'USD' },
          ],
          endpointGroups: [{ id: 2001, endpoints: [1001, 1002] }],
        },
      ],
      processingDelayMs: options.processingDelayMs ?? 60_000,
      callbackMaxAttempts: 10,
      callbackBackoffSeconds: options.callbackBackoffSeconds ?? 5,
    }),
  );
  const child: ChildProcess = spawn(process.execPath, [SANDBOX_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_CONFIG: configFile,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the sandbox did not start: ${stderr.join('')}`));
    }, 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited with ${String(code)}: ${stderr.join('')}`));
    });
    if (child.stdout === null) throw new Error('no stdout');
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let entry: { msg?: string; url?: string };
      try {
        entry = JSON.parse(line) as { msg?: string; url?: string };
      } catch {
        return;
      }
      if (entry.msg === 'sandbox listening' && typeof entry.url === 'string') {
        clearTimeout(timer);
        resolve(new URL(entry.url).origin);
      }
    });
  });
  const control = async (path: string, body?: unknown) => {
    const res = await fetch(origin + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const expectOk = (what: string, r: { status: number; json: unknown }) => {
    if (r.status !== 200)
      throw new Error(`${what}: sandbox answered ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  return {
    origin,
    baseUrl: `${origin}/paynet`,
    control,
    advance: async (seconds) => {
      expectOk('advance', await control('/sandbox/clock/advance', { seconds }));
    },
    faults: async (faults) => {
      expectOk('faults', await control('/sandbox/faults', faults));
    },
    order: async (orderid) =>
      expectOk(`order ${orderid}`, await control(`/sandbox/orders/${orderid}`)) as SandboxOrder,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
