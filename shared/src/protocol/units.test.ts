import { describe, expect, it } from 'vitest';
import { controlFields, controlValue, verifyControl } from './control.js';
import { ProtocolError } from './errors.js';
import { formatMinorUnits, isPositiveAmount, toMinorUnits } from './money.js';
import { operationByName, operationForPath, operationPath, operations } from './operations.js';
import { formDecode } from './percent.js';
import { parseGatewayReply } from './reply.js';
import { isFinalStatus } from './statuses.js';

describe('operations catalog', () => {
  it('when listing, then every operation of spec §4.2 and the example-only ones are present once', () => {
    const names = operations.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'upload-cres-result',
        'upload-method-url-result',
        'upload-pares-result',
        'account-verification-form',
        'account-verification',
        'capture',
        'create-card-ref',
        'get-card-info',
        'make-rebill',
        'payment-form',
        'payout-form',
        'payout',
        'preauth-form',
        'preauth',
        'return',
        'sale-form',
        'sale',
        'status',
        'void',
        'create-card-ref-v4',
        'create-recurring-payment',
        'payout-check',
        'payout-pay',
        'pan-eligibility-send',
        'transfer',
        'transfer-by-ref',
        'payout-v4',
      ]),
    );
  });

  it('when an operation is signed with OAuth, then its method follows spec 5.2 and design §3', () => {
    const method = (name: string) => {
      const auth = operationByName(name)?.auth;
      return auth?.scheme === 'oauth' ? auth.method : auth?.scheme;
    };
    expect(method('payout')).toBe('HMAC-SHA1');
    expect(method('payout-form')).toBe('HMAC-SHA1');
    expect(method('pan-eligibility-send')).toBe('HMAC-SHA1');
    for (const name of [
      'create-card-ref-v4',
      'create-recurring-payment',
      'payout-check',
      'payout-pay',
      'transfer',
      'transfer-by-ref',
      'payout-v4',
    ]) {
      expect(method(name)).toBe('RSA-SHA256');
    }
    expect(method('sale')).toBe('control');
  });

  it('when a request path is matched, then the operation and endpoint are found behind any base path', () => {
    expect(operationForPath('/paynet/api/v2/sale/1001')).toMatchObject({
      operation: { name: 'sale' },
      endpointId: '1001',
    });
    expect(operationForPath('/api/v2/pan-eligibility/send/7')).toMatchObject({
      operation: { name: 'pan-eligibility-send' },
    });
    expect(operationForPath('/x/api/3ds/v1/upload-cres-result/5')).toMatchObject({
      operation: { name: 'upload-cres-result' },
    });
    expect(operationForPath('/paynet/api/v4/create-card-ref/2')).toMatchObject({
      operation: { name: 'create-card-ref-v4' },
    });
    expect(operationForPath('/paynet/api/v3/sale/1')).toBeUndefined();
    expect(operationForPath('/paynet/api/v2/sale/abc')).toBeUndefined();
    expect(operationPath('payout-pay', 12)).toBe('/api/v4/payout-pay/12');
  });

  it('when flags are read, then money-moving and order-creating operations are marked', () => {
    expect(operationByName('return')).toMatchObject({ moneyMoving: true, createsOrder: false });
    expect(operationByName('make-rebill')).toMatchObject({ moneyMoving: true, createsOrder: true });
    expect(operationByName('status')).toMatchObject({ moneyMoving: false, createsOrder: false });
    expect(operationByName('sale-form')).toMatchObject({
      hostedForm: true,
      replyType: 'AsyncCheckoutFormRedirect',
    });
  });
});

