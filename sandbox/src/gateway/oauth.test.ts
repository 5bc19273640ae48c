import { createHash, createHmac, createSign, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../storefront/gateway-client.js';
import {
  CUSTOMER,
  MERCHANT,
  PRIVATE_KEY_PEM,
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

function payoutFields(
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    client_orderid: uniqueId('po'),
    amount: '25.00',
    currency: 'EUR',
    order_desc: 'Payout to a card',
    ipaddress: CUSTOMER.ipaddress,
    credit_card_number: '4111111111111111',
    card_printed_name: 'JOHN ROE',
    expire_month: '11',
    expire_year: String(new Date().getUTCFullYear() + 2),
    ...overrides,
  };
}

describe('OAuth 1.0a HMAC-SHA1 (v2 payout)', () => {
  it('when the request is signed with the control key, then it is accepted', async () => {
    const r = await s.client.call('payout', 1001, payoutFields());
    expect(r.httpStatus).toBe(200);
    expect(r.reply.type).toBe('async-response');
  });

  it('when the body is changed after signing, then 401 names a signature mismatch', async () => {
    const r = await s.client.call('payout', 1001, payoutFields(), {
      tamper: (body) => body.replace('amount=25.00', 'amount=2500.00'),
    });
    expect(r.httpStatus).toBe(401);
    expect(r.reply.errorCode).toBe('AUTHENTICATION_FAILED');
    expect(r.reply.errorMessage).toMatch(/signature mismatch/);
  });

  it('when the request is signed with another key, then 401', async () => {
    const wrong = new GatewayClient(s.base, { ...MERCHANT, controlKey: 'NOT-THE-KEY-000000000' });
    const r = await wrong.call('payout', 1001, payoutFields());
    expect(r.httpStatus).toBe(401);
    expect(r.reply.errorMessage).not.toContain(MERCHANT.controlKey);
  });

  it('when the timestamp is more than 300 s old, then 401 names the timestamp', async () => {
    const r = await s.client.call('payout', 1001, payoutFields(), {
      timestamp: Math.floor(Date.now() / 1000) - 400,
    });
    expect(r.httpStatus).toBe(401);
    expect(r.reply.errorMessage).toMatch(/oauth_timestamp/);
  });

  it('when a nonce is replayed, then the second request is refused', async () => {
    const nonce = randomBytes(8).toString('hex');
    expect((await s.client.call('payout', 1001, payoutFields(), { nonce })).httpStatus).toBe(200);
    const replay = await s.client.call('payout', 1001, payoutFields(), { nonce });
    expect(replay.httpStatus).toBe(401);
    expect(replay.reply.errorMessage).toMatch(/nonce/);
  });

  it('when there is no Authorization header, then 401', async () => {
    const response = await fetch(`${s.base}/api/v2/payout/1001`, {
      method: 'POST',
      headers: {
        Accept: 'application/vnd.pay+json',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'client_orderid=x&amount=1.00&currency=EUR&order_desc=x&ipaddress=192.0.2.1&account_number=1&bank_name=b&bank_bic=BIC',
    });
    expect(response.status).toBe(401);
  });

  it('when the oauth_* parameters are repeated in the body identically, then it is accepted; when they differ, refused', async () => {
    const url = `${s.base}/api/v2/payout/1001`;
    const body: [string, string][] = Object.entries(payoutFields()).filter(
      (e): e is [string, string] => e[1] !== undefined,
    );
    const signed = independentlySigned(url, body, 'HMAC-SHA1');
    const oauthPairs = [...signed.authorization.slice(6).matchAll(/(oauth_[a-z_]+)="([^"]*)"/g)]
      .filter((m) => m[1] !== 'oauth_signature')
      .map((m) => `${m[1]!}=${m[2]!}`);
    const ok = await post(url, `${signed.body}&${oauthPairs.join('&')}`, {
      Authorization: signed.authorization,
    });
    expect(ok.status).toBe(200);
    const again = independentlySigned(
      url,
      body.map(([k, v]): [string, string] => (k === 'client_orderid' ? [k, `${v}-b`] : [k, v])),
      'HMAC-SHA1',
    );
    const differing = await post(url, `${again.body}&oauth_version=2.0`, {
      Authorization: again.authorization,
    });
    expect(differing.status).toBe(401);
  });

  it('when the consumer key is another merchant’s login, then 401', async () => {
    const other = new GatewayClient(s.base, { ...MERCHANT, login: 'other-merchant' });
    expect((await other.call('payout', 1001, payoutFields())).httpStatus).toBe(401);
  });
});

describe('OAuth 1.0a RSA-SHA256 (v4)', () => {
  it('when a v4 payout-check is signed with the private key, then it is accepted', async () => {
    const r = await s.client.call('payout-check', 1001, payoutFields());
    expect(r.httpStatus).toBe(200);
  });

  it('when a v4 operation is signed with HMAC-SHA1 instead of RSA-SHA256, then 401 says which method it needs', async () => {
    const url = `${s.base}/api/v4/payout-check/1001`;
    const body: [string, string][] = Object.entries(payoutFields()).filter(
      (e): e is [string, string] => e[1] !== undefined,
    );
    const signed = independentlySigned(url, body, 'HMAC-SHA1');
    const r = await post(url, signed.body, { Authorization: signed.authorization });
    expect(r.status).toBe(401);
    expect(((await r.json()) as Record<string, string>)['error-message']).toContain('RSA-SHA256');
  });
});

// An independent signer following spec 5.2 with node:crypto only (not the protocol library).
function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function independentlySigned(
  url: string,
  body: [string, string][],
  method: 'HMAC-SHA1' | 'RSA-SHA256',
): { authorization: string; body: string } {
  const oauth: [string, string][] = [
    ['oauth_consumer_key', MERCHANT.login],
    ['oauth_nonce', randomBytes(12).toString('hex')],
    ['oauth_signature_method', method],
    ['oauth_timestamp', String(Math.floor(Date.now() / 1000))],
    ['oauth_version', '1.0'],
  ];
  const params = [...body, ...oauth]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const u = new URL(url);
  const normalized = `${u.protocol}//${u.host.toLowerCase()}${u.pathname}`;
  const base = ['POST', rfc3986(normalized), rfc3986(params)].join('&');
  const signature =
    method === 'HMAC-SHA1'
      ? createHmac('sha1', `${rfc3986(MERCHANT.controlKey)}&`)
          .update(base)
          .digest('base64')
      : createSign('RSA-SHA256').update(base, 'utf8').sign(PRIVATE_KEY_PEM, 'base64');
  const all: [string, string][] = [...oauth, ['oauth_signature', signature]];
  const header = all.map(([k, v]) => `${k}="${rfc3986(v)}"`).join(', ');
  return {
    authorization: `OAuth ${header}`,
    body: body.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&'),
  };
}

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      Accept: 'application/vnd.pay+json',
      'Content-Type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body,
  });
}

