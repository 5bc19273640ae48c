import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formDecode, verifyOAuth } from '@paydesk/shared/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { GatewayClient } from './client.js';
import { maskPan } from './redact.js';

const conformance = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/conformance',
);
const privateKeyPem = readFileSync(
  resolve(conformance, 'merchant-test-rsa-2048.pkcs8.pem'),
  'utf8',
);
const publicKeyPem = readFileSync(resolve(conformance, 'merchant-test-rsa-2048.pub.pem'), 'utf8');
const merchant = { login: 'shop-01', controlKey: 'K3Y-for-tests', rsaPrivateKeyPem: privateKeyPem };

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: [string, string][];
}

type Handler = (req: Received, res: ServerResponse) => void;

let server: Server | undefined;

async function fakeGateway(handler: Handler): Promise<{ baseUrl: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = {
        url: req.url ?? '',
        headers: req.headers,
        body: formDecode(Buffer.concat(chunks).toString('utf8')),
      };
      received.push(entry);
      handler(entry, res);
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/paynet`, received };
}

afterEach(async () => {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise<void>((done) => {
    open.close(() => {
      done();
    });
  });
});

const json = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
  res.writeHead(status, { 'content-type': 'application/vnd.pay+json' });
  res.end(JSON.stringify(body));
};

const capture = { client_orderid: 'ord-1', orderid: '555', amount: '10.50', currency: 'EUR' };

describe('GatewayClient', () => {
  it('when capturing, then the body carries login and a control value an independent SHA-1 reproduces', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 200, { type: 'async-response', 'serial-number': 's-1', 'paynet-order-id': '555' });
    });
    const client = new GatewayClient({ baseUrl: `${gateway.baseUrl}/`, merchant, timeoutMs: 2000 });

    const outcome = await client.send('capture', '1001', capture);

    expect(outcome).toMatchObject({
      kind: 'reply',
      httpStatus: 200,
      reply: { type: 'async-response', orderId: '555' },
    });
    const [request] = gateway.received;
    expect(request!.url).toBe('/paynet/api/v2/capture/1001');
    expect(request!.headers.accept).toBe('application/vnd.pay+json');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const body = Object.fromEntries(request!.body);
    const expected = createHash('sha1').update('shop-01ord-15551050EURK3Y-for-tests').digest('hex');
    expect(body).toEqual({ ...capture, login: 'shop-01', control: expected });
  });

  it('when a v4 payout-check is sent, then the RSA-SHA256 Authorization verifies with the public key', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 200, { type: 'async-response', 'paynet-order-id': '9' });
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });

    await client.send('payout-check', '1001', {
      client_orderid: 'po-1',
      amount: '5.00',
      currency: 'EUR',
    });

    const [request] = gateway.received;
    const verdict = verifyOAuth({
      method: 'POST',
      url: `${gateway.baseUrl}/api/v4/payout-check/1001`,
      authorization: request!.headers.authorization,
      body: request!.body,
      publicKeyPem,
      expectedMethod: 'RSA-SHA256',
    });
    expect(verdict).toMatchObject({ ok: true, consumerKey: 'shop-01' });
    expect(request!.body.some(([name]) => name === 'control')).toBe(false);
  });

  it('when a v2 payout is sent, then it is signed with HMAC-SHA1 and the control key', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 200, { type: 'async-response' });
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    await client.send('payout', '1001', {
      client_orderid: 'po-2',
      amount: '1.00',
      currency: 'EUR',
    });
    const [request] = gateway.received;
    expect(
      verifyOAuth({
        method: 'POST',
        url: `${gateway.baseUrl}/api/v2/payout/1001`,
        authorization: request!.headers.authorization,
        body: request!.body,
        merchantControlKey: merchant.controlKey,
        expectedMethod: 'HMAC-SHA1',
      }).ok,
    ).toBe(true);
  });

  it('when the gateway does not answer in time, then the outcome is unknown (timeout)', async () => {
    const gateway = await fakeGateway(() => undefined);
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 100 });
    const outcome = await client.send('return', '1001', { ...capture, comment: 'refund' });
    expect(outcome).toMatchObject({
      kind: 'unknown',
      reason: 'timeout',
      waitedMs: 100,
      exchange: { error: 'no reply within 100 ms' },
    });
  });

  it('when the connection drops after the request was read, then the outcome is unknown (connection lost)', async () => {
    const gateway = await fakeGateway((_, res) => res.socket?.destroy());
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('return', '1001', { ...capture, comment: 'refund' });
    expect(outcome).toMatchObject({ kind: 'unknown', reason: 'connection-lost' });
    expect(gateway.received).toHaveLength(1);
  });

  it('when the gateway answers with a redirect, then it is not followed and the outcome is unknown', async () => {
    const gateway = await fakeGateway((_, res) => {
      res.writeHead(307, { location: '/elsewhere', 'content-type': 'application/vnd.pay+json' });
      res.end(JSON.stringify({ type: 'async-response', status: 'approved' }));
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('capture', '1001', capture);
    expect(outcome).toMatchObject({
      kind: 'unknown',
      reason: 'unreadable-reply',
      exchange: { httpStatus: 307 },
    });
    expect(gateway.received).toHaveLength(1);
  });

  it('when the body stops half-way through the reply, then the outcome is unknown (connection lost)', async () => {
    const gateway = await fakeGateway((_, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.pay+json', 'content-length': '400' });
      res.write('{"type":"async-');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('capture', '1001', capture);
    expect(outcome).toMatchObject({ kind: 'unknown', reason: 'connection-lost' });
  });

  it('when the gateway answers 500, then the outcome is unknown (server error) with the reply kept', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 500, { type: 'error', 'error-code': 'INTERNAL' });
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('void', '1001', {
      client_orderid: 'o',
      orderid: '1',
      comment: 'c',
    });
    expect(outcome).toMatchObject({
      kind: 'unknown',
      reason: 'server-error',
      exchange: { httpStatus: 500, reply: { 'error-code': 'INTERNAL' } },
    });
  });

  it('when the gateway refuses with 409, then it is a definite reply carrying the gateway error code', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 409, {
        type: 'error',
        'error-code': 'INVALID_STATE',
        'error-message': 'already captured',
      });
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('capture', '1001', capture);
    expect(outcome).toMatchObject({
      kind: 'reply',
      httpStatus: 409,
      reply: { errorCode: 'INVALID_STATE', errorMessage: 'already captured' },
    });
  });

  it('when the gateway answers its form-encoded text, then the reply is parsed', async () => {
    const gateway = await fakeGateway((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        'type=status-response\n&status=approved\n&paynet-order-id=555\n&merchant-order-id=ord-1\n',
      );
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('status', '1001', {
      client_orderid: 'ord-1',
      orderid: '555',
    });
    expect(outcome).toMatchObject({
      kind: 'reply',
      reply: { type: 'status-response', status: 'approved' },
    });
  });

  it('when a 200 reply cannot be read, then the outcome is unknown and the raw body is kept for the timeline', async () => {
    const gateway = await fakeGateway((_, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.pay+json' });
      res.end('<html>proxy error</html>');
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('status', '1001', { client_orderid: 'ord-1' });
    expect(outcome).toMatchObject({
      kind: 'unknown',
      reason: 'unreadable-reply',
      exchange: { rawReply: '<html>proxy error</html>' },
    });
  });

  it('when nothing listens at the gateway address, then the request is reported as not sent', async () => {
    const gateway = await fakeGateway(() => undefined);
    const baseUrl = gateway.baseUrl;
    server!.close();
    server = undefined;
    const client = new GatewayClient({ baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('status', '1001', { client_orderid: 'ord-1' });
    expect(outcome).toMatchObject({
      kind: 'not-sent',
      reason: expect.stringContaining('ECONNREFUSED') as unknown,
    });
  });

  it('when card data is sent, then the recorded exchange holds a masked card, no CVV and no control', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 200, { type: 'async-response' });
    });
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 2000 });
    const outcome = await client.send('sale', '1001', {
      client_orderid: 'ord-9',
      amount: '1.00',
      email: 'a@b.c',
      credit_card_number: '4111111111111111',
      cvv2: '123',
    });
    const stored = JSON.stringify(outcome.exchange);
    expect(stored).not.toContain('4111111111111111');
    expect(stored).not.toContain('"123"');
    expect(outcome.exchange.request).toMatchObject({
      credit_card_number: maskPan('4111111111111111'),
      cvv2: '[redacted]',
      control: '[redacted]',
    });
    expect(maskPan('4111111111111111')).toBe('411111******1111');
  });

  it('when exchanges fail (5xx, dropped connection, no reply in time, nothing listening), then each is logged once at warn with the operation, endpoint, order ids and how it failed, and no card data, control or reply body', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    const gateway = await fakeGateway((req, res) => {
      if (req.url.includes('/sale/')) json(res, 503, { type: 'error', 'error-code': 'BUSY' });
      else if (req.url.includes('/void/')) res.socket?.destroy();
      // anything else is never answered
    });
    const client = new GatewayClient({
      baseUrl: gateway.baseUrl,
      merchant,
      timeoutMs: 10_000,
      logger,
    });
    await client.send('sale', '1001', {
      client_orderid: 'ord-9',
      amount: '1.00',
      email: 'a@b.c',
      credit_card_number: '4111111111111111',
      cvv2: '123',
    });
    await client.send('void', '1002', { client_orderid: 'ord-8', orderid: '808', comment: 'c' });
    await new GatewayClient({ baseUrl: gateway.baseUrl, merchant, timeoutMs: 100, logger }).send(
      'status',
      '1001',
      { client_orderid: 'ord-7', orderid: '707' },
    );
    await new GatewayClient({
      baseUrl: 'http://127.0.0.1:9/paynet',
      merchant,
      timeoutMs: 2000,
      logger,
    }).send('capture', '1003', capture);
    // A definite refusal is the gateway's answer, not a failure of the exchange: not logged here.
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      parsed.map(
        ({
          level,
          operation,
          endpointId,
          clientOrderId,
          orderid,
          outcome,
          reason,
          httpStatus,
          code,
        }) => ({
          level,
          operation,
          endpointId,
          clientOrderId,
          orderid,
          outcome,
          reason,
          httpStatus,
          code,
        }),
      ),
    ).toEqual([
      {
        level: 40,
        operation: 'sale',
        endpointId: '1001',
        clientOrderId: 'ord-9',
        orderid: null,
        outcome: 'unknown',
        reason: 'server-error',
        httpStatus: 503,
        code: 'BUSY',
      },
      {
        level: 40,
        operation: 'void',
        endpointId: '1002',
        clientOrderId: 'ord-8',
        orderid: '808',
        outcome: 'unknown',
        reason: 'connection-lost',
        httpStatus: null,
        code: expect.any(String) as unknown,
      },
      {
        level: 40,
        operation: 'status',
        endpointId: '1001',
        clientOrderId: 'ord-7',
        orderid: '707',
        outcome: 'unknown',
        reason: 'timeout',
        httpStatus: null,
        code: null,
      },
      {
        level: 40,
        operation: 'capture',
        endpointId: '1003',
        clientOrderId: 'ord-1',
        orderid: '555',
        outcome: 'not-sent',
        reason: 'not-sent',
        httpStatus: null,
        code: 'ECONNREFUSED',
      },
    ]);
    const all = lines.join('');
    expect(all).not.toContain('4111111111111111');
    expect(all).not.toContain('411111******1111');
    expect(all).not.toContain('"123"');
    expect(all).not.toContain('control');
    expect(all).not.toContain(merchant.controlKey);
  });

  it('when an RSA operation is needed without a configured key, then sending refuses before any request', async () => {
    const gateway = await fakeGateway((_, res) => {
      json(res, 200, { type: 'async-response' });
    });
    const client = new GatewayClient({
      baseUrl: gateway.baseUrl,
      merchant: { ...merchant, rsaPrivateKeyPem: null },
      timeoutMs: 2000,
    });
    await expect(
      client.send('payout-pay', '1001', { client_orderid: 'p', orderid: '1' }),
    ).rejects.toThrow(/MERCHANT_RSA_KEY_FILE/);
    expect(gateway.received).toHaveLength(0);
  });
});
