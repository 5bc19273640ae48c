// The server_callback_url receiver (design §3): verify the callback control, deduplicate on
// serial-number, keep the raw (redacted) callback, then confirm with `status` rather than trust
// the callback alone. Orders Paydesk did not create (a storefront's) are learned this way.
//
// The control signs only status, orderid and client_orderid: anyone holding one delivered
// callback URL can send it again with another serial-number and fields of their own. So only the
// fields the spec defines are kept (fields.md "Callback"), the timeline says only what the signed
// fields and the `status` reply confirm, and a callback whose serial-number the gateway does not
// list for the order makes Paydesk stop asking `status` on that order's callbacks for a while.
import { formatMinorUnits, verifyCallbackControl } from '@paydesk/shared/protocol';
import type { Insertable } from 'kysely';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { deferredSync } from '../db/deferred-sync.js';
import { queryTemplate } from '../db/query-template.js';
import { AppError } from '../errors.js';
import { redactFields } from '../gateway-client/redact.js';
import { maskPans } from '../services/redact.js';
import { amountsOutOfRange, auditNotRecorded, recordOutOfRange } from './amount-range.js';
import type { PayDatabase, PayDb } from './db.js';
import { exchangeData } from './gateway.js';
import type { GatewayView, Ledger, TimelineInput } from './ledger.js';
import type { CallbackLimits } from './options.js';
import type { TransactionsService } from './transactions.js';

export interface CallbackResult {
  status: 200;
  /**
   * `deferred`: stored, its `status` check left to the reconciler (see `unconfirmedWindowMs`);
   * `not-applied`: stored, its `status` reply shows an amount Paydesk cannot hold (amount-range.ts)
   */
  outcome: 'confirmed' | 'duplicate' | 'stored-unconfirmed' | 'deferred' | 'not-applied';
  transactionId: string | null;
}

/** The receiver's limits: `CallbackLimits`, and how long an unconfirmed callback holds back `status`. */
export interface CallbackReceiverLimits extends CallbackLimits {
  /**
   * After a callback whose serial-number the gateway's `status` did not list for its order (a
   * replayed URL with a serial of its own), this long (ms) further callbacks for that order with a
   * serial-number Paydesk has not seen are stored without a `status` request of their own: one
   * reconcile check at the end of the window confirms whatever they may have announced. At most
   * about two `status` requests per order per window, however many are replayed. 0: no limit.
   * Default `DEFAULT_UNCONFIRMED_WINDOW_MS`.
   */
  unconfirmedWindowMs?: number;
}

export const DEFAULT_UNCONFIRMED_WINDOW_MS = 10_000;

const REQUIRED = ['status', 'orderid', 'client_orderid', 'serial-number', 'control'] as const;

/** The fields the control signs: the only ones a callback proves. */
const SIGNED = new Set(['status', 'orderid', 'client_orderid']);

/** The callback's fields as the spec defines them (fields.md "Callback"); any other is dropped. */
const CALLBACK_FIELDS = new Set([
  'status',
  'orderid',
  'merchant_order',
  'client_orderid',
  'amount',
  'currency',
  'type',
  'serial-number',
  'processing-date',
  'control',
  'error_message',
  'error_code',
  'last-four-digits',
  'card-type',
  'card-ref-id',
  'recurring-payment-id',
]);

/** An unsigned field longer than this is cut: a gateway's values are short. */
const MAX_UNSIGNED_LENGTH = 200;

/**
 * What of a callback's query is kept (stored raw, shown in the timeline's data): the spec's fields
 * only, redacted (`redactFields`: no control). An unsigned field that holds a card number is
 * dropped, a `last-four-digits` that is not four digits too; a signed one is kept masked.
 */
export function callbackFields(query: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!CALLBACK_FIELDS.has(name) || typeof value !== 'string') continue;
    if (SIGNED.has(name) || name === 'serial-number' || name === 'control') {
      kept[name] = value;
      continue;
    }
    if (maskPans(value) !== value) continue;
    if (name === 'last-four-digits' && !/^\d{4}$/.test(value)) continue;
    kept[name] = value.length > MAX_UNSIGNED_LENGTH ? value.slice(0, MAX_UNSIGNED_LENGTH) : value;
  }
  return redactFields(kept);
}

/** How much of each identifying field a refused callback's audit row keeps. */
const MAX_REFUSED_LENGTH = 100;

/**
 * What the audit row of a callback refused for its control keeps of its query: which endpoint,
 * order and serial-number it named, and the status it claimed. Never the control (anyone who
 * reads the log could replay a right one) nor any other field; card-number-like digits masked to
 * BIN and last four, each value cut short (the sender chose them all).
 */
