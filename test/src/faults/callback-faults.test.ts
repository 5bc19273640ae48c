// Callback faults against real processes: the gateway's callbacks for a capture, a return, a void,
// a rebill and a payout-pay delivered twice, out of order (held, then newest first) or never. The
// BFF confirms every callback with `status` and its reconciler asks on its own, so in each case it
// ends where the gateway is, with each callback taken into account once.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionDetail } from '@paydesk/shared/api';
import { DB_VARIANTS, variantTitle, type CallbackDelivery } from './support/processes.js';
import {
  answeredState,
  expectGatewayTruth,
  prepareTargets,
  sendAll,
  settle,
  type Attempt,
} from './support/scenario.js';
import {
  payout,
  transaction,
  FAST_RECONCILE,
  worldsForSuite,
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

/** How many callbacks with this serial the BFF confirmed (one timeline entry each). */
function confirmedCallbacks(t: TransactionDetail, serial: string): number {
  return t.timeline.filter((e) => e.kind === 'callback' && e.data['serial-number'] === serial)
    .length;
}

const worlds = worldsForSuite({ gatewayTimeoutMs: 2_000, reconcile: FAST_RECONCILE });

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
      for (const c of await scenarioCallbacks(w, attempts)) {
        expect(c.deliveries, `two deliveries of ${c.serial}`).toHaveLength(2);
        for (const d of c.deliveries)
          expect(d.attempts.at(-1)?.httpStatus, `delivery of ${c.serial}`).toBe(200);
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
