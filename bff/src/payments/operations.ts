// capture, return, void and create-card-ref on an existing order. Each one: (A) in one database
// transaction, lock the order, check the lifecycle and the caps, reserve the amount and record
// the operation as `sending`; (B) sign and send it once; (C) record the outcome. A lost reply
// leaves the operation `unknown` with its reservation held until the reconciler has asked
// `status`; nothing here ever sends a money-moving request twice.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { decideCapture, decideVoid, type Decision, type OrderFacts } from '@paydesk/shared/domain';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import type {
  CaptureBody,
  OperationKind,
  OperationResult,
  ReturnBody,
  Unanswered,
  VoidBody,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import type { GatewayClient, GatewayOutcome } from '../gateway-client/client.js';
import { runWrites, type Write } from '../db/write-batch.js';
import type { AuditEntry } from '../services/audit.js';
import { big, platformTrx, toColumn } from './db.js';
import { exchangeData } from './gateway.js';
import { gatewayRefusal, lostOutcome, unansweredColumns } from './gateway-errors.js';
import { Idempotency, IdempotencyClaim } from './idempotency.js';
import {
  detailFrom,
  insertOperationRow,
  viewOfStatus,
  updateOperationRow,
  updateOrderRow,
  type Ledger,
  type LockedOrder,
} from './ledger.js';
import type {
  TransactionOperationsTable,
  TransactionsTable,
  TransactionTimelineTable,
} from './migration.js';
import {
  allowedActions,
  busyOperation,
  decideRefund,
  decideStoredCard,
  factsOf,
  NOTHING_CAPTURED,
  PAYEE_CARD,
} from './records.js';
import { gatewayOrderId } from './rebills.js';
import type { ActorInfo } from './transactions.js';

/**
 * The request's own audit row, written in (C)'s transaction with the outcome it records (one
 * transaction fewer per request than an append of its own). `committed` is called once it is.
 */
export interface AttemptAudit {
  entry(reply: OperationResult | AppError): AuditEntry;
  committed(): void;
}

/** How long the gateway may take before live screens are told of a follow-up in flight. */
const IN_FLIGHT_EVENT_AFTER_MS = 500;

/** The operations this service sends on an existing order. */
type FollowUpKind = Extract<OperationKind, 'capture' | 'return' | 'void' | 'card-ref'>;

/** A staff request's entry in the order's timeline, in words ('card reference requested'). */
const REQUEST_WORDS: Record<FollowUpKind, string> = {
  capture: 'capture',
  return: 'return',
  void: 'void',
  'card-ref': 'card reference',
};

interface Plan {
  kind: FollowUpKind;
  gatewayOperation: string;
  /** the amount the operation acts on (null for card-ref) */
  amountMinor: bigint | null;
  /** what counts against the cap until the outcome is known */
  reserveMinor: bigint;
  fields: (row: TransactionsTable) => Record<string, string>;
  reasonCode: string | null;
  comment: string | null;
}

/** The operations of this service, as they name themselves in refusals. */
type OperationName = 'capture' | 'return' | 'void' | 'create-card-ref';

const CAP_REASONS = [
  'exceeds the captured amount not yet returned',
  'whole captured amount was already returned',
  'exceeds the authorized amount',
];

/** Refusals whose reason is a whole sentence of its own: the message says it as it is. */
const SENTENCE_REASONS = new Set([NOTHING_CAPTURED, PAYEE_CARD]);

/** Each operation as a refusal's sentence begins with it (staff read it; no API names). */
const OPERATION_WORDS: Record<OperationName, string> = {
  capture: 'Capture',
  return: 'Return',
  void: 'Void',
  'create-card-ref': 'Storing the card',
};

/**
 * A refusal: 409 with the reason and the amount that remains (in `details` always). The message
 * names the remaining amount when the refusal is about an amount; a refusal for the order's state
 * ("capture applies to a preauth, not a sale") says its reason alone, no "(remaining 0.00 EUR)"
 * beside it (QA).
 */
