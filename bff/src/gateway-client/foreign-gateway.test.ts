// A gateway that is not our sandbox but follows the spec: every request the BFF's client builds,
// for every operation of the catalog, is checked by a verifier written here from spec §5 alone,
// with node:crypto and none of the protocol library's code (which signs the requests and which
// the sandbox also uses to verify them: a bug there would cancel out).
import { createHash, createHmac, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operations } from '@paydesk/shared/protocol';
import { describe, expect, it } from 'vitest';
import { GatewayClient } from './client.js';

const conformance = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/conformance',
);
const privateKeyPem = readFileSync(
  resolve(conformance, 'merchant-test-rsa-2048.pkcs1.pem'),
  'utf8',
);
const publicKey = createPublicKey(
  readFileSync(resolve(conformance, 'merchant-test-rsa-2048.pub.pem'), 'utf8'),
);
// A login and a key with characters that percent-encoding must get right.
const merchant = {
  login: 'shop 01+ü',
  controlKey: 'K3Y/with&odd=chars ü',
  rsaPrivateKeyPem: privateKeyPem,
};
const baseUrl = 'HTTPS://Gate.Example:443/paynet';
const endpointId = '1001';

// Spec 5.1, transcribed independently of the library's catalog.
const FORMULAS: Record<string, string[]> = {
  'upload-cres-result': ['login', 'client-order-id', 'orderid'],
  'upload-method-url-result': ['login', 'client-order-id', 'orderid'],
  'upload-pares-result': ['login', 'client-order-id', 'orderid'],
  'account-verification': ['endpointId', 'client_orderid', 'email'],
  'account-verification-form': ['endpointId', 'client_orderid', 'email'],
  capture: ['login', 'client_orderid', 'orderid', 'amount', 'currency'],
  'create-card-ref': ['login', 'client_orderid', 'orderid'],
  'make-rebill': ['login', 'client_orderid', 'cardrefid', 'amount', 'currency'],
  preauth: ['endpointId', 'client_orderid', 'amount', 'email'],
  'preauth-form': ['endpointId', 'client_orderid', 'amount', 'email'],
  sale: ['endpointId', 'client_orderid', 'amount', 'email'],
  'sale-form': ['endpointId', 'client_orderid', 'amount', 'email'],
  'payment-form': ['endpointId', 'client_orderid', 'amount', 'email'],
  return: ['login', 'client_orderid', 'orderid', 'amount', 'currency'],
  status: ['login', 'client_orderid', 'orderid'],
  void: ['login', 'client_orderid', 'orderid'],
  'get-card-info': ['login', 'cardrefid'],
};
const HMAC_OPERATIONS = new Set(['payout', 'payout-form', 'pan-eligibility-send']);

// Amounts in cents by string arithmetic, never a float.
function cents(amount: string): string {
  const [units = '0', fraction = ''] = amount.split('.');
  return String(BigInt(units) * 100n + BigInt(fraction.padEnd(2, '0') || '0'));
}

function expectedControl(operation: string, body: Record<string, string>): string {
  const fields = FORMULAS[operation] ?? [];
  const text = fields
    .map((name) => {
      if (name === 'endpointId') return endpointId;
      if (name === 'amount') return body.amount === undefined ? '' : cents(body.amount);
      if (name === 'client-order-id') return body['client-order-id'] ?? body.client_orderid ?? '';
      return body[name] ?? '';
    })
    .join('');
  return createHash('sha1')
    .update(text + merchant.controlKey, 'utf8')
    .digest('hex');
}

const rfc3986 = (value: string): string =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

function verifyOAuthIndependently(
  url: string,
  body: [string, string][],
  authorization: string,
  method: 'HMAC-SHA1' | 'RSA-SHA256',
): boolean {
  expect(authorization.startsWith('OAuth ')).toBe(true);
  const header = new Map<string, string>();
  for (const part of authorization.slice(6).split(/,\s*/)) {
    const match = /^([a-z_]+)="([^"]*)"$/.exec(part);
    expect(match, part).not.toBeNull();
    header.set(match![1]!, decodeURIComponent(match![2]!));
  }
  expect(header.get('oauth_signature_method')).toBe(method);
  expect(header.get('oauth_consumer_key')).toBe(merchant.login);
  expect(header.get('oauth_version')).toBe('1.0');
  const params: [string, string][] = [
    ...body,
    ...[...header].filter(([name]) => name !== 'oauth_signature'),
  ].map(([n, v]) => [rfc3986(n), rfc3986(v)]);
  params.sort(([an, av], [bn, bv]) => (an === bn ? (av < bv ? -1 : 1) : an < bn ? -1 : 1));
  // Spec 5.2: lowercase scheme and host, no default port (the client was given HTTPS://Gate.Example:443).
  const normalized = `https://gate.example${new URL(url).pathname}`;
  const base = [
    'POST',
    rfc3986(normalized),
    rfc3986(params.map(([n, v]) => `${n}=${v}`).join('&')),
  ].join('&');
  const signature = header.get('oauth_signature') ?? '';
  if (method === 'HMAC-SHA1') {
    const key = `${rfc3986(merchant.controlKey)}&`;
    return createHmac('sha1', key).update(base, 'utf8').digest('base64') === signature;
  }
  return verify('sha256', Buffer.from(base, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
}

const sampleFields: Record<string, string> = {
  client_orderid: 'ord-ü 1/2',
  orderid: '1000042',
  amount: '1234.5',
  currency: 'EUR',
  email: 'a+b@example.com',
  cardrefid: '471234567',
  comment: 'refund & thanks',
  order_desc: '100% café',
};

describe('requests verified by an independent implementation of spec §5', () => {
  const client = new GatewayClient({ baseUrl, merchant, timeoutMs: 1000 });

  it('when the catalog is walked, then it covers every operation of spec §4.2', () => {
    expect(operations.length).toBeGreaterThanOrEqual(23);
  });

  describe.each(operations.map((o) => [o.name, o] as const))('%s', (name, operation) => {
    it('when the client signs it, then a spec-following gateway accepts the signature', () => {
      const { client_orderid: clientOrderId = '', ...rest } = sampleFields;
      const fields = name.startsWith('upload-')
        ? { ...rest, 'client-order-id': clientOrderId }
        : sampleFields;
      const { url, body, authorization } = client.buildRequest(operation, endpointId, fields);
      expect(url).toBe(`${baseUrl}${operation.path.replace('{endpointId}', endpointId)}`);
      const values = Object.fromEntries(body);
      if (operation.auth.scheme === 'control') {
        expect(authorization).toBeNull();
        expect(Object.keys(FORMULAS)).toContain(name);
        expect(values.control).toBe(expectedControl(name, values));
        if (FORMULAS[name]?.includes('login')) expect(values.login).toBe(merchant.login);
      } else {
        const method = HMAC_OPERATIONS.has(name) ? 'HMAC-SHA1' : 'RSA-SHA256';
        expect(values.control).toBeUndefined();
        expect(verifyOAuthIndependently(url, body, authorization ?? '', method)).toBe(true);
        const tampered = body.map(([n, v]): [string, string] => [
          n,
          n === 'amount' ? '9999.99' : v,
        ]);
        expect(verifyOAuthIndependently(url, tampered, authorization ?? '', method)).toBe(false);
      }
    });
  });
});
