// make-rebill: charge a stored card reference as a NEW order (issue 5). The order gets a new,
// unique, traceable client_orderid (`rb-<uuid>`) and a row in the payments ledger before anything
// is sent, so a lost reply leaves an `unknown` order the reconciler confirms with `status` by
// client_orderid; it is never sent again. Until the gateway names the order, the row's orderid is
// a placeholder (`pending:<client_orderid>`) that the first reply or status replaces.
import { randomUUID } from 'node:crypto';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import type { OperationResult, RebillBody, Unanswered } from '@paydesk/shared/api';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { GatewayClient, GatewayOutcome } from '../gateway-client/client.js';
import { callbackUrl, gatewayIp } from '../payouts/context.js';
import { cardRefChargeEndpoint, requireCardRefAtGateway } from './card-refs.js';
import { lockTransaction, toColumn } from './db.js';
import { exchangeData } from './gateway.js';
import { gatewayRefusal, lostOutcome, unansweredColumns } from './gateway-errors.js';
import type { Ledger } from './ledger.js';
import { toOperation } from './records.js';
import type { ActorInfo } from './transactions.js';

/** The orderid of a row Paydesk created whose gateway orderid is not known yet. */
export const PENDING_ORDERID_PREFIX = 'pending:';

export function pendingOrderId(clientOrderId: string): string {
  return `${PENDING_ORDERID_PREFIX}${clientOrderId}`;
}

/** The orderid to send to the gateway: none while it is still a placeholder. */
export function gatewayOrderId(orderid: string): string | undefined {
  return orderid.startsWith(PENDING_ORDERID_PREFIX) ? undefined : orderid;
}

export class RebillService {
  constructor(
    private readonly ledger: Ledger,
    private readonly gateway: GatewayClient,
    private readonly config: Config,
  ) {}