function refusal(
  decision: Decision<unknown>,
  what: OperationName,
  row: TransactionsTable,
  remainingMinor: bigint,
): AppError {
  const reason = decision.ok ? '' : decision.reason;
  const cap = CAP_REASONS.some((r) => reason.includes(r));
  const remaining = formatMinorUnits(remainingMinor < 0n ? 0n : remainingMinor);
  const refused = `${OPERATION_WORDS[what]} refused: ${reason}`;
  return new AppError(
    cap ? 'CAP_EXCEEDED' : 'INVALID_STATE',
    SENTENCE_REASONS.has(reason)
      ? `${reason}.`
      : cap
        ? `${refused} (remaining ${remaining} ${row.currency}).`
        : `${refused}.`,
    { reason, remaining, currency: row.currency },
  );
}

function parseAmount(text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  return toMinorUnits(text);
}

export class OperationsService {
  constructor(
    private readonly ledger: Ledger,
    private readonly gateway: GatewayClient,
    private readonly cardRefVersion: 'v2' | 'v4',
    private readonly idempotency: Idempotency,
  ) {}

  capture(
    id: string,
    body: CaptureBody,
    actor: ActorInfo,
    key: IdempotencyClaim | string | null,
    audit?: AttemptAudit,
  ): Promise<OperationResult> {
    const requested = parseAmount(body.amount);
    return this.run(id, actor, key, audit, 'capture', (row, facts) => {
      const d = decideCapture(facts, requested);
      if (!d.ok)
        return {
          refused: refusal(d, 'capture', row, decideCapture(facts).ok ? facts.authorizedMinor : 0n),
        };
      return {
        plan: {
          kind: 'capture',
          gatewayOperation: 'capture',
          amountMinor: d.value,
          reserveMinor: d.value,
          fields: (r) => ({
            client_orderid: r.client_orderid,
            orderid: r.orderid,
            amount: formatMinorUnits(d.value),
            currency: r.currency,
          }),
          reasonCode: null,
          comment: null,
        },
      };
    });
  }

  return(
    id: string,
    body: ReturnBody,
    actor: ActorInfo,
    key: IdempotencyClaim | string | null,
    audit?: AttemptAudit,
  ): Promise<OperationResult> {
    const requested = parseAmount(body.amount);
    return this.run(id, actor, key, audit, 'return', (row, facts) => {
      // Never a return that only cancels an uncaptured hold: that is a void's job (records.ts).
      const d = decideRefund(facts, requested);
      if (!d.ok) {
        const rest = decideRefund(facts);
        return { refused: refusal(d, 'return', row, rest.ok ? rest.value.amountMinor : 0n) };
      }
      const amount = d.value.amountMinor;
      return {
        plan: {
          kind: 'return',
          gatewayOperation: 'return',
          amountMinor: amount,
          reserveMinor: amount,
          // A return always names its amount: an omitted amount would return "the rest" as the
          // gateway sees it, which need not be what staff saw.
          fields: (r) => ({
            client_orderid: r.client_orderid,
            orderid: r.orderid,
            amount: formatMinorUnits(amount),
            currency: r.currency,
            comment: body.comment,
          }),
          reasonCode: body.reasonCode,
          comment: body.comment,
        },
      };
    });
  }

  void(
    id: string,
    body: VoidBody,
    actor: ActorInfo,
    key: IdempotencyClaim | string | null,
    audit?: AttemptAudit,
  ): Promise<OperationResult> {
    return this.run(id, actor, key, audit, 'void', (row, facts) => {
      const d = decideVoid(facts);
      if (!d.ok) return { refused: refusal(d, 'void', row, 0n) };
      return {
        plan: {
          kind: 'void',
          gatewayOperation: 'void',
          amountMinor: null,
          reserveMinor: 0n,
          fields: (r) => ({
            client_orderid: r.client_orderid,
            orderid: r.orderid,
            comment: body.comment,
          }),
          reasonCode: null,
          comment: body.comment,
        },
      };
    });
  }

  cardRef(
    id: string,
    actor: ActorInfo,
    key: IdempotencyClaim | string | null,
    audit?: AttemptAudit,
  ): Promise<OperationResult> {
    return this.run(id, actor, key, audit, 'create-card-ref', (row, facts) => {
      const d = decideStoredCard(facts);
      if (!d.ok) return { refused: refusal(d, 'create-card-ref', row, 0n) };
      if (row.card_ref_id !== null) {
        return {
          refused: new AppError(
            'INVALID_STATE',
            `the order already has card reference ${row.card_ref_id}`,
            { reason: 'card reference exists' },
          ),
        };
      }
      return {
        plan: {
          kind: 'card-ref',
          gatewayOperation: this.cardRefVersion === 'v4' ? 'create-card-ref-v4' : 'create-card-ref',
          amountMinor: null,
          reserveMinor: 0n,
          fields: (r) => ({ client_orderid: r.client_orderid, orderid: r.orderid }),
          reasonCode: null,
          comment: null,
        },
      };
    });
  }

