// A merchant-side client of the gateway API built on the protocol library: the control value or
// the OAuth signature per operation, form-encoded body, the vnd.pay+json reply parsed.
import {
  GATEWAY_CONTENT_TYPE,
  controlValue,
  formEncode,
  operationByName,
  operationPath,
  parseGatewayReply,
  signOAuth,
  type GatewayReply,
} from '@paydesk/shared/protocol';

export interface MerchantCredentials {
  login: string;
  controlKey: string;
  privateKeyPem?: string | undefined;
}

export interface CallOptions {
  /** Override (or with null, omit) the Accept header. */
  accept?: string | null;
  /** Override the computed control value. */
  control?: string;
  /** OAuth: fixed timestamp (seconds) and nonce. */
  timestamp?: number;
  nonce?: string;
  /** Changes the body after signing (tamper tests). */
  tamper?: (body: string) => string;
}

export interface CallResult {
  httpStatus: number;
  reply: GatewayReply;
}

export class GatewayClient {
  constructor(
    /** `http://host:port/paynet` */
    readonly baseUrl: string,
    readonly merchant: MerchantCredentials,
  ) {}

  async call(
    operation: string,
    endpointId: number,
    fields: Record<string, string | undefined>,
    options: CallOptions = {},
  ): Promise<CallResult> {
    const spec = operationByName(operation);
    if (!spec) throw new Error(`unknown operation ${operation}`);
    const url = this.baseUrl + operationPath(operation, endpointId);
    const pairs: [string, string][] = Object.entries(fields).filter(
      (e): e is [string, string] => e[1] !== undefined,
    );
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (options.accept !== null) headers.Accept = options.accept ?? GATEWAY_CONTENT_TYPE;
    if (spec.auth.scheme === 'control') {
      const control =
        options.control ??
        controlValue(
          operation,
          { ...fields, endpointId: String(endpointId) },
          this.merchant.controlKey,
        );
      pairs.push(['control', control]);
    } else {
      const signed = signOAuth({
        url,
        body: pairs,
        consumerKey: this.merchant.login,
        signatureMethod: spec.auth.method,
        merchantControlKey: this.merchant.controlKey,
        privateKeyPem: this.merchant.privateKeyPem,
        timestamp: options.timestamp,
        nonce: options.nonce,
      });
      headers.Authorization = signed.authorization;
    }
    let body = formEncode(pairs);
    if (options.tamper) body = options.tamper(body);
    const response = await fetch(url, { method: 'POST', headers, body });
    const text = await response.text();
    return {
      httpStatus: response.status,
      reply: parseGatewayReply(response.headers.get('content-type') ?? undefined, text),
    };
  }
}