  async rebill(
    body: RebillBody,
    actor: ActorInfo,
    ip: string | null,
    idempotencyKey: string | null,
    onCreated: (id: string) => void = () => undefined,
  ): Promise<OperationResult> {
    const ledger = this.ledger;
    // The reference's own endpoint when none is named and Paydesk knows where it was made.
    const endpointId = await cardRefChargeEndpoint(
      ledger.k,
      this.config,
      body.cardRefId,
      body.endpointId,
      body.currency,
      'rebill it',
    );
    await requireCardRefAtGateway(ledger.k, this.gateway, body.cardRefId, endpointId);
    const amountMinor = toMinorUnits(body.amount);
    const id = randomUUID();
    const opId = randomUUID();
    const clientOrderId = `rb-${randomUUID()}`;
    onCreated(id);
    const fields: Record<string, string> = {
      client_orderid: clientOrderId,
      cardrefid: body.cardRefId,
      amount: formatMinorUnits(amountMinor),
      currency: body.currency,
      order_desc: body.orderDesc,
      ipaddress: gatewayIp(ip),
      server_callback_url: callbackUrl(this.config, endpointId),
    };
    const label = `rebill of ${formatMinorUnits(amountMinor)} ${body.currency}`;

    // (A) the order and its operation exist before anything is sent.
    await ledger.tx(async (trx) => {
      const now = ledger.clock.now();
      await trx
        .insertInto('transactions')
        .values({
          id,
          endpoint_id: endpointId,
          orderid: pendingOrderId(clientOrderId),
          client_orderid: clientOrderId,
          type: 'rebill',
          status: 'processing',
          stage: null,
          currency: body.currency,
          amount_minor: toColumn(amountMinor),
          authorized_minor: 0,
          captured_minor: 0,
          returned_minor: 0,
          card_bin: null,
          card_last4: null,
          card_brand: null,
          card_ref_id: body.cardRefId,
          customer_email: null,
          customer_name: null,
          drift: 0,
          drift_details: null,
          source: 'paydesk',
          last_checked_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await trx
        .insertInto('transaction_operations')
        .values({
          id: opId,
          transaction_id: id,
          kind: 'rebill',
          origin: 'paydesk',
          state: 'sending',
          amount_minor: toColumn(amountMinor),
          reserved_minor: 0,
          gateway_serial: null,
          idempotency_key: idempotencyKey,
          requested_by: actor.email,
          reason_code: null,
          comment: body.reason,
          error_code: null,
          error_message: null,
          sent_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await ledger.timeline(trx, id, {
        kind: 'staff',
        title: `${label} on card reference ${body.cardRefId} requested`,
        actor: actor.email,
        data: { operationId: opId, reason: body.reason, clientOrderId },
      });
      await ledger.scheduleReconcile(
        trx,
        id,
        now + ledger.options.gatewayTimeoutMs + ledger.options.reconcile.fastMinMs,
      );
    });

    // (B) send once.
    const outcome = await this.gateway.send('make-rebill', endpointId, fields);

    // (C) record what happened.
    const result = classify(outcome, label);
    const fresh = await ledger.tx(async (trx) => {
      // The order row's lock, as applyStatus takes it: a callback or the reconciler that matched
      // the operation meanwhile has committed before the read below (on PostgreSQL, without it the
      // update below could overwrite their match with `unknown` and a stale serial).
      await lockTransaction(ledger.db, trx, id);
      const now = ledger.clock.now();
      const op = await trx
        .selectFrom('transaction_operations')
        .selectAll()
        .where('id', '=', opId)
        .executeTakeFirstOrThrow();
      await ledger.timeline(trx, id, {
        kind: 'gateway',
        title: `make-rebill: ${result.title}`,
        actor: actor.email,
        data: exchangeData(outcome),
      });
      const orderid =
        outcome.kind === 'reply' && result.state === 'processing'
          ? outcome.reply.orderId
          : undefined;
      if (op.state === 'sending') {
        await trx
          .updateTable('transaction_operations')
          .set({
            state: result.state,
            gateway_serial: result.serial ?? op.gateway_serial,
            error_code: result.errorCode,
            error_message: result.errorMessage,
            ...unansweredColumns(result.unanswered),
            updated_at: now,
          })
          .where('id', '=', opId)
          .execute();
      } else if (result.serial !== null && op.gateway_serial === null) {
        // A callback's status already settled it while the reply was on its way.
        await trx
          .updateTable('transaction_operations')
          .set({ gateway_serial: result.serial, updated_at: now })
          .where('id', '=', opId)
          .execute();
      }
      const row = await trx
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      if (result.state === 'processing') {
        if (orderid !== undefined && gatewayOrderId(row.orderid) === undefined) {
          await trx
            .updateTable('transactions')
            .set({ orderid, updated_at: now })
            .where('id', '=', id)
            .execute();
        }
        await ledger.scheduleReconcile(trx, id, now + ledger.options.reconcile.fastMinMs);
      } else if (result.state === 'unknown') {
        if (op.state === 'sending') {
          await trx
            .updateTable('transactions')
            .set({ status: 'unknown', updated_at: now })
            .where('id', '=', id)
            .execute();
        }
        await ledger.scheduleReconcile(trx, id, now + ledger.options.reconcile.fastMinMs);
      } else {
        // Refused or never sent: the gateway created no order; the record says so and stays.
        await trx
          .updateTable('transactions')
          .set({ status: 'error', stage: 'not_created', updated_at: now })
          .where('id', '=', id)
          .execute();
        await trx.executeQuery(ledger.reconcileDelete(trx, id));
      }
      return trx
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    });
    ledger.publish(fresh, true);

    if (outcome.kind === 'reply' && result.state === 'refused') {
      throw gatewayRefusal(outcome.httpStatus, outcome.reply, 'make-rebill');
    }
    if (outcome.kind === 'not-sent') {
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        'The make-rebill could not reach the gateway; nothing was sent. Try again.',
      );
    }
    const detail = await ledger.detail(ledger.k, id);
    const opRow = await ledger.k
      .selectFrom('transaction_operations')
      .selectAll()
      .where('id', '=', opId)
      .executeTakeFirstOrThrow();
    if (detail === null) throw new Error('transaction vanished');
    return { operation: toOperation(opRow), transaction: detail, message: result.message };
  }
}

function classify(
  outcome: GatewayOutcome,
  label: string,
): {
  state: 'processing' | 'unknown' | 'refused' | 'not_sent';
  serial: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  unanswered: Unanswered | null;
  title: string;
  message: string;
} {
  if (outcome.kind !== 'reply') return lostOutcome(outcome, label);
  const reply = outcome.reply;
  if (
    outcome.httpStatus === 200 &&
    reply.type === 'async-response' &&
    reply.orderId !== undefined
  ) {
    return {
      state: 'processing',
      serial: reply.serialNumber ?? null,
      errorCode: null,
      errorMessage: null,
      unanswered: null,
      title: 'accepted',
      message: `The gateway accepted the ${label} as order ${reply.orderId} and is processing it; Paydesk updates the order as soon as the gateway reports its final status.`,
    };
  }
  return {
    state: 'refused',
    serial: reply.serialNumber ?? null,
    errorCode: reply.errorCode ?? `HTTP_${outcome.httpStatus}`,
    errorMessage: reply.errorMessage ?? null,
    unanswered: null,
    title: `refused (HTTP ${outcome.httpStatus}${reply.errorCode === undefined ? '' : `, ${reply.errorCode}`})`,
    message: 'refused',
  };
}
