import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from './errors.js';
import { loadPrivateKey, loadPublicKey } from './keys.js';
import {
  normalizeUrl,
  parseOAuthHeader,
  signOAuth,
  verifyOAuth,
  type VerifyOAuthRequest,
} from './oauth.js';
import { percentEncode } from './percent.js';
import { publicKeyPem, readConformance } from './conformance.test-helpers.js';

const url = 'https://Gate.Example:443/paynet/api/v2/payout/1001';
const receivedAt = 'https://gate.example/paynet/api/v2/payout/1001';
const controlKey = 'B17F59B4-A7DC-41B4-8FF9-37D986B43D20';
const privateKeyPem = readConformance('merchant-test-rsa-2048.pkcs8.pem');
const body: [string, string][] = [
  ['client_orderid', 'po-1'],
  ['amount', '10.00'],
  ['currency', 'EUR'],
  ['order_desc', 'Refund & thanks'],
];
const now = 1_800_000_000;

function signed(method: 'HMAC-SHA1' | 'RSA-SHA256' = 'HMAC-SHA1', nonce = 'n-1') {
  return signOAuth({
    url,
    body,
    consumerKey: 'shop 01',
    signatureMethod: method,
    merchantControlKey: controlKey,
    privateKeyPem,
    timestamp: now,
    nonce,
  });
}

function verifyWith(overrides: Partial<VerifyOAuthRequest>) {
  return verifyOAuth({
    method: 'POST',
    url: receivedAt,
    authorization: signed().authorization,
    body,
    merchantControlKey: controlKey,
    publicKeyPem,
    nowSeconds: now,
    ...overrides,
  });
}

function refusal(result: ReturnType<typeof verifyOAuth>): string {
  expect(result.ok).toBe(false);
  return result.ok ? '' : result.reason;
}

describe('verifyOAuth', () => {
  it('when the request is signed with HMAC-SHA1 at the verifier URL, then it is accepted', () => {
    expect(verifyWith({})).toMatchObject({ ok: true, consumerKey: 'shop 01' });
  });

  it('when the request is signed with RSA-SHA256 (PKCS#8 key), then the public key verifies it', () => {
    expect(verifyWith({ authorization: signed('RSA-SHA256').authorization })).toMatchObject({
      ok: true,
    });
  });

  it('when a body value is tampered, then the signature is refused', () => {
    const tampered = body.map(([n, v]): [string, string] => [n, n === 'amount' ? '1000.00' : v]);
    expect(refusal(verifyWith({ body: tampered }))).toMatch(/signature mismatch/);
  });

  it('when a body parameter is added, then the signature is refused', () => {
    expect(refusal(verifyWith({ body: [...body, ['extra', '1']] }))).toMatch(/signature mismatch/);
  });

  it('when the verifier holds another control key, then HMAC is refused', () => {
    expect(refusal(verifyWith({ merchantControlKey: 'another-key' }))).toMatch(
      /signature mismatch/,
    );
  });

  it('when the verifier holds another public key, then RSA is refused', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({
        type: 'spki',
        format: 'pem',
      })
      .toString();
    const result = verifyWith({
      authorization: signed('RSA-SHA256').authorization,
      publicKeyPem: other,
    });
    expect(refusal(result)).toMatch(/signature mismatch/);
  });

  it('when the timestamp is 301 s away either way, then it is refused; 300 s is still accepted', () => {
    expect(refusal(verifyWith({ nowSeconds: now + 301 }))).toMatch(/oauth_timestamp/);
    expect(refusal(verifyWith({ nowSeconds: now - 301 }))).toMatch(/oauth_timestamp/);
    expect(verifyWith({ nowSeconds: now + 300 }).ok).toBe(true);
  });

  it('when a nonce is replayed, then the second request is refused', () => {
    const seen = new Set<string>();
    const seenNonce = (key: string, nonce: string) => {
      const id = `${key}\n${nonce}`;
      if (seen.has(id)) return true;
      seen.add(id);
      return false;
    };
    expect(verifyWith({ seenNonce }).ok).toBe(true);
    expect(refusal(verifyWith({ seenNonce }))).toMatch(/nonce was already used/);
    expect(
      verifyWith({ seenNonce, authorization: signed('HMAC-SHA1', 'n-2').authorization }).ok,
    ).toBe(true);
  });

  it('when the signature is wrong, then the nonce is not spent', () => {
    const spent: string[] = [];
    const seenNonce = (_: string, nonce: string) => (spent.push(nonce), false);
    verifyWith({ seenNonce, merchantControlKey: 'wrong' });
    expect(spent).toEqual([]);
  });

  it('when the Authorization header is missing or not OAuth, then the reason says so', () => {
    expect(refusal(verifyWith({ authorization: undefined }))).toMatch(
      /missing Authorization header/,
    );
    expect(refusal(verifyWith({ authorization: 'Basic abc' }))).toMatch(/scheme must be OAuth/);
    expect(refusal(verifyWith({ authorization: 'OAuth garbage' }))).toMatch(/name="value"/);
  });

  it('when a required oauth parameter is missing, then it is named', () => {
    const header = signed().authorization.replace(/oauth_nonce="[^"]*", /, '');
    expect(refusal(verifyWith({ authorization: header }))).toMatch(/oauth_nonce is missing/);
  });

  it('when the signature method is unsupported or not the one the operation needs, then it is refused', () => {
    const plaintext = signed().authorization.replace('HMAC-SHA1', 'PLAINTEXT');
    expect(refusal(verifyWith({ authorization: plaintext }))).toMatch(
      /unsupported oauth_signature_method/,
    );
    expect(refusal(verifyWith({ expectedMethod: 'RSA-SHA256' }))).toMatch(/signed with RSA-SHA256/);
  });

  it('when oauth_* are repeated identically in the body, then they count once and it is accepted', () => {
    const { oauth, authorization } = signed();
    const repeated: [string, string][] = [...body, ...Object.entries(oauth)];
    expect(verifyWith({ authorization, body: repeated }).ok).toBe(true);
  });

  it('when an oauth_* repeated in the body differs from the header, then it is refused', () => {
    const { authorization } = signed();
    const differing: [string, string][] = [...body, ['oauth_nonce', 'other']];
    expect(refusal(verifyWith({ authorization, body: differing }))).toMatch(
      /oauth_nonce in the body differs/,
    );
  });

  it('when an oauth parameter is repeated in the header, then it is refused', () => {
    const header = `${signed().authorization}, oauth_nonce="n-9"`;
    expect(refusal(verifyWith({ authorization: header }))).toMatch(
      /repeated in the Authorization header/,
    );
  });

  it('when a realm is present and the separators have no space, then it is still accepted', () => {
    const header = signed()
      .authorization.replace('OAuth ', 'OAuth realm="Paynet",')
      .replaceAll(', ', ',');
    expect(verifyWith({ authorization: header }).ok).toBe(true);
  });

  it('when a refusal is reported, then it never contains the expected signature or the key', () => {
    const result = verifyWith({ body: [...body, ['x', 'y']] });
    const reason = refusal(result);
    expect(reason).not.toContain(controlKey);
    expect(reason).not.toContain(signed().signature);
  });
});

