import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MERCHANT, saleFields, startSandbox, type Running } from '../test-support/harness.js';

let s: Running;
beforeAll(async () => {
  // Rates in these tests are 0 or 1, so the draw does not matter; a fixed draw keeps them exact.
  s = await startSandbox({ random: () => 0.5 });
});
afterAll(async () => {
  await s.close();
});
beforeEach(async () => {
  await s.control('/sandbox/faults', {});
});

/** A sale of `amount` EUR, approved; what a follow-up names it by. */
async function approvedSale(amount: string) {
  const fields = saleFields({ amount });
  const sale = await s.client.call('sale', 1001, fields);
  return {
    login: MERCHANT.login,
    client_orderid: fields.client_orderid,
    orderid: sale.reply.orderId,
  };
}

type SaleRef = Awaited<ReturnType<typeof approvedSale>>;

const refund = (ref: SaleRef, amount: string) =>
  s.client.call('return', 1001, { ...ref, comment: 'refund', amount, currency: 'EUR' });

describe('fault injection', () => {
  it('when errorRate is 1, then the operation fails with 500 before it is applied', async () => {
    expect((await s.control('/sandbox/faults', { errorRate: 1 })).status).toBe(200);
    const fields = saleFields();
    const r = await s.client.call('sale', 1001, fields);
    expect(r.httpStatus).toBe(500);
    expect(r.reply.type).toBe('error');
    expect(r.reply.errorCode).toBe('INTERNAL');
    await s.control('/sandbox/faults', {});
    const status = await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: fields.client_orderid,
    });
    expect(status.httpStatus).toBe(404);
  });

  it('when a response is dropped, then the client gets no reply but the return was applied (status shows it)', async () => {
    const ref = await approvedSale('20.00');
    await s.control('/sandbox/faults', { dropResponseRate: 1, operations: ['return'] });
    await expect(refund(ref, '5.00')).rejects.toThrow();
    const status = await s.client.call('status', 1001, ref);
    expect(status.httpStatus).toBe(200);
    expect(status.reply.fields['returned-amount']).toBe('5.00');
    const ops = JSON.parse(status.reply.fields.operations!) as { type: string }[];
    expect(ops.map((o) => o.type)).toEqual(['sale', 'return']);
  });

  it('when faults name other operations, then this one is not affected', async () => {
    await s.control('/sandbox/faults', { errorRate: 1, operations: ['capture'] });
    expect((await s.client.call('sale', 1001, saleFields())).httpStatus).toBe(200);
  });

  it('when latency is set, then the reply still arrives and the faults are readable', async () => {
    await s.control('/sandbox/faults', { latencyMs: 5 });
    expect((await s.client.call('sale', 1001, saleFields())).httpStatus).toBe(200);
    expect((await s.control('/sandbox/faults')).json).toMatchObject({ latencyMs: 5, errorRate: 0 });
  });

  it('when hold is set, then requests wait, listed with their order and not applied, until a faults change lifts it; then each is applied and answered, with the faults it arrived under', async () => {
    const ref = await approvedSale('12.00');
    await s.control('/sandbox/faults', { hold: true, operations: ['return'] });
    const first = refund(ref, '2.00');
    const second = refund(ref, '3.00');
    await vi.waitFor(async () => {
      expect((await s.control('/sandbox/faults/delayed')).json).toMatchObject({
        delayed: [
          { operation: 'return', orderid: ref.orderid, clientOrderid: ref.client_orderid },
          { operation: 'return', orderid: ref.orderid, clientOrderid: ref.client_orderid },
        ],
      });
    });
    // Held well past any latency a test would set: still not applied.
    await new Promise((r) => setTimeout(r, 200));
    const before = await s.client.call('status', 1001, ref);
    expect(before.reply.fields['returned-amount'] ?? '0.00').toBe('0.00');
    // Lifting `hold` while setting an error rate: the held ones keep the faults they came under.
    await s.control('/sandbox/faults', { errorRate: 1, operations: ['return'] });
    expect((await first).httpStatus).toBe(200);
    expect((await second).httpStatus).toBe(200);
    expect((await s.control('/sandbox/faults/delayed')).json).toEqual({ delayed: [] });
    const after = await s.client.call('status', 1001, ref);
    expect(after.reply.fields['returned-amount']).toBe('5.00');
  });

  it('when the faults body is invalid, then 400 names the field', async () => {
    const r = await s.control('/sandbox/faults', { errorRate: 2 });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('errorRate');
  });

  it('when the sandbox is reset, then orders are gone', async () => {
    const fields = saleFields();
    const sale = await s.client.call('sale', 1001, fields);
    expect((await s.control('/sandbox/reset', {})).status).toBe(200);
    expect((await s.control(`/sandbox/orders/${sale.reply.orderId!}`)).status).toBe(404);
  });
});
