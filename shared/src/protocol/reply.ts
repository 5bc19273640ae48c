import { ProtocolError } from './errors.js';
import { formDecode, percentEncode } from './percent.js';

/** Reply types of design §3. */
export const REPLY_TYPES = [
  'async-response',
  'async-form-response',
  'status-response',
  'create-card-ref-response',
  'get-card-info-response',
  'validation-error',
  'error',
] as const;

/**
 * A gateway reply with the gateway's own hyphenated field names. Nested JSON values (the status
 * reply's `operations`, a validation error's `fields`) are kept as JSON text.
 */
export interface GatewayReply {
  readonly type: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly serialNumber: string | undefined;
  readonly orderId: string | undefined;
  readonly merchantOrderId: string | undefined;
  readonly status: string | undefined;
  readonly errorCode: string | undefined;
  readonly errorMessage: string | undefined;
  readonly redirectUrl: string | undefined;
}

function toReply(fields: Record<string, string>): GatewayReply {
  const type = fields.type;
  if (type === undefined || type === '') {
    throw new ProtocolError('INVALID_REPLY', 'gateway reply has no type');
  }
  return {
    type,
    fields,
    serialNumber: fields['serial-number'],
    orderId: fields['paynet-order-id'],
    merchantOrderId: fields['merchant-order-id'],
    status: fields.status,
    errorCode: fields['error-code'],
    errorMessage: fields['error-message'],
    redirectUrl: fields['redirect-url'],
  };
}

function fromJson(body: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ProtocolError('INVALID_REPLY', 'gateway reply is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProtocolError('INVALID_REPLY', 'gateway reply is not a JSON object');
  }
  const fields: Record<string, string> = {};
  for (const [name, field] of Object.entries(value)) {
    if (field === null || field === undefined) continue;
    fields[name] = typeof field === 'string' ? field : JSON.stringify(field);
  }
  return fields;
}

// The gateway's text form: `type=async-response\n&serial-number=...\n`, `+` for a space.
function fromForm(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const trimmed = body.replace(/\r?\n$/, '').replaceAll(/\r?\n&/g, '&');
  let pairs: [string, string][];
  try {
    pairs = formDecode(trimmed);
  } catch {
    throw new ProtocolError('INVALID_REPLY', 'gateway reply has malformed form encoding');
  }
  for (const [name, value] of pairs) fields[name.trim()] = value;
  return fields;
}

/** Parses a reply in either of the gateway's formats: JSON (vnd.pay+json) or form-encoded text. */
export function parseGatewayReply(contentType: string | undefined, body: string): GatewayReply {
  const looksJson = body.trimStart().startsWith('{');
  const declaredJson = contentType !== undefined && /json/i.test(contentType);
  return toReply(declaredJson || looksJson ? fromJson(body) : fromForm(body));
}

/** Encodes a reply as JSON or as the gateway's form-encoded text (a newline after each value). */
export function encodeGatewayReply(
  reply: Readonly<Record<string, string>>,
  format: 'json' | 'form',
): string {
  if (format === 'json') return JSON.stringify(reply);
  return Object.entries(reply)
    .map(
      ([name, value]) => `${percentEncode(name)}=${percentEncode(value).replaceAll('%20', '+')}\n`,
    )
    .join('&');
}
