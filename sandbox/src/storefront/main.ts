// `pnpm --filter @paydesk/sandbox storefront -- --gateway URL --callback-url URL --orders N`
// [--merchant merchant.json] [--endpoint ID] [--concurrency N] [--history-days N]. Prints one JSON
// line per order (and a `note` line when a history could not be had) and a summary; exits 1 when an
// order did not reach its expected final status.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEMO_MERCHANT_DIR } from '../config.js';
import { MAX_HISTORY_DAYS } from './history.js';
import { Storefront } from './simulator.js';

const merchantFile = z.object({
  login: z.string().min(1),
  controlKey: z.string().min(1),
  privateKeyFile: z.string().min(1),
  endpoints: z.array(z.object({ id: z.number().int(), currency: z.string() })).min(1),
});

const argsSchema = z.object({
  gateway: z.url(),
  'callback-url': z.url(),
  orders: z.coerce.number().int().min(1).max(100_000),
  merchant: z.string().default(join(DEMO_MERCHANT_DIR, 'merchant.json')),
  endpoint: z.coerce.number().int().positive().optional(),
  concurrency: z.coerce.number().int().min(1).max(64).default(4),
  'history-days': z.coerce.number().int().min(0).max(MAX_HISTORY_DAYS).default(0),
});

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      gateway: { type: 'string' },
      'callback-url': { type: 'string' },
      orders: { type: 'string', default: '14' },
      merchant: { type: 'string' },
      endpoint: { type: 'string' },
      concurrency: { type: 'string' },
      'history-days': { type: 'string' },
    },
    allowPositionals: true,
  });
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) {
    process.stderr.write(
      `storefront: ${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}\n`,
    );
    process.exit(2);
  }
  const args = parsed.data;
  const file = merchantFile.parse(JSON.parse(readFileSync(args.merchant, 'utf8')));
  const endpoint = file.endpoints.find((e) => e.id === args.endpoint) ?? file.endpoints[0];
  if (!endpoint) throw new Error('the merchant file has no endpoint');
  const storefront = new Storefront({
    gateway: args.gateway.replace(/\/$/, ''),
    callbackUrl: args['callback-url'],
    orders: args.orders,
    merchant: {
      login: file.login,
      controlKey: file.controlKey,
      privateKeyPem: readFileSync(resolve(dirname(args.merchant), file.privateKeyFile), 'utf8'),
    },
    endpointId: endpoint.id,
    currency: endpoint.currency,
    concurrency: args.concurrency,
    historyDays: args['history-days'],
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const results = await storefront.run();
  const failed = results.filter((r) => r.error !== undefined || r.final !== r.expected);
  process.stdout.write(
    `${JSON.stringify({ summary: { orders: results.length, asExpected: results.length - failed.length, failed: failed.length } })}\n`,
  );
  process.exit(failed.length === 0 ? 0 : 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`storefront: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
