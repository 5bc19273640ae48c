// The gateway's behaviour: orders, their lifecycle (design §4 via @paydesk/shared/domain), test
// cards, 3-D Secure steps, card refs, recurring payments and payouts, on the sandbox clock.
//
// Every check-then-reserve below runs without an `await` in between, so concurrent requests
// cannot both pass a cap (one capture, returns ≤ captured, one payout-pay).
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import {
  PAYOUT_REGISTRATION_TTL_MS,
  SETTLEMENT_DELAY_MS,
  THREE_DS_METHOD_TIMEOUT_MS,
  canSettle,
  decideCapture,
  decideCardRef,
  decidePayoutPay,
  decideReturn,
  decideVoid,
  stageOf,
  type OrderFacts,
  type OrderKind,
  type OrderStatus,
} from '@paydesk/shared/domain';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import type { Clock, Scheduler } from '../clock.js';
import type { MerchantConfig, SandboxConfig } from '../config.js';
import { GatewayError } from '../http/gateway-error.js';
import type { Store } from '../state/store.js';
import type {
  CardData,
  FormKind,
  OperationRecord,
  OperationType,
  Order,
  PayoutDestination,
  RecurringPayment,
} from '../state/types.js';
import type { Callbacks } from './callbacks.js';
import {
  SLOW_AMOUNT_MINOR,
  SLOW_PROCESSING_MS,
  cardData,
  isExpired,
  maskedNumber,
  outcomeOf,
  type Outcome,
} from './cards.js';
import { destinationKind } from './schemas.js';

export type Fields = Record<string, string | undefined>;
export type Reply = Record<string, string>;

export interface RequestContext {
  merchant: MerchantConfig;
  /** The endpoint or endpoint-group id of the request path. */
  pathId: number;
  serial: string;
  /** `http://host:port/paynet`, for the addresses of hosted and ACS pages. */
  baseUrl: string;
}

function need(fields: Fields, name: string): string {
  const value = fields[name];
  if (value === undefined)
    throw new GatewayError(500, 'INTERNAL', `field ${name} missing after validation`);
  return value;
}

const isoDate = (ms: number) => new Date(ms).toISOString();