export function refusedCallbackSummary(
  query: Readonly<Record<string, string>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, key] of [
    ['endpoint', 'endpointId'],
    ['status', 'status'],
    ['orderid', 'orderid'],
    ['client_orderid', 'clientOrderId'],
    ['serial-number', 'serial'],
  ] as const) {
    const value = query[name];
    if (value === undefined || value === '') continue;
    const masked = maskPans(value);
    kept[key] =
      masked.length > MAX_REFUSED_LENGTH ? `${masked.slice(0, MAX_REFUSED_LENGTH)}…` : masked;
  }
  return kept;
}

/** Marks the timeline entry of a callback the gateway's `status` did not confirm. */
const UNCONFIRMED_TITLE = 'callback not confirmed';

/** "sale 10.00 EUR", as the callback claims it (unsigned): for a title that says so. */
function claimed(params: Readonly<Record<string, string>>): string {
  return [params.type, params.amount, params.currency]
    .filter((v): v is string => v !== undefined && v !== '')
    .join(' ');
}

/**
 * The timeline title of a callback the gateway's `status` answered: what the gateway's operation
 * list says of the callback's serial-number, never the callback's own unsigned type or amount.
 */
function confirmedTitle(serial: string, status: string, view: GatewayView): string {
  const op = view.operations.find((o) => o.serial === serial);
  if (op !== undefined) {
    const amount =
      op.amountMinor === null ? '' : ` ${formatMinorUnits(op.amountMinor)} ${view.currency}`;
    return `callback: ${op.type} ${op.status}${amount} (confirmed by status)`;
  }
  if (view.operations.length > 0) {
    return `${UNCONFIRMED_TITLE}: status lists no operation ${serial} for this order; the callback (${status}) is ignored`;
  }
  return `callback: ${status}; status says the order is ${view.status}${view.stage === null ? '' : ` (${view.stage})`}`;
}

/** A callback whose control verified. */
interface VerifiedCallback {
  endpointId: string;
  serial: string;
  status: string;
  orderid: string;
  clientOrderId: string;
  /** the callback's query without the endpoint */
  params: Record<string, string>;
}

/** A verified callback, stored (claimed) by this receiver at `now` and not yet applied. */
interface StoredCallback extends VerifiedCallback {
  now: number;
}

// A callback's statements, compiled once per database (db/query-template.ts).

/** Stores (claims) a callback by its serial-number; a stored one is left as it is. */
const storeCallback = queryTemplate(
  (k: PayDb, v: { row: Insertable<PayDatabase['gateway_callbacks']> }) =>
    k
      .insertInto('gateway_callbacks')
      .values(v.row)
      .onConflict((oc) => oc.column('serial_number').doNothing()),
);

/** Marks a stored callback applied to its order. */
const callbackApplied = queryTemplate((k: PayDb, v: { serial: string; transactionId: string }) =>
  k
    .updateTable('gateway_callbacks')
    .set({ transaction_id: v.transactionId })
    .where('serial_number', '=', v.serial),
);

/** The priorities of a callback's database steps: storing a new one, and the steps after it. */
const STORE = 0;
const APPLY = 1;

export class CallbackReceiver {
  /**
   * Every database step of the callbacks runs through this queue: at most
   * `CallbackLimits.concurrency` at once, the rest waiting their turn; the `status` requests in
   * between are not limited. A callback already stored goes before new ones (APPLY before STORE),
   * so that a burst is worked through rather than every callback in it kept waiting.
   */
  readonly #db: PQueue;

  constructor(
    private readonly ledger: Ledger,
    private readonly transactions: TransactionsService,
    private readonly endpointIds: readonly string[],
    private readonly controlKey: string,
    private readonly logger: Logger,
    private readonly limits: CallbackReceiverLimits,
  ) {
    this.#db = new PQueue({ concurrency: limits.concurrency });
  }

