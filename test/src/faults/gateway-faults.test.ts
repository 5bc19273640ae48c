// Gateway faults against real processes (sandbox + BFF), for a capture, a return, a void, a
// rebill and a payout-pay at once: a 5xx before anything is applied, a reply slower than the BFF's
// gateway timeout, and a reply dropped after the operation was applied. Each ends with the gateway's
// truth at the BFF, nothing sent twice, the audit chain intact and every attempt audited.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DB_VARIANTS, until, variantTitle } from './support/processes.js';
import {
  answeredState,
  expectGatewayTruth,
  GATEWAY_OPERATION,
  prepareTargets,
  sendAll,
  settle,
} from './support/scenario.js';
import { FAST_RECONCILE, worldsForSuite, type World } from './support/world.js';

const GATEWAY_TIMEOUT_MS = 700;
const OPERATIONS = Object.values(GATEWAY_OPERATION);

const worlds = worldsForSuite({
  gatewayTimeoutMs: GATEWAY_TIMEOUT_MS,
  reconcile: FAST_RECONCILE,
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(variantTitle('gateway faults', variant), () => {
    let w: World;
    beforeAll(async () => {
      w = await worlds.get(variant);
    });
    afterEach(async () => {
      await w.sandbox.faults({});
    });

    it('when the gateway answers 500 before applying anything, then each operation ends not applied (audited), nothing moved and nothing was sent again', async () => {
      const targets = await prepareTargets(w);
      const from = w.sandbox.requests.length;
      await w.sandbox.faults({ errorRate: 1, operations: OPERATIONS });
      const { attempts, replies } = sendAll(w, targets);
      await replies;
      await w.sandbox.faults({});
      // A 5xx says nothing certain about the gateway's state: each is `unknown` (reservation
      // kept), never re-sent; status then shows it was not applied.
      for (const a of attempts) {
        expect(a.reply?.status, `${a.kind}: ${a.reply?.text ?? ''}`).toBe(200);
        expect(answeredState(a), a.kind).toBe('unknown');
      }
      await until('five 500s in the gateway log', async () =>
        Promise.resolve(
          w.sandbox.requests.slice(from).filter((r) => r.status === 500).length === 5
            ? true
            : undefined,
        ),
      );
      await settle(w, attempts);
      await expectGatewayTruth(w, attempts, { applied: false, requestsFrom: from });
    });

    it("when the gateway is slower than the BFF's timeout, then each operation is unknown, then reconciled to applied once the gateway has it, never re-sent", async () => {
      const targets = await prepareTargets(w);
      const from = w.sandbox.requests.length;
      await w.sandbox.faults({ latencyMs: GATEWAY_TIMEOUT_MS + 800, operations: OPERATIONS });
      const { attempts, replies } = sendAll(w, targets);
      await replies;
      for (const a of attempts) expect(answeredState(a), a.kind).toBe('unknown');
      await settle(w, attempts);
      await w.sandbox.faults({});
      await expectGatewayTruth(w, attempts, { applied: true, requestsFrom: from });
    });

    it('when the gateway applies each operation but its reply is dropped, then unknown, then reconciled applied with the totals right', async () => {
      const targets = await prepareTargets(w);
      const from = w.sandbox.requests.length;
      await w.sandbox.faults({ dropResponseRate: 1, operations: OPERATIONS });
      const { attempts, replies } = sendAll(w, targets);
      await replies;
      await w.sandbox.faults({});
      // Unknown, unless the operation's callback reached the BFF before the lost reply was
      // recorded: then the callback's status already matched it (the reply is still not trusted).
      for (const a of attempts)
        expect(['unknown', 'processing', 'approved'], a.kind).toContain(answeredState(a));
      expect(attempts.filter((a) => answeredState(a) === 'unknown').length).toBeGreaterThan(0);
      await until('five dropped replies in the gateway log', async () =>
        Promise.resolve(
          w.sandbox.requests.slice(from).filter((r) => r.dropped).length === 5 ? true : undefined,
        ),
      );
      await settle(w, attempts);
      await expectGatewayTruth(w, attempts, { applied: true, requestsFrom: from });
    });
  });
}
