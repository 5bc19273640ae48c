import { createHmac, randomBytes, sign, timingSafeEqual, verify } from 'node:crypto';
import { ProtocolError } from './errors.js';
import { loadPrivateKey, loadPublicKey } from './keys.js';
import type { OAuthSignatureMethod } from './operations.js';
import { percentDecode, percentEncode } from './percent.js';

export type { OAuthSignatureMethod } from './operations.js';

/** Spec 5.2: a request may be at most this far (seconds) from the verifier's clock. */
export const OAUTH_TIMESTAMP_WINDOW_SECONDS = 300;
const SIGNATURE_METHODS: readonly OAuthSignatureMethod[] = ['HMAC-SHA1', 'RSA-SHA256'];
const REQUIRED = [
  'oauth_consumer_key',
  'oauth_signature_method',
  'oauth_signature',
  'oauth_timestamp',
  'oauth_nonce',
] as const;

type Pair = readonly [string, string];

/**
 * The normalized request address of spec 5.2 / RFC 5849 §3.4.1.2: lowercase scheme and host, no
 * default port, no query or fragment; the path is kept as the merchant configured it.
 */
export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProtocolError('INVALID_URL', 'the request URL is not an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ProtocolError('INVALID_URL', 'the request URL must use http or https');
  }
  // WHATWG URL already lowercases scheme and host and drops the scheme's default port.
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/** RFC 5849 §3.4.1.3.2: encode names and values, sort by name then value, join with `&`. */
export function normalizeParameters(params: readonly Pair[]): string {
  const encoded = params.map(
    ([name, value]) => [percentEncode(name), percentEncode(value)] as const,
  );
  encoded.sort(([an, av], [bn, bv]) => (an === bn ? compare(av, bv) : compare(an, bn)));
  return encoded.map(([name, value]) => `${name}=${value}`).join('&');
}

// Encoded parameters are ASCII, so UTF-16 code unit order is byte order.
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Signature base string: METHOD&url&parameters, each element percent-encoded once more. */
export function oauthBaseString(method: string, url: string, params: readonly Pair[]): string {
  return [
    method.toUpperCase(),
    percentEncode(normalizeUrl(url)),
    percentEncode(normalizeParameters(params)),
  ].join('&');
}

/** Base64 HMAC-SHA1 of a base string with a ready-made key (`encode(secret)&encode(token)`). */
export function hmacSha1Signature(baseString: string, key: string): string {
  return createHmac('sha1', key).update(baseString, 'utf8').digest('base64');
}

/** Spec 5.2 item 5: the percent-encoded control key, `&`, and an empty token secret. */
export function hmacSigningKey(merchantControlKey: string): string {
  return `${percentEncode(merchantControlKey)}&`;
}

/** Base64 RSASSA-PKCS1-v1_5 SHA-256 signature of the UTF-8 base string. */
export function rsaSha256Signature(baseString: string, privateKeyPem: string): string {
  return sign('sha256', Buffer.from(baseString, 'utf8'), loadPrivateKey(privateKeyPem)).toString(
    'base64',
  );
}

export interface SignOAuthRequest {
  /** The URL exactly as the merchant configured it; normalized here. */
  url: string;
  body: readonly Pair[];
  consumerKey: string;
  signatureMethod: OAuthSignatureMethod;
  merchantControlKey?: string | undefined;
  privateKeyPem?: string | undefined;
  /** Seconds since the epoch; now when omitted. */
  timestamp?: number | undefined;
  nonce?: string | undefined;
}

export interface SignedOAuth {
  /** The value of the `Authorization` header. */
  authorization: string;
  signature: string;
  baseString: string;
  oauth: Record<string, string>;
}

