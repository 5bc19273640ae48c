// A storefront placing orders straight at the sandbox (as a merchant's shop would), with the
// BFF's callback URL: the BFF learns of them only through callbacks or a lookup.
import { randomUUID } from 'node:crypto';
import { GatewayClient } from '../../gateway-client/client.js';
import { MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT } from './sandbox-process.js';

export const CARDS = {
  approve: '4111111111111111',
  decline: '4000000000000002',
} as const;

export interface PlacedOrder {
  orderid: string;
  clientOrderId: string;
}

export class Storefront {
  readonly client: GatewayClient;
  constructor(baseUrl: string) {
    this.client = new GatewayClient({
      baseUrl,
      merchant: {
        login: TEST_MERCHANT.login,
        controlKey: TEST_MERCHANT.controlKey,
        rsaPrivateKeyPem: MERCHANT_PRIVATE_KEY_PEM,
      },
      timeoutMs: 5_000,
    });
  }

  async place(
    kind: 'sale' | 'preauth',
    input: {
      amount: string;
      currency?: string;
      endpointId?: string;
      callbackUrl?: string;
      card?: string;
      email?: string;
      /** the shop's own order id (default: a new `shop-<uuid>`) */
      clientOrderId?: string;
    },
  ): Promise<PlacedOrder> {
    const clientOrderId = input.clientOrderId ?? `shop-${randomUUID()}`;
    const fields: Record<string, string> = {
      client_orderid: clientOrderId,
      order_desc: 'Test order',
      amount: input.amount,
      currency: input.currency ?? 'EUR',
      address1: '1 Test Street',
      city: 'Testville',
      zip_code: '12345',
      country: 'DE',
      phone: '+49 301234567',
      email: input.email ?? 'buyer@example.com',
      ipaddress: '192.0.2.10',
      credit_card_number: input.card ?? CARDS.approve,
      card_printed_name: 'Test Buyer',
      expire_month: '12',
      expire_year: '2035',
      cvv2: '123',
      redirect_url: 'https://shop.example/return',
      first_name: 'Test',
      last_name: 'Buyer',
    };
    if (input.callbackUrl !== undefined) fields.server_callback_url = input.callbackUrl;
    const outcome = await this.client.send(kind, input.endpointId ?? '1001', fields);
    if (
      outcome.kind !== 'reply' ||
      outcome.httpStatus !== 200 ||
      outcome.reply.orderId === undefined
    ) {
      throw new Error(`placing a ${kind} failed: ${JSON.stringify(outcome.exchange)}`);
    }
    return { orderid: outcome.reply.orderId, clientOrderId };
  }
}
