// Business rows for a hostile BFF, made the way production makes them: a storefront's sale on an
// endpoint placed straight at the sandbox, learned by a support lookup, with a card reference made
// by finance; a held two-step payout and a held payout-form link prepared by an ops user.
import { randomUUID } from 'node:crypto';
import { GatewayClient } from '@paydesk/bff/dist/gateway-client/client.js';
import { PAN } from './arbitraries.js';
import { CONTROL_KEY, MERCHANT_LOGIN, type Account, type HostileBff } from './bff.js';

export interface SeededOrder {
  /** Paydesk's transaction id */
  id: string;
  orderid: string;
  clientOrderId: string;
  cardRefId: string;
}

function expectStatus(what: string, status: number, text: string, wanted: number): void {
  if (status !== wanted) throw new Error(`${what}: ${status} ${text.slice(0, 300)}`);
}

/** A captured 20.00 EUR sale on `endpointId`, known to Paydesk, with a card reference. */
export async function seedOrder(
  bff: HostileBff,
  support: Account,
  finance: Account,
  endpointId = '1001',
): Promise<SeededOrder> {
  const shop = new GatewayClient({
    baseUrl: bff.gateway.baseUrl,
    merchant: {
      login: MERCHANT_LOGIN,
      controlKey: CONTROL_KEY,
      rsaPrivateKeyPem: bff.gateway.privateKeyPem,
    },
    timeoutMs: 5_000,
  });
  const clientOrderId = `shop-${randomUUID()}`;
  const sale = await shop.send('sale', endpointId, {
    client_orderid: clientOrderId,
    order_desc: 'Hostile shop order',
    amount: '20.00',
    currency: 'EUR',
    address1: '1 Test Street',
    city: 'Testville',
    zip_code: '12345',
    country: 'DE',
    phone: '+49 301234567',
    email: 'buyer@example.com',
    ipaddress: '192.0.2.10',
    credit_card_number: PAN,
    card_printed_name: 'Test Buyer',
    expire_month: '12',
    expire_year: '2035',
    cvv2: '123',
    redirect_url: 'https://shop.example/return',
  });
  if (sale.kind !== 'reply' || sale.reply.orderId === undefined)
    throw new Error(`the storefront sale failed: ${JSON.stringify(sale.exchange)}`);
  const orderid = sale.reply.orderId;
  await fetch(`${bff.gateway.origin}/sandbox/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"seconds":61}',
  });
  const looked = await support.client.send('POST', '/api/transactions/lookup', {
    body: { json: { orderid, client_orderid: clientOrderId, endpointId } },
  });
  expectStatus('lookup', looked.status, looked.text, 200);
  const id = (looked.json as { id: string }).id;
  const ref = await finance.client.send('POST', `/api/transactions/${id}/card-ref`, {
    headers: [['Idempotency-Key', randomUUID()]],
    body: { json: {} },
  });
  expectStatus('card-ref', ref.status, ref.text, 200);
  const cardRefId =
    (ref.json as { transaction: { cardRefId: string | null } }).transaction.cardRefId ?? '';
  if (cardRefId === '') throw new Error('card-ref named no card reference');
  return { id, orderid, clientOrderId, cardRefId };
}

/** A two-step payout (card destination) and a payout-form link, both waiting for approval. */
export async function seedHeldPayouts(ops: Account): Promise<{ payoutId: string; linkId: string }> {
  const payout = await ops.client.send('POST', '/api/payouts', {
    headers: [['Idempotency-Key', randomUUID()]],
    body: {
      json: {
        destination: {
          kind: 'card',
          cardNumber: PAN,
          cardholderName: 'Jane Payee',
          expiryMonth: '12',
          expiryYear: '2035',
        },
        amount: '12.34',
        currency: 'EUR',
        orderDesc: 'Hostile payout',
      },
    },
  });
  expectStatus('payout', payout.status, payout.text, 200);
  const link = await ops.client.send('POST', '/api/payment-links', {
    headers: [['Idempotency-Key', randomUUID()]],
    body: {
      json: { kind: 'payout-form', amount: '12.34', currency: 'EUR', orderDesc: 'Hostile link' },
    },
  });
  expectStatus('payout-form link', link.status, link.text, 200);
  return {
    payoutId: (payout.json as { payout: { id: string } }).payout.id,
    linkId: (link.json as { link: { id: string } }).link.id,
  };
}