/** Signs a POST request per spec 5.2 (OAuth 1.0a, parameters in the Authorization header). */
export function signOAuth(req: SignOAuthRequest): SignedOAuth {
  const oauth: Record<string, string> = {
    oauth_consumer_key: req.consumerKey,
    oauth_nonce: req.nonce ?? randomBytes(16).toString('hex'),
    oauth_signature_method: req.signatureMethod,
    oauth_timestamp: String(req.timestamp ?? Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
  };
  const baseString = oauthBaseString('POST', req.url, [...req.body, ...Object.entries(oauth)]);
  const signature = computeSignature(req.signatureMethod, baseString, req);
  const header: Record<string, string> = { ...oauth, oauth_signature: signature };
  const authorization = `OAuth ${Object.keys(header)
    .sort()
    .map((name) => `${name}="${percentEncode(header[name] ?? '')}"`)
    .join(', ')}`;
  return { authorization, signature, baseString, oauth: header };
}

function computeSignature(
  method: OAuthSignatureMethod,
  baseString: string,
  secrets: { merchantControlKey?: string | undefined; privateKeyPem?: string | undefined },
): string {
  if (method === 'HMAC-SHA1') {
    if (!secrets.merchantControlKey) {
      throw new ProtocolError('MISSING_SECRET', 'HMAC-SHA1 signing needs the merchant control key');
    }
    return hmacSha1Signature(baseString, hmacSigningKey(secrets.merchantControlKey));
  }
  if (!secrets.privateKeyPem) {
    throw new ProtocolError('MISSING_SECRET', 'RSA-SHA256 signing needs the merchant private key');
  }
  return rsaSha256Signature(baseString, secrets.privateKeyPem);
}

export type ParsedAuthorization =
  { ok: true; params: Record<string, string> } | { ok: false; reason: string };

const HEADER_PARAM = /^\s*([A-Za-z0-9_.~%-]+)\s*=\s*"([^"]*)"\s*(?:,|$)/;

/** Parses `OAuth name="value", ...` (realm optional; each value percent-decoded). */
export function parseOAuthHeader(authorization: string | undefined): ParsedAuthorization {
  if (authorization === undefined || authorization.trim() === '') {
    return { ok: false, reason: 'missing Authorization header (OAuth 1.0a is required)' };
  }
  const scheme = /^\s*OAuth\s+/i.exec(authorization);
  if (!scheme) return { ok: false, reason: 'the Authorization scheme must be OAuth' };
  let rest = authorization.slice(scheme[0].length);
  const params: Record<string, string> = {};
  while (rest.trim() !== '') {
    const match = HEADER_PARAM.exec(rest);
    if (!match?.[1] || match[2] === undefined) {
      return { ok: false, reason: 'the Authorization header is not a list of name="value" pairs' };
    }
    let name: string;
    let value: string;
    try {
      name = percentDecode(match[1]);
      value = percentDecode(match[2]);
    } catch {
      return { ok: false, reason: 'the Authorization header has malformed percent-encoding' };
    }
    if (Object.hasOwn(params, name)) {
      return { ok: false, reason: `${name} is repeated in the Authorization header` };
    }
    params[name] = value;
    rest = rest.slice(match[0].length);
  }
  return { ok: true, params };
}

export interface VerifyOAuthRequest {
  method: string;
  /** The full URL the request was received at (scheme://host[:port]/path). */
  url: string;
  authorization: string | undefined;
  /** The decoded form body pairs, in order, repeated names kept. */
  body: readonly Pair[];
  merchantControlKey?: string | undefined;
  publicKeyPem?: string | undefined;
  /** The signature method the operation requires; any supported one when omitted. */
  expectedMethod?: OAuthSignatureMethod | undefined;
  nowSeconds?: number | undefined;
  /** Records the nonce and answers true when it was already seen (a replay). */
  seenNonce?: ((consumerKey: string, nonce: string, timestamp: number) => boolean) | undefined;
}

export type VerifyOAuthResult =
  { ok: true; consumerKey: string; oauth: Record<string, string> } | { ok: false; reason: string };

/**
 * Verifies an OAuth 1.0a request per spec 5.2 and design §3. Reasons name what to fix and never
 * carry the expected signature or a secret.
 */