  /**
   * With an Idempotency-Key claim, the key is taken in (A)'s transaction and the reply (or the
   * refusal) stored in (C)'s, so a request costs two write transactions, not four; a repeat gets
   * the stored reply (`claim.replayed`). A bare key (or none) is only recorded on the operation.
   */
  private async run(
    id: string,
    actor: ActorInfo,
    key: IdempotencyClaim | string | null,
    audit: AttemptAudit | undefined,
    what: OperationName,
    decide: (
      row: TransactionsTable,
      facts: OrderFacts,
      ops: TransactionOperationsTable[],
    ) => { plan: Plan } | { refused: AppError },
  ): Promise<OperationResult> {
    const ledger = this.ledger;
    const claim = key instanceof IdempotencyClaim ? key : null;
    const opId = randomUUID();
    // (A) check and reserve, atomically with every other instance.
    const prepared = await ledger.tx(async (trx) => {
      // PostgreSQL takes the key and reads the locked order in one statement.
      let read: { order: LockedOrder | undefined } | undefined;
      if (claim !== null) {
        let stored;
        if (ledger.db.kind === 'postgres') {
          const both = await ledger.lockOrderTaking(trx, id, this.idempotency.taking(claim));
          read = { order: both.order };
          stored = await this.idempotency.taken(trx, claim, both.taken);
        } else {
          stored = await this.idempotency.take(trx, claim);
        }
        // The stored body is the OperationResult this same request got the first time.
        if (stored !== null)
          return { kind: 'stored' as const, body: stored.body as OperationResult };
      }
      let checked: { row: TransactionsTable; plan: Plan };
      try {
        const { order } = read ?? { order: await ledger.lockOrder(trx, id) };
        checked = this.check(id, what, decide, order);
      } catch (err) {
        // A refusal is the key's reply too: a repeat gets it again rather than a second decision.
        if (claim !== null && err instanceof AppError && !Idempotency.releases(err)) {
          await this.idempotency.completeWithError(trx, claim, err);
          return { kind: 'refused' as const, err };
        }
        throw err;
      }
      const { row, plan } = checked;
      const now = ledger.clock.now();
      // Three tables, one new row or upsert each: one write batch (db/write-batch.ts).
      await runWrites(
        ledger.db.kind,
        trx,
        [
          insertOperationRow(trx, {
            row: {
              id: opId,
              transaction_id: id,
              kind: plan.kind,
              origin: 'paydesk',
              state: 'sending',
              amount_minor: plan.amountMinor === null ? null : toColumn(plan.amountMinor),
              reserved_minor: toColumn(plan.reserveMinor),
              gateway_serial: null,
              idempotency_key: claim?.key ?? (typeof key === 'string' ? key : null),
              requested_by: actor.email,
              reason_code: plan.reasonCode,
              comment: plan.comment,
              error_code: null,
              error_message: null,
              sent_at: now,
              created_at: now,
              updated_at: now,
            },
          }),
          ledger.timelineInsert(trx, id, [
            {
              kind: 'staff',
              title: `${REQUEST_WORDS[plan.kind]}${plan.amountMinor === null ? '' : ` ${formatMinorUnits(plan.amountMinor)} ${row.currency}`} requested`,
              actor: actor.email,
              data: { operationId: opId, reasonCode: plan.reasonCode, comment: plan.comment },
            },
          ]),
          // The safety net: should this instance stop before (C), the reconciler still finds out.
          ledger.reconcileUpsert(
            trx,
            id,
            now + ledger.options.gatewayTimeoutMs + ledger.options.reconcile.fastMinMs,
          ),
        ],
        { thenCommit: true },
      );
      return { kind: 'go' as const, row, plan };
    });
    if (prepared.kind === 'stored') return prepared.body;
    if (prepared.kind === 'refused') throw prepared.err;

    // (B) send once.
    const { row, plan } = prepared;
    // Should the gateway be slow to answer, colleagues' live screens learn of the operation in
    // flight (it holds back their actions meanwhile; QA: they kept offering them). On the usual
    // path the outcome's own event comes first and this one is never sent.
    const inFlight = setTimeout(() => {
      ledger.publish(row, false);
    }, IN_FLIGHT_EVENT_AFTER_MS);
    inFlight.unref();
    let outcome: GatewayOutcome;
    try {
      outcome = await this.gateway.send(plan.gatewayOperation, row.endpoint_id, plan.fields(row));
    } catch (err) {
      clearTimeout(inFlight);
      // Signing failed (a missing key): nothing left this machine.
      if (claim !== null) await this.idempotency.release(ledger.k, claim);
      throw err;
    }
    clearTimeout(inFlight);

    // (C) record what happened, and the reply every repeat of the request gets. (A) is on disk, so
    // should a power cut lose (C), the operation is `sending` again and the reconciler settles it
    // with `status`, as after a crash before (C): (C) need not wait for the disk.
    // A refusal because of the order's state (409, a 404, an unexpected reply; not a malformed
    // request or bad credentials): the gateway knows something Paydesk does not.
    const refusedForState =
      outcome.kind === 'reply' &&
      !(outcome.httpStatus === 200 && this.isExpectedReply(outcome, plan)) &&
      ![400, 401, 403].includes(outcome.httpStatus);
    const after = await ledger.txSyncedLater(async (trx) => {
      // The order is locked, so the row and its operations as written below are what a re-read
      // would return: they are kept in memory rather than read back.
      const result = this.classify(outcome, plan);
      // The reply shows the order's timeline with this exchange in it.
      const locked = await ledger.lockOrder(trx, id, {
        kind: 'gateway',
        title: `${plan.gatewayOperation}: ${result.title}`,
        actor: actor.email,
        data: exchangeData(outcome),
      });
      if (locked === undefined) throw new Error('transaction vanished');
      const { row: current, ops: opsBefore, timeline } = locked;
      const op = opsBefore.find((o) => o.id === opId);
      if (op === undefined) throw new Error('operation vanished');
      const now = ledger.clock.now();
      // At most one write per table, each on this order's own rows (its operation, its row, its
      // reconcile job, this request's key, a new audit row): one write batch.
      const writes: Write[] = [];
      let fresh = current;
      let opAfter = op;
      if (op.state === 'sending') {
        const opChanges = {
          state: result.state,
          reserved_minor: result.state === 'unknown' ? op.reserved_minor : 0,
          gateway_serial: result.serial ?? op.gateway_serial,
          error_code: result.errorCode,
          error_message: result.errorMessage,
          ...unansweredColumns(result.unanswered),
          updated_at: now,
        };
        writes.push(updateOperationRow(trx, { id: opId, changes: opChanges }));
        opAfter = { ...op, ...opChanges };
        if (result.state === 'processing' || result.state === 'approved') {
          const changes = this.effects(current, plan, outcome, now);
          writes.push(updateOrderRow(trx, { id, changes }));
          fresh = { ...current, ...changes };
        }
      } else if (result.serial !== null && op.gateway_serial === null) {
        // A status reply (callback) already settled it while the reply was on its way.
        const opChanges = { gateway_serial: result.serial, updated_at: now };
        writes.push(updateOperationRow(trx, { id: opId, changes: opChanges }));
        opAfter = { ...op, ...opChanges };
      }
      const ops = opsBefore.map((o) => (o.id === opId ? opAfter : o));
      if (refusedForState) {
        // The order changed at the gateway (settled, say): its status is asked once, just below;
        // should that fail, this job asks it instead.
        writes.push(ledger.reconcileUpsert(trx, id, now + ledger.options.reconcile.fastMinMs));
      } else if (result.state !== 'unknown' && !ledger.needsReconcile(fresh, ops)) {
        writes.push(ledger.reconcileDelete(trx, id));
      } else {
        writes.push(ledger.reconcileUpsert(trx, id, now + ledger.options.reconcile.fastMinMs));
      }
      const reply = this.reply(fresh, ops, timeline, opId, outcome, plan, result);
      if (claim !== null) {
        writes.push(
          this.idempotency.ending(
            trx,
            claim,
            reply instanceof AppError ? reply : { status: 200, body: reply },
          ),
        );
      }
      if (audit !== undefined) {
        // The chain's lock is taken by this batch (PostgreSQL) or held already (SQLite's writer)
        // and kept to the commit that follows.
        writes.push(await ledger.audit.prepareIn(platformTrx(trx), [audit.entry(reply)]));
      }
      await runWrites(ledger.db.kind, trx, writes, { thenCommit: true });
      return { fresh, reply };
    });
    audit?.committed();
    ledger.publish(after.fresh, false);
    if (after.reply instanceof AppError) {
      if (refusedForState) throw await this.refreshAfterRefusal(id, actor, plan, after.reply);
      throw after.reply;
    }
    return after.reply;
  }

