// The storefront simulator: a merchant shop placing a scripted mix of orders through the gateway
// API with the protocol library, each with server_callback_url, completing 3-D Secure and hosted
// pages the way a browser would. It knows only the gateway API (and, when the gateway is the
// sandbox, its control API: to skip the 10 s 3DS Method wait, and for a history dated over past days).
import { randomBytes } from 'node:crypto';
import { isFinalStatus } from '@paydesk/shared/protocol';
import { GatewayClient, type CallResult, type MerchantCredentials } from './gateway-client.js';
import { MAX_HISTORY_DAYS, SandboxClock, historyTimes } from './history.js';

export type Scenario =
  | 'sale-approved'
  | 'sale-declined'
  | 'sale-error'
  | 'sale-filtered'
  | 'preauth-capture'
  | '3ds2-challenge'
  | '3ds-method'
  | '3ds-method-timeout'
  | '3ds1'
  | 'account-verification'
  | 'sale-form'
  | 'card-ref-rebill'
  | 'recurring'
  | 'transfer';

export const SCENARIOS: readonly Scenario[] = [
  'sale-approved',
  'sale-declined',
  'sale-error',
  'sale-filtered',
  'preauth-capture',
  '3ds2-challenge',
  '3ds-method',
  '3ds-method-timeout',
  '3ds1',
  'account-verification',
  'sale-form',
  'card-ref-rebill',
  'recurring',
  'transfer',
];

export interface StorefrontOptions {
  /** Gateway base URL, `http://host:port/paynet`. */
  gateway: string;
  callbackUrl: string;
  orders: number;
  merchant: MerchantCredentials;
  endpointId: number;
  currency: string;
  /** Orders placed at once. */
  concurrency?: number;
  /** How long to wait for a final status. */
  finalTimeoutMs?: number;
  /**
   * Days of history (at most MAX_HISTORY_DAYS): on a sandbox that holds nothing yet, the orders are
   * dated across that many past days, its clock moving forward from then to real time as they are
   * placed (`concurrency` at a time). 0 or unset: every order is placed now.
   */
  historyDays?: number;
  log?: (line: string) => void;
}

export interface PlacedOrder {
  scenario: Scenario;
  clientOrderId: string;
  /** The order whose final status is expected (for a rebill: the rebill order). */
  orderid?: string | undefined;
  recurringPaymentId?: string | undefined;
  expected: string;
  final?: string | undefined;
  error?: string | undefined;
}

const CARDS: Record<string, string> = {
  approved: '4111111111111111',
  declined: '4000000000000002',
  error: '4000000000000119',
  filtered: '4000000000000259',
  challenge: '4000000000003220',
  method: '4000000000003063',
  tds1: '4000000000000101',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first POST form of a page, as a browser would submit it (hidden inputs plus a button). */
function firstForm(html: string, pageUrl: string): { action: string; hidden: [string, string][] } {
  const form = /<form method="POST" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form?.[1] || form[2] === undefined) throw new Error(`no form on ${pageUrl}`);
  const action = new URL(form[1].replaceAll('&amp;', '&'), pageUrl).href;
  const hidden: [string, string][] = [];
  for (const m of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    if (m[1] !== undefined && m[2] !== undefined)
      hidden.push([m[1], m[2].replaceAll('&amp;', '&')]);
  }
  return { action, hidden };
}

async function browserPost(url: string, pairs: [string, string][]): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(pairs).toString(),
  });
}

export class Storefront {
  private readonly client: GatewayClient;
  private readonly runId = randomBytes(4).toString('hex');
  private sequence = 0;
  private readonly year = String(new Date().getUTCFullYear() + 2);

  constructor(private readonly options: StorefrontOptions) {
    this.client = new GatewayClient(options.gateway, options.merchant);
  }

  private nextId(): string {
    this.sequence += 1;
    return `sf-${this.runId}-${this.sequence}`;
  }

  private customer(clientOrderId: string, card: string): Record<string, string> {
    return {
      client_orderid: clientOrderId,
      order_desc: `Storefront order ${clientOrderId}`,
      amount: `${5 + (this.sequence % 20)}.${String(this.sequence % 100).padStart(2, '0')}`,
      currency: this.options.currency,
      address1: '10 Market Street',
      city: 'Springfield',
      zip_code: '12345',
      country: 'DE',
      phone: '+49 30 5550100',
      email: 'shopper@example.com',
      ipaddress: '198.51.100.23',
      credit_card_number: card,
      card_printed_name: 'SAM SHOPPER',
      expire_month: '09',
      expire_year: this.year,
      cvv2: '737',
      redirect_url: 'https://storefront.example/return',
      server_callback_url: this.options.callbackUrl,
    };
  }

