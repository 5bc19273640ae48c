import { describe, expect, it } from 'vitest';
import { callbackControl } from '@paydesk/shared/protocol';
import { MERCHANT, startReceiver, startSandbox, testConfig } from '../test-support/harness.js';
import { SCENARIOS, Storefront } from './simulator.js';

describe('the storefront simulator', () => {
  it('when it places the full scripted mix, then every order reaches its expected final status with a verified callback, and the clock stays with real time', async () => {
    const s = await startSandbox({ config: testConfig({ processingDelayMs: 20 }) });
    const receiver = await startReceiver();
    try {
      const storefront = new Storefront({
        gateway: s.base,
        callbackUrl: `${receiver.url}?endpoint=1001`,
        orders: SCENARIOS.length * 2,
        merchant: MERCHANT,
        endpointId: 1001,
        currency: 'EUR',
        concurrency: 4,
      });
      const results = await storefront.run();
      expect(results).toHaveLength(SCENARIOS.length * 2);
      expect(new Set(results.map((r) => r.scenario))).toEqual(new Set(SCENARIOS));
      for (const r of results) {
        expect(r.error, `${r.scenario}: ${r.error ?? ''}`).toBeUndefined();
        expect(r.final, r.scenario).toBe(r.expected);
      }
      await s.sandbox.scheduler.idle();
      // The 3DS Method timeouts were one order's each: the gateway's clock, and so the dates of
      // every later order, stayed with real time.
      expect((await s.control('/sandbox/clock')).json.offsetMs).toBe(0);
      const callbacks = receiver.hits.map((h) => Object.fromEntries(h.searchParams));
      for (const c of callbacks) {
        expect(c.control).toBe(
          callbackControl(
            c.status ?? '',
            c.orderid ?? '',
            c.client_orderid ?? '',
            MERCHANT.controlKey,
          ),
        );
        expect(c.endpoint).toBe('1001');
      }
      for (const r of results) {
        const seen = r.recurringPaymentId
          ? callbacks.find((c) => c['recurring-payment-id'] === r.recurringPaymentId)
          : callbacks.filter((c) => c.orderid === r.orderid).at(-1);
        expect(seen, `callback of ${r.scenario}`).toBeDefined();
        expect(seen?.status, r.scenario).toBe(r.expected);
      }
    } finally {
      await receiver.close();
      await s.close();
    }
  });
});
