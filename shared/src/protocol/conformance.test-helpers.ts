import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The conformance material lives in ../shared/conformance beside the repository (CI clones main
// with shared/ beside it). PAYDESK_CONFORMANCE_DIR points elsewhere when needed.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const conformanceDir =
  process.env.PAYDESK_CONFORMANCE_DIR ?? resolve(repoRoot, '..', 'shared', 'conformance');

export function readConformance(file: string): string {
  const path = join(conformanceDir, file);
  if (!existsSync(path)) {
    throw new Error(
      `conformance file ${path} is missing: the independent vectors must be beside the repository (../shared/conformance) or named by PAYDESK_CONFORMANCE_DIR`,
    );
  }
  return readFileSync(path, 'utf8');
}

export interface ControlVector {
  operation: string;
  fields: Record<string, string>;
  merchantControlKey: string;
  concatenated: string;
  control: string;
  note?: string;
}
export type AmountVector = { amount: string; cents: string } | { amount: string; error: true };
export interface PercentVector {
  value: string;
  encoded: string;
}
export interface OAuthVector {
  kind: 'oauth';
  signatureMethod: 'HMAC-SHA1' | 'RSA-SHA256';
  method: string;
  url: string;
  normalizedUrl: string;
  body: [string, string][];
  oauth: Record<string, string>;
  baseString: string;
  merchantControlKey?: string;
  privateKeyFile?: string;
  signature: string;
  authorizationHeader: string;
}
export interface Rfc5849Vector {
  kind: 'rfc5849-base-string';
  method: string;
  url: string;
  params: [string, string][];
  baseString: string;
  hmacKey: string;
  signature: string;
}
export interface CallbackVector {
  status: string;
  orderid: string;
  client_orderid: string;
  merchantControlKey: string;
  control: string;
}
export interface Vectors {
  control: ControlVector[];
  amounts: AmountVector[];
  percentEncoding: PercentVector[];
  oauth: (OAuthVector | Rfc5849Vector)[];
  callbackControl: CallbackVector[];
}

export const vectors = JSON.parse(readConformance('vectors.json')) as Vectors;
export const publicKeyPem = readConformance('merchant-test-rsa-2048.pub.pem');
