// Seals small secrets stored in the database (TOTP secrets) with AES-256-GCM under a key derived
// from the session secret, so a database dump alone does not yield them.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export class Sealer {
  readonly #key: Buffer;
  constructor(secret: Uint8Array) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'paydesk', 'paydesk sealed columns v1', 32));
  }
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      'v1',
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }
  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('sealed value has an unknown format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}