describe('a request signed by an independent implementation', () => {
  const payoutBody = (): [string, string][] => [
    ['client_orderid', uniqueId('indep')],
    ['amount', '12.50'],
    ['currency', 'EUR'],
    ['order_desc', 'Refund of order #7 (partial) & fees: 100% ok'],
    ['ipaddress', '192.0.2.7'],
    ['account_number', 'DE89370400440532013000'],
    ['bank_name', 'Test Bank AG'],
    ['bank_bic', 'COBADEFFXXX'],
  ];

  for (const method of ['HMAC-SHA1', 'RSA-SHA256'] as const) {
    const path = method === 'HMAC-SHA1' ? '/api/v2/payout/1001' : '/api/v4/payout-check/1001';
    it(`when ${method} is computed by hand per spec 5.2, then it is accepted; tampered, it is refused`, async () => {
      const url = s.base + path;
      const signed = independentlySigned(url, payoutBody(), method);
      const ok = await post(url, signed.body, { Authorization: signed.authorization });
      expect(ok.status).toBe(200);
      const again = independentlySigned(url, payoutBody(), method);
      const tampered = await post(url, again.body.replace('amount=12.50', 'amount=12.51'), {
        Authorization: again.authorization,
      });
      expect(tampered.status).toBe(401);
    });
  }

  it('when the control value is computed by hand per spec 5.1, then a sale is accepted; with another amount refused', async () => {
    const clientOrderId = uniqueId('indep');
    const fields: [string, string][] = [
      ['client_orderid', clientOrderId],
      ['order_desc', 'Independent'],
      ['amount', '10.42'],
      ['currency', 'EUR'],
      ...Object.entries(CUSTOMER),
      ['credit_card_number', '4111111111111111'],
      ['card_printed_name', 'JANE DOE'],
      ['expire_month', '12'],
      ['expire_year', String(new Date().getUTCFullYear() + 1)],
      ['cvv2', '123'],
      ['redirect_url', 'https://shop.example/back'],
    ];
    const control = createHash('sha1')
      .update(`1001${clientOrderId}1042${CUSTOMER.email}${MERCHANT.controlKey}`)
      .digest('hex');
    const body = (pairs: [string, string][]) =>
      pairs.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
    const ok = await post(`${s.base}/api/v2/sale/1001`, body([...fields, ['control', control]]));
    expect(ok.status).toBe(200);
    const tampered = fields.map(([k, v]): [string, string] =>
      k === 'amount' ? [k, '10.43'] : k === 'client_orderid' ? [k, `${v}-2`] : [k, v],
    );
    const refused = await post(
      `${s.base}/api/v2/sale/1001`,
      body([...tampered, ['control', control]]),
    );
    expect(refused.status).toBe(401);
  });
});
