// Callback faults against real processes: the gateway's callbacks for a capture, a return, a void,
// a rebill and a payout-pay delivered twice, out of order (held, then newest first) or never. The
// BFF confirms every callback with `status` and its reconciler asks on its own, so in each case it
// ends where the gateway is, with each callback taken into account once.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionDetail } from '@paydesk/shared/api';
import { DB_VARIANTS, until, variantTitle, type CallbackDelivery } from './support/processes.js';
import {
  answeredState,
  expectGatewayTruth,
  prepareTargets,
  sendAll,
  settle,
  type Attempt,
} from './support/scenario.js';
import {
  confirmedCallbacks,
  learnedShopOrder,
  payout,
  shopOrder,
  transaction,
  FAST_RECONCILE,
  worldsForSuite,
  Worlds,
  type World,
} from './support/world.js';

/** The callbacks of the scenario's operations (not the orders' own sale/preauth ones), by serial. */
async function scenarioCallbacks(
  w: World,
  attempts: Attempt[],
): Promise<
  { serial: string; transaction: TransactionDetail | null; deliveries: CallbackDelivery[] }[]
> {
  const out = [];
  for (const a of attempts) {
    if (a.kind === 'payout-pay') {
      const p = await payout(w, a.payoutId ?? '');
      const order = await w.sandbox.order(p.orderid ?? '');
      const serial = order.operations.find((g) => g.type === 'payout-pay')?.serial ?? '';
      const all = await w.sandbox.callbacks(order.orderid);
      out.push({ serial, transaction: null, deliveries: all.filter((d) => d.serial === serial) });
      continue;
    }
    const t = await transaction(w, a.transactionId ?? '');
    const op = t.operations.find((o) => o.origin === 'paydesk' && o.kind === a.kind);
    const serial = op?.gatewaySerial ?? '';
    const all = await w.sandbox.callbacks(t.orderid);
    out.push({ serial, transaction: t, deliveries: all.filter((d) => d.serial === serial) });
  }
  return out;
}

/**
 * Runs `meanwhile` while another connection holds the lock that storing a callback needs, so the
 * BFF's callback steps wait behind it (PostgreSQL).
 */
async function holdingCallbackStore<T>(databaseUrl: string, meanwhile: () => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    await client.query('lock table gateway_callbacks in exclusive mode');
    const result = await meanwhile();
    await client.query('commit');
    return result;
  } finally {
    await client.end();
  }
}

const worlds = worldsForSuite({ gatewayTimeoutMs: 2_000, reconcile: FAST_RECONCILE });
/**
 * A BFF whose callback receiver takes one database step at a time and lets three wait, on
 * PostgreSQL only: there the test can hold the receiver's first step up from outside. A SQLite
 * BFF is its database's only writer (and `node:sqlite` waits for a lock on the event loop), so
 * nothing outside can; bff/src/payments/callbacks.test.ts covers the limits on both databases.
 */
