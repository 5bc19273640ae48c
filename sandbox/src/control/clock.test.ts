import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MERCHANT, saleFields, startSandbox, testConfig } from '../test-support/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-clock-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const DAY_S = 86_400;

describe('POST /sandbox/clock/rewind', () => {
  it('when the gateway holds nothing, then its clock starts in the past, orders are dated then, and advancing returns it to real time exactly; a restart keeps it', async () => {
    const dbPath = join(dir, 'rewind.sqlite');
    const first = await startSandbox({ dbPath });
    let reopened: Awaited<ReturnType<typeof startSandbox>> | undefined;
    try {
      const rewound = await first.control('/sandbox/clock/rewind', { seconds: 10 * DAY_S });
      expect(rewound.status).toBe(200);
      expect(rewound.json.offsetMs).toBe(-10 * DAY_S * 1000);
      const fields = saleFields();
      const sale = await first.client.call('sale', 1001, fields);
      const status = await first.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: fields.client_orderid,
        orderid: sale.reply.orderId,
      });
      const dated = Date.parse(status.reply.fields['processing-date'] ?? '');
      expect(Date.now() - dated).toBeGreaterThan(10 * DAY_S * 1000 - 60_000);
      expect(Date.now() - dated).toBeLessThan(10 * DAY_S * 1000 + 60_000);
      await first.close();

      // The offset behind real time survives a restart on the same file.
      reopened = await startSandbox({ dbPath });
      expect((await reopened.control('/sandbox/clock')).json.offsetMs).toBe(-10 * DAY_S * 1000);
      await reopened.advance(10 * DAY_S);
      expect((await reopened.control('/sandbox/clock')).json.offsetMs).toBe(0);
    } finally {
      await reopened?.close();
    }
  });

  it('when the gateway already holds an order, then the clock is not moved back (409), and a bad duration is refused (400) naming the field', async () => {
    const s = await startSandbox({ config: testConfig() });
    try {
      await s.client.call('sale', 1001, saleFields());
      const refused = await s.control('/sandbox/clock/rewind', { seconds: DAY_S });
      expect(refused.status).toBe(409);
      expect(refused.json.error).toMatchObject({ code: 'CLOCK_IN_USE' });
      expect((await s.control('/sandbox/clock')).json.offsetMs).toBe(0);

      await s.control('/sandbox/reset', {});
      for (const seconds of [0, -5, 1.5, 400 * DAY_S, '60']) {
        const bad = await s.control('/sandbox/clock/rewind', { seconds });
        expect(bad.status, String(seconds)).toBe(400);
        expect(bad.json.error).toMatchObject({ fields: [{ name: 'seconds' }] });
      }
      expect((await s.control('/sandbox/clock/rewind', { seconds: DAY_S })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