  private isExpectedReply(outcome: GatewayOutcome, plan: Plan): boolean {
    const expected = plan.kind === 'card-ref' ? 'create-card-ref-response' : 'async-response';
    return outcome.kind === 'reply' && outcome.reply.type === expected;
  }

  /**
   * After the gateway refused an operation because of the order's state, asks `status` once, so
   * that the order shows what the gateway knows (a settled sale: stage `settled`, no void offered),
   * and says so in the refusal. Should the status check fail, the refusal stands as it is and the
   * reconcile job that (C) left asks later.
   */
  private async refreshAfterRefusal(
    id: string,
    actor: ActorInfo,
    plan: Plan,
    refusal: AppError,
  ): Promise<AppError> {
    const ledger = this.ledger;
    let applied: { row: TransactionsTable; ops: TransactionOperationsTable[] };
    try {
      const row = await ledger.k
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (row === undefined) return refusal;
      const fields: Record<string, string> = { client_orderid: row.client_orderid };
      const orderid = gatewayOrderId(row.orderid);
      if (orderid !== undefined) fields.orderid = orderid;
      const outcome = await this.gateway.send('status', row.endpoint_id, fields);
      const view =
        outcome.kind === 'reply' && outcome.httpStatus === 200 ? viewOfStatus(outcome.reply) : null;
      if (view === null) return refusal;
      applied = await ledger.tx(async (trx) => {
        const result = await ledger.applyStatus(trx, row.endpoint_id, view, {
          source: 'refresh',
          actor: actor.email,
          actorId: actor.id,
          exchange: exchangeData(outcome),
          timelineAfter: [
            {
              kind: 'gateway',
              title: `status asked because the gateway refused the ${plan.gatewayOperation}`,
              actor: null,
              data: { operation: plan.gatewayOperation },
            },
          ],
        });
        const ops = await ledger.operationsOf(trx, row.id);
        if (!ledger.needsReconcile(result.row, ops))
          await trx.executeQuery(ledger.reconcileDelete(trx, row.id));
        return { row: result.row, ops };
      });
    } catch {
      // The refusal is the answer; the reconcile job left by (C) asks again.
      return refusal;
    }
    ledger.publish(applied.row, false);
    const { row, ops } = applied;
    const allowed = allowedActions(row, ops);
    const details = {
      ...refusal.details,
      status: row.status,
      stage: row.stage,
      allowedActions: allowed,
    };
    const tag =
      typeof refusal.details?.gatewayErrorCode === 'string'
        ? refusal.details.gatewayErrorCode
        : 'refused';
    if (plan.kind === 'void' && row.stage === 'settled') {
      return new AppError(
        refusal.code,
        `The gateway says the transaction is settled (${tag}); it cannot be voided — return it instead.`,
        details,
      );
    }
    const now = `${row.status}${row.stage === null ? '' : ` (${row.stage})`}`;
    return new AppError(
      refusal.code,
      `${refusal.message} Its status now shows the order ${now}; ${allowed.length === 0 ? 'no follow-up is possible now' : `what it allows now: ${allowed.join(', ')}`}.`,
      details,
    );
  }

