// Support's view of an order: look it up at the gateway (`status`), refresh it, read it.
import {
  isPayoutOrder,
  PAYOUT_SENT_STATES,
  type DriftReviewBody,
  type LookupBody,
  type LookupCandidate,
  type LookupConflictDetails,
  type OperationKind,
  type PayoutOrder,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import { AppError } from '../errors.js';
import type { GatewayClient, GatewayOutcome } from '../gateway-client/client.js';
import { maskPans } from '../services/redact.js';
import { StatusNotApplied } from './amount-range.js';
import { reviewDrift, type ReviewAudit } from './drift.js';
import { exchangeData } from './gateway.js';
import {
  answerText,
  errorAnswerOf,
  gatewayRefusal,
  noStatusTitle,
  unansweredText,
} from './gateway-errors.js';
import { viewOfStatus, type GatewayView, type Ledger, type TimelineInput } from './ledger.js';
import { PayoutOrders } from './payout-orders.js';
import { gatewayOrderId } from './rebills.js';
import { asTransactionType } from './records.js';

/** The operations of a payout's order that ops users made (prepared, approved), not the gateway. */
const PAYOUT_OPERATIONS: ReadonlySet<OperationKind> = new Set<OperationKind>([
  'payout-check',
  'payout-pay',
  'payout',
]);

export interface ActorInfo {
  id: string;
  email: string;
}

export interface StatusAnswer {
  outcome: GatewayOutcome;
  view: GatewayView | null;
}

/** What a lookup found: the order (learned now or refreshed), or the payout it belongs to. */
export type LookupResult =
  | { kind: 'transaction'; detail: TransactionDetail; created: boolean }
  | { kind: 'payout'; payout: PayoutOrder };

/**
 * A `status` request whose answer Paydesk did not get, said as it happened: the gateway answered
 * with an error (its HTTP status, code and message), or did not answer (no answer in time, the
 * connection closed). Nothing changed either way.
 */
function unansweredStatus(
  outcome: Exclude<GatewayOutcome, { kind: 'reply' }>,
  where = '',
): AppError {
  const answer = errorAnswerOf(outcome);
  if (answer !== null) {
    return new AppError(
      'GATEWAY_UNAVAILABLE',
      `The gateway answered the status request${where} with an error (${answerText(answer)}). Nothing changed; try again.`,
      { gatewayHttpStatus: answer.httpStatus, gatewayErrorCode: answer.code },
    );
  }
  return new AppError(
    'GATEWAY_UNAVAILABLE',
    `The gateway did not answer the status request${where} (${unansweredText(outcome)}). Nothing changed; try again.`,
  );
}

export class TransactionsService {
  constructor(
    private readonly ledger: Ledger,
    private readonly gateway: GatewayClient,
    private readonly endpointIds: readonly string[],
    private readonly payoutOrders: PayoutOrders = new PayoutOrders(),
  ) {}

  /** Asks the gateway `status` for one order on one endpoint (never throws for the network). */
  async askStatus(
    endpointId: string,
    orderid: string | undefined,
    clientOrderId: string,
  ): Promise<StatusAnswer> {
    const fields: Record<string, string> = { client_orderid: clientOrderId };
    if (orderid !== undefined) fields.orderid = orderid;
    const outcome = await this.gateway.send('status', endpointId, fields);
    const view =
      outcome.kind === 'reply' && outcome.httpStatus === 200 ? viewOfStatus(outcome.reply) : null;
    return { outcome, view };
  }

  async get(id: string): Promise<TransactionDetail> {
    const detail = await this.ledger.detail(this.ledger.k, id);
    if (detail === null) throw new AppError('NOT_FOUND', `no transaction ${id}`);
    return this.withPayout(detail);
  }

  /**
   * A payout's order with the payout Paydesk prepared for it (`detail.paydeskPayout`; one indexed query,
   * for payout orders only), and its payout operations with the ops users behind them
   * (`payoutStaff`): the gateway's status names no person, so they would read as the gateway's
   * own. The payouts' readers are the transactions' (`mayReadPayouts`), and the destination is
   * masked as the payout list shows it to them.
   */
  private async withPayout(detail: TransactionDetail): Promise<TransactionDetail> {
    if (!isPayoutOrder(detail.type)) return detail;
    const payout = await this.payoutOrders.ofOrder(detail);
    if (payout === null) return { ...detail, paydeskPayout: null };
    const payoutStaff = { preparedBy: payout.preparedBy, approvedBy: payout.approvedBy };
    return {
      ...detail,
      paydeskPayout: payout,
      operations: detail.operations.map((operation) =>
        PAYOUT_OPERATIONS.has(operation.kind) && operation.requestedBy === null
          ? { ...operation, payoutStaff }
          : operation,
      ),
    };
  }

  /**
   * support's status check: the given endpoint, or each configured endpoint. An orderid names one
   * order at the gateway: the first endpoint that shows it is the order's own, and an order Paydesk
   * knows is asked on its recorded endpoint only. A client_orderid alone is unique per endpoint
   * only: every endpoint is asked (the one of the order Paydesk knows first), and when more than
   * one shows an order, none is picked: 409 `CONFLICT` lists them (`LookupConflictDetails`),
   * nothing recorded. An endpoint that does not answer ends the lookup (503), and so does a stop
   * under way (`stopping`, before each endpoint): each further endpoint could take
   * GATEWAY_TIMEOUT_MS, past the shutdown timeout that would cut the request.
   * `payouts`: whether the caller may read payouts (`mayReadPayouts`); then an order that is a
   * payout's not yet sent is answered with the payout (`unsentPayoutOrder`), asked nowhere.
   */
  async lookup(
    body: LookupBody,
    actor: ActorInfo,
    stopping: () => boolean = () => false,
    { payouts = false }: { payouts?: boolean } = {},
  ): Promise<LookupResult> {
    let clientOrderId = body.client_orderid;
    if (body.endpointId !== undefined && !this.endpointIds.includes(body.endpointId)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `endpointId: must be one of the configured endpoints (${this.endpointIds.join(', ')})`,
        {
          fields: [
            {
              path: 'endpointId',
              rule: 'configured_endpoint',
              message: 'must be a configured endpoint',
            },
          ],
        },
      );
    }
    if (payouts) {
      const payout = await this.unsentPayoutOrder(body);
      if (payout !== null) return { kind: 'payout', payout };
    }
    let endpoints = body.endpointId === undefined ? [...this.endpointIds] : [body.endpointId];
    if (body.orderid !== undefined) {
      const known = await this.ledger.k
        .selectFrom('transactions')
        .selectAll()
        .where('orderid', '=', body.orderid)
        .executeTakeFirst();
      if (known !== undefined) {
        if (clientOrderId !== undefined && clientOrderId !== known.client_orderid) {
          throw new AppError('NOT_FOUND', `order ${body.orderid} has a different client_orderid`);
        }
        clientOrderId = known.client_orderid;
        // The gateway's orderid is unique: the order is where Paydesk recorded it, and asking the
        // other endpoints too would only add their time when the gateway hangs.
        if (body.endpointId === undefined) endpoints = [known.endpoint_id];
      } else if (clientOrderId === undefined) {
        // No transaction yet, but perhaps a payment link's order: the link's page shows its
        // orderid (QA: support typed it and was told the gateway needs the client_orderid, which
        // Paydesk itself holds). Asked with the link's ids, on its endpoint, as with both typed.
        const link = await this.payoutOrders.linkOfOrder(body.orderid);
        if (
          link !== null &&
          (body.endpointId === undefined || link.endpointId === body.endpointId)
        ) {
          clientOrderId = link.clientOrderId;
          if (body.endpointId === undefined) endpoints = [link.endpointId];
        }
      }
    } else if (body.endpointId === undefined && clientOrderId !== undefined) {
      // One order Paydesk knows by this client_orderid: its endpoint is asked first, so that a
      // gateway that hangs costs one timeout. The others are still asked: Paydesk may not have
      // learned another order with this client_orderid on another endpoint (409 then).
      const known = await this.ledger.k
        .selectFrom('transactions')
        .select('endpoint_id')
        .where('client_orderid', '=', clientOrderId)
        .distinct()
        .execute();
      const [one, ...more] = known;
      if (one !== undefined && more.length === 0 && endpoints.includes(one.endpoint_id))
        endpoints = [one.endpoint_id, ...endpoints.filter((e) => e !== one.endpoint_id)];
    }
    if (clientOrderId === undefined) {
      throw new AppError(
        'VALIDATION_FAILED',
        `client_orderid: Paydesk has not learned order ${maskPans(body.orderid ?? '')} yet, and the gateway's status needs the order's client_orderid with its orderid: give both`,
        {
          fields: [
            {
              path: 'client_orderid',
              rule: 'required',
              message: 'required when the order is not known to Paydesk yet',
            },
          ],
        },
      );
    }
    const found: (StatusAnswer & { endpointId: string; view: GatewayView })[] = [];
    for (const endpointId of endpoints) {
      if (stopping()) {
        // The stop waits for the requests under way, up to SHUTDOWN_TIMEOUT_MS: one more exchange
        // could outlast it and the reply be cut. Nothing was recorded yet.
        throw new AppError('SERVICE_UNAVAILABLE', 'this instance is stopping; ask again');
      }
      const { outcome, view } = await this.askStatus(endpointId, body.orderid, clientOrderId);
      if (view !== null && body.orderid !== undefined)
        return { kind: 'transaction', ...(await this.learn(endpointId, { outcome, view }, actor)) };
      // One order shown on several endpoints (one merchant's endpoints may share it): one match.
      if (view !== null && !found.some((f) => f.view.orderid === view.orderid))
        found.push({ endpointId, outcome, view });
      else if (view !== null) continue;
      else if (outcome.kind === 'reply' && outcome.httpStatus === 404) continue;
      else if (outcome.kind === 'reply')
        throw gatewayRefusal(outcome.httpStatus, outcome.reply, 'status');
      else {
        // Timeout, connection lost, 5xx: the gateway is not answering, so the next endpoints are
        // not asked (each would wait GATEWAY_TIMEOUT_MS too), and an order already seen is not
        // picked: the endpoint that did not answer may hold another with this client_orderid.
        throw unansweredStatus(outcome, ` on endpoint ${endpointId}`);
      }
    }
    const [only, ...others] = found;
    if (only !== undefined && others.length === 0)
      return { kind: 'transaction', ...(await this.learn(only.endpointId, only, actor)) };
    // What the caller typed is named back, a card-number-like value only masked (BIN, last four).
    const which = maskPans(
      body.orderid === undefined ? `client_orderid ${clientOrderId}` : `order ${body.orderid}`,
    );
    if (only !== undefined) {
      // Named in the configured endpoints' order, whichever endpoint was asked first.
      const rank = (e: string) => this.endpointIds.indexOf(e);
      found.sort((a, b) => rank(a.endpointId) - rank(b.endpointId));
      throw await this.conflict(which, found);
    }
    // Asked on the endpoint support chose only: the order may well be on another one, which was
    // not asked; "the gateway knows no order" would be a wrong answer to pass on to a customer.
    const notAsked = this.endpointIds.filter((e) => !endpoints.includes(e));
    if (body.endpointId !== undefined && notAsked.length > 0)
      throw new AppError(
        'NOT_FOUND',
        `Endpoint ${body.endpointId} has no ${which}; only that endpoint was asked, and the order may be on another one (${notAsked.join(', ')}). Look up again with the endpoint left empty to ask every endpoint.`,
      );
    throw new AppError(
      'NOT_FOUND',
      `The gateway knows no ${which} on endpoint${endpoints.length === 1 ? '' : 's'} ${endpoints.join(', ')}.`,
    );
  }

  /**
   * The payout whose order `body` names (its orderid, its client_orderid, both; on its endpoint if
   * one is given) when that order is the payout's alone: its money order not sent
   * (PAYOUT_SENT_STATES: a payout-check awaiting approval, a held payout, one rejected or lapsed)
   * and not learned as a transaction (an order a lookup recorded before stays the transaction it
   * is). Asking the gateway would only record the payout-check as a transaction of its own, beside
   * the payout that already follows it. Null: the lookup goes on as for any order.
   */
  private async unsentPayoutOrder(body: LookupBody): Promise<PayoutOrder | null> {
    const term = body.orderid ?? body.client_orderid;
    if (term === undefined) return null;
    const payout = (await this.payoutOrders.named(term)).find(
      (p) =>
        (body.orderid === undefined || p.orderid === body.orderid) &&
        (body.client_orderid === undefined || p.clientOrderId === body.client_orderid) &&
        (body.endpointId === undefined || p.endpointId === body.endpointId) &&
        !PAYOUT_SENT_STATES.has(p.state),
    );
    if (payout === undefined) return null;
    const { orderid } = payout;
    const learned = await this.ledger.k
      .selectFrom('transactions')
      .select('id')
      .where((eb) =>
        orderid === null
          ? eb.and([
              eb('client_orderid', '=', payout.clientOrderId),
              eb('endpoint_id', '=', payout.endpointId),
            ])
          : eb('orderid', '=', orderid),
      )
      .executeTakeFirst();
    return learned === undefined ? payout : null;
  }

  /** The 409 of a lookup that found several orders: each named, none recorded. */
  private async conflict(
    which: string,
    found: readonly { endpointId: string; view: GatewayView }[],
  ): Promise<AppError> {
    const known = await this.ledger.k
      .selectFrom('transactions')
      .select(['id', 'orderid'])
      .where(
        'orderid',
        'in',
        found.map((f) => f.view.orderid),
      )
      .execute();
    const candidates: LookupCandidate[] = found.map(({ endpointId, view }) => ({
      endpointId,
      orderid: view.orderid,
      clientOrderId: view.clientOrderId,
      type: asTransactionType(view.type),
      status: view.status,
      amount: formatMinorUnits(view.amountMinor),
      currency: view.currency,
      id: known.find((k) => k.orderid === view.orderid)?.id ?? null,
    }));
    const details: LookupConflictDetails = { candidates };
    return new AppError(
      'CONFLICT',
      `The gateway knows ${String(found.length)} orders with ${which} (on endpoints ${found.map((f) => f.endpointId).join(', ')}): choose one; nothing was recorded.`,
      details,
    );
  }

  /**
   * Records what a `status` reply (`askStatus`) says about an order, as a lookup does: the order
   * created or updated with the exchange in its timeline (then `timelineAfter`), and published.
   * Also how the payment links learn an order whose callback never came. A reply with an amount
   * Paydesk cannot hold is not applied (ledger.ts applyStatus): 502 `StatusNotApplied`, the known
   * order flagged with the reply in its timeline. `actor`: the staff member who asked (an e-mail
   * alone when that is all the caller has), or null: Paydesk itself.
   */
  async learn(
    endpointId: string,
    answer: { outcome: GatewayOutcome; view: GatewayView },
    actor: ActorInfo | string | null,
    timelineAfter?: readonly TimelineInput[],
  ): Promise<{ detail: TransactionDetail; created: boolean }> {
    const who = typeof actor === 'string' ? { id: null, email: actor } : actor;
    const result = await this.ledger.tx((trx) =>
      this.ledger.applyStatus(trx, endpointId, answer.view, {
        source: 'lookup',
        actor: who?.email ?? null,
        actorId: who?.id ?? null,
        exchange: exchangeData(answer.outcome),
        ...(timelineAfter === undefined ? {} : { timelineAfter }),
        last: true,
      }),
    );
    this.ledger.publish(result.row, result.created);
    if (result.notApplied.length > 0) throw new StatusNotApplied(answer.view, result.row.id);
    const detail = await this.get(result.row.id);
    return { detail, created: result.created };
  }

  /** Finance marks the order's drift reviewed (drift.ts `reviewDrift`). */
  async reviewDrift(
    id: string,
    body: DriftReviewBody,
    actor: ActorInfo,
    audit: ReviewAudit,
  ): Promise<TransactionDetail> {
    return this.withPayout(await reviewDrift(this.ledger, id, body, actor, audit));
  }

  /** `status` now for a known order; one with an amount Paydesk cannot hold: 502, as `learn`. */
  async refresh(
    id: string,
    actor: ActorInfo | null,
    source: 'refresh' | 'reconcile' = 'refresh',
  ): Promise<TransactionDetail> {
    const row = await this.ledger.k
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) throw new AppError('NOT_FOUND', `no transaction ${id}`);
    const { outcome, view } = await this.askStatus(
      row.endpoint_id,
      gatewayOrderId(row.orderid),
      row.client_orderid,
    );
    if (view === null) {
      await this.ledger.tx((trx) =>
        this.ledger.timeline(trx, id, {
          kind: 'gateway',
          title: noStatusTitle('status', outcome),
          actor: actor?.email ?? null,
          data: exchangeData(outcome),
        }),
      );
      if (outcome.kind === 'reply')
        throw gatewayRefusal(outcome.httpStatus, outcome.reply, 'status');
      throw unansweredStatus(outcome);
    }
    const result = await this.ledger.tx((trx) =>
      this.ledger.applyStatus(trx, row.endpoint_id, view, {
        source,
        actor: actor?.email ?? null,
        actorId: actor?.id ?? null,
        exchange: exchangeData(outcome),
        last: true,
      }),
    );
    this.ledger.publish(result.row, false);
    if (result.notApplied.length > 0) throw new StatusNotApplied(view, id);
    return this.get(id);
  }
}
