import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, saleFields, startSandbox, type Running } from '../test-support/harness.js';

let s: Running;
beforeAll(async () => {
  s = await startSandbox();
});
afterAll(async () => {
  await s.close();
});

interface Placed {
  orderid: string;
  client_orderid: string;
}

async function place(
  op: 'sale' | 'preauth',
  overrides: Record<string, string> = {},
): Promise<Placed> {
  const fields = saleFields(overrides);
  const r = await s.client.call(op, 1001, fields);
  expect(r.httpStatus).toBe(200);
  return { orderid: r.reply.orderId!, client_orderid: fields.client_orderid! };
}

const ref = (o: Placed) => ({
  login: MERCHANT.login,
  client_orderid: o.client_orderid,
  orderid: o.orderid,
});
const status = async (o: Placed) => (await s.client.call('status', 1001, ref(o))).reply.fields;

describe('preauth and capture', () => {
  it('when a preauth is approved, then it is authorized with nothing captured', async () => {
    const o = await place('preauth', { amount: '50.00' });
    expect(await status(o)).toMatchObject({
      status: 'approved',
      'order-stage': 'authorized',
      'captured-amount': '0.00',
      'transaction-type': 'preauth',
    });
  });

  it('when a preauth is captured in part, then the captured amount shows and a second capture is refused with 409', async () => {
    const o = await place('preauth', { amount: '50.00' });
    const capture = await s.client.call('capture', 1001, {
      ...ref(o),
      amount: '20.00',
      currency: 'EUR',
    });
    expect(capture.httpStatus).toBe(200);
    expect(capture.reply.type).toBe('async-response');
    expect(await status(o)).toMatchObject({
      status: 'approved',
      'last-operation': 'capture',
      'order-stage': 'captured',
      'captured-amount': '20.00',
    });
    const again = await s.client.call('capture', 1001, {
      ...ref(o),
      amount: '10.00',
      currency: 'EUR',
    });
    expect(again.httpStatus).toBe(409);
    expect(again.reply.errorCode).toBe('INVALID_STATE');
    expect(again.reply.errorMessage).toMatch(/already captured/);
  });

  it('when a capture exceeds the hold, has a foreign currency or lacks currency, then it is refused', async () => {
    const o = await place('preauth', { amount: '50.00' });
    expect(
      (await s.client.call('capture', 1001, { ...ref(o), amount: '50.01', currency: 'EUR' }))
        .httpStatus,
    ).toBe(409);
    const usd = await s.client.call('capture', 1001, {
      ...ref(o),
      amount: '5.00',
      currency: 'USD',
    });
    expect(usd.httpStatus).toBe(400);
    expect(usd.reply.fields.fields).toContain('currency');
    const alone = await s.client.call('capture', 1001, { ...ref(o), amount: '5.00' });
    expect(alone.httpStatus).toBe(400);
    expect(alone.reply.fields.fields).toContain('currency');
  });

  it('when a sale is captured, then 409 says capture applies to a preauth', async () => {
    const o = await place('sale');
    const r = await s.client.call('capture', 1001, ref(o));
    expect(r.httpStatus).toBe(409);
    expect(r.reply.errorMessage).toContain('capture applies to a preauth');
  });

  it('when a declined preauth is captured, then 409', async () => {
    const o = await place('preauth', { credit_card_number: '4000000000000002' });
    expect((await s.client.call('capture', 1001, ref(o))).httpStatus).toBe(409);
  });

  it('when the client_orderid does not match the order, then 404', async () => {
    const o = await place('preauth');
    const r = await s.client.call('capture', 1001, { ...ref(o), client_orderid: 'someone-else' });
    expect(r.httpStatus).toBe(404);
  });
});

