// get-card-info (POST /api/cards/:cardRefId/info) when the gateway misbehaves: what staff read says
// what happened in words, with the gateway's error code when it sent one; never the client's own
// reason codes. Against the real sandbox process, on SQLite and (with PAYDESK_TEST_PG_URL)
// PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { createPayouts } from './index.js';
import {
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

/**
 * What staff must never read: the API's operation and field names, the gateway's raw codes and
 * messages (the codes stay in `details` for support).
 */
const API_WORDS = /get-card-info|cardrefid|NOT_FOUND|injected fault/;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`card info when the gateway misbehaves (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let support: TestClient;
    let cardRefId: string;
    const lookUp = (ref: string) =>
      support.post(`/api/cards/${ref}/info`, { reason: 'customer asked which card was charged' });

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      support = await bff.userWithRoles(['support']);
      // A card reference the gateway knows: made from an approved sale of the demo merchant.
      const clientOrderId = `shop-${randomUUID()}`;
      const sale = await sandbox.merchant.send('sale', '1001', {
        client_orderid: clientOrderId,
        order_desc: 'Test order',
        amount: '3.00',
        currency: 'EUR',
        address1: '1 Test Street',
        city: 'Testville',
        zip_code: '12345',
        country: 'DE',
        phone: '+49 301234567',
        email: 'buyer@example.com',
        ipaddress: '192.0.2.10',
        credit_card_number: '5555555555554444',
        card_printed_name: 'Card Holder',
        expire_month: '11',
        expire_year: '2034',
        cvv2: '123',
        redirect_url: 'https://shop.example/return',
      });
      const orderid = sale.kind === 'reply' ? (sale.reply.orderId ?? '') : '';
      expect(orderid).not.toBe('');
      await sandbox.advance(61);
      const ref = await sandbox.merchant.send('create-card-ref', '1001', {
        client_orderid: clientOrderId,
        orderid,
      });
      cardRefId = ref.kind === 'reply' ? (ref.reply.fields['card-ref-id'] ?? '') : '';
      expect(cardRefId).not.toBe('');
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });
    afterEach(async () => {
      await sandbox.faults({});
    });

    it('when the gateway answers with a 5xx, then 503 says it answered with an error, with its HTTP status, error code and message, never `server-error`', async () => {
      await sandbox.faults({ errorRate: 1, operations: ['get-card-info'] });
      const res = await lookUp(cardRefId);
      expect(res.status, res.text).toBe(503);
      expect((res.json as ErrorEnvelope).error).toMatchObject({
        code: 'GATEWAY_UNAVAILABLE',
        message:
          'The gateway could not answer the card information request just now (HTTP 500, code INTERNAL); nothing was changed. Try again in a minute.',
        details: { gatewayHttpStatus: 500, gatewayErrorCode: 'INTERNAL' },
      });
      expect(res.text).not.toContain('server-error');
      expect((res.json as ErrorEnvelope).error.message).not.toMatch(API_WORDS);
    });

    it('when the gateway stores no card under the reference, then 404 says so in words and points to the list, never naming the API, its fields or the endpoint', async () => {
      const res = await lookUp('123');
      expect(res.status, res.text).toBe(404);
      expect((res.json as ErrorEnvelope).error).toMatchObject({
        code: 'NOT_FOUND',
        message:
          'No card is stored under reference 123 at the gateway. Check the reference, or pick one from the list below.',
        details: { gatewayHttpStatus: 404 },
      });
      expect((res.json as ErrorEnvelope).error.message).not.toMatch(API_WORDS);
      expect((res.json as ErrorEnvelope).error.message).not.toMatch(/endpoint/i);
    });

    it('when a reference that looks like a card number is unknown, then the message does not repeat it', async () => {
      const res = await lookUp('5555555555554444');
      expect(res.status, res.text).toBe(404);
      expect((res.json as ErrorEnvelope).error.message).toBe(
        'No card is stored under this reference at the gateway. Check the reference, or pick one from the list below.',
      );
      expect(res.text).not.toContain('5555555555554444');
    });

    it('when the gateway closes the connection before answering, then 503 says so in words, with no library code', async () => {
      await sandbox.faults({ dropResponseRate: 1, operations: ['get-card-info'] });
      const res = await lookUp(cardRefId);
      expect(res.status, res.text).toBe(503);
      expect((res.json as ErrorEnvelope).error).toMatchObject({
        code: 'GATEWAY_UNAVAILABLE',
        message:
          'The gateway did not answer the card information request (the connection closed before the gateway answered); nothing was changed. Try again in a minute.',
        details: { gatewayErrorCode: null },
      });
      expect(res.text).not.toMatch(/connection-lost|UND_ERR/);
      expect((res.json as ErrorEnvelope).error.message).not.toMatch(API_WORDS);
    });

    it('when the gateway does not answer in time, then the message says how long Paydesk waited, never `timeout`', async () => {
      const impatient = createPayouts({
        config: bff.config,
        db: bff.db,
        clock: bff.clock,
        logger: createLogger('silent', { write: () => undefined }),
        audit: bff.services.audit,
        options: { gatewayTimeoutMs: 100 },
      });
      await sandbox.faults({ latencyMs: 400, operations: ['get-card-info'] });
      try {
        const err = await impatient.services.cardInfo.info(cardRefId, undefined).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({
          code: 'GATEWAY_UNAVAILABLE',
          message:
            'The gateway did not answer the card information request (no answer within 100 ms); nothing was changed. Try again in a minute.',
        });
      } finally {
        await new Promise((r) => setTimeout(r, 400));
        await impatient.close();
      }
    });
  });
}
