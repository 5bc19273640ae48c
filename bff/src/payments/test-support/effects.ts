// What a request did besides its answer: the rows the create routes write and the gateway requests
// sent. A refusal the BFF decides itself writes nothing and sends nothing (create-refusals,
// card-ref-endpoint).
import { expect, vi } from 'vitest';
import type { EndpointConfig } from '../../config.js';
import { GatewayClient } from '../../gateway-client/client.js';
import type { PayoutsDb } from '../../payouts/context.js';
import type { DbVariant } from '../../test-support/harness.js';
import { payDb } from '../db.js';
import { startFixture, type Fixture } from './fixture.js';
import { MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT } from './sandbox-process.js';

/**
 * A suite's fixture whose BFF signs v4 requests (subscriptions, payment links) and has `endpoints`
 * configured.
 */
export function startFixtureWithEndpoints(
  variant: DbVariant,
  endpoints: EndpointConfig[],
): Promise<Fixture> {
  return startFixture(variant, {
    app: {
      config: {
        merchant: { ...TEST_MERCHANT, rsaPrivateKeyPem: MERCHANT_PRIVATE_KEY_PEM, endpoints },
      },
    },
  });
}

export interface Effects {
  /** the rows of the tables the create routes write, counted before and after */
  written: { before: RowCounts; after: RowCounts };
  /** the gateway requests sent, as (operation, endpoint) */
  sent: [operation: string, endpointId: string][];
}

interface RowCounts {
  transactions: number;
  subscriptions: number;
  links: number;
  payouts: number;
}

/** The rows the create routes write, and the gateway requests sent, while `work` runs. */
export async function effectsOf(f: Fixture, work: () => Promise<void>): Promise<Effects> {
  const k = payDb(f.bff.db);
  const pk: PayoutsDb = f.bff.db.k;
  const count = async (): Promise<RowCounts> => ({
    transactions: (await k.selectFrom('transactions').select('id').execute()).length,
    subscriptions: (await k.selectFrom('subscriptions').select('id').execute()).length,
    links: (await pk.selectFrom('payment_links').select('id').execute()).length,
    payouts: (await pk.selectFrom('payouts').select('id').execute()).length,
  });
  const before = await count();
  const send = vi.spyOn(GatewayClient.prototype, 'send');
  try {
    await work();
    return {
      written: { before, after: await count() },
      sent: send.mock.calls.map(([operation, endpointId]) => [operation, endpointId]),
    };
  } finally {
    send.mockRestore();
  }
}

/** Runs `work` and expects it to have written nothing and sent nothing to the gateway. */
export async function expectNothingDone(f: Fixture, work: () => Promise<void>): Promise<void> {
  const effects = await effectsOf(f, work);
  expect(effects.written.after).toEqual(effects.written.before);
  expect(effects.sent).toEqual([]);
}
