import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  MERCHANT,
  saleFields,
  startReceiver,
  startSandbox,
  uniqueId,
  type Running,
} from '../test-support/harness.js';

let s: Running;
beforeAll(async () => {
  s = await startSandbox();
});
afterAll(async () => {
  await s.close();
});

const YEAR = String(new Date().getUTCFullYear() + 2);

async function approvedSale(card = '4111111111111111') {
  const fields = saleFields({ credit_card_number: card });
  const sale = await s.client.call('sale', 1001, fields);
  return { orderid: sale.reply.orderId!, client_orderid: fields.client_orderid! };
}

async function statusOf(orderid: string, clientOrderId: string, endpoint = 1001) {
  return (
    await s.client.call('status', endpoint, {
      login: MERCHANT.login,
      client_orderid: clientOrderId,
      orderid,
    })
  ).reply.fields;
}

async function cardRef(
  op: 'create-card-ref' | 'create-card-ref-v4' = 'create-card-ref',
  card?: string,
) {
  const o = await approvedSale(card);
  const r = await s.client.call(op, 1001, { login: MERCHANT.login, ...o });
  expect(r.httpStatus).toBe(200);
  return r.reply.fields['card-ref-id']!;
}

describe('card references', () => {
  it('when a card ref is made from an approved sale (v2 and v4), then get-card-info returns only BIN, brand, masked number and expiry', async () => {
    for (const op of ['create-card-ref', 'create-card-ref-v4'] as const) {
      const o = await approvedSale();
      const r = await s.client.call(op, 1001, { login: MERCHANT.login, ...o });
      expect(r.reply.type).toBe('create-card-ref-response');
      expect(r.reply.status).toBe('approved');
      const id = r.reply.fields['card-ref-id']!;
      const info = await s.client.call('get-card-info', 1001, {
        login: MERCHANT.login,
        cardrefid: id,
      });
      expect(info.httpStatus).toBe(200);
      expect(info.reply.fields).toMatchObject({
        type: 'get-card-info-response',
        bin: '411111',
        'last-four-digits': '1111',
        'card-type': 'VISA',
        'expire-month': '12',
        'masked-number': '411111******1111',
        'card-printed-name': 'JANE DOE',
      });
      expect(JSON.stringify(info.reply.fields)).not.toContain('4111111111111111');
      expect((await statusOf(o.orderid, o.client_orderid))['card-ref-id']).toBe(id);
    }
  });

  it('when a card ref is asked of a declined order, then 409; of an unknown card ref, get-card-info is 404', async () => {
    const o = await approvedSale('4000000000000002');
    expect(
      (await s.client.call('create-card-ref', 1001, { login: MERCHANT.login, ...o })).httpStatus,
    ).toBe(409);
    expect(
      (await s.client.call('get-card-info', 1001, { login: MERCHANT.login, cardrefid: '999' }))
        .httpStatus,
    ).toBe(404);
  });

  it('when a rebill charges the card ref, then a new order is approved with its own callback', async () => {
    const receiver = await startReceiver();
    try {
      const id = await cardRef();
      const clientOrderId = uniqueId('rebill');
      const r = await s.client.call('make-rebill', 1001, {
        login: MERCHANT.login,
        client_orderid: clientOrderId,
        cardrefid: id,
        amount: '9.99',
        currency: 'EUR',
        order_desc: 'Monthly',
        ipaddress: CUSTOMER.ipaddress,
        server_callback_url: receiver.url,
      });
      expect(r.httpStatus).toBe(200);
      const st = await statusOf(r.reply.orderId!, clientOrderId);
      expect(st).toMatchObject({
        status: 'approved',
        'transaction-type': 'rebill',
        amount: '9.99',
        'card-ref-id': id,
      });
      const [hit] = await receiver.waitFor(1);
      expect(hit!.searchParams.get('type')).toBe('rebill');
      expect(hit!.searchParams.get('card-ref-id')).toBe(id);
    } finally {
      await receiver.close();
    }
  });

  it('when a rebill names an unknown card ref, then 404; in a currency the endpoint lacks, then 400', async () => {
    const base = {
      login: MERCHANT.login,
      client_orderid: uniqueId('rebill'),
      amount: '1.00',
      currency: 'EUR',
      order_desc: 'x',
      ipaddress: CUSTOMER.ipaddress,
    };
    expect(
      (await s.client.call('make-rebill', 1001, { ...base, cardrefid: '12345' })).httpStatus,
    ).toBe(404);
    const id = await cardRef();
    const usd = await s.client.call('make-rebill', 1001, {
      ...base,
      cardrefid: id,
      currency: 'USD',
    });
    expect(usd.httpStatus).toBe(400);
    expect(usd.reply.fields.fields).toContain('currency');
  });
});

