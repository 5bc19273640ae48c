// The server_callback_url receiver (design §3): verify the callback control, deduplicate on
// serial-number, keep the raw (redacted) callback, then confirm with `status` rather than trust
// the callback alone. Orders Paydesk did not create (a storefront's) are learned this way.
import { verifyCallbackControl } from '@paydesk/shared/protocol';
import type { Insertable } from 'kysely';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { deferredSync } from '../db/deferred-sync.js';
import { queryTemplate } from '../db/query-template.js';
import { AppError } from '../errors.js';
import { redactFields } from '../gateway-client/redact.js';
import type { PayDatabase, PayDb } from './db.js';
import { exchangeData } from './gateway.js';
import type { Ledger } from './ledger.js';
import type { CallbackLimits } from './options.js';
import type { TransactionsService } from './transactions.js';

export interface CallbackResult {
  status: 200;
  outcome: 'confirmed' | 'duplicate' | 'stored-unconfirmed';
  transactionId: string | null;
}

const REQUIRED = ['status', 'orderid', 'client_orderid', 'serial-number', 'control'] as const;

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
    private readonly limits: CallbackLimits,
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
    const { endpoint: _endpoint, ...params } = query;
    // Shed it when it would have to wait (every turn taken) and enough wait already.
    const waiting = this.#db.sizeBy({ priority: STORE });
    if (this.#db.pending >= this.limits.concurrency && waiting >= this.limits.queueLimit) {
      // Nothing stored: the gateway delivers it again later.
      this.logger.warn({ serial, waiting }, 'gateway callback shed');
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
              raw: JSON.stringify(redactFields(params)),
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

  /** Confirms a stored callback with `status` and applies what the gateway says. */
  private async confirm(stored: StoredCallback): Promise<CallbackResult> {
    const { endpointId, serial, status, orderid, clientOrderId, params, now } = stored;
    let asked = endpointId;
    let { outcome, view } = await this.transactions.askStatus(asked, orderid, clientOrderId);
    const callbackEntry = {
      kind: 'callback' as const,
      title: `callback: ${params.type ?? 'operation'} ${status}${params.amount === undefined ? '' : ` ${params.amount} ${params.currency ?? ''}`.trimEnd()}`,
      actor: null,
      data: redactFields(params),
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
      callbackEntry.title += ` (its URL named endpoint ${endpointId}; status asked on the order's endpoint ${asked})`;
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
      } else {
        // receive() forgets the callback, so that the gateway's retry is processed afresh.
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