describe('control', () => {
  it('when the operation is unknown or signed with OAuth, then ProtocolError says which', () => {
    expect(() => controlValue('refund', {}, 'k')).toThrow(/unknown operation refund/);
    expect(() => controlValue('payout', {}, 'k')).toThrow(/signed with OAuth/);
  });

  it('when formulas are listed, then they follow spec 5.1', () => {
    expect(controlFields('capture')).toEqual([
      'login',
      'client_orderid',
      'orderid',
      'amount',
      'currency',
    ]);
    expect(controlFields('payment-form')).toEqual(controlFields('sale'));
    expect(controlFields('get-card-info')).toEqual(['login', 'cardrefid']);
  });

  it('when client-order-id and client_orderid spell the same value, then the control is the same', () => {
    const key = 'k';
    expect(
      controlValue('upload-pares-result', { login: 'l', client_orderid: 'c', orderid: '1' }, key),
    ).toBe(
      controlValue(
        'upload-pares-result',
        { login: 'l', 'client-order-id': 'c', orderid: '1' },
        key,
      ),
    );
  });

  it('when the amount in the fields is malformed, then signing throws and verifying says false', () => {
    const fields = {
      login: 'l',
      client_orderid: 'c',
      orderid: '1',
      amount: '1.005',
      currency: 'EUR',
    };
    expect(() => controlValue('capture', fields, 'k')).toThrow(ProtocolError);
    expect(verifyControl('capture', fields, 'k', 'a'.repeat(40))).toBe(false);
    expect(verifyControl('capture', fields, 'k', undefined)).toBe(false);
  });

  it('when the control key is empty, then signing refuses', () => {
    expect(() => controlValue('status', {}, '')).toThrow(/control key is empty/);
  });
});

describe('money', () => {
  it('when formatting, then two decimals and the sign are kept', () => {
    expect(formatMinorUnits(1999n)).toBe('19.99');
    expect(formatMinorUnits(5n)).toBe('0.05');
    expect(formatMinorUnits(-150n)).toBe('-1.50');
  });

  it('when the amount has 3 decimals, then the message says so', () => {
    expect(() => toMinorUnits('1.234')).toThrow('amount has more than 2 decimals');
    expect(isPositiveAmount('0.00')).toBe(false);
    expect(isPositiveAmount('0.01')).toBe(true);
    expect(isPositiveAmount('-1')).toBe(false);
  });
});

describe('parseGatewayReply', () => {
  it('when the gateway answers form-encoded text with newlines and +, then fields are decoded', () => {
    const body =
      'type=async-response\n&serial-number=00000000-0000-0000-0000-000002c7d3a5\n&merchant-order-id=902B4FF5\n&paynet-order-id=1969595\n&end-point-id=1111\n&error-message=Card+was+declined\n';
    const reply = parseGatewayReply('text/html; charset=utf-8', body);
    expect(reply).toMatchObject({
      type: 'async-response',
      orderId: '1969595',
      merchantOrderId: '902B4FF5',
      serialNumber: '00000000-0000-0000-0000-000002c7d3a5',
      errorMessage: 'Card was declined',
    });
  });

  it('when the gateway answers JSON with nested values, then they are kept as JSON text', () => {
    const reply = parseGatewayReply(
      'application/vnd.pay+json',
      JSON.stringify({
        type: 'status-response',
        status: 'approved',
        operations: [{ type: 'sale' }],
        amount: 10.5,
      }),
    );
    expect(reply.status).toBe('approved');
    expect(JSON.parse(reply.fields.operations ?? '[]')).toEqual([{ type: 'sale' }]);
    expect(reply.fields.amount).toBe('10.5');
  });

  it('when the body is not a reply, then ProtocolError INVALID_REPLY is thrown', () => {
    expect(() => parseGatewayReply('application/json', '{not json')).toThrow(ProtocolError);
    expect(() => parseGatewayReply('application/json', '[1]')).toThrow(/not a JSON object/);
    expect(() => parseGatewayReply(undefined, 'status=approved')).toThrow(/no type/);
  });
});

describe('formDecode and statuses', () => {
  it('when a body has repeated names, empty parts and + for spaces, then order and repeats are kept', () => {
    expect(formDecode('a=1&&a=2&b=x+y%20z&c')).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', 'x y z'],
      ['c', ''],
    ]);
    expect(() => formDecode('a=%E0%A4%A')).toThrow(ProtocolError);
  });

  it('when a status is final, then isFinalStatus says so; processing and unknown are not', () => {
    expect(['approved', 'declined', 'error', 'filtered'].every(isFinalStatus)).toBe(true);
    expect(isFinalStatus('processing')).toBe(false);
    expect(isFinalStatus('unknown')).toBe(false);
  });
});
