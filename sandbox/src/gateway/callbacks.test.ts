import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackControl } from '@paydesk/shared/protocol';
import {
  MERCHANT,
  saleFields,
  startReceiver,
  startSandbox,
  type Receiver,
  type Running,
} from '../test-support/harness.js';

let s: Running;
beforeAll(async () => {
  s = await startSandbox();
});
afterAll(async () => {
  await s.close();
});

function expectVerified(hit: URL): void {
  const q = hit.searchParams;
  const control = callbackControl(
    q.get('status') ?? '',
    q.get('orderid') ?? '',
    q.get('client_orderid') ?? '',
    MERCHANT.controlKey,
  );
  expect(q.get('control')).toBe(control);
}

describe('callbacks', () => {
  let receiver: Receiver;
  afterAll(async () => {
    await receiver.close();
  });

  it('when a sale finishes, then server_callback_url gets a GET with the fields and a verifiable control, keeping its own query', async () => {
    receiver = await startReceiver();
    const fields = saleFields({
      server_callback_url: `${receiver.url}?endpoint=1001&shop=a%20b`,
      first_name: 'Jane',
    });
    const sale = await s.client.call('sale', 1001, fields);
    const [hit] = await receiver.waitFor(1);
    const q = hit!.searchParams;
    expect(q.get('endpoint')).toBe('1001');
    expect(q.get('shop')).toBe('a b');
    expect(Object.fromEntries(q)).toMatchObject({
      status: 'approved',
      orderid: sale.reply.orderId,
      merchant_order: fields.client_orderid,
      client_orderid: fields.client_orderid,
      amount: '10.42',
      currency: 'EUR',
      type: 'sale',
      'serial-number': sale.reply.serialNumber,
      'last-four-digits': '1111',
      'card-type': 'VISA',
    });
    expect(q.get('processing-date')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expectVerified(hit!);
  });

  it('when the receiver fails, then the callback is retried with exponential backoff on the sandbox clock until a 2xx', async () => {
    const failing = await startReceiver((n) => (n <= 3 ? 503 : 200));
    try {
      const fields = saleFields({
        server_callback_url: failing.url,
        credit_card_number: '4000000000000002',
      });
      const sale = await s.client.call('sale', 1001, fields);
      await failing.waitFor(1);
      await s.sandbox.scheduler.idle();
      // Backoff: 5 s, then 10 s, then 20 s.
      await s.advance(4);
      expect(failing.hits).toHaveLength(1);
      await s.advance(1);
      expect(failing.hits).toHaveLength(2);
      await s.advance(9);
      expect(failing.hits).toHaveLength(2);
      await s.advance(1);
      expect(failing.hits).toHaveLength(3);
      await s.advance(20);
      expect(failing.hits).toHaveLength(4);
      await s.advance(3600);
      expect(failing.hits).toHaveLength(4);
      for (const hit of failing.hits) {
        expect(hit.searchParams.get('status')).toBe('declined');
        expect(hit.searchParams.get('error_code')).toBe('DECLINED');
        expectVerified(hit);
      }
      const log = await s.control(`/sandbox/callbacks?orderid=${sale.reply.orderId!}`);
      const [delivery] = log.json.callbacks as {
        state: string;
        attempts: { httpStatus: number }[];
      }[];
      expect(delivery?.state).toBe('delivered');
      expect(delivery?.attempts.map((a) => a.httpStatus)).toEqual([503, 503, 503, 200]);
      const delivered = (await s.control('/sandbox/callbacks?state=delivered')).json.callbacks as {
        id: string;
        state: string;
      }[];
      expect(delivered.map((d) => d.id)).toContain((log.json.callbacks as { id: string }[])[0]?.id);
      expect(new Set(delivered.map((d) => d.state))).toEqual(new Set(['delivered']));
      const bad = await s.control('/sandbox/callbacks?state=lost');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({
        error: { code: 'VALIDATION_FAILED', fields: [{ name: 'state' }] },
      });
    } finally {
      await failing.close();
    }
  });

  it('when the receiver never answers 2xx, then delivery stops after callbackMaxAttempts and the log says failed', async () => {
    const never = await startReceiver(() => 500);
    try {
      const fields = saleFields({ server_callback_url: never.url });
      const sale = await s.client.call('sale', 1001, fields);
      await never.waitFor(1);
      await s.sandbox.scheduler.idle();
      for (let i = 0; i < 12; i++) await s.advance(5 * 2 ** i);
      expect(never.hits).toHaveLength(10);
      const log = await s.control(`/sandbox/callbacks?orderid=${sale.reply.orderId!}`);
      expect((log.json.callbacks as { state: string }[])[0]?.state).toBe('failed');
    } finally {
      await never.close();
    }
  });

  it('when a sale is then returned, then each finished operation has its own callback with type reversal for the return', async () => {
    const r = await startReceiver();
    try {
      const fields = saleFields({ server_callback_url: r.url });
      const sale = await s.client.call('sale', 1001, fields);
      await r.waitFor(1);
      await s.client.call('return', 1001, {
        login: MERCHANT.login,
        client_orderid: fields.client_orderid,
        orderid: sale.reply.orderId,
        comment: 'refund',
        amount: '2.00',
        currency: 'EUR',
      });
      await s.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: fields.client_orderid,
        orderid: sale.reply.orderId,
      });
      const hits = await r.waitFor(2);
      expect(
        hits.map(
          (h) => `${h.searchParams.get('type') ?? ''}:${h.searchParams.get('amount') ?? ''}`,
        ),
      ).toEqual(['sale:10.42', 'reversal:2.00']);
      expect(new Set(hits.map((h) => h.searchParams.get('serial-number'))).size).toBe(2);
    } finally {
      await r.close();
    }
  });
});

describe('callback connections', () => {
  it('when callbacks go to the same merchant one after another, then they reuse one keep-alive connection', async () => {
    let connections = 0;
    let hits = 0;
    let notify: (() => void) | null = null;
    const server = createServer((_req, res) => {
      hits += 1;
      // A reply body bigger than one read, as a merchant's page may be.
      res.end('x'.repeat(256 * 1024));
      notify?.();
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    try {
      for (let i = 1; i <= 3; i++) {
        const arrived = new Promise<void>((resolve) => {
          notify = resolve;
        });
        await s.client.call('sale', 1001, saleFields({ server_callback_url: url }));
        await arrived;
        await s.sandbox.scheduler.idle();
      }
      expect(hits).toBe(3);
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
  });
});