  private async call(
    operation: string,
    fields: Record<string, string | undefined>,
  ): Promise<CallResult> {
    const result = await this.client.call(operation, this.options.endpointId, fields);
    if (result.httpStatus !== 200) {
      throw new Error(
        `${operation} answered ${result.httpStatus}: ${result.reply.errorMessage ?? result.reply.type}`,
      );
    }
    return result;
  }

  private async status(orderid: string, clientOrderId: string): Promise<Record<string, string>> {
    const r = await this.call('status', {
      login: this.options.merchant.login,
      client_orderid: clientOrderId,
      orderid,
    });
    return { ...r.reply.fields };
  }

  /** Polls status until the order is final, or its waiting 3DS step is shown. */
  private async waitFor(
    orderid: string,
    clientOrderId: string,
    until: (s: Record<string, string>) => boolean,
  ): Promise<Record<string, string>> {
    const deadline = Date.now() + (this.options.finalTimeoutMs ?? 30_000);
    for (;;) {
      const s = await this.status(orderid, clientOrderId);
      if (until(s)) return s;
      if (Date.now() > deadline)
        throw new Error(`order ${orderid} did not get there in time (status ${s.status ?? '?'})`);
      await sleep(50);
    }
  }

  private readonly isFinal = (s: Record<string, string>) => isFinalStatus(s.status ?? '');

  private async finalOf(orderid: string, clientOrderId: string): Promise<string> {
    return (await this.waitFor(orderid, clientOrderId, this.isFinal)).status ?? '';
  }

  private async sale(
    operation: 'sale' | 'preauth',
    card: string,
  ): Promise<{ orderid: string; clientOrderId: string }> {
    const clientOrderId = this.nextId();
    const r = await this.call(operation, this.customer(clientOrderId, card));
    return { orderid: r.reply.orderId ?? '', clientOrderId };
  }

  /** Customer on the ACS page approves; the merchant uploads the result it got back. */
  private async challenge(
    card: string,
    upload: 'upload-cres-result' | 'upload-pares-result',
    field: string,
  ): Promise<PlacedOrder> {
    const { orderid, clientOrderId } = await this.sale('sale', card);
    const waiting = await this.waitFor(
      orderid,
      clientOrderId,
      (s) => s['order-stage'] === '3ds_challenge' || this.isFinal(s),
    );
    const acsUrl = waiting['redirect-to'];
    if (!acsUrl) throw new Error('no ACS address while the challenge waits');
    const acs = firstForm(await (await fetch(acsUrl)).text(), acsUrl);
    const answered = await browserPost(acs.action, [...acs.hidden, ['result', 'Y']]);
    const back = firstForm(await answered.text(), acs.action);
    const result = back.hidden.find(([name]) => name === field)?.[1];
    if (!result) throw new Error(`the ACS did not return ${field}`);
    await this.call(upload, {
      login: this.options.merchant.login,
      'client-order-id': clientOrderId,
      orderid,
      [field]: result,
    });
    return {
      scenario: upload === 'upload-cres-result' ? '3ds2-challenge' : '3ds1',
      clientOrderId,
      orderid,
      expected: 'approved',
      final: await this.finalOf(orderid, clientOrderId),
    };
  }

  private async method(timeout: boolean): Promise<PlacedOrder> {
    const { orderid, clientOrderId } = await this.sale('sale', CARDS.method ?? '');
    const waiting = await this.waitFor(
      orderid,
      clientOrderId,
      (s) => s['order-stage'] === '3ds_method' || this.isFinal(s),
    );
    const methodUrl = waiting['redirect-to'];
    if (methodUrl) await (await fetch(methodUrl)).text();
    if (timeout) {
      // No result is uploaded: after 10 s the step counts as N. The sandbox times this order's step
      // out at once (its clock, every other order's dates, stays with real time); another gateway
      // is waited for.
      const origin = new URL(this.options.gateway).origin;
      const timedOut = await fetch(
        `${origin}/sandbox/orders/${encodeURIComponent(orderid)}/3ds-method-timeout`,
        { method: 'POST' },
      ).catch(() => undefined);
      if (timedOut?.status !== 200) await sleep(10_500);
    } else {
      await this.call('upload-method-url-result', {
        login: this.options.merchant.login,
        'client-order-id': clientOrderId,
        orderid,
        threeDSCompInd: 'Y',
      });
    }
    return {
      scenario: timeout ? '3ds-method-timeout' : '3ds-method',
      clientOrderId,
      orderid,
      expected: 'approved',
      final: await this.finalOf(orderid, clientOrderId),
    };
  }

