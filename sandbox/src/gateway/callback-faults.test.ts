// Callback faults (`POST /sandbox/faults {callbacks}`) and the list of requests held by latency.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CallbackDelivery } from '../state/types.js';
import {
  MERCHANT,
  saleFields,
  startReceiver,
  startSandbox,
  type Receiver,
  type Running,
} from '../test-support/harness.js';

let s: Running;
let receiver: Receiver;
beforeAll(async () => {
  s = await startSandbox({ random: () => 0.5 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await s.close();
});
afterEach(async () => {
  await s.control('/sandbox/faults', {});
});

async function deliveries(orderid: string): Promise<CallbackDelivery[]> {
  const r = await s.control(`/sandbox/callbacks?orderid=${orderid}`);
  return r.json.callbacks as CallbackDelivery[];
}

function hitsFor(orderid: string): URL[] {
  return receiver.hits.filter((h) => h.searchParams.get('orderid') === orderid);
}

/** An approved sale whose callbacks go to the receiver; its own callback already delivered. */
async function sale(amount = '30.00') {
  const fields = saleFields({ amount, server_callback_url: receiver.url });
  const reply = await s.client.call('sale', 1001, fields);
  const orderid = reply.reply.orderId ?? '';
  await vi.waitFor(() => {
    expect(hitsFor(orderid)).toHaveLength(1);
  });
  return {
    orderid,
    ref: { login: MERCHANT.login, client_orderid: fields.client_orderid, orderid },
  };
}

describe('callback faults', () => {
  it('when callbacks is duplicate, then each callback is delivered twice with the same serial and both are logged', async () => {
    const { orderid, ref } = await sale();
    expect((await s.control('/sandbox/faults', { callbacks: 'duplicate' })).status).toBe(200);
    const ret = await s.client.call('return', 1001, {
      ...ref,
      amount: '5.00',
      currency: 'EUR',
      comment: 'twice',
    });
    await vi.waitFor(() => {
      expect(hitsFor(orderid)).toHaveLength(3);
    });
    const reversal = hitsFor(orderid).filter((h) => h.searchParams.get('type') === 'reversal');
    expect(reversal).toHaveLength(2);
    expect(reversal.map((h) => h.searchParams.get('serial-number'))).toEqual([
      ret.reply.serialNumber,
      ret.reply.serialNumber,
    ]);
    const logged = (await deliveries(orderid)).filter((d) => d.serial === ret.reply.serialNumber);
    expect(logged.map((d) => d.state)).toEqual(['delivered', 'delivered']);
    expect(logged[1]?.duplicateOf).toBe(logged[0]?.id);
    // Two deliveries, each with its own log of attempts (one each), not one list shared.
    expect(logged.map((d) => d.attempts.map((a) => a.httpStatus))).toEqual([[200], [200]]);
  });

  it('when callbacks is drop, then the callback is never sent and the log keeps it as dropped', async () => {
    const { orderid, ref } = await sale();
    await s.control('/sandbox/faults', { callbacks: 'drop' });
    const ret = await s.client.call('return', 1001, {
      ...ref,
      amount: '5.00',
      currency: 'EUR',
      comment: 'never told',
    });
    expect(ret.httpStatus).toBe(200);
    await s.control('/sandbox/faults', {});
    await s.advance(3600);
    const dropped = (await deliveries(orderid)).filter((d) => d.serial === ret.reply.serialNumber);
    expect(dropped).toMatchObject([{ state: 'dropped', attempts: [] }]);
    expect(hitsFor(orderid)).toHaveLength(1);
  });

  it('when callbacks is reverse, then callbacks wait until the fault is lifted and then arrive newest first', async () => {
    const { orderid, ref } = await sale('40.00');
    await s.control('/sandbox/faults', { callbacks: 'reverse' });
    const serials: string[] = [];
    for (const amount of ['1.00', '2.00', '3.00']) {
      const ret = await s.client.call('return', 1001, {
        ...ref,
        amount,
        currency: 'EUR',
        comment: `return ${amount}`,
      });
      serials.push(ret.reply.serialNumber ?? '');
    }
    await s.advance(60);
    expect(hitsFor(orderid)).toHaveLength(1);
    expect((await deliveries(orderid)).filter((d) => d.state === 'held')).toHaveLength(3);
    // Lifting the fault answers once the held callbacks were delivered.
    expect((await s.control('/sandbox/faults', {})).status).toBe(200);
    const order = hitsFor(orderid)
      .slice(1)
      .map((h) => h.searchParams.get('serial-number'));
    expect(order).toEqual([...serials].reverse());
    expect((await deliveries(orderid)).every((d) => d.state === 'delivered')).toBe(true);
  });

  it('when the callbacks fault is unknown, then 400 names the field', async () => {
    const r = await s.control('/sandbox/faults', { callbacks: 'sometimes' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('callbacks');
  });
});

describe('delayed requests', () => {
  it('when latency holds a request, then it is listed as delayed until it is handled, and then applied', async () => {
    const { orderid, ref } = await sale('20.00');
    await s.control('/sandbox/faults', { latencyMs: 400, operations: ['return'] });
    const call = s.client.call('return', 1001, {
      ...ref,
      amount: '4.00',
      currency: 'EUR',
      comment: 'slow',
    });
    await vi.waitFor(async () => {
      const r = await s.control('/sandbox/faults/delayed');
      expect(r.json.delayed).toMatchObject([{ operation: 'return' }]);
      expect((await s.control(`/sandbox/orders/${orderid}`)).json.returnedMinor).toBe('0');
    });
    expect((await call).httpStatus).toBe(200);
    expect((await s.control('/sandbox/faults/delayed')).json.delayed).toEqual([]);
    expect((await s.control(`/sandbox/orders/${orderid}`)).json.returnedMinor).toBe('400');
  });
});
