import { describe, expect, it } from 'vitest';
import { callbackControl } from '@paydesk/shared/protocol';
import { MERCHANT, startReceiver, startSandbox, testConfig } from '../test-support/harness.js';
import { SCENARIOS, Storefront, type PlacedOrder } from './simulator.js';

const DAY_MS = 86_400_000;

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

  it('when it places a history on a fresh sandbox, then the orders are dated across the past days in order, each as scripted, and the clock ends at real time; on a sandbox holding orders it places them now', async () => {
    const s = await startSandbox({ config: testConfig({ processingDelayMs: 20 }) });
    const receiver = await startReceiver();
    const notes: string[] = [];
    const storefront = (orders: number) =>
      new Storefront({
        gateway: s.base,
        callbackUrl: `${receiver.url}?endpoint=1001`,
        orders,
        merchant: MERCHANT,
        endpointId: 1001,
        currency: 'EUR',
        concurrency: 4,
        historyDays: 5,
        log: (line) => {
          const parsed = JSON.parse(line) as { note?: string };
          if (parsed.note) notes.push(parsed.note);
        },
      });
    const datesOf = async (results: PlacedOrder[]) =>
      Promise.all(
        results.map(async (r) => {
          const orderid = r.orderid ?? '';
          const state = await s.control(`/sandbox/orders/${orderid}`);
          return Number(state.json.createdAt);
        }),
      );
    try {
      const startedAt = Date.now();
      const results = await storefront(SCENARIOS.length * 2).run();
      for (const r of results) {
        expect(r.error, `${r.scenario}: ${r.error ?? ''}`).toBeUndefined();
        expect(r.final, r.scenario).toBe(r.expected);
      }
      expect(notes).toEqual([]);
      expect((await s.control('/sandbox/clock')).json.offsetMs).toBe(0);
      const dated = await datesOf(results.filter((r) => r.orderid));
      expect(dated.every(Number.isFinite)).toBe(true);
      expect(Math.min(...dated)).toBeLessThan(startedAt - 4 * DAY_MS);
      expect(Math.min(...dated)).toBeGreaterThan(startedAt - 5 * DAY_MS - 60_000);
      expect(Math.max(...dated)).toBeLessThanOrEqual(Date.now());
      const days = new Set(dated.map((t) => Math.floor((startedAt - t) / DAY_MS)));
      expect(days.size).toBeGreaterThanOrEqual(4);
      // Placed in plan order: each group after the one before it.
      for (let i = 4; i < dated.length; i += 4) {
        expect(dated[i], `order ${String(i)}`).toBeGreaterThanOrEqual(dated[i - 4] ?? 0);
      }

      const again = await storefront(2).run();
      expect(notes).toEqual([
        'no history: the gateway already holds orders, so every order is placed now',
      ]);
      for (const t of await datesOf(again)) expect(Date.now() - t).toBeLessThan(60_000);
      expect((await s.control('/sandbox/clock')).json.offsetMs).toBe(0);
    } finally {
      await receiver.close();
      await s.close();
    }
  });
});