  /** (A)'s checks on the order as locked: it exists, nothing else pending, the rules allow it. */
  private check(
    id: string,
    what: OperationName,
    decide: (
      row: TransactionsTable,
      facts: OrderFacts,
      ops: TransactionOperationsTable[],
    ) => { plan: Plan } | { refused: AppError },
    order: LockedOrder | undefined,
  ): { row: TransactionsTable; plan: Plan } {
    if (order === undefined) throw new AppError('NOT_FOUND', `no transaction ${id}`);
    const { row, ops } = order;
    const busy = busyOperation(ops, what === 'create-card-ref' ? 'card-ref' : what);
    if (busy !== null) {
      const { kind } = busy.op;
      throw new AppError(
        'INVALID_STATE',
        busy.why === 'awaiting'
          ? `${OPERATION_WORDS[what]} refused: a ${kind} is still awaiting its outcome; refresh the order first.`
          : `${OPERATION_WORDS[what]} refused: a ${kind} is still processing at the gateway, which accepts nothing else on the order until it is final; try again once it is.`,
        {
          reason:
            busy.why === 'awaiting'
              ? `${kind} outcome not known yet`
              : `${kind} still processing at the gateway`,
        },
      );
    }
    const facts = factsOf(row, ops);
    if (facts === null) {
      throw new AppError(
        'INVALID_STATE',
        `${what} refused: the order's type or status (${row.type}, ${row.status}) does not allow it.`,
        {
          reason: 'order type or status',
        },
      );
    }
    const decided = decide(row, facts, ops);
    if ('refused' in decided) throw decided.refused;
    return { row, plan: decided.plan };
  }

