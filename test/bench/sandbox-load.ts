// Sandbox throughput: status and sale at concurrency 32 against `node sandbox/dist/main.js`
// (a separate process, logging to /dev/null), driven by autocannon. Figures go to
// test/bench/RESULTS-sandbox.md. Run: pnpm --filter @paydesk/sandbox build &&
// pnpm --filter @paydesk/test bench:sandbox
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { controlValue, formEncode } from '@paydesk/shared/protocol';
import { freePort } from './payments.bench.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const merchant = JSON.parse(
  readFileSync(join(root, 'sandbox/demo-merchant/merchant.json'), 'utf8'),
) as {
  login: string;
  controlKey: string;
};
const PORT = Number(process.env.BENCH_SANDBOX_PORT ?? 0) || (await freePort());
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 32;
const base = `http://127.0.0.1:${PORT}/paynet`;
const headers = {
  Accept: 'application/vnd.pay+json',
  'Content-Type': 'application/x-www-form-urlencoded',
};

function saleBody(clientOrderId: string): string {
  const fields: Record<string, string> = {
    client_orderid: clientOrderId,
    order_desc: 'bench',
    amount: '10.42',
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
  };
  fields.control = controlValue('sale', { ...fields, endpointId: '1001' }, merchant.controlKey);
  return formEncode(Object.entries(fields));
}

async function waitUntilUp(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/openapi.json`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the sandbox did not start');
}

const env: NodeJS.ProcessEnv = {
  ...process.env,
  SANDBOX_PORT: String(PORT),
  SANDBOX_HOST: '127.0.0.1',
};
delete env.SANDBOX_CONFIG;
delete env.SANDBOX_DB;
const sandbox = spawn(process.execPath, [join(root, 'sandbox/dist/main.js')], {
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});

const loadBefore = loadavg()[0] ?? 0;
try {
  await waitUntilUp();
  const order = await fetch(`${base}/api/v2/sale/1001`, {
    method: 'POST',
    headers,
    body: saleBody('bench-status-order'),
  });
  const orderid = ((await order.json()) as Record<string, string>)['paynet-order-id'] ?? '';
  const statusFields: [string, string][] = [
    ['login', merchant.login],
    ['client_orderid', 'bench-status-order'],
    ['orderid', orderid],
  ];
  statusFields.push([
    'control',
    controlValue('status', Object.fromEntries(statusFields), merchant.controlKey),
  ]);

  // Warm-up, then the measured runs.
  await autocannon({
    url: `${base}/api/v2/status/1001`,
    connections: CONNECTIONS,
    duration: 2,
    method: 'POST',
    headers,
    body: formEncode(statusFields),
  });
  const status = await autocannon({
    url: `${base}/api/v2/status/1001`,
    connections: CONNECTIONS,
    duration: DURATION,
    method: 'POST',
    headers,
    body: formEncode(statusFields),
  });
  let n = 0;
  const sale = await autocannon({
    url: `${base}/api/v2/sale/1001`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (req) => ({ ...req, body: saleBody(`bench-sale-${Date.now()}-${n++}`) }),
      },
    ],
  });

  const row = (name: string, r: Awaited<ReturnType<typeof autocannon>>) =>
    `| ${name} | ${CONNECTIONS} | ${DURATION} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r['2xx']} | ${r.non2xx} | ${r.errors} |`;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const report = `# Sandbox throughput

Measured by \`test/bench/sandbox-load.ts\` (autocannon, ${CONNECTIONS} connections, ${DURATION} s per run after a
2 s warm-up) against \`node sandbox/dist/main.js\` in its own process (demo merchant, in-memory state,
pino to /dev/null, processingDelayMs 300). The load generator runs on the same machine.

- Machine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${process.platform} ${process.arch}, Node ${process.version}
- Date: ${new Date().toISOString()}
- 1-minute load average before the run: ${loadBefore.toFixed(2)} (other work on the machine lowers the figures)
- Reproduce: \`pnpm --filter @paydesk/shared --filter @paydesk/sandbox build && pnpm --filter @paydesk/test bench:sandbox\`
- Target: ≥ 2,000 status req/s at concurrency 32

| operation | connections | seconds | req/s (mean) | p50 ms | p99 ms | 2xx | non-2xx | errors |
|---|---|---|---|---|---|---|---|---|
${row('status', status)}
${row('sale', sale)}

Status meets the target: ${status.requests.average >= 2000 ? 'yes' : 'NO'}.
`;
  writeFileSync(join(root, 'test/bench/RESULTS-sandbox.md'), report);
  process.stdout.write(report);
} finally {
  sandbox.kill('SIGTERM');
}