describe('recurring payments (v4)', () => {
  it('when a recurring payment is created, then it charges on the sandbox clock as rebills, each with a callback, up to max_payments', async () => {
    const receiver = await startReceiver();
    try {
      const id = await cardRef();
      const clientOrderId = uniqueId('sub');
      const r = await s.client.call('create-recurring-payment', 1001, {
        client_orderid: clientOrderId,
        amount: '4.99',
        currency: 'EUR',
        period: 'week',
        interval: '2',
        order_desc: 'Magazine',
        email: CUSTOMER.email,
        ipaddress: CUSTOMER.ipaddress,
        cardrefid: id,
        max_payments: '3',
        server_callback_url: receiver.url,
      });
      expect(r.httpStatus).toBe(200);
      const rpId = r.reply.fields['recurring-payment-id']!;
      expect(rpId).toMatch(/^[0-9]+$/);
      await s.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: 'x',
        orderid: '1',
      });
      await receiver.waitFor(1);
      await s.advance(14 * 86400);
      await s.advance(14 * 86400);
      await s.advance(14 * 86400);
      const hits = await receiver.waitFor(3);
      expect(hits).toHaveLength(3);
      for (const hit of hits) {
        expect(hit.searchParams.get('type')).toBe('rebill');
        expect(hit.searchParams.get('recurring-payment-id')).toBe(rpId);
        expect(hit.searchParams.get('status')).toBe('approved');
      }
      const rp = await s.control(`/sandbox/recurring-payments/${rpId}`);
      expect(rp.json).toMatchObject({ chargesMade: 3, state: 'completed' });
      const firstCharge = (rp.json.chargeOrderIds as string[])[0]!;
      expect((await statusOf(firstCharge, `${clientOrderId}-1`))['recurring-payment-id']).toBe(
        rpId,
      );
    } finally {
      await receiver.close();
    }
  });

  it('when a recurring payment with card fields starts in the future, then nothing is charged before its start date', async () => {
    const now = (await s.control('/sandbox/clock')).json.nowMs as number;
    const start = new Date(now + 3 * 86400_000).toISOString().slice(0, 10);
    const r = await s.client.call('create-recurring-payment', 1001, {
      client_orderid: uniqueId('sub'),
      amount: '1.00',
      currency: 'EUR',
      period: 'day',
      interval: '1',
      order_desc: 'Daily',
      email: CUSTOMER.email,
      ipaddress: CUSTOMER.ipaddress,
      credit_card_number: '4111111111111111',
      card_printed_name: 'JANE DOE',
      expire_month: '12',
      expire_year: YEAR,
      start_date: start,
    });
    expect(r.httpStatus).toBe(200);
    const id = r.reply.fields['recurring-payment-id']!;
    expect((await s.control(`/sandbox/recurring-payments/${id}`)).json).toMatchObject({
      chargesMade: 0,
      state: 'active',
    });
    await s.advance(4 * 86400);
    expect((await s.control(`/sandbox/recurring-payments/${id}`)).json).toMatchObject({
      chargesMade: 2,
    });
    const past = await s.client.call('create-recurring-payment', 1001, {
      client_orderid: uniqueId('sub'),
      amount: '1.00',
      currency: 'EUR',
      period: 'day',
      interval: '1',
      order_desc: 'Daily',
      email: CUSTOMER.email,
      ipaddress: CUSTOMER.ipaddress,
      credit_card_number: '4111111111111111',
      card_printed_name: 'JANE DOE',
      expire_month: '12',
      expire_year: YEAR,
      start_date: '2001-01-01',
    });
    expect(past.httpStatus).toBe(400);
    expect(past.reply.fields.fields).toContain('start_date');
  });

  it('when neither a card ref nor card fields are given, or the period is wrong, then 400 names the fields', async () => {
    const r = await s.client.call('create-recurring-payment', 1001, {
      client_orderid: uniqueId('sub'),
      amount: '4.99',
      currency: 'EUR',
      period: 'year',
      interval: '0',
      order_desc: 'x',
      email: CUSTOMER.email,
      ipaddress: CUSTOMER.ipaddress,
    });
    expect(r.httpStatus).toBe(400);
    const names = (JSON.parse(r.reply.fields.fields!) as { name: string }[]).map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining(['period', 'interval', 'credit_card_number', 'expire_month']),
    );
  });
});