describe('void', () => {
  it('when an uncaptured preauth is voided, then it is voided and cannot be captured', async () => {
    const o = await place('preauth');
    const v = await s.client.call('void', 1001, { ...ref(o), comment: 'customer cancelled' });
    expect(v.httpStatus).toBe(200);
    expect(await status(o)).toMatchObject({
      status: 'approved',
      'last-operation': 'void',
      'order-stage': 'voided',
    });
    expect((await s.client.call('capture', 1001, ref(o))).httpStatus).toBe(409);
    expect((await s.client.call('void', 1001, { ...ref(o), comment: 'again' })).httpStatus).toBe(
      409,
    );
  });

  it('when a sale settles after 24 hours on the sandbox clock, then void is refused and return still works', async () => {
    const o = await place('sale', { amount: '30.00' });
    await s.advance(24 * 3600 + 1);
    expect((await status(o))['order-stage']).toBe('settled');
    const v = await s.client.call('void', 1001, { ...ref(o), comment: 'too late' });
    expect(v.httpStatus).toBe(409);
    expect(v.reply.errorMessage).toMatch(/settled/);
    expect(
      (
        await s.client.call('return', 1001, {
          ...ref(o),
          comment: 'refund',
          amount: '30.00',
          currency: 'EUR',
        })
      ).httpStatus,
    ).toBe(200);
  });

  it('when part of a sale was returned, then void is refused', async () => {
    const o = await place('sale');
    await s.client.call('return', 1001, {
      ...ref(o),
      comment: 'partial',
      amount: '1.00',
      currency: 'EUR',
    });
    expect((await s.client.call('void', 1001, { ...ref(o), comment: 'x' })).httpStatus).toBe(409);
  });
});

describe('return', () => {
  it('when partial returns follow each other, then returned-amount grows and the stage follows until the whole is returned', async () => {
    const o = await place('sale', { amount: '10.00' });
    const first = await s.client.call('return', 1001, {
      ...ref(o),
      comment: 'a',
      amount: '4.00',
      currency: 'EUR',
    });
    expect(first.httpStatus).toBe(200);
    expect(await status(o)).toMatchObject({
      'returned-amount': '4.00',
      'order-stage': 'partially_returned',
      'last-operation': 'return',
    });
    const tooMuch = await s.client.call('return', 1001, {
      ...ref(o),
      comment: 'b',
      amount: '6.01',
      currency: 'EUR',
    });
    expect(tooMuch.httpStatus).toBe(409);
    expect(tooMuch.reply.errorMessage).toMatch(/exceeds the captured amount/);
    const rest = await s.client.call('return', 1001, { ...ref(o), comment: 'rest' });
    expect(rest.httpStatus).toBe(200);
    const after = await status(o);
    expect(after).toMatchObject({ 'returned-amount': '10.00', 'order-stage': 'returned' });
    const ops = JSON.parse(after.operations ?? '[]') as { type: string; amount: string }[];
    expect(ops.map((x) => `${x.type}:${x.amount}`)).toEqual([
      'sale:10.00',
      'return:4.00',
      'return:6.00',
    ]);
    expect((await s.client.call('return', 1001, { ...ref(o), comment: 'more' })).httpStatus).toBe(
      409,
    );
  });

  it('when a declined or still processing order is returned, then 409', async () => {
    const declined = await place('sale', { credit_card_number: '4000000000000002' });
    expect(
      (await s.client.call('return', 1001, { ...ref(declined), comment: 'x' })).httpStatus,
    ).toBe(409);
    const slow = await place('sale', { amount: '13.13' });
    const r = await s.client.call('return', 1001, { ...ref(slow), comment: 'x' });
    expect(r.httpStatus).toBe(409);
    expect(r.reply.errorMessage).toMatch(/processing/);
  });

  it('when an uncaptured preauth is returned without amount, then the hold is cancelled; a partial amount is refused', async () => {
    const o = await place('preauth', { amount: '40.00' });
    expect(
      (
        await s.client.call('return', 1001, {
          ...ref(o),
          comment: 'part',
          amount: '10.00',
          currency: 'EUR',
        })
      ).httpStatus,
    ).toBe(409);
    expect((await s.client.call('return', 1001, { ...ref(o), comment: 'cancel' })).httpStatus).toBe(
      200,
    );
    expect((await status(o))['order-stage']).toBe('hold_cancelled');
    expect((await s.client.call('capture', 1001, ref(o))).httpStatus).toBe(409);
  });

  it('when a captured preauth is returned, then returns are capped by the captured amount, not the hold', async () => {
    const o = await place('preauth', { amount: '40.00' });
    await s.client.call('capture', 1001, { ...ref(o), amount: '15.00', currency: 'EUR' });
    expect(
      (
        await s.client.call('return', 1001, {
          ...ref(o),
          comment: 'x',
          amount: '15.01',
          currency: 'EUR',
        })
      ).httpStatus,
    ).toBe(409);
    expect(
      (
        await s.client.call('return', 1001, {
          ...ref(o),
          comment: 'x',
          amount: '15.00',
          currency: 'EUR',
        })
      ).httpStatus,
    ).toBe(200);
  });

  it('when 20 partial returns race on one sale, then the accepted ones never exceed the captured amount', async () => {
    const o = await place('sale', { amount: '100.00' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.client.call('return', 1001, {
          ...ref(o),
          comment: `race ${i}`,
          amount: '30.00',
          currency: 'EUR',
        }),
      ),
    );
    const accepted = results.filter((r) => r.httpStatus === 200).length;
    const refused = results.filter((r) => r.httpStatus === 409).length;
    expect(accepted).toBe(3);
    expect(refused).toBe(17);
    expect((await status(o))['returned-amount']).toBe('90.00');
  });

  it('when 10 captures race on one preauth, then exactly one is accepted', async () => {
    const o = await place('preauth', { amount: '100.00' });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => s.client.call('capture', 1001, ref(o))),
    );
    expect(results.filter((r) => r.httpStatus === 200)).toHaveLength(1);
    expect((await status(o))['captured-amount']).toBe('100.00');
  });
});

