// Callbacks to server_callback_url (fields.md "Callback"): HTTP GET with query parameters, signed
// with the callback control, retried with exponential backoff on the sandbox clock until a 2xx.
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { callbackControl, formatMinorUnits, formEncode } from '@paydesk/shared/protocol';
import type { Logger } from 'pino';
import type { Clock, Scheduler } from '../clock.js';
import type { SandboxConfig } from '../config.js';
import type { Store } from '../state/store.js';
import type { CallbackDelivery, OperationRecord, Order } from '../state/types.js';
import type { CallbackFault } from './faults.js';

const CALLBACK_TIMEOUT_MS = 5000;

export function callbackType(op: OperationRecord): string {
  switch (op.type) {
    case 'return':
      return 'reversal';
    case 'payout-pay':
      return 'payout';
    default:
      return op.type;
  }
}

/** The merchant's URL with the callback parameters appended; its own query string is kept. */
export function callbackUrl(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  url.hash = '';
  const extra = formEncode(Object.entries(params));
  return url.search === '' || url.search === '?'
    ? `${url.origin}${url.pathname}?${extra}`
    : `${url.href}&${extra}`;
}

export class Callbacks {
  /** Ids of deliveries the `reverse` fault holds, oldest first. */
  readonly #held: string[] = [];

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly clock: Clock,
    private readonly config: SandboxConfig,
    private readonly logger: Logger,
    private readonly controlKeyOf: (login: string) => string | undefined,
    /** the callbacks fault in force (`POST /sandbox/faults`) */
    private readonly fault: () => CallbackFault = () => 'normal',
  ) {}

  /** Queues the callback of a finished operation, if the order has a callback URL. */
  enqueue(order: Order, op: OperationRecord): void {
    if (order.serverCallbackUrl === undefined) return;
    const key = this.controlKeyOf(order.merchantLogin);
    if (key === undefined) return;
    const params: Record<string, string> = {
      status: op.status,
      orderid: order.orderid,
      merchant_order: order.clientOrderId,
      client_orderid: order.clientOrderId,
      amount: formatMinorUnits(op.amountMinor),
      currency: order.currency,
      type: callbackType(op),
      'serial-number': op.serial,
      'processing-date': op.processingDate,
      control: callbackControl(op.status, order.orderid, order.clientOrderId, key),
    };
    if (op.errorMessage !== undefined) params.error_message = op.errorMessage;
    if (op.errorCode !== undefined) params.error_code = op.errorCode;
    if (order.card) {
      params['last-four-digits'] = order.card.lastFour;
      params['card-type'] = order.card.brand;
    }
    if (order.cardRefId !== undefined) params['card-ref-id'] = order.cardRefId;
    if (order.recurringPaymentId !== undefined)
      params['recurring-payment-id'] = order.recurringPaymentId;
    const fault = this.fault();
    const delivery: CallbackDelivery = {
      id: randomUUID(),
      orderid: order.orderid,
      serial: op.serial,
      url: callbackUrl(order.serverCallbackUrl, params),
      params,
      attempts: [],
      state: 'pending',
      nextAttemptAt: this.clock.now(),
    };
    if (fault === 'drop') {
      this.store.saveCallback({ ...delivery, state: 'dropped', nextAttemptAt: undefined });
      return;
    }
    if (fault === 'reverse') {
      this.store.saveCallback({ ...delivery, state: 'held', nextAttemptAt: undefined });
      this.#held.push(delivery.id);
      return;
    }
    this.store.saveCallback(delivery);
    this.schedule(delivery);
    if (fault === 'duplicate') {
      // A delivery of its own: its own attempts (the twin may be answered differently), its own
      // retries.
      const copy: CallbackDelivery = {
        ...delivery,
        id: randomUUID(),
        attempts: [],
        duplicateOf: delivery.id,
      };
      this.store.saveCallback(copy);
      this.schedule(copy);
    }
  }

  /**
   * Delivers the callbacks the `reverse` fault held, newest first, each attempt finished before
   * the next starts (a failed one then retries on its usual backoff). Held deliveries found in the
   * store at start-up (faults do not survive a restart) count as held too.
   */
  async releaseHeld(): Promise<void> {
    const known = new Set(this.#held);
    for (const d of this.store.callbacks.values())
      if (d.state === 'held' && !known.has(d.id)) this.#held.push(d.id);
    const order = this.#held.splice(0).reverse();
    for (const id of order) {
      const delivery = this.store.callbacks.get(id);
      if (delivery?.state !== 'held') continue;
      delivery.state = 'pending';
      delivery.nextAttemptAt = this.clock.now();
      this.store.saveCallback(delivery);
      await this.attempt(id);
    }
  }

  /** Forgets held deliveries (the store was reset). */
  clearHeld(): void {
    this.#held.length = 0;
  }

  schedule(delivery: CallbackDelivery): void {
    if (delivery.state !== 'pending' || delivery.nextAttemptAt === undefined) return;
    this.scheduler.schedule(`callback:${delivery.id}`, delivery.nextAttemptAt, () =>
      this.attempt(delivery.id),
    );
  }

  private async attempt(id: string): Promise<void> {
    const delivery = this.store.callbacks.get(id);
    if (delivery?.state !== 'pending') return;
    const at = new Date(this.clock.now()).toISOString();
    let httpStatus: number | undefined;
    let error: string | undefined;
    // A timer of our own, cleared once the reply is read (AbortSignal.timeout's would still fire,
    // and build its error, for every callback). undici's `request` rather than `fetch`: a third
    // of the CPU per callback; it follows no redirect.
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort(new Error('no reply in time'));
    }, CALLBACK_TIMEOUT_MS);
    try {
      const response = await request(delivery.url, { method: 'GET', signal: deadline.signal });
      httpStatus = response.statusCode;
      // Read the reply to its end (rather than destroy it) so that the keep-alive connection goes
      // back to the pool: a destroyed body closes the socket, and every callback then opens a new
      // connection to the merchant. A reply over 1 MiB closes it anyway.
      await response.body.dump({ limit: 1024 * 1024 });
    } catch (e) {
      error =
        e instanceof Error
          ? e.cause instanceof Error
            ? e.cause.message
            : e.message
          : 'request failed';
    } finally {
      clearTimeout(timer);
    }
    // The store may have been reset while the request was in flight.
    if (this.store.callbacks.get(id) !== delivery) return;
    delivery.attempts.push({ at, httpStatus, error });
    if (httpStatus !== undefined && httpStatus >= 200 && httpStatus < 300) {
      delivery.state = 'delivered';
      delivery.nextAttemptAt = undefined;
    } else if (delivery.attempts.length >= this.config.callbackMaxAttempts) {
      delivery.state = 'failed';
      delivery.nextAttemptAt = undefined;
      this.logger.warn(
        { orderid: delivery.orderid, attempts: delivery.attempts.length },
        'callback gave up',
      );
    } else {
      const backoffMs =
        this.config.callbackBackoffSeconds * 1000 * 2 ** (delivery.attempts.length - 1);
      delivery.nextAttemptAt = this.clock.now() + backoffMs;
    }
    this.store.saveCallback(delivery);
    this.schedule(delivery);
  }
}
