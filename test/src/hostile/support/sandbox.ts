// The sandbox gateway in process (the built @paydesk/sandbox createSandbox) on a free port, with
// the demo merchant's key pair under a login and control key of the suite's, logs captured.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSandbox, type Sandbox } from '@paydesk/sandbox/dist/app.js';
import { DEMO_MERCHANT_DIR } from '@paydesk/sandbox/dist/config.js';

export const OTHER_CONTROL_KEY = 'OTHER-MERCHANT-CONTROL-KEY-3e8d1b';

export interface Gateway {
  sandbox: Sandbox;
  origin: string;
  /** `http://127.0.0.1:port/paynet` */
  baseUrl: string;
  login: string;
  controlKey: string;
  privateKeyPem: string;
  /** every log line of the sandbox */
  logs: string[];
  /** `POST /paynet/api/v4/payout-pay/1001`: every request the sandbox received, in order */
  requests: string[];
  /** secrets of the gateway's configuration (the other merchant's control key) */
  secrets: string[];
  close(): Promise<void>;
}

export async function startGateway(merchant: {
  login: string;
  controlKey: string;
}): Promise<Gateway> {
  const publicKeyPem = readFileSync(join(DEMO_MERCHANT_DIR, 'public-key.pem'), 'utf8');
  const privateKeyPem = readFileSync(join(DEMO_MERCHANT_DIR, 'private-key.pem'), 'utf8');
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const sandbox = createSandbox({
    config: {
      merchants: [
        {
          login: merchant.login,
          controlKey: merchant.controlKey,
          publicKeyPem,
          endpoints: [
            { id: 1001, currency: 'EUR' },
            { id: 1002, currency: 'USD' },
          ],
          endpointGroups: [{ id: 2001, endpoints: [1001, 1002] }],
        },
        {
          login: 'other-merchant',
          controlKey: OTHER_CONTROL_KEY,
          publicKeyPem,
          endpoints: [{ id: 3001, currency: 'EUR' }],
          endpointGroups: [],
        },
      ],
      processingDelayMs: 0,
      callbackMaxAttempts: 1,
      callbackBackoffSeconds: 1,
    },
    logger,
  });
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
    sandbox.app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    sandbox,
    origin,
    baseUrl: `${origin}/paynet`,
    login: merchant.login,
    controlKey: merchant.controlKey,
    privateKeyPem,
    logs,
    requests,
    secrets: [OTHER_CONTROL_KEY],
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