function destination(
  kind: 'card' | 'bank' | 'ewallet' | 'phone',
  card = '4111111111111111',
): Record<string, string> {
  switch (kind) {
    case 'card':
      return {
        credit_card_number: card,
        card_printed_name: 'JOHN ROE',
        expire_month: '01',
        expire_year: YEAR,
      };
    case 'bank':
      return {
        account_number: 'DE89370400440532013000',
        bank_name: 'Test Bank',
        bank_bic: 'COBADEFFXXX',
      };
    case 'ewallet':
      return { ewallet_type: 'paypal', ewallet_id: 'john@example.com' };
    case 'phone':
      return { phone: '+7 900 1234567', fps_bank_id: '100000000004' };
  }
}

const payoutBase = () => ({
  client_orderid: uniqueId('po'),
  amount: '30.00',
  currency: 'EUR',
  order_desc: 'Payout',
  ipaddress: CUSTOMER.ipaddress,
});

describe('payouts', () => {
  for (const kind of ['card', 'bank', 'ewallet', 'phone'] as const) {
    it(`when a v2 payout goes to a ${kind}, then it is processed and approved`, async () => {
      const fields = { ...payoutBase(), ...destination(kind) };
      const r = await s.client.call('payout', 1001, fields);
      expect(r.httpStatus).toBe(200);
      expect(await statusOf(r.reply.orderId!, fields.client_orderid)).toMatchObject({
        status: 'approved',
        'transaction-type': 'payout',
        'order-stage': 'paid',
      });
    });
  }

  it('when a payout names no destination or an incomplete one, then 400 names what is missing', async () => {
    const none = await s.client.call('payout', 1001, payoutBase());
    expect(none.httpStatus).toBe(400);
    expect(none.reply.fields.fields).toContain('destination');
    const partial = await s.client.call('payout', 1001, { ...payoutBase(), account_number: '123' });
    expect(partial.reply.fields.fields).toContain('bank_bic');
  });

  it('when a v4 single-step payout goes to a declining card, then it is declined', async () => {
    const fields = { ...payoutBase(), ...destination('card', '4000000000000002') };
    const r = await s.client.call('payout-v4', 1001, fields);
    expect(r.httpStatus).toBe(200);
    expect((await statusOf(r.reply.orderId!, fields.client_orderid)).status).toBe('declined');
  });

  it('when payout-check registers a payout, then no funds move until payout-pay, which works once', async () => {
    const receiver = await startReceiver();
    try {
      const fields = { ...payoutBase(), ...destination('bank'), server_callback_url: receiver.url };
      const check = await s.client.call('payout-check', 1001, fields);
      expect(check.httpStatus).toBe(200);
      const id = check.reply.orderId!;
      expect(await statusOf(id, fields.client_orderid)).toMatchObject({
        status: 'approved',
        'order-stage': 'registered',
        'transaction-type': 'payout-check',
      });
      const pays = await Promise.all(
        [1, 2, 3].map(() =>
          s.client.call('payout-pay', 1001, {
            login: MERCHANT.login,
            client_orderid: fields.client_orderid,
            orderid: id,
          }),
        ),
      );
      expect(pays.filter((p) => p.httpStatus === 200)).toHaveLength(1);
      expect(pays.filter((p) => p.httpStatus === 409)).toHaveLength(2);
      expect(await statusOf(id, fields.client_orderid)).toMatchObject({
        status: 'approved',
        'order-stage': 'paid',
        'last-operation': 'payout-pay',
      });
      const [hit] = await receiver.waitFor(1);
      expect(hit!.searchParams.get('type')).toBe('payout');
      expect(hit!.searchParams.get('amount')).toBe('30.00');
    } finally {
      await receiver.close();
    }
  });

  it('when a registered payout is older than 24 hours on the sandbox clock, then it expired and payout-pay is refused', async () => {
    const fields = { ...payoutBase(), ...destination('ewallet') };
    const check = await s.client.call('payout-check', 1001, fields);
    await s.advance(24 * 3600);
    const r = await s.client.call('payout-pay', 1001, {
      login: MERCHANT.login,
      client_orderid: fields.client_orderid,
      orderid: check.reply.orderId,
    });
    expect(r.httpStatus).toBe(409);
    expect(r.reply.errorMessage).toMatch(/expired/);
    expect((await statusOf(check.reply.orderId!, fields.client_orderid))['order-stage']).toBe(
      'expired',
    );
  });

  it('when payout-check is declined for the destination card, then payout-pay is refused', async () => {
    const fields = { ...payoutBase(), ...destination('card', '4000000000000002') };
    const check = await s.client.call('payout-check', 1001, fields);
    expect((await statusOf(check.reply.orderId!, fields.client_orderid)).status).toBe('declined');
    const r = await s.client.call('payout-pay', 1001, {
      login: MERCHANT.login,
      client_orderid: fields.client_orderid,
      orderid: check.reply.orderId,
    });
    expect(r.httpStatus).toBe(409);
  });

  it('when payout-pay names a sale, then 409', async () => {
    const o = await approvedSale();
    expect(
      (await s.client.call('payout-pay', 1001, { login: MERCHANT.login, ...o })).httpStatus,
    ).toBe(409);
  });
});

