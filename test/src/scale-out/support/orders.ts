// The shop side of a scale-out run: orders placed straight at the sandbox with the demo merchant's
// credentials (as a storefront would), and the sandbox's own view of an order, which is the truth
// the BFF instances are checked against.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayClient } from '@paydesk/bff/dist/gateway-client/client.js';
import { ROOT } from './processes.js';

const DEMO_DIR = join(ROOT, 'sandbox', 'demo-merchant');
export const DEMO = JSON.parse(readFileSync(join(DEMO_DIR, 'merchant.json'), 'utf8')) as {
  login: string;
  controlKey: string;
};
export const DEMO_KEY_FILE = join(DEMO_DIR, 'private-key.pem');

export interface SandboxOrder {
  orderid: string;
  clientOrderId: string;
  replyStatus: string;
  amountMinor: string | number;
  authorizedMinor: string | number;
  capturedMinor: string | number;
  returnedMinor: string | number;
  operations: { type: string; status: string; amountMinor: string | number }[];
}

export class Shop {
  readonly #client: GatewayClient;

  constructor(
    private readonly sandboxOrigin: string,
    private readonly callbackUrl: string,
  ) {
    this.#client = new GatewayClient({
      baseUrl: `${sandboxOrigin}/paynet`,
      merchant: {
        login: DEMO.login,
        controlKey: DEMO.controlKey,
        rsaPrivateKeyPem: readFileSync(DEMO_KEY_FILE, 'utf8'),
      },
      timeoutMs: 10_000,
    });
  }

  /** A card order of `amount` EUR on endpoint 1001. */
  async place(
    kind: 'sale' | 'preauth',
    amount: string,
  ): Promise<{ orderid: string; client_orderid: string }> {
    const clientOrderId = `shop-${randomUUID()}`;
    const outcome = await this.#client.send(kind, '1001', {
      client_orderid: clientOrderId,
      order_desc: 'Scale-out order',
      amount,
      currency: 'EUR',
      address1: '1 Test Street',
      city: 'Testville',
      zip_code: '12345',
      country: 'DE',
      phone: '+49 301234567',
      email: 'buyer@example.com',
      ipaddress: '192.0.2.10',
      credit_card_number: '4111111111111111',
      card_printed_name: 'Test Buyer',
      expire_month: '12',
      expire_year: '2035',
      cvv2: '123',
      redirect_url: 'https://shop.example/return',
      server_callback_url: this.callbackUrl,
    });
    if (outcome.kind !== 'reply' || outcome.httpStatus !== 200 || !outcome.reply.orderId)
      throw new Error(`placing a ${kind} failed: ${JSON.stringify(outcome.exchange)}`);
    return { orderid: outcome.reply.orderId, client_orderid: clientOrderId };
  }

  async order(orderid: string): Promise<SandboxOrder> {
    const res = await fetch(`${this.sandboxOrigin}/sandbox/orders/${orderid}`);
    if (res.status !== 200) throw new Error(`sandbox order ${orderid}: ${res.status}`);
    return (await res.json()) as SandboxOrder;
  }

  async faults(faults: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.sandboxOrigin}/sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(faults),
    });
    if (res.status !== 200) throw new Error(`sandbox faults: ${res.status} ${await res.text()}`);
  }
}

/** Operations of `type` the gateway holds for the order (any outcome but a refusal). */
export function gatewayOps(order: SandboxOrder, type: string): SandboxOrder['operations'] {
  return order.operations.filter((op) => op.type === type);
}