  private async simple(scenario: Scenario, card: string, expected: string): Promise<PlacedOrder> {
    const { orderid, clientOrderId } = await this.sale('sale', card);
    return {
      scenario,
      clientOrderId,
      orderid,
      expected,
      final: await this.finalOf(orderid, clientOrderId),
    };
  }

  async place(scenario: Scenario): Promise<PlacedOrder> {
    const login = this.options.merchant.login;
    switch (scenario) {
      case 'sale-approved':
        return this.simple(scenario, CARDS.approved ?? '', 'approved');
      case 'sale-declined':
        return this.simple(scenario, CARDS.declined ?? '', 'declined');
      case 'sale-error':
        return this.simple(scenario, CARDS.error ?? '', 'error');
      case 'sale-filtered':
        return this.simple(scenario, CARDS.filtered ?? '', 'filtered');
      case 'preauth-capture': {
        const { orderid, clientOrderId } = await this.sale('preauth', CARDS.approved ?? '');
        await this.finalOf(orderid, clientOrderId);
        await this.call('capture', {
          login,
          client_orderid: clientOrderId,
          orderid,
          amount: '1.00',
          currency: this.options.currency,
        });
        return {
          scenario,
          clientOrderId,
          orderid,
          expected: 'approved',
          final: await this.finalOf(orderid, clientOrderId),
        };
      }
      case '3ds2-challenge':
        return this.challenge(CARDS.challenge ?? '', 'upload-cres-result', 'cres');
      case '3ds1':
        return this.challenge(CARDS.tds1 ?? '', 'upload-pares-result', 'PaRes');
      case '3ds-method':
        return this.method(false);
      case '3ds-method-timeout':
        return this.method(true);
      case 'account-verification': {
        const clientOrderId = this.nextId();
        const {
          amount: _a,
          currency: _c,
          ...fields
        } = this.customer(clientOrderId, CARDS.approved ?? '');
        const r = await this.call('account-verification', fields);
        const orderid = r.reply.orderId ?? '';
        return {
          scenario,
          clientOrderId,
          orderid,
          expected: 'approved',
          final: await this.finalOf(orderid, clientOrderId),
        };
      }
      case 'sale-form': {
        const clientOrderId = this.nextId();
        const {
          credit_card_number: _n,
          card_printed_name: _h,
          expire_month: _m,
          expire_year: _y,
          cvv2: _v,
          ...fields
        } = this.customer(clientOrderId, '');
        const r = await this.call('sale-form', fields);
        const page = r.reply.redirectUrl;
        if (!page) throw new Error('sale-form gave no redirect-url');
        const form = firstForm(await (await fetch(page)).text(), page);
        const submitted = await browserPost(form.action, [
          ['credit_card_number', CARDS.approved ?? ''],
          ['card_printed_name', 'SAM SHOPPER'],
          ['expire_month', '09'],
          ['expire_year', this.year],
          ['cvv2', '737'],
        ]);
        if (submitted.status !== 303)
          throw new Error(`the hosted page answered ${submitted.status}`);
        const orderid = r.reply.orderId ?? '';
        return {
          scenario,
          clientOrderId,
          orderid,
          expected: 'approved',
          final: await this.finalOf(orderid, clientOrderId),
        };
      }
      case 'card-ref-rebill': {
        const { orderid, clientOrderId } = await this.sale('sale', CARDS.approved ?? '');
        await this.finalOf(orderid, clientOrderId);
        const ref = await this.call('create-card-ref', {
          login,
          client_orderid: clientOrderId,
          orderid,
        });
        const cardrefid = ref.reply.fields['card-ref-id'];
        const rebillId = this.nextId();
        const rebill = await this.call('make-rebill', {
          login,
          client_orderid: rebillId,
          cardrefid,
          amount: '4.99',
          currency: this.options.currency,
          order_desc: 'Stored-card charge',
          ipaddress: '198.51.100.23',
          server_callback_url: this.options.callbackUrl,
        });
        const rebillOrder = rebill.reply.orderId ?? '';
        return {
          scenario,
          clientOrderId: rebillId,
          orderid: rebillOrder,
          expected: 'approved',
          final: await this.finalOf(rebillOrder, rebillId),
        };
      }
      case 'recurring': {
        const clientOrderId = this.nextId();
        const c = this.customer(clientOrderId, CARDS.approved ?? '');
        const r = await this.call('create-recurring-payment', {
          client_orderid: clientOrderId,
          amount: '2.50',
          currency: this.options.currency,
          period: 'month',
          interval: '1',
          order_desc: 'Monthly plan',
          email: c.email,
          ipaddress: c.ipaddress,
          credit_card_number: c.credit_card_number,
          card_printed_name: c.card_printed_name,
          expire_month: c.expire_month,
          expire_year: c.expire_year,
          max_payments: '12',
          server_callback_url: this.options.callbackUrl,
        });
        return {
          scenario,
          clientOrderId,
          recurringPaymentId: r.reply.fields['recurring-payment-id'],
          expected: 'approved',
          final: r.reply.status,
        };
      }
      case 'transfer': {
        const clientOrderId = this.nextId();
        const c = this.customer(clientOrderId, CARDS.approved ?? '');
        const r = await this.call('transfer', {
          client_orderid: clientOrderId,
          amount: c.amount,
          currency: c.currency,
          order_desc: 'Card to card',
          ipaddress: c.ipaddress,
          credit_card_number: c.credit_card_number,
          card_printed_name: c.card_printed_name,
          expire_month: c.expire_month,
          expire_year: c.expire_year,
          cvv2: c.cvv2,
          'destination-card-no': '5555555555554444',
          redirect_url: c.redirect_url,
          server_callback_url: this.options.callbackUrl,
        });
        const orderid = r.reply.orderId ?? '';
        return {
          scenario,
          clientOrderId,
          orderid,
          expected: 'approved',
          final: await this.finalOf(orderid, clientOrderId),
        };
      }
    }
  }