describe('transfers and PAN eligibility', () => {
  it('when a v4 transfer moves money card to card, then it is approved; from a declining card it is declined', async () => {
    for (const [card, final] of [
      ['4111111111111111', 'approved'],
      ['4000000000000002', 'declined'],
    ] as const) {
      const fields: Record<string, string | undefined> = {
        ...saleFields({ credit_card_number: card }),
        'destination-card-no': '5555555555554444',
      };
      const {
        address1: _a,
        city: _c,
        zip_code: _z,
        country: _co,
        phone: _p,
        email: _e,
        ...transfer
      } = fields;
      const r = await s.client.call('transfer', 1001, transfer);
      expect(r.httpStatus).toBe(200);
      expect(await statusOf(r.reply.orderId!, fields.client_orderid!)).toMatchObject({
        status: final,
        'transaction-type': 'transfer',
      });
    }
  });

  it('when transfer-by-ref names two card refs, then it is approved; an unknown ref is 404', async () => {
    const source = await cardRef();
    const target = await cardRef('create-card-ref', '5555555555554444');
    const fields = {
      client_orderid: uniqueId('tbr'),
      amount: '3.00',
      currency: 'EUR',
      order_desc: 'Split',
      ipaddress: CUSTOMER.ipaddress,
      'source-card-ref-id': source,
      'destination-card-ref-id': target,
    };
    const r = await s.client.call('transfer-by-ref', 1001, fields);
    expect(r.httpStatus).toBe(200);
    expect((await statusOf(r.reply.orderId!, fields.client_orderid)).status).toBe('approved');
    const unknown = await s.client.call('transfer-by-ref', 1001, {
      ...fields,
      client_orderid: uniqueId('tbr'),
      'destination-card-ref-id': '1',
    });
    expect(unknown.httpStatus).toBe(404);
  });

  it('when pan-eligibility/send names a card ref, then an order reports whether it is eligible', async () => {
    const ref = await cardRef();
    const clientOrderId = uniqueId('pan');
    const r = await s.client.call('pan-eligibility-send', 1001, {
      'client-order-id': clientOrderId,
      'sending-card-ref-id': ref,
    });
    expect(r.httpStatus).toBe(200);
    expect(await statusOf(r.reply.orderId!, clientOrderId)).toMatchObject({
      status: 'approved',
      'order-stage': 'verified',
    });
  });
});