describe('parseOAuthHeader', () => {
  it('when values are percent-encoded, then they are decoded', () => {
    const parsed = parseOAuthHeader(`OAuth oauth_consumer_key="${percentEncode('m+1 x')}"`);
    expect(parsed).toEqual({ ok: true, params: { oauth_consumer_key: 'm+1 x' } });
  });
});

describe('normalizeUrl', () => {
  it('when the URL has an upper-case host, a default port, a query and a fragment, then they are normalized away', () => {
    expect(normalizeUrl('HTTP://Example.COM:80/Path/a?b=1#c')).toBe('http://example.com/Path/a');
    expect(normalizeUrl('https://example.com:8443/x')).toBe('https://example.com:8443/x');
  });

  it('when the URL is not absolute http(s), then ProtocolError is thrown', () => {
    expect(() => normalizeUrl('/relative')).toThrow(ProtocolError);
    expect(() => normalizeUrl('ftp://example.com/x')).toThrow(ProtocolError);
  });
});

describe('RSA keys', () => {
  it('when the key is PKCS#1 or PKCS#8, then both sign identically', () => {
    const pkcs1 = readConformance('merchant-test-rsa-2048.pkcs1.pem');
    const a = signOAuth({
      url,
      body,
      consumerKey: 'k',
      signatureMethod: 'RSA-SHA256',
      privateKeyPem: pkcs1,
      timestamp: now,
      nonce: 'n',
    });
    const b = signOAuth({
      url,
      body,
      consumerKey: 'k',
      signatureMethod: 'RSA-SHA256',
      privateKeyPem,
      timestamp: now,
      nonce: 'n',
    });
    expect(a.signature).toBe(b.signature);
  });

  it('when a key has fewer than 2048 bits, then it is refused with the bit count', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(() => loadPrivateKey(pem)).toThrow(/1024 bits; at least 2048/);
    expect(() =>
      loadPublicKey(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    ).toThrow(/1024 bits/);
  });

  it('when the key is not RSA or not PEM, then it is refused clearly', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      })
      .toString();
    expect(() => loadPrivateKey(ec)).toThrow(/not an RSA key/);
    expect(() => loadPrivateKey('not a key')).toThrow(/not a readable/);
  });

  it('when signing without the needed secret, then ProtocolError names it', () => {
    expect(() => signOAuth({ url, body, consumerKey: 'k', signatureMethod: 'RSA-SHA256' })).toThrow(
      /private key/,
    );
    expect(() => signOAuth({ url, body, consumerKey: 'k', signatureMethod: 'HMAC-SHA1' })).toThrow(
      /control key/,
    );
  });
});