  /** The sandbox clock started `historyDays` in the past, and each order's time; or none. */
  private async startHistory(
    count: number,
  ): Promise<{ clock: SandboxClock; times: number[] } | undefined> {
    const days = this.options.historyDays ?? 0;
    if (days <= 0) return undefined;
    if (!Number.isInteger(days) || days > MAX_HISTORY_DAYS) {
      throw new RangeError(`historyDays must be a whole number from 0 to ${MAX_HISTORY_DAYS}`);
    }
    const clock = new SandboxClock(new URL(this.options.gateway).origin);
    if (!(await clock.rewind(days * 86_400))) {
      this.options.log?.(
        JSON.stringify({
          note: 'no history: the gateway already holds orders, so every order is placed now',
        }),
      );
      return undefined;
    }
    const { nowMs } = await clock.state();
    return { clock, times: historyTimes(count, nowMs, nowMs + days * 86_400_000) };
  }

  /** Places `orders` orders, cycling through the scenarios. */
  async run(): Promise<PlacedOrder[]> {
    const plan = Array.from(
      { length: this.options.orders },
      (_, i) => SCENARIOS[i % SCENARIOS.length] ?? 'sale-approved',
    );
    const results: PlacedOrder[] = new Array<PlacedOrder>(plan.length);
    const placeAt = async (index: number) => {
      const scenario = plan[index] ?? 'sale-approved';
      let placed: PlacedOrder;
      try {
        placed = await this.place(scenario);
      } catch (error) {
        placed = {
          scenario,
          clientOrderId: '',
          expected: 'approved',
          error: error instanceof Error ? error.message : String(error),
        };
      }
      results[index] = placed;
      this.options.log?.(JSON.stringify(placed));
    };
    const concurrency = Math.max(1, this.options.concurrency ?? 4);
    const history = await this.startHistory(plan.length);
    if (!history) {
      let next = 0;
      const worker = async () => {
        while (next < plan.length) await placeAt(next++);
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return results;
    }
    try {
      // One group at a time, the clock moved to the group's time first: no order is in flight
      // while the clock moves, so its 3-D Secure and hosted-page steps keep their real deadlines.
      for (let first = 0; first < plan.length; first += concurrency) {
        await history.clock.moveTo(history.times[first] ?? 0);
        const group = plan.slice(first, first + concurrency).map((_, i) => placeAt(first + i));
        await Promise.all(group);
      }
    } finally {
      await history.clock.catchUp();
    }
    return results;
  }
}
