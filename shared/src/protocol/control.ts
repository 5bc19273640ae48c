import { createHash, timingSafeEqual } from 'node:crypto';
import { ProtocolError } from './errors.js';
import { toMinorUnits } from './money.js';
import { operationByName, type ControlField } from './operations.js';

export type ControlFields = Readonly<Record<string, string | undefined>>;

// The operations that carry a control value: their formula comes from the catalog, so there is one
// list of formulas in the library. Operations signed with OAuth have none.
function formulaOf(operation: string): readonly ControlField[] {
  const spec = operationByName(operation);
  if (spec?.auth.scheme !== 'control') {
    throw new ProtocolError(
      'UNKNOWN_OPERATION',
      spec
        ? `operation ${operation} is signed with OAuth, not a control value`
        : `unknown operation ${operation}`,
    );
  }
  return spec.auth.formula;
}

/** The field names of an operation's control formula, in order (the control key follows them). */
export function controlFields(operation: string): readonly ControlField[] {
  return formulaOf(operation);
}

// client_orderid and client-order-id are the same field, spelled both ways by the gateway.
function fieldValue(fields: ControlFields, name: ControlField): string {
  switch (name) {
    case 'client_orderid':
    case 'client-order-id':
      return (
        fields[name] ??
        fields[name === 'client_orderid' ? 'client-order-id' : 'client_orderid'] ??
        ''
      );
    case 'amount': {
      const amount = fields.amount;
      return amount === undefined || amount === '' ? '' : toMinorUnits(amount).toString();
    }
    default:
      return fields[name] ?? '';
  }
}

/** The text the control value hashes: the formula's fields then the key, no separators. */
export function controlConcatenation(
  operation: string,
  fields: ControlFields,
  merchantControlKey: string,
): string {
  let text = '';
  for (const name of formulaOf(operation)) text += fieldValue(fields, name);
  return text + merchantControlKey;
}

const sha1Hex = (text: string): string => createHash('sha1').update(text, 'utf8').digest('hex');

/** Spec 5.1: lowercase hex SHA-1 of the concatenated fields and the merchant control key. */
export function controlValue(
  operation: string,
  fields: ControlFields,
  merchantControlKey: string,
): string {
  if (merchantControlKey === '')
    throw new ProtocolError('MISSING_SECRET', 'merchant control key is empty');
  return sha1Hex(controlConcatenation(operation, fields, merchantControlKey));
}

/** Constant-time comparison of two hex digests, either letter case. */
export function hexDigestEquals(expected: string, received: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(received.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Verifies a received control value; a malformed amount makes it fail, never throw. */
export function verifyControl(
  operation: string,
  fields: ControlFields,
  merchantControlKey: string,
  received: string | undefined,
): boolean {
  if (received === undefined || received === '') return false;
  let expected: string;
  try {
    expected = controlValue(operation, fields, merchantControlKey);
  } catch (error) {
    if (error instanceof ProtocolError && error.code === 'INVALID_AMOUNT') return false;
    throw error;
  }
  return hexDigestEquals(expected, received);
}

/** Design §3: the control value of a callback, sha1(status + orderid + client_orderid + key). */
export function callbackControl(
  status: string,
  orderid: string,
  clientOrderId: string,
  merchantControlKey: string,
): string {
  return sha1Hex(status + orderid + clientOrderId + merchantControlKey);
}

/** Verifies a callback's control value (constant time, either hex case). */
export function verifyCallbackControl(
  callback: {
    status: string;
    orderid: string;
    client_orderid: string;
    control: string | undefined;
  },
  merchantControlKey: string,
): boolean {
  if (callback.control === undefined || callback.control === '') return false;
  const expected = callbackControl(
    callback.status,
    callback.orderid,
    callback.client_orderid,
    merchantControlKey,
  );
  return hexDigestEquals(expected, callback.control);
}
