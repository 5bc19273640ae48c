import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER,
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

const YEAR = String(new Date().getUTCFullYear() + 2);

function formFields(overrides: Record<string, string | undefined> = {}) {
  const {
    credit_card_number: _a,
    card_printed_name: _b,
    expire_month: _c,
    expire_year: _d,
    cvv2: _e,
    ...rest
  } = saleFields();
  return { ...rest, ...overrides };
}

async function post(url: string, fields: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

async function statusOf(orderid: string, clientOrderId: string) {
  return (
    await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: clientOrderId,
      orderid,
    })
  ).reply.fields;
}

describe('hosted payment pages', () => {
  for (const op of ['sale-form', 'preauth-form', 'payment-form'] as const) {
    it(`when ${op} is submitted with a card by an HTML form post, then the browser returns to redirect_url and the order proceeds`, async () => {
      const fields = formFields();
      const r = await s.client.call(op, 1001, fields);
      expect(r.httpStatus).toBe(200);
      expect(r.reply.type).toBe('async-form-response');
      const pageUrl = r.reply.redirectUrl!;
      expect((await statusOf(r.reply.orderId!, fields.client_orderid!))['order-stage']).toBe(
        'form_pending',
      );
      const page = await fetch(pageUrl);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('name="credit_card_number"');
      expect(html).toContain('10.42 EUR');
      expect(page.headers.get('content-security-policy')).toContain(
        "form-action 'self' https://shop.example",
      );
      const submitted = await post(pageUrl, {
        credit_card_number: '4111 1111 1111 1111'.replaceAll(' ', ''),
        card_printed_name: 'JANE DOE',
        expire_month: '05',
        expire_year: YEAR,
        cvv2: '321',
      });
      expect(submitted.status).toBe(303);
      const back = new URL(submitted.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(fields.redirect_url);
      expect(back.searchParams.get('orderid')).toBe(r.reply.orderId);
      const st = await statusOf(r.reply.orderId!, fields.client_orderid!);
      expect(st.status).toBe('approved');
      expect(st['transaction-type']).toBe(op === 'preauth-form' ? 'preauth' : 'sale');
      expect(st['last-four-digits']).toBe('1111');
      const again = await fetch(pageUrl);
      expect(again.status).toBe(409);
    });
  }

  it('when the form is posted with bad card data, then it is re-rendered with 400 and each problem, and nothing proceeds', async () => {
    const fields = formFields();
    const r = await s.client.call('sale-form', 1001, fields);
    const bad = await post(r.reply.redirectUrl!, {
      credit_card_number: '4111111111111112',
      card_printed_name: 'X',
      expire_month: '13',
      expire_year: '2001',
      cvv2: '1',
    });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('fails the Luhn check');
    expect(html).toContain('must be 01-12');
    expect(html).toContain('must be 3-4 digits');
    expect(html).not.toContain('4111111111111112');
    expect((await statusOf(r.reply.orderId!, fields.client_orderid!))['order-stage']).toBe(
      'form_pending',
    );
  });

  it('when the card number is typed in groups with spaces or dashes, then the digits are taken and the order proceeds', async () => {
    for (const typed of ['4111 1111 1111 1111', '4111-1111-1111-1111', ' 5555 5555-5555 4444 ']) {
      const fields = formFields();
      const r = await s.client.call('sale-form', 1001, fields);
      const submitted = await post(r.reply.redirectUrl!, {
        credit_card_number: typed,
        card_printed_name: 'JANE DOE',
        expire_month: '05',
        expire_year: YEAR,
        cvv2: '321',
      });
      expect(submitted.status, typed).toBe(303);
      const st = await statusOf(r.reply.orderId!, fields.client_orderid!);
      expect(st.status, typed).toBe('approved');
      expect(st['last-four-digits'], typed).toBe(typed.trim().slice(-4));
    }
  });

  it('when a grouped card number holds anything but digits, spaces and dashes, then it is still refused', async () => {
    for (const typed of ['4111 1111 1111 111a', '4111.1111.1111.1111', '4111 1111 1111 1112']) {
      const fields = formFields();
      const r = await s.client.call('sale-form', 1001, fields);
      const bad = await post(r.reply.redirectUrl!, {
        credit_card_number: typed,
        card_printed_name: 'JANE DOE',
        expire_month: '05',
        expire_year: YEAR,
        cvv2: '321',
      });
      expect(bad.status, typed).toBe(400);
      expect(await bad.text(), typed).toMatch(/must be 13-19 digits|fails the Luhn check/);
    }
  });

  it('when a 3-D Secure card is entered on the hosted page, then the ACS page follows and its answer completes the order', async () => {
    const fields = formFields();
    const r = await s.client.call('sale-form', 1001, fields);
    const submitted = await post(r.reply.redirectUrl!, {
      credit_card_number: '4000000000003220',
      card_printed_name: 'JANE DOE',
      expire_month: '05',
      expire_year: YEAR,
      cvv2: '321',
    });
    expect(submitted.status).toBe(303);
    const acs = submitted.headers.get('location')!;
    expect(acs).toContain('/paynet/acs/');
    const done = await post(acs, { result: 'N' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toContain('https://shop.example/return');
    expect((await statusOf(r.reply.orderId!, fields.client_orderid!)).status).toBe('declined');
  });

  it('when account-verification-form is completed, then the order is verified', async () => {
    const fields: Record<string, string | undefined> = {
      ...formFields(),
      amount: undefined,
      currency: undefined,
      phone: undefined,
    };
    const r = await s.client.call('account-verification-form', 1001, fields);
    expect(r.httpStatus).toBe(200);
    const page = await (await fetch(r.reply.redirectUrl!)).text();
    expect(page).toContain('no charge');
    const submitted = await post(r.reply.redirectUrl!, {
      credit_card_number: '4111111111111111',
      card_printed_name: 'JANE DOE',
      expire_month: '05',
      expire_year: YEAR,
      cvv2: '321',
    });
    expect(submitted.status).toBe(303);
    expect((await statusOf(r.reply.orderId!, fields.client_orderid!))['order-stage']).toBe(
      'verified',
    );
  });

  it('when payout-form (OAuth) is completed with a destination card, then the payout is paid', async () => {
    const fields = {
      client_orderid: uniqueId('pf'),
      amount: '5.00',
      currency: 'EUR',
      order_desc: 'Winnings',
      redirect_url: 'https://shop.example/payout-done',
      ipaddress: CUSTOMER.ipaddress,
    };
    const r = await s.client.call('payout-form', 1001, fields);
    expect(r.httpStatus).toBe(200);
    const html = await (await fetch(r.reply.redirectUrl!)).text();
    expect(html).toContain('Destination card number');
    expect(html).not.toContain('name="cvv2"');
    const submitted = await post(r.reply.redirectUrl!, {
      credit_card_number: '5555555555554444',
      card_printed_name: 'JOHN ROE',
      expire_month: '05',
      expire_year: YEAR,
    });
    expect(submitted.status).toBe(303);
    expect((await statusOf(r.reply.orderId!, fields.client_orderid)).status).toBe('approved');
  });

  it('when the page address has a wrong token, then 404', async () => {
    const r = await s.client.call('sale-form', 1001, formFields());
    const wrong = r.reply.redirectUrl!.replace(/[0-9a-f]{32}$/, '0'.repeat(32));
    expect((await fetch(wrong)).status).toBe(404);
    expect((await post(wrong, { credit_card_number: '4111111111111111' })).status).toBe(404);
  });
});