  /** The reply to the request from (C)'s transaction (the operation and the order as stored), or the refusal. */
  private reply(
    row: TransactionsTable,
    ops: readonly TransactionOperationsTable[],
    timeline: readonly Selectable<TransactionTimelineTable>[],
    opId: string,
    outcome: GatewayOutcome,
    plan: Plan,
    result: { state: string; message: string },
  ): OperationResult | AppError {
    if (outcome.kind === 'reply' && result.state === 'refused') {
      return gatewayRefusal(outcome.httpStatus, outcome.reply, plan.gatewayOperation);
    }
    if (outcome.kind === 'not-sent') {
      return new AppError(
        'GATEWAY_UNAVAILABLE',
        `The ${plan.gatewayOperation} could not reach the gateway; nothing was sent. Try again.`,
      );
    }
    const detail = detailFrom(row, ops, timeline);
    const operation = detail.operations.find((o) => o.id === opId);
    if (operation === undefined) throw new Error('operation vanished');
    return { operation, transaction: detail, message: result.message };
  }

  private classify(
    outcome: GatewayOutcome,
    plan: Plan,
  ): {
    state: string;
    serial: string | null;
    errorCode: string | null;
    errorMessage: string | null;
    unanswered: Unanswered | null;
    title: string;
    message: string;
  } {
    const label = `${plan.kind}${plan.amountMinor === null ? '' : ` of ${formatMinorUnits(plan.amountMinor)}`}`;
    if (outcome.kind !== 'reply') {
      return lostOutcome(outcome, label, '; the amount stays reserved until then');
    }
    const reply = outcome.reply;
    const expected = plan.kind === 'card-ref' ? 'create-card-ref-response' : 'async-response';
    if (outcome.httpStatus === 200 && reply.type === expected) {
      const approved = plan.kind === 'card-ref' && reply.status === 'approved';
      return {
        state: approved ? 'approved' : 'processing',
        serial: reply.serialNumber ?? null,
        errorCode: null,
        errorMessage: null,
        unanswered: null,
        title: approved ? 'approved' : 'accepted',
        message: approved
          ? `Card reference ${reply.fields['card-ref-id'] ?? ''} created.`
          : `The gateway accepted the ${label} and is processing it; Paydesk updates the order as soon as the gateway reports its final status.`,
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

  /** What an accepted operation changes on the order before the gateway's status confirms it. */
  private effects(
    row: TransactionsTable,
    plan: Plan,
    outcome: GatewayOutcome,
    now: number,
  ): Partial<TransactionsTable> {
    const captured = big(row.captured_minor);
    const returned = big(row.returned_minor);
    switch (plan.kind) {
      case 'capture':
        return {
          captured_minor: toColumn(plan.amountMinor ?? 0n),
          stage: 'captured',
          updated_at: now,
        };
      case 'void':
        return { stage: 'voided', updated_at: now };
      case 'return': {
        const amount = plan.amountMinor ?? 0n;
        if (row.type === 'preauth' && captured === 0n)
          return { stage: 'hold_cancelled', updated_at: now };
        const total = returned + amount;
        return {
          returned_minor: toColumn(total),
          stage: total >= captured ? 'returned' : 'partially_returned',
          updated_at: now,
        };
      }
      case 'card-ref': {
        const refId = outcome.kind === 'reply' ? outcome.reply.fields['card-ref-id'] : undefined;
        return refId === undefined ? { updated_at: now } : { card_ref_id: refId, updated_at: now };
      }
      default:
        return { updated_at: now };
    }
  }
}
