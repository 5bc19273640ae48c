// The BFF's only door to the gateway: every request signed per spec §5, sent with a deadline, and
// its outcome classified so that a money-moving operation whose result was not learned is
// recorded as `unknown` and reconciled with `status`, never sent again (design §3, §5).
import {
  controlFields,
  controlValue,
  formEncode,
  GATEWAY_CONTENT_TYPE,
  FORM_CONTENT_TYPE,
  operationByName,
  operationPath,
  parseGatewayReply,
  ProtocolError,
  signOAuth,
  type GatewayReply,
  type OperationSpec,
} from '@paydesk/shared/protocol';
import type { Logger } from 'pino';
import { request } from 'undici';
import { redactFields } from './redact.js';

export interface MerchantCredentials {
  login: string;
  controlKey: string;
  /** PEM (PKCS#1 or PKCS#8); needed only for the v4 RSA-SHA256 operations. */
  rsaPrivateKeyPem: string | null;
}

export interface GatewayClientOptions {
  /** The gateway base URL exactly as configured, e.g. `https://gate.example/paynet`. */
  baseUrl: string;
  merchant: MerchantCredentials;
  /** How long to wait for a reply before the outcome is `unknown`. */
  timeoutMs: number;
  now?: () => Date;
  /** where an exchange whose outcome was not learned (or that was not sent) is logged, at warn */
  logger?: Logger;
}

/** One request and its reply as they may be stored and shown: redacted, never a secret. */
export interface GatewayExchange {
  operation: string;
  endpointId: string;
  url: string;
  request: Record<string, string>;
  sentAt: string;
  receivedAt: string | null;
  httpStatus: number | null;
  reply: Record<string, string> | null;
  /** The reply body as received when it could not be parsed, cut to 2,000 characters. */
  rawReply: string | null;
  error: string | null;
}

export type GatewayOutcome =
  /** The gateway answered with a reply it meant: 200, or a definite 4xx refusal. */
  | { kind: 'reply'; httpStatus: number; reply: GatewayReply; exchange: GatewayExchange }
  /** The request may have been applied: no reply within `waitedMs` (the client's timeout). */
  | { kind: 'unknown'; reason: 'timeout'; waitedMs: number; exchange: GatewayExchange }
  /** The request may have been applied: dropped connection, 5xx, unreadable reply. */
  | {
      kind: 'unknown';
      reason: 'connection-lost' | 'server-error' | 'unreadable-reply';
      exchange: GatewayExchange;
    }
  /** The request certainly did not reach the gateway (connection refused, bad address). */
  | { kind: 'not-sent'; reason: string; exchange: GatewayExchange };

// Fields that spec 5.1 does not sign but fields.md requires: the operation's login.
const NEEDS_LOGIN = new Set(['payout-pay', 'create-card-ref-v4']);

// A refused or unresolvable connection (the error's code, or its cause's): those requests never
// left this machine.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

export class GatewayClient {
  private readonly now: () => Date;

