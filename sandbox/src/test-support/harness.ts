// Test harness: a sandbox on port 0 with the demo merchant's keys, a gateway client, the control
// API, and a callback receiver on port 0.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '../app.js';
import { DEMO_MERCHANT_DIR, type SandboxConfig } from '../config.js';
import { GatewayClient } from '../storefront/gateway-client.js';

export const PRIVATE_KEY_PEM = readFileSync(join(DEMO_MERCHANT_DIR, 'private-key.pem'), 'utf8');
export const PUBLIC_KEY_PEM = readFileSync(join(DEMO_MERCHANT_DIR, 'public-key.pem'), 'utf8');

export const MERCHANT = {
  login: 'test-merchant',
  controlKey: 'TEST-CONTROL-KEY-0123456789',
  privateKeyPem: PRIVATE_KEY_PEM,
};

export function testConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  return {
    merchants: [
      {
        login: MERCHANT.login,
        controlKey: MERCHANT.controlKey,
        publicKeyPem: PUBLIC_KEY_PEM,
        endpoints: [
          { id: 1001, currency: 'EUR' },
          { id: 1002, currency: 'USD' },
        ],
        endpointGroups: [{ id: 2001, endpoints: [1001, 1002] }],
      },
      {
        login: 'other-merchant',
        controlKey: 'OTHER-CONTROL-KEY-9876543210',
        publicKeyPem: PUBLIC_KEY_PEM,
        endpoints: [{ id: 3001, currency: 'EUR' }],
        endpointGroups: [],
      },
    ],
    processingDelayMs: 0,
    callbackMaxAttempts: 10,
    callbackBackoffSeconds: 5,
    ...overrides,
  };
}

export interface Running {
  sandbox: Sandbox;
  origin: string;
  base: string;
  client: GatewayClient;
  control(path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  advance(seconds: number): Promise<void>;
  close(): Promise<void>;
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startSandbox(
  options: { config?: SandboxConfig; dbPath?: string; random?: () => number } = {},
): Promise<Running> {
  const sandbox = createSandbox({
    config: options.config ?? testConfig(),
    dbPath: options.dbPath,
    random: options.random,
  });
  const server = createServer(sandbox.app);
  const origin = await listen(server);
  const base = `${origin}/paynet`;
  const control = async (path: string, body?: unknown) => {
    const response = await fetch(origin + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  return {
    sandbox,
    origin,
    base,
    client: new GatewayClient(base, MERCHANT),
    control,
    advance: async (seconds: number) => {
      const r = await control('/sandbox/clock/advance', { seconds });
      if (r.status !== 200) throw new Error(`advance failed: ${r.status}`);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await sandbox.close();
    },
  };
}

export interface Receiver {
  url: string;
  hits: URL[];
  /** Resolves when `count` requests have arrived. */
  waitFor(count: number): Promise<URL[]>;
  close(): Promise<void>;
}

/** A callback receiver; `respond(n)` gives the HTTP status of the n-th hit (1-based). */
export async function startReceiver(respond: (n: number) => number = () => 200): Promise<Receiver> {
  const hits: URL[] = [];
  const waiters: { count: number; resolve: (hits: URL[]) => void }[] = [];
  const server = createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://receiver'));
    res.statusCode = respond(hits.length);
    res.end('ok');
    for (const w of [...waiters]) {
      if (hits.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hits);
      }
    }
  });
  const origin = await listen(server);
  return {
    url: `${origin}/callback`,
    hits,
    waitFor: (count) =>
      hits.length >= count
        ? Promise.resolve(hits)
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

let counter = 0;
export function uniqueId(prefix = 'ord'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export const CUSTOMER = {
  address1: '1 Test Street',
  city: 'Testville',
  zip_code: '10115',
  country: 'DE',
  phone: '+49 30 1234567',
  email: 'jane@example.com',
  ipaddress: '192.0.2.10',
};

export function saleFields(
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    client_orderid: uniqueId(),
    order_desc: 'Test order',
    amount: '10.42',
    currency: 'EUR',
    ...CUSTOMER,
    credit_card_number: '4111111111111111',
    card_printed_name: 'JANE DOE',
    expire_month: '12',
    expire_year: String(new Date().getUTCFullYear() + 3),
    cvv2: '123',
    redirect_url: 'https://shop.example/return',
    ...overrides,
  };
}
