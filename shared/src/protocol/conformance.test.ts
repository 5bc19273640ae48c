import { describe, expect, it } from 'vitest';
import {
  callbackControl,
  controlConcatenation,
  controlValue,
  verifyCallbackControl,
  verifyControl,
} from './control.js';
import { ProtocolError } from './errors.js';
import { formatMinorUnits, toMinorUnits } from './money.js';
import {
  hmacSha1Signature,
  normalizeUrl,
  oauthBaseString,
  signOAuth,
  verifyOAuth,
} from './oauth.js';
import { percentDecode, percentEncode } from './percent.js';
import {
  publicKeyPem,
  readConformance,
  vectors,
  type OAuthVector,
  type Rfc5849Vector,
} from './conformance.test-helpers.js';

// Every vector of ../shared/conformance/vectors.json (computed by an independent implementation)
// runs through our signers and our verifiers.

describe('conformance: control values (spec 5.1)', () => {
  it('when the vectors load, then every kind is present', () => {
    expect(vectors.control.length).toBeGreaterThan(0);
    expect(vectors.amounts.length).toBeGreaterThan(0);
    expect(vectors.percentEncoding.length).toBeGreaterThan(0);
    expect(vectors.oauth.length).toBeGreaterThan(0);
    expect(vectors.callbackControl.length).toBeGreaterThan(0);
  });

  describe.each(vectors.control)('$operation $control', (v) => {
    it('when signing, then the concatenation and the control value match the vector', () => {
      expect(controlConcatenation(v.operation, v.fields, v.merchantControlKey)).toBe(
        v.concatenated,
      );
      expect(controlValue(v.operation, v.fields, v.merchantControlKey)).toBe(v.control);
    });

    it('when verifying, then the vector value is accepted in either hex case and a changed one is refused', () => {
      expect(verifyControl(v.operation, v.fields, v.merchantControlKey, v.control)).toBe(true);
      expect(
        verifyControl(v.operation, v.fields, v.merchantControlKey, v.control.toUpperCase()),
      ).toBe(true);
      const flipped = (v.control.startsWith('0') ? '1' : '0') + v.control.slice(1);
      expect(verifyControl(v.operation, v.fields, v.merchantControlKey, flipped)).toBe(false);
      expect(verifyControl(v.operation, v.fields, `${v.merchantControlKey}x`, v.control)).toBe(
        false,
      );
    });
  });
});

describe('conformance: amounts in minor units', () => {
  it.each(vectors.amounts)('amount "$amount"', (v) => {
    if ('error' in v) {
      expect(() => toMinorUnits(v.amount)).toThrow(ProtocolError);
    } else {
      expect(toMinorUnits(v.amount)).toBe(BigInt(v.cents));
      expect(toMinorUnits(formatMinorUnits(BigInt(v.cents)))).toBe(BigInt(v.cents));
    }
  });
});

describe('conformance: percent-encoding (RFC 3986)', () => {
  it.each(vectors.percentEncoding)('"$value" ⇄ "$encoded"', (v) => {
    expect(percentEncode(v.value)).toBe(v.encoded);
    expect(percentDecode(v.encoded)).toBe(v.value);
  });
});

const oauthVectors = vectors.oauth.filter((v): v is OAuthVector => v.kind === 'oauth');
const rfcVectors = vectors.oauth.filter(
  (v): v is Rfc5849Vector => v.kind === 'rfc5849-base-string',
);

function secretsOf(v: OAuthVector) {
  return v.signatureMethod === 'HMAC-SHA1'
    ? { merchantControlKey: v.merchantControlKey }
    : { privateKeyPem: readConformance(v.privateKeyFile ?? 'missing-private-key-file') };
}

describe('conformance: OAuth 1.0a (spec 5.2)', () => {
  it('when the vectors load, then both signature methods are covered', () => {
    const methods = new Set(oauthVectors.map((v) => v.signatureMethod));
    expect([...methods].sort()).toEqual(['HMAC-SHA1', 'RSA-SHA256']);
    expect(rfcVectors.length).toBeGreaterThan(0);
  });

  describe.each(oauthVectors)('$signatureMethod $url', (v) => {
    it('when signing with the vector clock and nonce, then URL, base string, signature and header match', () => {
      expect(normalizeUrl(v.url)).toBe(v.normalizedUrl);
      expect(oauthBaseString(v.method, v.url, [...v.body, ...Object.entries(v.oauth)])).toBe(
        v.baseString,
      );
      const signed = signOAuth({
        url: v.url,
        body: v.body,
        consumerKey: v.oauth.oauth_consumer_key ?? '',
        signatureMethod: v.signatureMethod,
        timestamp: Number(v.oauth.oauth_timestamp),
        nonce: v.oauth.oauth_nonce,
        ...secretsOf(v),
      });
      expect(signed.baseString).toBe(v.baseString);
      expect(signed.signature).toBe(v.signature);
      expect(signed.authorization).toBe(v.authorizationHeader);
    });

    it('when verifying the vector header at its own time, then it is accepted for its consumer key', () => {
      const result = verifyOAuth({
        method: v.method,
        url: v.url,
        authorization: v.authorizationHeader,
        body: v.body,
        nowSeconds: Number(v.oauth.oauth_timestamp),
        ...(v.signatureMethod === 'HMAC-SHA1'
          ? { merchantControlKey: v.merchantControlKey }
          : { publicKeyPem }),
      });
      expect(result).toMatchObject({ ok: true, consumerKey: v.oauth.oauth_consumer_key });
    });

    it('when one body value is changed, then the vector signature is refused', () => {
      const [first, ...rest] = v.body;
      const tampered: [string, string][] = [[first![0], `${first![1]}1`], ...rest];
      const result = verifyOAuth({
        method: v.method,
        url: v.url,
        authorization: v.authorizationHeader,
        body: tampered,
        nowSeconds: Number(v.oauth.oauth_timestamp),
        ...(v.signatureMethod === 'HMAC-SHA1'
          ? { merchantControlKey: v.merchantControlKey }
          : { publicKeyPem }),
      });
      expect(result.ok ? 'accepted' : result.reason).toContain('signature mismatch');
    });
  });

  it.each(rfcVectors)(
    'RFC 5849 worked example: base string and HMAC-SHA1 with a token secret',
    (v) => {
      expect(oauthBaseString(v.method, v.url, v.params)).toBe(v.baseString);
      expect(hmacSha1Signature(v.baseString, v.hmacKey)).toBe(v.signature);
    },
  );
});

describe('conformance: callback control (design §3)', () => {
  it.each(vectors.callbackControl)('$status $orderid', (v) => {
    expect(callbackControl(v.status, v.orderid, v.client_orderid, v.merchantControlKey)).toBe(
      v.control,
    );
    expect(
      verifyCallbackControl({ ...v, control: v.control.toUpperCase() }, v.merchantControlKey),
    ).toBe(true);
    expect(
      verifyCallbackControl(
        { ...v, status: 'approved', control: v.control },
        `${v.merchantControlKey}x`,
      ),
    ).toBe(false);
    expect(verifyCallbackControl({ ...v, control: undefined }, v.merchantControlKey)).toBe(false);
  });
});
