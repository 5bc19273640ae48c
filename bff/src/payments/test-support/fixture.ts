// One sandbox process and one BFF per suite, and the steps most tests share.
import { randomUUID } from 'node:crypto';
import { TransactionDetailSchema, type TransactionDetail } from '@paydesk/shared/api';
import type { DbVariant, Reply, TestClient } from '../../test-support/harness.js';
import { payDb } from '../db.js';
import { startPaymentsApp, type PaymentsAppOptions, type PaymentsTestApp } from './app.js';
import {
  startSandboxProcess,
  type SandboxProcess,
  type SandboxProcessOptions,
} from './sandbox-process.js';
import { Storefront, type PlacedOrder } from './storefront.js';

export interface Fixture {
  sandbox: SandboxProcess;
  bff: PaymentsTestApp;
  shop: Storefront;
  finance: TestClient;
  support: TestClient;
  close(): Promise<void>;
}

export async function startFixture(
  variant: DbVariant,
  options: {
    sandbox?: SandboxProcessOptions;
    app?: Omit<PaymentsAppOptions, 'gatewayBaseUrl'>;
  } = {},
): Promise<Fixture> {
  const sandbox = await startSandboxProcess(options.sandbox);
  try {
    const bff = await startPaymentsApp(variant, {
      gatewayBaseUrl: sandbox.baseUrl,
      ...options.app,
    });
    const finance = await bff.userWithRoles(['finance']);
    const support = await bff.userWithRoles(['support']);
    return {
      sandbox,
      bff,
      shop: new Storefront(sandbox.baseUrl),
      finance,
      support,
      close: async () => {
        await bff.close();
        await sandbox.stop();
      },
    };
  } catch (err) {
    await sandbox.stop();
    throw err;
  }
}

/** Places an order at the sandbox with the BFF's callback URL and lets it finish: the BFF learns it. */
export async function learnedOrder(
  f: Fixture,
  kind: 'sale' | 'preauth',
  amount: string,
  extra: { currency?: string; endpointId?: string; card?: string; email?: string } = {},
): Promise<{ order: PlacedOrder; tx: TransactionDetail }> {
  const endpointId = extra.endpointId ?? '1001';
  const order = await f.shop.place(kind, {
    amount,
    ...extra,
    endpointId,
    callbackUrl: f.bff.callbackUrl(endpointId),
  });
  await f.sandbox.advance(61);
  const row = await payDb(f.bff.db)
    .selectFrom('transactions')
    .select('id')
    .where('orderid', '=', order.orderid)
    .executeTakeFirst();
  const id = row?.id;
  if (id === undefined)
    throw new Error(`the BFF did not learn order ${order.orderid} through its callback`);
  const res = await f.support.get(`/api/transactions/${id}`);
  return { order, tx: TransactionDetailSchema.parse(res.json) };
}

export function key(): string {
  return randomUUID();
}

export function post(
  client: TestClient,
  path: string,
  body: unknown,
  idempotencyKey: string | null = key(),
): Promise<Reply> {
  return client.request(
    'POST',
    path,
    body,
    idempotencyKey === null ? {} : { 'Idempotency-Key': idempotencyKey },
  );
}

/** Moves the BFF's clock on by `ms` and runs its reconciler once (how many orders it checked). */
export async function reconcileAfter(f: Fixture, ms: number): Promise<number> {
  f.bff.clock.advance(ms);
  return f.bff.payments.reconciler.runOnce();
}
