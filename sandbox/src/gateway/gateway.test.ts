import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlValue, formEncode } from '@paydesk/shared/protocol';
import {
  MERCHANT,
  saleFields,
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

async function statusOf(orderid: string, clientOrderId: string, endpoint = 1001) {
  return s.client.call('status', endpoint, {
    login: MERCHANT.login,
    client_orderid: clientOrderId,
    orderid,
  });
}

describe('the HTTP contract', () => {
  it('when the Accept header is missing, then the reply is 406 in vnd.pay+json', async () => {
    const r = await s.client.call('sale', 1001, saleFields(), { accept: null });
    expect(r.httpStatus).toBe(406);
    expect(r.reply.type).toBe('error');
    expect(r.reply.errorCode).toBe('NOT_ACCEPTABLE');
  });

  it('when the endpoint is unknown, then the reply is 404 NOT_FOUND', async () => {
    const r = await s.client.call('sale', 9999, saleFields());
    expect(r.httpStatus).toBe(404);
    expect(r.reply.errorCode).toBe('NOT_FOUND');
  });

  it('when several fields are bad, then the 400 names every one of them', async () => {
    const r = await s.client.call(
      'sale',
      1001,
      saleFields({
        credit_card_number: '4111111111111112',
        amount: '10.123',
        expire_month: '13',
        email: undefined,
        ipaddress: '999.1.1.1',
        country: 'Germany',
      }),
      { control: 'f'.repeat(40) },
    );
    expect(r.httpStatus).toBe(400);
    expect(r.reply.type).toBe('validation-error');
    expect(r.reply.errorCode).toBe('VALIDATION_FAILED');
    const fields = JSON.parse(r.reply.fields.fields ?? '[]') as { name: string; message: string }[];
    expect(fields.map((f) => f.name).sort()).toEqual([
      'amount',
      'country',
      'credit_card_number',
      'email',
      'expire_month',
      'ipaddress',
    ]);
    expect(fields.find((f) => f.name === 'credit_card_number')?.message).toMatch(/Luhn/);
    expect(fields.find((f) => f.name === 'email')?.message).toBe('is required');
  });

  it('when the amount is too large, then the 400 names amount and the maximum, not the decimals; a bad form still names the decimals', async () => {
    const messageOf = async (amount: string) => {
      // (The client cannot sign an amount it cannot read: the fields are judged first anyway.)
      const r = await s.client.call('sale', 1001, saleFields({ amount }), {
        control: 'f'.repeat(40),
      });
      expect(r.httpStatus, amount).toBe(400);
      expect(r.reply.type).toBe('validation-error');
      expect(r.reply.errorCode).toBe('VALIDATION_FAILED');
      expect(r.reply.fields['error-message']).toBe('invalid fields: amount');
      const fields = JSON.parse(r.reply.fields.fields ?? '[]') as {
        name: string;
        message: string;
      }[];
      expect(fields.map((f) => f.name)).toEqual(['amount']);
      return fields[0]?.message;
    };
    expect(await messageOf('1000000000000000000.00')).toBe('must be at most 999999999999999999.99');
    expect(await messageOf('12345678901234567890')).toBe('must be at most 999999999999999999.99');
    expect(await messageOf('10.123')).toBe(
      'must be a decimal amount with at most 2 decimals, like 19.99',
    );
    expect(await messageOf('0000000000000000000010.00')).toBe(
      'must have at most 18 digits before the decimal point',
    );
  });

  it('when the card has expired or the currency is not the endpoint’s, then the field is named', async () => {
    const expired = await s.client.call('sale', 1001, saleFields({ expire_year: '2020' }));
    expect(expired.httpStatus).toBe(400);
    expect(expired.reply.fields.fields).toContain('expire_year');
    const currency = await s.client.call('sale', 1001, saleFields({ currency: 'USD' }));
    expect(currency.httpStatus).toBe(400);
    expect(currency.reply.fields.fields).toContain('must be a currency of endpoint 1001 (EUR)');
  });

  it('when the control value is wrong, then 401 says which fields the formula takes and never the expected value', async () => {
    const fields = saleFields();
    const expected = controlValue('sale', { ...fields, endpointId: '1001' }, MERCHANT.controlKey);
    const r = await s.client.call('sale', 1001, fields, { control: '0'.repeat(40) });
    expect(r.httpStatus).toBe(401);
    expect(r.reply.errorCode).toBe('AUTHENTICATION_FAILED');
    expect(r.reply.errorMessage).toContain(
      'control mismatch for operation sale: expected fields endpointId, client_orderid, amount, email',
    );
    expect(JSON.stringify(r.reply.fields)).not.toContain(expected);
    expect(JSON.stringify(r.reply.fields)).not.toContain(MERCHANT.controlKey);
  });

  it('when the control value is in upper case hex, then it is accepted', async () => {
    const fields = saleFields();
    const control = controlValue(
      'sale',
      { ...fields, endpointId: '1001' },
      MERCHANT.controlKey,
    ).toUpperCase();
    const r = await s.client.call('sale', 1001, fields, { control });
    expect(r.httpStatus).toBe(200);
  });

  it('when an endpoint of another merchant is used with this merchant’s key, then 401', async () => {
    const r = await s.client.call('sale', 3001, saleFields());
    expect(r.httpStatus).toBe(401);
  });

  it('when the body is not form-encoded, then 400 names the body', async () => {
    const response = await fetch(`${s.base}/api/v2/sale/1001`, {
      method: 'POST',
      headers: { Accept: 'application/vnd.pay+json', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/vnd.pay+json');
    const body = (await response.json()) as { fields: { name: string }[] };
    expect(body.fields[0]?.name).toBe('body');
  });

  it('when a field is repeated with different values, then 400 names it', async () => {
    const fields = saleFields();
    const control = controlValue('sale', { ...fields, endpointId: '1001' }, MERCHANT.controlKey);
    const pairs = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
    pairs.push(['amount', '99.00'], ['control', control]);
    const response = await fetch(`${s.base}/api/v2/sale/1001`, {
      method: 'POST',
      headers: {
        Accept: 'application/vnd.pay+json',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: formEncode(pairs),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('given more than once');
  });

  it('when a client_orderid is reused on the same endpoint for a new order, then 400', async () => {
    const fields = saleFields();
    expect((await s.client.call('sale', 1001, fields)).httpStatus).toBe(200);
    const again = await s.client.call('sale', 1001, fields);
    expect(again.httpStatus).toBe(400);
    expect(again.reply.fields.fields).toContain('client_orderid');
  });

  it('when the OpenAPI document is fetched, then it is 3.1 version dev with every operation and its request schema', async () => {
    const response = await fetch(`${s.base}/openapi.json`);
    const doc = (await response.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<
        string,
        { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
      >;
      components: {
        schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }>;
      };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('dev');
    expect(Object.keys(doc.paths)).toHaveLength(27);
    expect(doc.paths['/api/v2/sale/{endpointId}']).toBeDefined();
    expect(doc.components.schemas.SaleRequest?.required).toContain('credit_card_number');
    expect(doc.components.schemas.SaleRequest?.properties).toHaveProperty('server_callback_url');
    expect(doc.components.schemas.StatusResponse?.properties).toHaveProperty('captured-amount');
  });
});

describe('test cards', () => {
  const cases = [
    ['4111111111111111', 'approved', undefined],
    ['4000000000000002', 'declined', 'DECLINED'],
    ['4000000000000119', 'error', 'PROCESSING_ERROR'],
    ['4000000000000259', 'filtered', 'FILTERED'],
    ['5555555555554444', 'approved', undefined],
  ] as const;
  for (const [card, final, code] of cases) {
    it(`when a sale uses ${card}, then it acknowledges processing and ends ${final}`, async () => {
      const fields = saleFields({ credit_card_number: card });
      const sale = await s.client.call('sale', 1001, fields);
      expect(sale.httpStatus).toBe(200);
      expect(sale.reply.type).toBe('async-response');
      expect(sale.reply.orderId).toMatch(/^[0-9]+$/);
      expect(sale.reply.merchantOrderId).toBe(fields.client_orderid);
      const status = await statusOf(sale.reply.orderId!, fields.client_orderid!);
      expect(status.reply.type).toBe('status-response');
      expect(status.reply.status).toBe(final);
      expect(status.reply.errorCode).toBe(code);
      expect(status.reply.fields['last-four-digits']).toBe(card.slice(-4));
      expect(status.reply.fields.bin).toBe(card.slice(0, 6));
    });
  }

  it('when the processing delay has not passed, then status says processing until the clock moves', async () => {
    const slow = await startSandbox({
      config: (await import('../test-support/harness.js')).testConfig({
        processingDelayMs: 300_000,
      }),
    });
    try {
      const fields = saleFields();
      const sale = await slow.client.call('sale', 1001, fields);
      const before = await slow.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: fields.client_orderid,
        orderid: sale.reply.orderId,
      });
      expect(before.reply.status).toBe('processing');
      expect(before.reply.fields['order-stage']).toBe('processing');
      await slow.advance(300);
      const after = await slow.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: fields.client_orderid,
        orderid: sale.reply.orderId,
      });
      expect(after.reply.status).toBe('approved');
    } finally {
      await slow.close();
    }
  });

  it('when the amount is 13.13, then the order stays processing for ten minutes', async () => {
    const fields = saleFields({ amount: '13.13' });
    const sale = await s.client.call('sale', 1001, fields);
    await s.advance(599);
    expect((await statusOf(sale.reply.orderId!, fields.client_orderid!)).reply.status).toBe(
      'processing',
    );
    await s.advance(2);
    expect((await statusOf(sale.reply.orderId!, fields.client_orderid!)).reply.status).toBe(
      'approved',
    );
  });

  it('when a sale goes through an endpoint group, then it lands on the endpoint of its currency and is found through either id', async () => {
    const fields = saleFields({ currency: 'USD' });
    const sale = await s.client.call('sale', 2001, fields);
    expect(sale.httpStatus).toBe(200);
    const viaGroup = await s.client.call('status', 2001, {
      login: MERCHANT.login,
      client_orderid: fields.client_orderid,
      orderid: sale.reply.orderId,
    });
    expect(viaGroup.reply.fields.currency).toBe('USD');
    const viaEndpoint = await statusOf(sale.reply.orderId!, fields.client_orderid!, 1002);
    expect(viaEndpoint.reply.status).toBe('approved');
    const wrongEndpoint = await statusOf(sale.reply.orderId!, fields.client_orderid!, 1001);
    expect(wrongEndpoint.httpStatus).toBe(404);
  });

  it('when status is asked by client_orderid alone, then the order is found; an unknown one is 404', async () => {
    const fields = saleFields();
    const sale = await s.client.call('sale', 1001, fields);
    const byClient = await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: fields.client_orderid,
    });
    expect(byClient.reply.orderId).toBe(sale.reply.orderId);
    const unknown = await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: uniqueId(),
    });
    expect(unknown.httpStatus).toBe(404);
  });

  it('when an approved sale is asked for, then the status reply carries every applicable field', async () => {
    const fields = saleFields({ first_name: 'Jane', last_name: 'Doe' });
    const sale = await s.client.call('sale', 1001, fields);
    const r = await statusOf(sale.reply.orderId!, fields.client_orderid!);
    expect(r.reply.fields).toMatchObject({
      type: 'status-response',
      status: 'approved',
      'transaction-type': 'sale',
      'last-operation': 'sale',
      'order-stage': 'captured',
      amount: '10.42',
      currency: 'EUR',
      'captured-amount': '10.42',
      'returned-amount': '0.00',
      'card-type': 'VISA',
      'card-exp-month': '12',
      'cardholder-name': 'JANE DOE',
      email: 'jane@example.com',
      'first-name': 'Jane',
      'last-name': 'Doe',
    });
    const ops = JSON.parse(r.reply.fields.operations ?? '[]') as Record<string, string>[];
    expect(ops).toEqual([
      expect.objectContaining({
        type: 'sale',
        amount: '10.42',
        status: 'approved',
        'serial-number': sale.reply.serialNumber,
      }),
    ]);
  });
});
