import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { ProtocolError } from './errors.js';

export const MIN_RSA_BITS = 2048;

function checkRsa(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== 'rsa') {
    throw new ProtocolError(
      'INVALID_KEY',
      `${what} is not an RSA key (${key.asymmetricKeyType ?? 'unknown type'})`,
    );
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) {
    throw new ProtocolError(
      'INVALID_KEY',
      `${what} has ${bits} bits; at least ${MIN_RSA_BITS} are required`,
    );
  }
  return key;
}

// Parsing a PEM costs far more than one signature, so parsed keys are kept by their text.
const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 32;

function remember(cache: Map<string, KeyObject>, pem: string, key: KeyObject): KeyObject {
  if (cache.size >= MAX_CACHED_KEYS) cache.clear();
  cache.set(pem, key);
  return key;
}

/** An RSA private key from PKCS#1 or PKCS#8 PEM (unencrypted), at least 2048 bits. */
export function loadPrivateKey(pem: string): KeyObject {
  const cached = privateKeys.get(pem);
  if (cached) return cached;
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new ProtocolError(
      'INVALID_KEY',
      'private key is not a readable unencrypted PEM (PKCS#1 or PKCS#8)',
    );
  }
  return remember(privateKeys, pem, checkRsa(key, 'private key'));
}

/** An RSA public key from SPKI or PKCS#1 PEM (a private key PEM gives its public half). */
export function loadPublicKey(pem: string): KeyObject {
  const cached = publicKeys.get(pem);
  if (cached) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new ProtocolError('INVALID_KEY', 'public key is not a readable PEM (SPKI or PKCS#1)');
  }
  return remember(publicKeys, pem, checkRsa(key, 'public key'));
}