export class Engine {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly clock: Clock,
    private readonly config: SandboxConfig,
    private readonly callbacks: Callbacks,
  ) {}

  // ---------------------------------------------------------------- endpoints and orders

  merchantOf(login: string): MerchantConfig | undefined {
    return this.config.merchants.find((m) => m.login === login);
  }

  /** The merchant that owns an endpoint or endpoint-group id. */
  merchantForId(id: number): MerchantConfig | undefined {
    return this.config.merchants.find(
      (m) => m.endpoints.some((e) => e.id === id) || m.endpointGroups.some((g) => g.id === id),
    );
  }

  private endpointsOf(ctx: RequestContext): { id: number; currency: string }[] {
    const direct = ctx.merchant.endpoints.find((e) => e.id === ctx.pathId);
    if (direct) return [direct];
    const group = ctx.merchant.endpointGroups.find((g) => g.id === ctx.pathId);
    return ctx.merchant.endpoints.filter((e) => group?.endpoints.includes(e.id));
  }

  /** Where a new order lands: the endpoint itself, or the group's endpoint of that currency. */
  private landingEndpoint(
    ctx: RequestContext,
    currency: string | undefined,
  ): { id: number; currency: string; groupId?: number } {
    const candidates = this.endpointsOf(ctx);
    const isGroup = !ctx.merchant.endpoints.some((e) => e.id === ctx.pathId);
    if (currency === undefined) {
      const first = candidates[0];
      if (!first) throw GatewayError.notFound(`endpoint ${ctx.pathId} has no endpoints`);
      return isGroup ? { ...first, groupId: ctx.pathId } : first;
    }
    const match = candidates.find((e) => e.currency === currency);
    if (!match) {
      const accepted = candidates.map((e) => e.currency).join(', ');
      const where = isGroup ? `endpoint group ${ctx.pathId}` : `endpoint ${ctx.pathId}`;
      throw GatewayError.validation([
        { name: 'currency', message: `must be a currency of ${where} (${accepted})` },
      ]);
    }
    return isGroup ? { ...match, groupId: ctx.pathId } : match;
  }

  private onPath(ctx: RequestContext, endpointId: number): boolean {
    return this.endpointsOf(ctx).some((e) => e.id === endpointId);
  }

  /** An existing order of this merchant reachable through the request path. */
  findOrder(ctx: RequestContext, orderid: string, clientOrderId?: string): Order {
    const order = this.store.orders.get(orderid);
    if (order?.merchantLogin !== ctx.merchant.login || !this.onPath(ctx, order.endpointId)) {
      throw GatewayError.notFound(`no order ${orderid} on endpoint ${ctx.pathId}`);
    }
    if (clientOrderId !== undefined && order.clientOrderId !== clientOrderId) {
      throw GatewayError.notFound(`order ${orderid} has a different client_orderid`);
    }
    return order;
  }

  private checkCardExpiry(fields: Fields, problems: { name: string; message: string }[]): void {
    const month = fields.expire_month;
    const year = fields.expire_year;
    if (month !== undefined && year !== undefined && isExpired(month, year, this.clock.now())) {
      problems.push({ name: 'expire_year', message: 'the card has expired' });
    }
  }

  private newOrder(
    ctx: RequestContext,
    fields: Fields,
    spec: {
      kind: OrderKind;
      type: OperationType;
      amountMinor: bigint;
      currency?: string | undefined;
      clientOrderId?: string;
    },
  ): Order {
    const landing = this.landingEndpoint(ctx, spec.currency);
    const clientOrderId = spec.clientOrderId ?? need(fields, 'client_orderid');
    const existing = this.store.findByClientOrderId(landing.id, clientOrderId);
    if (existing) {
      throw GatewayError.validation([
        {
          name: 'client_orderid',
          message: `is already used by order ${existing.orderid} on endpoint ${landing.id}`,
        },
      ]);
    }
    const now = this.clock.now();
    return {
      orderid: this.store.allocateOrderId(),
      merchantLogin: ctx.merchant.login,
      endpointId: landing.id,
      groupId: landing.groupId,
      clientOrderId,
      kind: spec.kind,
      transactionType: spec.type,
      status: 'processing',
      amountMinor: spec.amountMinor,
      currency: landing.currency,
      authorizedMinor: 0n,
      capturedMinor: 0n,
      returnedMinor: 0n,
      captured: false,
      voided: false,
      holdCancelled: false,
      settled: false,
      email: fields.email,
      firstName: fields.first_name,
      lastName: fields.last_name,
      orderDesc: fields.order_desc,
      serverCallbackUrl: fields.server_callback_url,
      redirectUrl: fields.redirect_url,
      operations: [],
      createdAt: now,
      pageToken: randomBytes(16).toString('hex'),
      pageBase: ctx.baseUrl,
    };
  }

  private addOperation(
    order: Order,
    type: OperationType,
    amountMinor: bigint,
    serial: string,
  ): OperationRecord {
    const op: OperationRecord = {
      serial,
      type,
      amountMinor,
      status: 'processing',
      processingDate: isoDate(this.clock.now()),
    };
    order.operations.push(op);
    return op;
  }

  /** Lets a processing operation reach `outcome` after the processing delay. */
  private finishLater(order: Order, op: OperationRecord, outcome: Outcome, delayMs?: number): void {
    op.outcome = outcome.status;
    op.errorMessage = outcome.errorMessage;
    op.errorCode = outcome.errorCode;
    const slow = order.operations[0] === op && op.amountMinor === SLOW_AMOUNT_MINOR;
    op.completeAt =
      this.clock.now() + (delayMs ?? (slow ? SLOW_PROCESSING_MS : this.config.processingDelayMs));
    this.scheduleCompletion(order, op);
  }

  private scheduleCompletion(order: Order, op: OperationRecord): void {
    if (op.completeAt === undefined) return;
    this.scheduler.schedule(`complete:${order.orderid}:${op.serial}`, op.completeAt, () => {
      this.complete(order.orderid, op.serial);
    });
  }

  /** A processing operation reaches its final status: effects, settlement, callback. */
  private complete(orderid: string, serial: string): void {
    const order = this.store.orders.get(orderid);
    const op = order?.operations.find((o) => o.serial === serial);
    if (!order || op?.status !== 'processing' || op.outcome === undefined) return;
    const now = this.clock.now();
    op.status = op.outcome;
    op.completeAt = undefined;
    op.processingDate = isoDate(now);
    const approved = op.status === 'approved';
    const originating = order.operations[0] === op;
    if (originating && order.forcedStatus === undefined) {
      order.status = op.status;
      order.errorMessage = op.errorMessage;
      order.errorCode = op.errorCode;
    }
    switch (op.type) {
      case 'sale':
      case 'rebill':
      case 'transfer':
        if (approved && originating) {
          order.authorizedMinor = op.amountMinor;
          order.capturedMinor = op.amountMinor;
          order.captured = true;
          this.scheduleSettlement(order, now);
        }
        break;
      case 'preauth':
        if (approved && originating) order.authorizedMinor = op.amountMinor;
        break;
      case 'capture':
        if (approved) this.scheduleSettlement(order, now);
        break;
      case 'payout-pay':
        if (order.payout) order.payout.stage = approved ? 'paid' : 'registered';
        break;
      default:
        break;
    }
    this.store.saveOrder(order);
    this.callbacks.enqueue(order, op);
  }

  private scheduleSettlement(order: Order, approvedAt: number): void {
    order.settleAt = approvedAt + SETTLEMENT_DELAY_MS;
    this.scheduleSettle(order);
  }

  private scheduleSettle(order: Order): void {
    if (order.settleAt === undefined || order.settled) return;
    this.scheduler.schedule(`settle:${order.orderid}`, order.settleAt, () => {
      const current = this.store.orders.get(order.orderid);
      if (!current) return;
      if (canSettle(factsOf(current))) current.settled = true;
      current.settleAt = undefined;
      this.store.saveOrder(current);
    });
  }

  private schedulePayoutExpiry(order: Order): void {
    const expiresAt = order.payout?.expiresAt;
    if (expiresAt === undefined || order.payout?.stage !== 'registered') return;
    this.scheduler.schedule(`payout-expiry:${order.orderid}`, expiresAt, () => {
      const current = this.store.orders.get(order.orderid);
      if (current?.payout?.stage !== 'registered') return;
      current.payout.stage = 'expired';
      this.store.saveOrder(current);
    });
  }

  private scheduleMethodTimeout(order: Order): void {
    const deadline = order.threeDs?.methodDeadline;
    if (deadline === undefined || order.threeDs?.step !== 'method') return;
    this.scheduler.schedule(`3ds-method:${order.orderid}`, deadline, () => {
      const current = this.store.orders.get(order.orderid);
      if (current?.threeDs?.step !== 'method') return;
      this.finishMethod(current, 'N');
      this.store.saveOrder(current);
    });
  }

  /** Re-creates every scheduled task from the stored state (after a restart). */
  rescheduleAll(): void {
    for (const order of this.store.orders.values()) {
      for (const op of order.operations)
        if (op.status === 'processing') this.scheduleCompletion(order, op);
      this.scheduleSettle(order);
      this.schedulePayoutExpiry(order);
      this.scheduleMethodTimeout(order);
    }
    for (const rp of this.store.recurring.values()) this.scheduleRecurring(rp);
    for (const delivery of this.store.callbacks.values()) this.callbacks.schedule(delivery);
  }

  // ---------------------------------------------------------------- card payments

  /** sale, preauth: card data in the request; 3-D Secure test cards wait for their step. */
  cardPayment(ctx: RequestContext, fields: Fields, type: 'sale' | 'preauth'): Reply {
    const problems: { name: string; message: string }[] = [];
    this.checkCardExpiry(fields, problems);
    if (problems.length > 0) throw GatewayError.validation(problems);
    const amountMinor = toMinorUnits(need(fields, 'amount'));
    const order = this.newOrder(ctx, fields, {
      kind: type,
      type,
      amountMinor,
      currency: fields.currency,
    });
    order.card = cardData(
      need(fields, 'credit_card_number'),
      need(fields, 'card_printed_name'),
      need(fields, 'expire_month'),
      need(fields, 'expire_year'),
    );
    const op = this.addOperation(order, type, amountMinor, ctx.serial);
    this.startCardOutcome(order, op, false);
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  /** Either waits for a 3-D Secure step or lets the card's outcome follow after the delay. */
  private startCardOutcome(order: Order, op: OperationRecord, hosted: boolean): void {
    const card = order.card;
    if (!card) return;
    const b = card.behaviour;
    if (b === '3ds2-challenge' || b === '3ds1') {
      order.threeDs = { flow: b, step: 'challenge', hosted };
      return;
    }
    if (b === '3ds-method') {
      if (hosted) {
        // The hosted page runs the method step itself, in the customer's browser.
        order.threeDs = { flow: b, step: 'done', compInd: 'Y', hosted };
      } else {
        order.threeDs = {
          flow: b,
          step: 'method',
          hosted,
          methodDeadline: this.clock.now() + THREE_DS_METHOD_TIMEOUT_MS,
        };
        this.scheduleMethodTimeout(order);
        return;
      }
    }
    this.finishLater(order, op, outcomeOf(b));
  }

  private finishMethod(order: Order, compInd: string): void {
    const threeDs = order.threeDs;
    const op = order.operations[0];
    if (!threeDs || !op) return;
    threeDs.step = 'done';
    threeDs.compInd = compInd;
    threeDs.methodDeadline = undefined;
    this.scheduler.cancel(`3ds-method:${order.orderid}`);
    this.finishLater(order, op, { status: 'approved' });
  }

  /** The ACS page's answer: hosted flows complete at once, direct ones wait for the upload. */
  acsResult(order: Order, result: 'Y' | 'N'): void {
    const threeDs = order.threeDs;
    const op = order.operations[0];
    if (threeDs?.step !== 'challenge' || !op)
      throw GatewayError.invalidState('no 3-D Secure challenge is waiting on this order');
    if (threeDs.hosted) {
      threeDs.step = 'done';
      threeDs.acsResult = result;
      this.finishLater(order, op, result === 'Y' ? { status: 'approved' } : threeDsFailed());
    } else {
      threeDs.acsResult = result;
    }
    this.store.saveOrder(order);
  }

  uploadCres(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client-order-id'));
    const transStatus = decodeResult(need(fields, 'cres'), 'transStatus');
    if (transStatus === undefined) {
      throw GatewayError.validation([
        { name: 'cres', message: 'must be Base64 of the CRes JSON with transStatus Y or N' },
      ]);
    }
    this.completeChallenge(order, '3ds2-challenge', transStatus, 'upload-cres-result');
    return this.asyncReply(ctx, order);
  }

  uploadPares(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client-order-id'));
    const status = decodeResult(need(fields, 'PaRes'), 'status');
    if (status === undefined) {
      throw GatewayError.validation([
        { name: 'PaRes', message: 'must be Base64 of the PaRes JSON with status Y or N' },
      ]);
    }
    this.completeChallenge(order, '3ds1', status, 'upload-pares-result');
    return this.asyncReply(ctx, order);
  }

  private completeChallenge(
    order: Order,
    flow: '3ds2-challenge' | '3ds1',
    result: 'Y' | 'N',
    operation: string,
  ): void {
    const threeDs = order.threeDs;
    const op = order.operations[0];
    if (threeDs?.flow !== flow || threeDs.hosted || !op) {
      throw GatewayError.invalidState(
        `${operation} does not apply: the order has no ${flow === '3ds1' ? '3-D Secure 1.0.2' : '3-D Secure 2 challenge'} step`,
      );
    }
    if (threeDs.step !== 'challenge')
      throw GatewayError.invalidState(`the 3-D Secure step of this order is already complete`);
    threeDs.step = 'done';
    threeDs.acsResult = result;
    this.finishLater(order, op, result === 'Y' ? { status: 'approved' } : threeDsFailed());
    this.store.saveOrder(order);
  }

  uploadMethod(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client-order-id'));
    const threeDs = order.threeDs;
    if (threeDs?.flow !== '3ds-method')
      throw GatewayError.invalidState(
        'upload-method-url-result does not apply: the order has no 3DS Method step',
      );
    if (threeDs.step !== 'method') {
      throw GatewayError.invalidState(
        `the 3DS Method step is already complete (threeDSCompInd ${threeDs.compInd ?? 'N'})`,
      );
    }
    this.finishMethod(order, need(fields, 'threeDSCompInd'));
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  accountVerification(ctx: RequestContext, fields: Fields): Reply {
    const problems: { name: string; message: string }[] = [];
    this.checkCardExpiry(fields, problems);
    if (problems.length > 0) throw GatewayError.validation(problems);
    const order = this.newOrder(ctx, fields, {
      kind: 'account-verification',
      type: 'account-verification',
      amountMinor: 0n,
    });
    order.card = cardData(
      need(fields, 'credit_card_number'),
      need(fields, 'card_printed_name'),
      need(fields, 'expire_month'),
      need(fields, 'expire_year'),
    );
    const op = this.addOperation(order, 'account-verification', 0n, ctx.serial);
    this.finishLater(order, op, outcomeOf(order.card.behaviour));
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  // ---------------------------------------------------------------- hosted forms

  hostedForm(ctx: RequestContext, fields: Fields, kind: FormKind): Reply {
    const type: OperationType =
      kind === 'preauth-form'
        ? 'preauth'
        : kind === 'payout-form'
          ? 'payout'
          : kind === 'account-verification-form'
            ? 'account-verification'
            : 'sale';
    const orderKind: OrderKind = type === 'sale' ? 'sale' : type;
    const amountMinor = fields.amount === undefined ? 0n : toMinorUnits(fields.amount);
    const order = this.newOrder(ctx, fields, {
      kind: orderKind,
      type,
      amountMinor,
      currency: fields.currency,
    });
    order.form = { kind, submitted: false };
    if (kind === 'payout-form') order.payout = {};
    this.addOperation(order, type, amountMinor, ctx.serial);
    this.store.saveOrder(order);
    return {
      ...this.baseReply(ctx, 'async-form-response', order),
      'redirect-url': `${order.pageBase}/hosted/${order.orderid}/${order.pageToken}`,
    };
  }

  /** Card data entered on a hosted page (already validated). Returns where the browser goes next. */
  submitCardForm(order: Order, card: CardData): string {
    const op = order.operations[0];
    if (!order.form || order.form.submitted || !op)
      throw GatewayError.invalidState('this form was already submitted');
    order.form.submitted = true;
    order.card = card;
    if (order.kind === 'account-verification') {
      this.finishLater(order, op, outcomeOf(card.behaviour));
    } else {
      this.startCardOutcome(order, op, true);
    }
    this.store.saveOrder(order);
    return order.threeDs?.step === 'challenge' ? this.acsUrl(order) : this.returnUrl(order);
  }

  submitPayoutForm(order: Order, destination: PayoutDestination): string {
    const op = order.operations[0];
    if (!order.form || order.form.submitted || !op)
      throw GatewayError.invalidState('this form was already submitted');
    order.form.submitted = true;
    order.payout = { destination };
    if (destination.kind === 'card') order.card = destination.card;
    this.finishLater(
      order,
      op,
      destination.kind === 'card' ? payoutOutcome(destination.card) : { status: 'approved' },
    );
    this.store.saveOrder(order);
    return this.returnUrl(order);
  }

  /** The merchant's redirect_url with the order's identifiers, where the browser returns. */
  returnUrl(order: Order): string {
    const url = new URL(
      order.redirectUrl ?? `${order.pageBase}/hosted/${order.orderid}/${order.pageToken}/done`,
    );
    url.searchParams.set('orderid', order.orderid);
    url.searchParams.set('client_orderid', order.clientOrderId);
    url.searchParams.set('status', replyStatus(order));
    return url.href;
  }

  acsUrl(order: Order): string {
    return `${order.pageBase}/acs/${order.orderid}/${order.pageToken}`;
  }

  methodUrl(order: Order): string {
    return `${order.pageBase}/3ds-method/${order.orderid}/${order.pageToken}`;
  }

  /** An order by the capability address of its pages. */
  orderForPage(orderid: string, token: string): Order | undefined {
    const order = this.store.orders.get(orderid);
    return order?.pageToken === token ? order : undefined;
  }

  // ---------------------------------------------------------------- follow-up operations

  private refuseWhileBusy(order: Order, operation: string): void {
    const busy = order.operations.find(
      (o) => o.status === 'processing' && o.type !== 'return' && o !== order.operations[0],
    );
    if (busy)
      throw GatewayError.invalidState(
        `${operation} refused: a ${busy.type} is still processing on this order`,
      );
  }

  private amountFor(order: Order, fields: Fields): bigint | undefined {
    if (fields.amount === undefined) return undefined;
    if (fields.currency !== order.currency) {
      throw GatewayError.validation([
        { name: 'currency', message: `must be ${order.currency}, the currency of the order` },
      ]);
    }
    return toMinorUnits(fields.amount);
  }

  capture(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client_orderid'));
    const amount = this.amountFor(order, fields);
    this.refuseWhileBusy(order, 'capture');
    const decision = decideCapture(factsOf(order), amount);
    if (!decision.ok) throw GatewayError.invalidState(`capture refused: ${decision.reason}`);
    order.captured = true;
    order.capturedMinor = decision.value;
    const op = this.addOperation(order, 'capture', decision.value, ctx.serial);
    this.finishLater(order, op, { status: 'approved' });
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  void(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client_orderid'));
    this.refuseWhileBusy(order, 'void');
    const decision = decideVoid(factsOf(order));
    if (!decision.ok) throw GatewayError.invalidState(`void refused: ${decision.reason}`);
    order.voided = true;
    order.settleAt = undefined;
    this.scheduler.cancel(`settle:${order.orderid}`);
    const amount = order.captured ? order.capturedMinor : order.authorizedMinor;
    const op = this.addOperation(order, 'void', amount, ctx.serial);
    this.finishLater(order, op, { status: 'approved' });
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  return(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client_orderid'));
    const amount = this.amountFor(order, fields);
    this.refuseWhileBusy(order, 'return');
    const decision = decideReturn(factsOf(order), amount);
    if (!decision.ok) throw GatewayError.invalidState(`return refused: ${decision.reason}`);
    if (decision.value.kind === 'cancel-hold') {
      order.holdCancelled = true;
    } else {
      order.returnedMinor += decision.value.amountMinor;
    }
    const op = this.addOperation(order, 'return', decision.value.amountMinor, ctx.serial);
    this.finishLater(order, op, { status: 'approved' });
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  status(ctx: RequestContext, fields: Fields): Reply {
    const clientOrderId = need(fields, 'client_orderid');
    let order: Order | undefined;
    if (fields.orderid !== undefined) {
      order = this.findOrder(ctx, fields.orderid, clientOrderId);
    } else {
      for (const endpoint of this.endpointsOf(ctx)) {
        order ??= this.store.findByClientOrderId(endpoint.id, clientOrderId);
      }
      if (order?.merchantLogin !== ctx.merchant.login) {
        throw GatewayError.notFound(
          `no order with client_orderid ${clientOrderId} on endpoint ${ctx.pathId}`,
        );
      }
    }
    return this.statusReply(ctx, order, fields['by-request-sn']);
  }

  statusReply(ctx: RequestContext, order: Order, bySerial?: string): Reply {
    const last = order.operations.at(-1);
    const ops =
      bySerial === undefined
        ? order.operations
        : order.operations.filter((o) => o.serial === bySerial);
    const reply: Reply = {
      ...this.baseReply(ctx, 'status-response', order),
      status: replyStatus(order),
      'transaction-type': order.transactionType,
      'last-operation': last?.type ?? order.transactionType,
      'order-stage': orderStage(order),
      amount: formatMinorUnits(order.amountMinor),
      currency: order.currency,
      'captured-amount': formatMinorUnits(order.capturedMinor),
      'returned-amount': formatMinorUnits(order.returnedMinor),
      operations: JSON.stringify(
        ops.map((o) => ({
          'serial-number': o.serial,
          type: o.type,
          amount: formatMinorUnits(o.amountMinor),
          status: o.status,
          'processing-date': o.processingDate,
        })),
      ),
      'processing-date': last?.processingDate ?? isoDate(order.createdAt),
    };
    const card = order.card;
    if (card) {
      reply.bin = card.bin;
      reply['last-four-digits'] = card.lastFour;
      reply['card-type'] = card.brand;
      reply['card-exp-month'] = card.expMonth;
      reply['card-exp-year'] = card.expYear;
      reply['cardholder-name'] = card.holder;
    }
    if (order.email !== undefined) reply.email = order.email;
    if (order.firstName !== undefined) reply['first-name'] = order.firstName;
    if (order.lastName !== undefined) reply['last-name'] = order.lastName;
    if (order.cardRefId !== undefined) reply['card-ref-id'] = order.cardRefId;
    if (order.recurringPaymentId !== undefined)
      reply['recurring-payment-id'] = order.recurringPaymentId;
    const waiting = this.waitingStep(order);
    if (waiting) {
      reply['redirect-to'] = waiting;
      reply.html = `<form method="GET" action="${waiting}"><button type="submit">Continue to 3-D Secure</button></form>`;
    }
    const error = replyError(order);
    if (error) {
      reply['error-message'] = error.message;
      reply['error-code'] = error.code;
    }
    return reply;
  }

  private waitingStep(order: Order): string | undefined {
    if (order.threeDs?.step === 'challenge' && !order.threeDs.hosted) return this.acsUrl(order);
    if (order.threeDs?.step === 'method') return this.methodUrl(order);
    return undefined;
  }

  // ---------------------------------------------------------------- card references

  createCardRef(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client_orderid'));
    const decision = decideCardRef(factsOf(order));
    if (!decision.ok || !order.card)
      throw GatewayError.invalidState(
        `create-card-ref refused: ${decision.ok ? 'no card data' : decision.reason}`,
      );
    if (order.cardRefId === undefined) {
      // Nine digits like the gateway's own (e.g. 47226154): unique per store by the counter, and
      // never the length of a card number, so no log or audit masking mistakes one for a PAN.
      const sequence = String(this.store.cardRefs.size + 1).padStart(7, '0');
      const cardRefId = `${randomInt(10, 100)}${sequence}`;
      order.cardRefId = cardRefId;
      this.store.saveCardRef({
        id: cardRefId,
        merchantLogin: order.merchantLogin,
        endpointId: order.endpointId,
        card: order.card,
        sourceOrderId: order.orderid,
        createdAt: this.clock.now(),
      });
      this.store.saveOrder(order);
    }
    return {
      ...this.baseReply(ctx, 'create-card-ref-response', order),
      'card-ref-id': order.cardRefId,
      status: 'approved',
    };
  }

  private cardRef(ctx: RequestContext, id: string, field: string) {
    const ref = this.store.cardRefs.get(id);
    if (ref?.merchantLogin !== ctx.merchant.login || !this.onPath(ctx, ref.endpointId)) {
      throw GatewayError.notFound(`no card reference ${id} (${field}) on endpoint ${ctx.pathId}`);
    }
    return ref;
  }

  getCardInfo(ctx: RequestContext, fields: Fields): Reply {
    const ref = this.cardRef(ctx, need(fields, 'cardrefid'), 'cardrefid');
    return {
      type: 'get-card-info-response',
      'serial-number': ctx.serial,
      'card-printed-name': ref.card.holder,
      'expire-month': ref.card.expMonth,
      'expire-year': ref.card.expYear,
      bin: ref.card.bin,
      'last-four-digits': ref.card.lastFour,
      'card-type': ref.card.brand,
      'masked-number': maskedNumber(ref.card),
    };
  }

  makeRebill(ctx: RequestContext, fields: Fields): Reply {
    const ref = this.cardRef(ctx, need(fields, 'cardrefid'), 'cardrefid');
    const amountMinor = toMinorUnits(need(fields, 'amount'));
    const order = this.newOrder(ctx, fields, {
      kind: 'rebill',
      type: 'rebill',
      amountMinor,
      currency: fields.currency,
    });
    order.card = ref.card;
    order.cardRefId = ref.id;
    const op = this.addOperation(order, 'rebill', amountMinor, ctx.serial);
    this.finishLater(order, op, payoutOutcome(ref.card));
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  // ---------------------------------------------------------------- recurring payments

  createRecurring(ctx: RequestContext, fields: Fields): Reply {
    let card: CardData;
    let cardRefId: string | undefined;
    if (fields.cardrefid !== undefined) {
      const ref = this.cardRef(ctx, fields.cardrefid, 'cardrefid');
      card = ref.card;
      cardRefId = ref.id;
    } else {
      const problems: { name: string; message: string }[] = [];
      this.checkCardExpiry(fields, problems);
      if (problems.length > 0) throw GatewayError.validation(problems);
      card = cardData(
        need(fields, 'credit_card_number'),
        need(fields, 'card_printed_name'),
        need(fields, 'expire_month'),
        need(fields, 'expire_year'),
      );
    }
    const today = isoDate(this.clock.now()).slice(0, 10);
    const startDate = fields.start_date ?? today;
    if (startDate < today)
      throw GatewayError.validation([{ name: 'start_date', message: 'must not be in the past' }]);
    const landing = this.landingEndpoint(ctx, fields.currency);
    const rp: RecurringPayment = {
      id: `${this.store.recurring.size + 1}${randomBytes(3).readUIntBE(0, 3)}`,
      merchantLogin: ctx.merchant.login,
      endpointId: landing.id,
      clientOrderId: need(fields, 'client_orderid'),
      amountMinor: toMinorUnits(need(fields, 'amount')),
      currency: landing.currency,
      period: need(fields, 'period') as RecurringPayment['period'],
      interval: Number(need(fields, 'interval')),
      startDate,
      maxPayments: fields.max_payments === undefined ? undefined : Number(fields.max_payments),
      card,
      cardRefId,
      email: need(fields, 'email'),
      orderDesc: need(fields, 'order_desc'),
      firstName: fields.first_name,
      lastName: fields.last_name,
      serverCallbackUrl: fields.server_callback_url,
      chargesMade: 0,
      nextChargeAt: startDate === today ? this.clock.now() : Date.parse(`${startDate}T00:00:00Z`),
      chargeOrderIds: [],
      state: 'active',
      createdAt: this.clock.now(),
    };
    this.store.saveRecurring(rp);
    this.scheduleRecurring(rp);
    return {
      type: 'async-response',
      'serial-number': ctx.serial,
      'merchant-order-id': rp.clientOrderId,
      'recurring-payment-id': rp.id,
      status: 'approved',
    };
  }

  private scheduleRecurring(rp: RecurringPayment): void {
    if (rp.state !== 'active' || rp.nextChargeAt === undefined) return;
    this.scheduler.schedule(`recurring:${rp.id}`, rp.nextChargeAt, () => {
      this.chargeRecurring(rp.id);
    });
  }

  /** One scheduled charge of a recurring payment: a rebill order with its own callback. */
  private chargeRecurring(id: string): void {
    const rp = this.store.recurring.get(id);
    if (rp?.state !== 'active' || rp.nextChargeAt === undefined) return;
    const number = rp.chargesMade + 1;
    const order: Order = {
      orderid: this.store.allocateOrderId(),
      merchantLogin: rp.merchantLogin,
      endpointId: rp.endpointId,
      clientOrderId: `${rp.clientOrderId}-${number}`,
      kind: 'rebill',
      transactionType: 'rebill',
      status: 'processing',
      amountMinor: rp.amountMinor,
      currency: rp.currency,
      authorizedMinor: 0n,
      capturedMinor: 0n,
      returnedMinor: 0n,
      captured: false,
      voided: false,
      holdCancelled: false,
      settled: false,
      card: rp.card,
      email: rp.email,
      firstName: rp.firstName,
      lastName: rp.lastName,
      orderDesc: rp.orderDesc,
      serverCallbackUrl: rp.serverCallbackUrl,
      operations: [],
      cardRefId: rp.cardRefId,
      recurringPaymentId: rp.id,
      createdAt: this.clock.now(),
      pageToken: randomBytes(16).toString('hex'),
      pageBase: '',
    };
    const op = this.addOperation(order, 'rebill', rp.amountMinor, randomUUID());
    this.finishLater(order, op, payoutOutcome(rp.card));
    this.store.saveOrder(order);
    rp.chargesMade = number;
    rp.chargeOrderIds.push(order.orderid);
    if (rp.maxPayments !== undefined && number >= rp.maxPayments) {
      rp.state = 'completed';
      rp.nextChargeAt = undefined;
    } else {
      rp.nextChargeAt = nextCharge(rp.nextChargeAt, rp.period, rp.interval);
    }
    this.store.saveRecurring(rp);
    this.scheduleRecurring(rp);
  }

  // ---------------------------------------------------------------- payouts and transfers

  private destinationOf(fields: Fields): PayoutDestination {
    const kind = destinationKind(fields);
    const problems: { name: string; message: string }[] = [];
    if (kind === 'card') this.checkCardExpiry(fields, problems);
    if (problems.length > 0) throw GatewayError.validation(problems);
    switch (kind) {
      case 'card': {
        const pan = fields.credit_card_number ?? need(fields, 'destination-card-no');
        return {
          kind,
          card: cardData(
            pan,
            need(fields, 'card_printed_name'),
            need(fields, 'expire_month'),
            need(fields, 'expire_year'),
          ),
        };
      }
      case 'bank':
        return {
          kind,
          accountLastFour: need(fields, 'account_number').slice(-4),
          bankName: need(fields, 'bank_name'),
          bankBic: need(fields, 'bank_bic'),
        };
      case 'ewallet':
        return {
          kind,
          ewalletType: need(fields, 'ewallet_type'),
          ewalletId: need(fields, 'ewallet_id'),
        };
      case 'phone':
        return { kind, phone: need(fields, 'phone'), fpsBankId: need(fields, 'fps_bank_id') };
      case undefined:
        throw GatewayError.validation([{ name: 'destination', message: 'is required' }]);
    }
  }

  /** v2 payout and the single-step v4 payout: processing, then final. */
  payout(ctx: RequestContext, fields: Fields): Reply {
    const destination = this.destinationOf(fields);
    const amountMinor = toMinorUnits(need(fields, 'amount'));
    const order = this.newOrder(ctx, fields, {
      kind: 'payout',
      type: 'payout',
      amountMinor,
      currency: fields.currency,
    });
    order.payout = { destination };
    if (destination.kind === 'card') order.card = destination.card;
    const op = this.addOperation(order, 'payout', amountMinor, ctx.serial);
    this.finishLater(
      order,
      op,
      destination.kind === 'card' ? payoutOutcome(destination.card) : { status: 'approved' },
    );
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  /** v4 payout-check: validates and registers; no funds move, so the answer is final at once. */
  payoutCheck(ctx: RequestContext, fields: Fields): Reply {
    const destination = this.destinationOf(fields);
    const amountMinor = toMinorUnits(need(fields, 'amount'));
    const order = this.newOrder(ctx, fields, {
      kind: 'payout',
      type: 'payout-check',
      amountMinor,
      currency: fields.currency,
    });
    if (destination.kind === 'card') order.card = destination.card;
    const op = this.addOperation(order, 'payout-check', amountMinor, ctx.serial);
    const outcome =
      destination.kind === 'card'
        ? payoutOutcome(destination.card)
        : ({ status: 'approved' } as Outcome);
    op.status = outcome.status;
    op.errorMessage = outcome.errorMessage;
    op.errorCode = outcome.errorCode;
    order.status = outcome.status;
    order.errorMessage = outcome.errorMessage;
    order.errorCode = outcome.errorCode;
    order.payout =
      outcome.status === 'approved'
        ? {
            destination,
            stage: 'registered',
            expiresAt: this.clock.now() + PAYOUT_REGISTRATION_TTL_MS,
          }
        : { destination };
    this.store.saveOrder(order);
    this.schedulePayoutExpiry(order);
    return this.asyncReply(ctx, order);
  }

  payoutPay(ctx: RequestContext, fields: Fields): Reply {
    const order = this.findOrder(ctx, need(fields, 'orderid'), need(fields, 'client_orderid'));
    const decision = decidePayoutPay(factsOf(order));
    if (!decision.ok || !order.payout)
      throw GatewayError.invalidState(
        `payout-pay refused: ${decision.ok ? 'not a payout' : decision.reason}`,
      );
    order.payout.stage = 'paying';
    this.scheduler.cancel(`payout-expiry:${order.orderid}`);
    const op = this.addOperation(order, 'payout-pay', order.amountMinor, ctx.serial);
    this.finishLater(order, op, { status: 'approved' });
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  transfer(ctx: RequestContext, fields: Fields): Reply {
    const problems: { name: string; message: string }[] = [];
    this.checkCardExpiry(fields, problems);
    if (problems.length > 0) throw GatewayError.validation(problems);
    const amountMinor = toMinorUnits(need(fields, 'amount'));
    const order = this.newOrder(ctx, fields, {
      kind: 'transfer',
      type: 'transfer',
      amountMinor,
      currency: fields.currency,
    });
    order.card = cardData(
      need(fields, 'credit_card_number'),
      need(fields, 'card_printed_name'),
      need(fields, 'expire_month'),
      need(fields, 'expire_year'),
    );
    const destination = cardData(need(fields, 'destination-card-no'), '', '', '');
    order.payout = { destination: { kind: 'card', card: destination } };
    const op = this.addOperation(order, 'transfer', amountMinor, ctx.serial);
    this.finishLater(order, op, transferOutcome(order.card, destination));
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  transferByRef(ctx: RequestContext, fields: Fields): Reply {
    const source = this.cardRef(ctx, need(fields, 'source-card-ref-id'), 'source-card-ref-id');
    const target = this.cardRef(
      ctx,
      need(fields, 'destination-card-ref-id'),
      'destination-card-ref-id',
    );
    const amountMinor = toMinorUnits(need(fields, 'amount'));
    const order = this.newOrder(ctx, fields, {
      kind: 'transfer',
      type: 'transfer',
      amountMinor,
      currency: fields.currency,
    });
    order.card = source.card;
    order.cardRefId = source.id;
    order.payout = { destination: { kind: 'card', card: target.card } };
    const op = this.addOperation(order, 'transfer', amountMinor, ctx.serial);
    this.finishLater(order, op, transferOutcome(source.card, target.card));
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  /** pan-eligibility/send: is the referenced card eligible to receive? (minimal semantics) */
  panEligibility(ctx: RequestContext, fields: Fields): Reply {
    const ref = this.cardRef(ctx, need(fields, 'sending-card-ref-id'), 'sending-card-ref-id');
    const order = this.newOrder(ctx, fields, {
      kind: 'pan-eligibility',
      type: 'pan-eligibility',
      amountMinor: 0n,
      clientOrderId: need(fields, 'client-order-id'),
    });
    order.card = ref.card;
    order.cardRefId = ref.id;
    const op = this.addOperation(order, 'pan-eligibility', 0n, ctx.serial);
    this.finishLater(order, op, payoutOutcome(ref.card));
    this.store.saveOrder(order);
    return this.asyncReply(ctx, order);
  }

  // ---------------------------------------------------------------- control API

  /** Makes the gateway report `status` for the order (drift tests). */
  force(order: Order, status: OrderStatus): void {
    order.forcedStatus = status;
    order.status = status;
    for (const op of order.operations) {
      if (op.status === 'processing') {
        op.status = status;
        op.completeAt = undefined;
        this.scheduler.cancel(`complete:${order.orderid}:${op.serial}`);
      }
    }
    const last = order.operations.at(-1);
    if (last) last.status = status;
    this.store.saveOrder(order);
  }

  /**
   * The order's 3-D Secure Method step times out now, as it would `THREE_DS_METHOD_TIMEOUT_MS`
   * after the request (no result uploaded: compInd N), without moving the clock for every order.
   */
  timeOutMethod(order: Order): void {
    if (order.threeDs?.step !== 'method')
      throw GatewayError.invalidState('the order is not waiting for its 3-D Secure Method result');
    this.finishMethod(order, 'N');
    this.store.saveOrder(order);
  }

  // ---------------------------------------------------------------- replies

  private baseReply(ctx: RequestContext, type: string, order: Order): Reply {
    return {
      type,
      'serial-number': ctx.serial,
      'merchant-order-id': order.clientOrderId,
      'paynet-order-id': order.orderid,
    };
  }

  private asyncReply(ctx: RequestContext, order: Order): Reply {
    return this.baseReply(ctx, 'async-response', order);
  }
}

function threeDsFailed(): Outcome {
  return {
    status: 'declined',
    errorMessage: '3-D Secure authentication failed',
    errorCode: 'THREE_DS_FAILED',
  };
}

/** Cardholder-not-present charges and payouts: 3-D Secure cards simply approve. */
function payoutOutcome(card: CardData): Outcome {
  return outcomeOf(card.behaviour);
}

function transferOutcome(source: CardData, destination: CardData): Outcome {
  const fromSource = outcomeOf(source.behaviour);
  return fromSource.status === 'approved' ? outcomeOf(destination.behaviour) : fromSource;
}

/** Decodes the result letter of a sandbox CRes/PaRes (Base64 of JSON). */
function decodeResult(encoded: string, key: string): 'Y' | 'N' | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const letter = (value as Record<string, unknown>)[key];
    return letter === 'Y' || letter === 'N' ? letter : undefined;
  } catch {
    return undefined;
  }
}

export function factsOf(order: Order): OrderFacts {
  return {
    kind: order.kind,
    status: order.status,
    authorizedMinor: order.authorizedMinor,
    capturedMinor: order.capturedMinor,
    returnedMinor: order.returnedMinor,
    captured: order.captured,
    voided: order.voided,
    holdCancelled: order.holdCancelled,
    settled: order.settled,
    hasCard: order.card !== undefined,
    payoutStage: order.payout?.stage,
  };
}

/** The status a status reply shows: processing while any operation is, else the last one's. */
export function replyStatus(order: Order): OrderStatus {
  if (order.forcedStatus !== undefined) return order.forcedStatus;
  if (order.operations.some((o) => o.status === 'processing')) return 'processing';
  return order.operations.at(-1)?.status ?? order.status;
}

export function orderStage(order: Order): string {
  if (order.forcedStatus === undefined) {
    if (order.form && !order.form.submitted) return 'form_pending';
    if (order.threeDs?.step === 'method') return '3ds_method';
    if (order.threeDs?.step === 'challenge') return '3ds_challenge';
  }
  return stageOf(factsOf(order));
}

function replyError(order: Order): { message: string; code: string } | undefined {
  const failed = [...order.operations]
    .reverse()
    .find((o) => o.status !== 'approved' && o.status !== 'processing' && o.errorCode !== undefined);
  if (failed?.errorMessage !== undefined && failed.errorCode !== undefined)
    return { message: failed.errorMessage, code: failed.errorCode };
  if (order.errorMessage !== undefined && order.errorCode !== undefined)
    return { message: order.errorMessage, code: order.errorCode };
  return undefined;
}

function nextCharge(from: number, period: 'day' | 'week' | 'month', interval: number): number {
  const d = new Date(from);
  switch (period) {
    case 'day':
      d.setUTCDate(d.getUTCDate() + interval);
      break;
    case 'week':
      d.setUTCDate(d.getUTCDate() + 7 * interval);
      break;
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + interval);
      break;
  }
  return d.getTime();
}