const QUEUE_LIMIT = 3;
const tight = new Worlds({
  gatewayTimeoutMs: 2_000,
  reconcile: FAST_RECONCILE,
  callbacks: { concurrency: 1, queueLimit: QUEUE_LIMIT },
});
beforeAll(() => {
  tight.startAll(DB_VARIANTS.filter((v) => v.name === 'postgres'));
});
afterAll(async () => {
  await tight.closeAll();
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(variantTitle('callback faults', variant), () => {
    let w: World;
    beforeAll(async () => {
      w = await worlds.get(variant);
    });
    afterEach(async () => {
      await w.sandbox.faults({});
    });

    it('when every callback is delivered twice, then the BFF answers both, applies each once, and ends equal to the gateway', async () => {
      const targets = await prepareTargets(w);
      const from = w.sandbox.requests.length;
      await w.sandbox.faults({ callbacks: 'duplicate' });
      const { attempts, replies } = sendAll(w, targets);
      await replies;
      // Accepted (a callback may already have told the BFF the final status before the reply).
      for (const a of attempts)
        expect(['processing', 'approved'], a.kind).toContain(answeredState(a));
      await settle(w, attempts);
      await expectGatewayTruth(w, attempts, { applied: true, requestsFrom: from });
      // The twin that arrives while the first delivery is being applied is refused (409: not a
      // 2xx, so the gateway delivers it again a second later): judge once every delivery is over.
      const callbacks = await until('every delivery of the scenario answered', async () => {
        const all = await scenarioCallbacks(w, attempts);
        return all.every((c) => c.deliveries.every((d) => d.state !== 'pending')) ? all : undefined;
      });
      for (const c of callbacks) {
        expect(c.deliveries, `two deliveries of ${c.serial}`).toHaveLength(2);
        for (const d of c.deliveries) {
          const answers = d.attempts.map((a) => a.httpStatus);
          expect(answers.at(-1), `delivery of ${c.serial}: ${JSON.stringify(answers)}`).toBe(200);
          expect(d.state).toBe('delivered');
          for (const early of answers.slice(0, -1))
            expect(early, `delivery of ${c.serial}: ${JSON.stringify(answers)}`).toBe(409);
        }
        // Still once, after both deliveries (the repeat included) were answered.
        if (c.transaction !== null) expect(confirmedCallbacks(c.transaction, c.serial)).toBe(1);
      }
    });

    it('when callbacks arrive out of order (held, then newest first), then the BFF ends equal to the gateway', async () => {
      const targets = await prepareTargets(w);
      const from = w.sandbox.requests.length;
      await w.sandbox.faults({ callbacks: 'reverse' });
      const { attempts, replies } = sendAll(w, targets);
      await replies;
      // Nothing told the BFF yet: the callbacks wait at the gateway.
      const held = await w.sandbox.callbacks();
      expect(held.filter((d) => d.state === 'held').length).toBeGreaterThanOrEqual(5);
      // Lifting the fault delivers them newest first and answers once they were delivered.
      await w.sandbox.faults({});
      await settle(w, attempts);
      await expectGatewayTruth(w, attempts, { applied: true, requestsFrom: from });
      for (const c of await scenarioCallbacks(w, attempts)) {
        expect(c.deliveries.map((d) => d.state)).toEqual(['delivered']);
        if (c.transaction !== null) expect(confirmedCallbacks(c.transaction, c.serial)).toBe(1);
      }
    });

    if (variant.name === 'postgres')
      it("when a storefront's burst of orders outruns the callback receiver, then the callbacks it sheds (503) are delivered again, and every order is learned with the gateway's status and its callback applied once", async () => {
        const t = await tight.get(variant);
        const ORDERS = 8;
        const shed = ORDERS - 1 - QUEUE_LIMIT;
        // The callbacks arrive while the receiver's first database step is held up: three wait,
        // the rest are shed at once, and the gateway delivers them again (the sandbox's backoff:
        // 1 s, then 2 s, …).
        const orders = await holdingCallbackStore(t.bff.databaseUrl, async () => {
          const placed = await Promise.all(
            Array.from({ length: ORDERS }, (_, i) => shopOrder(t, 'sale', `${String(i + 1)}.00`)),
          );
          await until('the callbacks beyond the queue shed', async () => {
            const deliveries = await t.sandbox.callbacks();
            return deliveries.filter((d) => d.attempts.length > 0).length >= shed
              ? true
              : undefined;
          });
          return placed;
        });
        for (const { orderid } of orders) {
          const learned = await learnedShopOrder(t, orderid, 30_000);
          const [delivery, ...others] = await t.sandbox.callbacks(orderid);
          expect(others).toEqual([]);
          await until(`the delivery for ${orderid} answered 200`, async () =>
            (await t.sandbox.callbacks(orderid))[0]?.state === 'delivered' ? true : undefined,
          );
          expect(confirmedCallbacks(await transaction(t, learned.id), delivery?.serial)).toBe(1);
        }
        const attempts = (await t.sandbox.callbacks()).flatMap((d) =>
          d.attempts.map((a) => a.httpStatus),
        );
        expect(attempts.filter((s) => s === 503).length).toBeGreaterThanOrEqual(shed);
        // each shed one is the request logger's line, at warn, with its cause
        expect(t.bff.output.join('')).toContain('callbacks are waiting for the database');
      });

    it('when callbacks never come, then the reconciler alone brings the BFF to the gateway truth', async () => {
      const targets = await prepareTargets(w);
      const from = w.sandbox.requests.length;
      await w.sandbox.faults({ callbacks: 'drop' });
      const { attempts, replies } = sendAll(w, targets);
      await replies;
      await settle(w, attempts);
      await expectGatewayTruth(w, attempts, { applied: true, requestsFrom: from });
      for (const c of await scenarioCallbacks(w, attempts)) {
        expect(c.deliveries).toMatchObject([{ state: 'dropped', attempts: [] }]);
        if (c.transaction !== null) expect(confirmedCallbacks(c.transaction, c.serial)).toBe(0);
      }
    });
  });
}