  async receive(query: Record<string, string>): Promise<CallbackResult> {
    const endpointId = query.endpoint;
    if (endpointId === undefined || !this.endpointIds.includes(endpointId)) {
      throw new AppError('VALIDATION_FAILED', 'query.endpoint: must be a configured endpoint id', {
        fields: [
          {
            path: 'query.endpoint',
            rule: 'configured_endpoint',
            message: 'must be a configured endpoint id',
          },
        ],
      });
    }
    const missing = REQUIRED.filter((name) => query[name] === undefined || query[name] === '');
    if (missing.includes('control')) {
      this.logger.warn(
        { endpointId, orderid: query.orderid ?? null },
        'gateway callback without control refused',
      );
      throw new AppError('FORBIDDEN', 'callback control missing');
    }
    if (missing.length > 0) {
      throw new AppError('VALIDATION_FAILED', `query.${missing[0] ?? ''}: required`, {
        fields: missing.map((name) => ({
          path: `query.${name}`,
          rule: 'required',
          message: 'required',
        })),
      });
    }
    const status = query.status ?? '';
    const orderid = query.orderid ?? '';
    const clientOrderId = query.client_orderid ?? '';
    const serial = query['serial-number'] ?? '';
    if (
      !verifyCallbackControl(
        { status, orderid, client_orderid: clientOrderId, control: query.control },
        this.controlKey,
      )
    ) {
      this.logger.warn(
        { endpointId, orderid, serial },
        'gateway callback with a bad control refused',
      );
      throw new AppError('FORBIDDEN', 'callback control does not verify');
    }
    const params = callbackFields(query);
    // Shed it when it would have to wait (every turn taken) and enough wait already.
    const waiting = this.#db.sizeBy({ priority: STORE });
    if (this.#db.pending >= this.limits.concurrency && waiting >= this.limits.queueLimit) {
      // Nothing stored: the gateway delivers it again later. The request logger's line (at warn)
      // carries this message.
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `${String(waiting)} callbacks are waiting for the database; deliver this one again later`,
      );
    }
    return this.claim({ endpointId, serial, status, orderid, clientOrderId, params });
  }

  /** One database step of a callback, in its turn (`#db`). */
  #step<T>(priority: typeof STORE | typeof APPLY, work: () => Promise<T>): Promise<T> {
    return this.#db.add(work, { priority });
  }

  /**
   * Stores (claims) a verified callback and applies it. The database steps of a burst of
   * callbacks (a storefront's busy hour) take their turn (`#db`), so that they leave the database
   * pool to staff requests; a callback that waited past the gateway's timeout is applied all the
   * same, and its redelivery is a duplicate.
   */
  private async claim(verified: VerifiedCallback): Promise<CallbackResult> {
    const { endpointId, serial, status, orderid, clientOrderId, params } = verified;
    const now = this.ledger.clock.now();
    const k = this.ledger.k;
    // The claim need not wait for the disk: the callback is answered 200 only after the commit
    // that applies it, which syncs the claim too (db/deferred-sync.ts).
    const inserted = await this.#step(STORE, () =>
      deferredSync(this.ledger.db.sqlite, k, (c) =>
        c.executeQuery(
          storeCallback(c, {
            row: {
              serial_number: serial,
              endpoint_id: endpointId,
              orderid,
              client_orderid: clientOrderId,
              status,
              type: params.type ?? null,
              transaction_id: null,
              raw: JSON.stringify(params),
              received_at: now,
            },
          }),
        ),
      ),
    );
    if (Number(inserted.numAffectedRows ?? 0n) === 0) {
      // Stored before: most often applied already (a redelivery), read in one statement.
      const seen = await this.#step(STORE, () =>
        this.ledger.k
          .selectFrom('gateway_callbacks')
          .select(['transaction_id', 'received_at'])
          .where('serial_number', '=', serial)
          .executeTakeFirst(),
      );
      if (seen !== undefined && seen.transaction_id !== null)
        return { status: 200, outcome: 'duplicate', transactionId: seen.transaction_id };
      // Not applied yet (another delivery is at it, or its receiver stopped and has not certainly
      // given up), or forgotten since (that delivery failed): not a 2xx, so that the gateway
      // delivers it again rather than count it as received.
      if (seen === undefined || !(await this.takeOverAbandoned(serial, seen.received_at, now)))
        throw new AppError(
          'CONFLICT',
          `callback ${serial} is being processed; deliver it again later`,
        );
    }
    const stored: StoredCallback = { ...verified, now };
    try {
      return await this.confirm(stored);
    } catch (err) {
      // Not applied (no status answer for an unknown order, a database error): forget it, so
      // that the gateway's next delivery is processed afresh rather than taken for a duplicate.
      await this.#step(APPLY, () =>
        this.ledger.k
          .deleteFrom('gateway_callbacks')
          .where('serial_number', '=', serial)
          .where('transaction_id', 'is', null)
          .execute(),
      ).catch((forgetErr: unknown) => {
        this.logger.warn({ err: forgetErr, serial }, 'could not forget an unapplied callback');
      });
      throw err;
    }
  }

  /**
   * Whether this callback's `status` request is held back: its order had, within the window, a
   * callback that `status` did not confirm, and this serial-number is none Paydesk has seen for it.
   * Then the callback is stored and applied to the order, and one reconcile check at the end of the
   * window asks `status` for all of them: no timeline entry, nothing else changes.
   */
  private async deferred(stored: StoredCallback): Promise<CallbackResult | null> {
    const windowMs = this.limits.unconfirmedWindowMs ?? DEFAULT_UNCONFIRMED_WINDOW_MS;
    if (windowMs <= 0) return null;
    const { serial, orderid, now } = stored;
    return this.#step(APPLY, async () => {
      const k = this.ledger.k;
      const order = await k
        .selectFrom('transactions')
        .select('id')
        .where('orderid', '=', orderid)
        .executeTakeFirst();
      if (order === undefined) return null;
      const flagged = await k
        .selectFrom('transaction_timeline')
        .select('at')
        .where('transaction_id', '=', order.id)
        .where('kind', '=', 'callback')
        .where('title', 'like', `${UNCONFIRMED_TITLE}%`)
        .where('at', '>', now - windowMs)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (flagged === undefined) return null;
      const seen = await k
        .selectFrom('transaction_operations')
        .select('id')
        .where('transaction_id', '=', order.id)
        .where('gateway_serial', '=', serial)
        .executeTakeFirst();
      if (seen !== undefined) return null;
      await this.ledger.tx(async (trx) => {
        // From when the order was flagged, not from now: replays cannot push the check away.
        await this.ledger.scheduleReconcile(trx, order.id, flagged.at + windowMs);
        await trx.executeQuery(callbackApplied(trx, { serial, transactionId: order.id }));
      });
      this.logger.debug({ serial, orderid }, 'callback stored; its status check deferred');
      return { status: 200, outcome: 'deferred', transactionId: order.id } as const;
    });
  }

  /** Confirms a stored callback with `status` and applies what the gateway says. */
  private async confirm(stored: StoredCallback): Promise<CallbackResult> {
    const { endpointId, serial, status, orderid, clientOrderId, params, now } = stored;
    const deferred = await this.deferred(stored);
    if (deferred !== null) return deferred;
    let asked = endpointId;
    let { outcome, view } = await this.transactions.askStatus(asked, orderid, clientOrderId);
    const claim = claimed(params);
    const callbackEntry = {
      kind: 'callback' as const,
      // Until `status` answers, the callback's unsigned fields are only its claims.
      title: `callback: ${status}, not confirmed by status${claim === '' ? '' : ` (the callback claims ${claim})`}`,
      actor: null,
      data: params,
    };
    const known =
      view === null
        ? await this.#step(APPLY, () =>
            this.ledger.k
              .selectFrom('transactions')
              .select(['id', 'endpoint_id'])
              .where('orderid', '=', orderid)
              .executeTakeFirst(),
          )
        : undefined;
    if (view === null && known !== undefined && known.endpoint_id !== endpointId) {
      // The callback URL named another endpoint than the order's (a storefront's misconfigured
      // URL): the endpoint in the URL only says where to ask, and Paydesk knows where this order is.
      asked = known.endpoint_id;
      ({ outcome, view } = await this.transactions.askStatus(asked, orderid, clientOrderId));
    }
    const redirected =
      asked === endpointId
        ? ''
        : ` (its URL named endpoint ${endpointId}; status asked on the order's endpoint ${asked})`;
    if (view !== null) callbackEntry.title = confirmedTitle(serial, status, view);
    callbackEntry.title += redirected;
    if (view !== null) {
      const outOfRange = amountsOutOfRange(view);
      if (outOfRange.length > 0)
        return this.notApplied(stored, view, exchangeData(outcome), callbackEntry, outOfRange);
    }
    if (view === null) {
      // Stored, but not confirmed: answer 200 (the callback itself is valid) and let the
      // reconciler confirm it; a known order gets a job, an unknown one waits for its next callback.
      if (known !== undefined) {
        await this.#step(APPLY, () =>
          this.ledger.tx(async (trx) => {
            await this.ledger.timeline(trx, known.id, callbackEntry);
            await this.ledger.timeline(trx, known.id, {
              kind: 'gateway',
              title: `status after callback: ${outcome.kind === 'reply' ? `HTTP ${String(outcome.httpStatus)}${outcome.reply.errorCode === undefined ? '' : ` ${outcome.reply.errorCode}`}` : 'no answer'}`,
              actor: null,
              data: exchangeData(outcome),
            });
            await this.ledger.scheduleReconcile(
              trx,
              known.id,
              now + this.ledger.options.reconcile.fastMinMs,
            );
            await trx.executeQuery(callbackApplied(trx, { serial, transactionId: known.id }));
          }),
        );
      } else if (outcome.kind === 'reply' && outcome.httpStatus === 404) {
        // The gateway answered, and knows no such order on this endpoint: no delivery of this
        // callback will ever be confirmed, so it is refused as the callback's own fault (a 4xx),
        // not as an outage that invites the gateway to deliver it again and again. Nothing kept.
        this.logger.warn(
          { endpointId: asked, orderid, serial, gatewayErrorCode: outcome.reply.errorCode ?? null },
          'callback for an order the gateway does not know refused',
        );
        throw new AppError(
          'NOT_FOUND',
          `the gateway does not know order ${maskPans(orderid)} on endpoint ${asked} (its status answered 404): this callback cannot be confirmed, and delivering it again will not change that`,
        );
      } else {
        // No answer (timeout, connection refused, 5xx) or another refusal: the gateway may know
        // the order once it answers. receive() forgets the callback, so that the gateway's retry is
        // processed afresh.
        this.logger.warn(
          { endpointId, orderid },
          'callback for an unknown order could not be confirmed with status',
        );
        throw new AppError(
          'GATEWAY_UNAVAILABLE',
          'could not confirm the callback with status; retry later',
        );
      }
      return { status: 200, outcome: 'stored-unconfirmed', transactionId: known.id };
    }
    const result = await this.#step(APPLY, () =>
      this.ledger.tx((trx) =>
        this.ledger.applyStatus(trx, asked, view, {
          source: 'callback',
          actor: null,
          exchange: exchangeData(outcome),
          timelineAfter: [callbackEntry],
          last: true,
          writesAfter: (t, transactionId) => [callbackApplied(t, { serial, transactionId })],
        }),
      ),
    );
    this.ledger.publish(result.row, result.created);
    return { status: 200, outcome: 'confirmed', transactionId: result.row.id };
  }

  /**
   * A callback whose `status` reply shows an amount Paydesk cannot hold: answered 200 all the same
   * (it is valid, and would be delivered again forever), kept as stored, the order flagged (a known
   * one) and the problem audited and logged. A known order's callback is marked applied to it, so
   * that a repeat is a duplicate; an unknown order is not created.
   */
  private async notApplied(
    stored: StoredCallback,
    view: GatewayView,
    exchange: Record<string, unknown>,
    callbackEntry: TimelineInput,
    amounts: string[],
  ): Promise<CallbackResult> {
    const { endpointId, serial, orderid } = stored;
    const ledger = this.ledger;
    const row = await this.#step(APPLY, () =>
      ledger.tx(async (trx) => {
        const known = await trx
          .selectFrom('transactions')
          .select('id')
          .where('orderid', '=', view.orderid)
          .executeTakeFirst();
        if (known !== undefined) {
          const updated = await recordOutOfRange(ledger, trx, known.id, view, amounts, {
            source: 'callback',
            exchange,
            timelineAfter: [callbackEntry],
          });
          await trx.executeQuery(callbackApplied(trx, { serial, transactionId: known.id }));
          return updated;
        }
        await auditNotRecorded(ledger, trx, view, amounts, 'callback', { serial });
        return null;
      }),
    );
    this.logger.error(
      { endpointId, orderid, serial, transactionId: row?.id ?? null, amounts },
      'callback not applied: its status shows an amount Paydesk cannot hold',
    );
    if (row !== null) ledger.publish(row, false);
    return { status: 200, outcome: 'not-applied', transactionId: row?.id ?? null };
  }

  /**
   * A stored callback that never got its transaction (the receiving instance stopped between
   * storing it and applying the status; it had not answered 200, so the gateway delivers it
   * again) is processed afresh once its receiver has certainly given up: longer than two status
   * requests plus a lease. Until then a repeat is refused (409) and delivered again later.
   * `receivedAt` (as read) only spares the statement when it cannot match; the statement decides,
   * so of two repeats at once only one takes it over.
   */
  private async takeOverAbandoned(
    serial: string,
    receivedAt: number,
    now: number,
  ): Promise<boolean> {
    const { gatewayTimeoutMs, reconcile } = this.ledger.options;
    const givenUpBefore = now - 2 * gatewayTimeoutMs - reconcile.leaseMs;
    if (receivedAt >= givenUpBefore) return false;
    const taken = await this.#step(STORE, () =>
      this.ledger.k
        .updateTable('gateway_callbacks')
        .set({ received_at: now })
        .where('serial_number', '=', serial)
        .where('transaction_id', 'is', null)
        .where('received_at', '<', givenUpBefore)
        .executeTakeFirst(),
    );
    if (Number(taken.numUpdatedRows) === 0) return false;
    this.logger.warn({ serial }, 'callback left unapplied by a stopped receiver taken over');
    return true;
  }
}
