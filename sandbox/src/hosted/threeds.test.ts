import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, saleFields, startSandbox, type Running } from '../test-support/harness.js';

let s: Running;
beforeAll(async () => {
  s = await startSandbox();
});
afterAll(async () => {
  await s.close();
});

const ref = (orderid: string, clientOrderId: string) => ({
  login: MERCHANT.login,
  'client-order-id': clientOrderId,
  orderid,
});

async function statusOf(orderid: string, clientOrderId: string) {
  return (
    await s.client.call('status', 1001, {
      login: MERCHANT.login,
      client_orderid: clientOrderId,
      orderid,
    })
  ).reply.fields;
}

/** Submits a plain HTML form the way a browser would: the first form, the named button. */
function submitForm(
  html: string,
  pageUrl: string,
  button?: { name: string; value: string },
): { action: string; body: URLSearchParams } {
  const form = /<form method="POST" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error('no form on the page');
  const action = new URL(form[1]!.replaceAll('&amp;', '&'), pageUrl).href;
  const body = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    body.append(input[1]!, input[2]!);
  if (button) body.append(button.name, button.value);
  return { action, body };
}

async function challenge(card: string, answer: 'Y' | 'N') {
  const fields = saleFields({ credit_card_number: card });
  const sale = await s.client.call('sale', 1001, fields);
  const orderid = sale.reply.orderId!;
  const waiting = await statusOf(orderid, fields.client_orderid!);
  expect(waiting.status).toBe('processing');
  expect(waiting['order-stage']).toBe('3ds_challenge');
  const acsUrl = waiting['redirect-to']!;
  expect(waiting.html).toContain(acsUrl);
  const page = await fetch(acsUrl);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  const pageHtml = await page.text();
  const { action, body } = submitForm(pageHtml, acsUrl, { name: 'result', value: answer });
  const done = await fetch(action, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  expect(done.status).toBe(200);
  const back = submitForm(await done.text(), action);
  expect(back.action).toBe(fields.redirect_url);
  return { fields, orderid, back: back.body };
}

describe('3-D Secure 2 challenge (4000000000003220)', () => {
  it('when the ACS page is approved and the CRes uploaded, then the sale is approved', async () => {
    const { fields, orderid, back } = await challenge('4000000000003220', 'Y');
    const cres = back.get('cres')!;
    expect(JSON.parse(Buffer.from(cres, 'base64').toString())).toMatchObject({ transStatus: 'Y' });
    const upload = await s.client.call('upload-cres-result', 1001, {
      ...ref(orderid, fields.client_orderid!),
      cres,
    });
    expect(upload.httpStatus).toBe(200);
    expect(await statusOf(orderid, fields.client_orderid!)).toMatchObject({
      status: 'approved',
      'order-stage': 'captured',
    });
    const twice = await s.client.call('upload-cres-result', 1001, {
      ...ref(orderid, fields.client_orderid!),
      cres,
    });
    expect(twice.httpStatus).toBe(409);
  });

  it('when the CRes says N, then the sale is declined with a 3-D Secure error', async () => {
    const { fields, orderid, back } = await challenge('4000000000003220', 'N');
    await s.client.call('upload-cres-result', 1001, {
      ...ref(orderid, fields.client_orderid!),
      cres: back.get('cres')!,
    });
    expect(await statusOf(orderid, fields.client_orderid!)).toMatchObject({
      status: 'declined',
      'error-code': 'THREE_DS_FAILED',
    });
  });

  it('when the CRes is not Base64 JSON, then 400 names cres', async () => {
    const fields = saleFields({ credit_card_number: '4000000000003220' });
    const sale = await s.client.call('sale', 1001, fields);
    const r = await s.client.call('upload-cres-result', 1001, {
      ...ref(sale.reply.orderId!, fields.client_orderid!),
      cres: 'bm90IGpzb24=',
    });
    expect(r.httpStatus).toBe(400);
    expect(r.reply.fields.fields).toContain('cres');
  });

  it('when a CRes is uploaded for an order without a challenge, then 409', async () => {
    const fields = saleFields();
    const sale = await s.client.call('sale', 1001, fields);
    const cres = Buffer.from(JSON.stringify({ transStatus: 'Y' })).toString('base64');
    const r = await s.client.call('upload-cres-result', 1001, {
      ...ref(sale.reply.orderId!, fields.client_orderid!),
      cres,
    });
    expect(r.httpStatus).toBe(409);
  });
});

describe('3-D Secure 1.0.2 (4000000000000101)', () => {
  it('when the ACS page is approved and the PaRes uploaded, then the sale is approved', async () => {
    const { fields, orderid, back } = await challenge('4000000000000101', 'Y');
    const r = await s.client.call('upload-pares-result', 1001, {
      ...ref(orderid, fields.client_orderid!),
      PaRes: back.get('PaRes')!,
    });
    expect(r.httpStatus).toBe(200);
    expect((await statusOf(orderid, fields.client_orderid!)).status).toBe('approved');
  });

  it('when authentication fails, then the sale is declined', async () => {
    const { fields, orderid, back } = await challenge('4000000000000101', 'N');
    await s.client.call('upload-pares-result', 1001, {
      ...ref(orderid, fields.client_orderid!),
      PaRes: back.get('PaRes')!,
    });
    expect((await statusOf(orderid, fields.client_orderid!)).status).toBe('declined');
  });
});

describe('3DS Method step (4000000000003063)', () => {
  for (const ind of ['Y', 'U', 'N'] as const) {
    it(`when the method result ${ind} is uploaded, then the sale completes approved`, async () => {
      const fields = saleFields({ credit_card_number: '4000000000003063' });
      const sale = await s.client.call('sale', 1001, fields);
      const waiting = await statusOf(sale.reply.orderId!, fields.client_orderid!);
      expect(waiting['order-stage']).toBe('3ds_method');
      expect((await fetch(waiting['redirect-to']!)).status).toBe(200);
      const r = await s.client.call('upload-method-url-result', 1001, {
        ...ref(sale.reply.orderId!, fields.client_orderid!),
        threeDSCompInd: ind,
      });
      expect(r.httpStatus).toBe(200);
      expect((await statusOf(sale.reply.orderId!, fields.client_orderid!)).status).toBe('approved');
      const state = await s.control(`/sandbox/orders/${sale.reply.orderId!}`);
      expect((state.json.threeDs as { compInd: string }).compInd).toBe(ind);
    });
  }

  it('when 10 s pass on the sandbox clock without the upload, then the step counts as N and a late upload is refused', async () => {
    const fields = saleFields({ credit_card_number: '4000000000003063' });
    const sale = await s.client.call('sale', 1001, fields);
    await s.advance(9);
    expect((await statusOf(sale.reply.orderId!, fields.client_orderid!))['order-stage']).toBe(
      '3ds_method',
    );
    await s.advance(1);
    expect((await statusOf(sale.reply.orderId!, fields.client_orderid!)).status).toBe('approved');
    const state = await s.control(`/sandbox/orders/${sale.reply.orderId!}`);
    expect((state.json.threeDs as { compInd: string }).compInd).toBe('N');
    const late = await s.client.call('upload-method-url-result', 1001, {
      ...ref(sale.reply.orderId!, fields.client_orderid!),
      threeDSCompInd: 'Y',
    });
    expect(late.httpStatus).toBe(409);
    expect(late.reply.errorMessage).toContain('threeDSCompInd N');
  });

  it("when the control times one order's step out, then that order counts as N, another still waits, and the clock stays", async () => {
    const clockBefore = (await s.control('/sandbox/clock')).json.offsetMs;
    const [a, b] = [
      saleFields({ credit_card_number: '4000000000003063' }),
      saleFields({ credit_card_number: '4000000000003063' }),
    ];
    const saleA = await s.client.call('sale', 1001, a);
    const saleB = await s.client.call('sale', 1001, b);
    const timedOut = await s.control(
      `/sandbox/orders/${saleA.reply.orderId!}/3ds-method-timeout`,
      {},
    );
    expect(timedOut.status).toBe(200);
    await s.advance(0);
    expect((await statusOf(saleA.reply.orderId!, a.client_orderid!)).status).toBe('approved');
    const state = await s.control(`/sandbox/orders/${saleA.reply.orderId!}`);
    expect((state.json.threeDs as { compInd: string }).compInd).toBe('N');
    expect((await statusOf(saleB.reply.orderId!, b.client_orderid!))['order-stage']).toBe(
      '3ds_method',
    );
    expect((await s.control('/sandbox/clock')).json.offsetMs).toBe(clockBefore);

    const again = await s.control(`/sandbox/orders/${saleA.reply.orderId!}/3ds-method-timeout`, {});
    expect(again.status).toBe(409);
    expect(again.json.error).toEqual({
      code: 'INVALID_STATE',
      message: 'the order is not waiting for its 3-D Secure Method result',
    });
    expect((await s.control('/sandbox/orders/nope/3ds-method-timeout', {})).status).toBe(404);
  });

  it('when threeDSCompInd is not Y, N or U, then 400 names it', async () => {
    const fields = saleFields({ credit_card_number: '4000000000003063' });
    const sale = await s.client.call('sale', 1001, fields);
    const r = await s.client.call('upload-method-url-result', 1001, {
      ...ref(sale.reply.orderId!, fields.client_orderid!),
      threeDSCompInd: 'X',
    });
    expect(r.httpStatus).toBe(400);
    expect(r.reply.fields.fields).toContain('threeDSCompInd');
  });
});
