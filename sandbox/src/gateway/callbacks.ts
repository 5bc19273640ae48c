// Callbacks to server_callback_url (fields.md "Callback"): HTTP GET with query parameters, signed
// with the callback control, retried with exponential backoff on the sandbox clock until a 2xx.
import { randomUUID } from 'node:crypto';
import { callbackControl, formatMinorUnits, formEncode } from '@paydesk/shared/protocol';
import type { Logger } from 'pino';
import type { Clock, Scheduler } from '../clock.js';
import type { SandboxConfig } from '../config.js';
import type { Store } from '../state/store.js';
import type { CallbackDelivery, OperationRecord, Order } from '../state/types.js';

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
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly clock: Clock,
    private readonly config: SandboxConfig,
    private readonly logger: Logger,
    private readonly controlKeyOf: (login: string) => string | undefined,
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
    this.store.saveCallback(delivery);
    this.schedule(delivery);
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
    try {
      const response = await fetch(delivery.url, {
        method: 'GET',
        redirect: 'manual',
        signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
      });
      httpStatus = response.status;
      await response.body?.cancel();
    } catch (e) {
      error =
        e instanceof Error
          ? e.cause instanceof Error
            ? e.cause.message
            : e.message
          : 'request failed';
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