describe('account verification', () => {
  it('when a card is verified, then the order is approved at zero amount; a declined card is declined', async () => {
    const base = saleFields();
    const fields: Record<string, string | undefined> = {
      ...base,
      amount: undefined,
      currency: undefined,
      redirect_url: undefined,
      phone: undefined,
    };
    const ok = await s.client.call('account-verification', 1001, fields);
    expect(ok.httpStatus).toBe(200);
    const st = await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: fields.client_orderid,
      orderid: ok.reply.orderId,
    });
    expect(st.reply.fields).toMatchObject({
      status: 'approved',
      amount: '0.00',
      'order-stage': 'verified',
      'transaction-type': 'account-verification',
    });
    const bad: Record<string, string | undefined> = {
      ...saleFields({ credit_card_number: '4000000000000002' }),
      amount: undefined,
      currency: undefined,
    };
    const declined = await s.client.call('account-verification', 1001, bad);
    const st2 = await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: bad.client_orderid,
      orderid: declined.reply.orderId,
    });
    expect(st2.reply.status).toBe('declined');
  });
});

describe('drift', () => {
  it('when the control API forces a status, then the gateway reports it and the lifecycle follows it', async () => {
    const o = await place('sale');
    const forced = await s.control(`/sandbox/orders/${o.orderid}/force`, { status: 'declined' });
    expect(forced.status).toBe(200);
    expect((await status(o)).status).toBe('declined');
    expect((await s.client.call('return', 1001, { ...ref(o), comment: 'x' })).httpStatus).toBe(409);
    const state = await s.control(`/sandbox/orders/${o.orderid}`);
    expect(state.json).toMatchObject({
      orderid: o.orderid,
      forcedStatus: 'declined',
      replyStatus: 'declined',
    });
    expect(state.json).not.toHaveProperty('pageToken');
  });

  it('when an unknown order is forced or read, then 404', async () => {
    expect((await s.control('/sandbox/orders/42')).status).toBe(404);
    expect((await s.control('/sandbox/orders/42/force', { status: 'approved' })).status).toBe(404);
  });
});