export function verifyOAuth(req: VerifyOAuthRequest): VerifyOAuthResult {
  const parsed = parseOAuthHeader(req.authorization);
  if (!parsed.ok) return parsed;
  const header = parsed.params;
  delete header.realm;

  for (const name of REQUIRED) {
    if (!header[name])
      return { ok: false, reason: `${name} is missing from the Authorization header` };
  }
  if (header.oauth_version !== undefined && header.oauth_version !== '1.0') {
    return { ok: false, reason: 'oauth_version must be 1.0' };
  }
  const method = header.oauth_signature_method as OAuthSignatureMethod;
  if (!SIGNATURE_METHODS.includes(method)) {
    return {
      ok: false,
      reason: 'unsupported oauth_signature_method (use HMAC-SHA1 or RSA-SHA256)',
    };
  }
  if (req.expectedMethod && method !== req.expectedMethod) {
    return {
      ok: false,
      reason: `this operation is signed with ${req.expectedMethod}, not ${method}`,
    };
  }

  // oauth_* repeated in the body count once when identical to the header and are refused otherwise.
  const body: Pair[] = [];
  for (const pair of req.body) {
    const [name, value] = pair;
    if (!name.startsWith('oauth_')) {
      body.push(pair);
      continue;
    }
    if (header[name] === undefined) {
      return { ok: false, reason: `${name} is in the body but not in the Authorization header` };
    }
    if (header[name] !== value) {
      return { ok: false, reason: `${name} in the body differs from the Authorization header` };
    }
  }

  const timestampText = header.oauth_timestamp ?? '';
  if (!/^[0-9]{1,12}$/.test(timestampText)) {
    return { ok: false, reason: 'oauth_timestamp must be whole seconds since the epoch' };
  }
  const timestamp = Number(timestampText);
  const now = req.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > OAUTH_TIMESTAMP_WINDOW_SECONDS) {
    return {
      ok: false,
      reason: `oauth_timestamp is more than ${OAUTH_TIMESTAMP_WINDOW_SECONDS} s from the server clock`,
    };
  }

  const signed = Object.entries(header).filter(([name]) => name !== 'oauth_signature');
  let baseString: string;
  try {
    baseString = oauthBaseString(req.method, req.url, [...body, ...signed]);
  } catch (error) {
    return {
      ok: false,
      reason: error instanceof ProtocolError ? error.message : 'bad request URL',
    };
  }
  const signature = header.oauth_signature ?? '';
  const valid =
    method === 'HMAC-SHA1'
      ? verifyHmac(baseString, signature, req.merchantControlKey)
      : verifyRsa(baseString, signature, req.publicKeyPem);
  if (valid !== true) return { ok: false, reason: valid };

  const consumerKey = header.oauth_consumer_key ?? '';
  const nonce = header.oauth_nonce ?? '';
  if (req.seenNonce?.(consumerKey, nonce, timestamp)) {
    return { ok: false, reason: 'oauth_nonce was already used; every request needs a new nonce' };
  }
  return { ok: true, consumerKey, oauth: header };
}

const MISMATCH =
  'signature mismatch: sign POST, the normalized URL, every body parameter and the oauth_* parameters';

function verifyHmac(baseString: string, signature: string, key: string | undefined): true | string {
  if (!key) return 'HMAC-SHA1 is not configured for this merchant';
  const expected = Buffer.from(hmacSha1Signature(baseString, hmacSigningKey(key)), 'base64');
  const received = Buffer.from(signature, 'base64');
  return expected.length === received.length && timingSafeEqual(expected, received)
    ? true
    : `${MISMATCH} (HMAC-SHA1 with the control key)`;
}

function verifyRsa(
  baseString: string,
  signature: string,
  publicKeyPem: string | undefined,
): true | string {
  if (!publicKeyPem) return 'RSA-SHA256 is not configured for this merchant (no public key)';
  const ok = verify(
    'sha256',
    Buffer.from(baseString, 'utf8'),
    loadPublicKey(publicKeyPem),
    Buffer.from(signature, 'base64'),
  );
  return ok ? true : `${MISMATCH} (RSA-SHA256 with the registered key)`;
}