  constructor(private readonly options: GatewayClientOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The signed body of one request, in the order sent (exposed for tests and the timeline). */
  buildRequest(
    operation: OperationSpec,
    endpointId: string,
    fields: Readonly<Record<string, string>>,
  ): { url: string; body: [string, string][]; authorization: string | null } {
    const { merchant } = this.options;
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}${operationPath(operation.name, endpointId)}`;
    const withLogin: Record<string, string> = { ...fields };
    const signsLogin =
      operation.auth.scheme === 'control' && controlFields(operation.name).includes('login');
    if (signsLogin || NEEDS_LOGIN.has(operation.name)) withLogin.login = merchant.login;

    if (operation.auth.scheme === 'control') {
      const control = controlValue(
        operation.name,
        { ...withLogin, endpointId },
        merchant.controlKey,
      );
      return {
        url,
        body: [...Object.entries(withLogin), ['control', control]],
        authorization: null,
      };
    }
    const body = Object.entries(withLogin);
    if (operation.auth.method === 'RSA-SHA256' && merchant.rsaPrivateKeyPem === null) {
      throw new ProtocolError(
        'MISSING_SECRET',
        `operation ${operation.name} needs MERCHANT_RSA_KEY_FILE (RSA-SHA256), which is not configured`,
      );
    }
    const signed = signOAuth({
      url,
      body,
      consumerKey: merchant.login,
      signatureMethod: operation.auth.method,
      merchantControlKey: merchant.controlKey,
      privateKeyPem: merchant.rsaPrivateKeyPem ?? undefined,
    });
    return { url, body, authorization: signed.authorization };
  }

  /** Signs and sends one operation; never throws for what the network or the gateway did. */
  async send(
    operationName: string,
    endpointId: string,
    fields: Readonly<Record<string, string>>,
  ): Promise<GatewayOutcome> {
    const operation = operationByName(operationName);
    if (!operation)
      throw new ProtocolError('UNKNOWN_OPERATION', `unknown operation ${operationName}`);
    const { url, body, authorization } = this.buildRequest(operation, endpointId, fields);
    const exchange: GatewayExchange = {
      operation: operation.name,
      endpointId,
      url,
      request: redactFields(Object.fromEntries(body)),
      sentAt: this.now().toISOString(),
      receivedAt: null,
      httpStatus: null,
      reply: null,
      rawReply: null,
      error: null,
    };
    const headers: Record<string, string> = {
      Accept: GATEWAY_CONTENT_TYPE,
      'Content-Type': FORM_CONTENT_TYPE,
    };
    if (authorization !== null) headers.Authorization = authorization;

    let status: number;
    let contentType: string | undefined;
    let text: string;
    // The deadline covers the reply's body too. A timer of our own, cleared once the reply is
    // read. undici's `request` rather than `fetch`: a third of the CPU per call
    // (test/bench/RESULTS-load.md, session 4).
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort(new Error('The gateway did not answer in time'));
    }, this.options.timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body: formEncode(body),
        signal: deadline.signal,
      });
      status = response.statusCode;
      const type = response.headers['content-type'];
      contentType = Array.isArray(type) ? type[0] : type;
      text = await response.body.text();
    } catch (error) {
      exchange.receivedAt = this.now().toISOString();
      if (deadline.signal.aborted) {
        exchange.error = `no reply within ${this.options.timeoutMs} ms`;
        return this.failed({
          kind: 'unknown',
          reason: 'timeout',
          waitedMs: this.options.timeoutMs,
          exchange,
        });
      }
      const code = errorCode(error);
      if (code !== undefined && NOT_SENT_CODES.has(code)) {
        exchange.error = `could not connect to the gateway (${code})`;
        return this.failed({ kind: 'not-sent', reason: exchange.error, exchange }, code);
      }
      exchange.error = `connection lost before a reply${code === undefined ? '' : ` (${code})`}`;
      return this.failed({ kind: 'unknown', reason: 'connection-lost', exchange }, code);
    } finally {
      clearTimeout(timer);
    }

    exchange.receivedAt = this.now().toISOString();
    exchange.httpStatus = status;
    let reply: GatewayReply;
    try {
      // A redirect (never followed: the signed request is for this URL only) reads as no reply.
      if (status >= 300 && status < 400) throw new Error('redirect');
      reply = parseGatewayReply(contentType, text);
    } catch {
      exchange.rawReply = text.slice(0, 2000);
      exchange.error = 'the gateway reply could not be read';
      return this.failed({
        kind: 'unknown',
        reason: status >= 500 ? 'server-error' : 'unreadable-reply',
        exchange,
      });
    }
    exchange.reply = redactFields(reply.fields);
    if (status >= 500) {
      exchange.error = `gateway answered ${status}`;
      return this.failed({ kind: 'unknown', reason: 'server-error', exchange }, reply.errorCode);
    }
    return { kind: 'reply', httpStatus: status, reply, exchange };
  }

  /**
   * Logs an exchange whose outcome Paydesk did not learn, or that never left, at warn: what it was
   * (operation, endpoint, the order's ids as the redacted request holds them) and how it failed
   * (the outcome, its reason, the HTTP status and the error's or the gateway's code). Never a
   * field's value beyond those ids, nor the reply's body.
   */
  private failed(
    outcome: Exclude<GatewayOutcome, { kind: 'reply' }>,
    code?: string,
  ): GatewayOutcome {
    const { exchange } = outcome;
    this.options.logger?.warn(
      {
        operation: exchange.operation,
        endpointId: exchange.endpointId,
        clientOrderId: exchange.request.client_orderid ?? null,
        orderid: exchange.request.orderid ?? null,
        outcome: outcome.kind,
        reason: outcome.kind === 'unknown' ? outcome.reason : 'not-sent',
        httpStatus: exchange.httpStatus,
        code: code ?? null,
      },
      outcome.kind === 'unknown'
        ? 'gateway exchange failed: outcome unknown'
        : 'gateway request not sent',
    );
    return outcome;
  }
}
