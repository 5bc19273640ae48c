// The reconciler: asks `status` for every order whose outcome Paydesk does not know yet (a lost
// reply, an operation still processing, a callback not yet confirmed) on the schedule of issue 5,
// and applies what the gateway says. It never sends a money-moving request. Jobs are leased in the
// database (FOR UPDATE SKIP LOCKED on PostgreSQL, BEGIN IMMEDIATE on SQLite) so several BFF
// instances share them without doing one twice. It also runs the settlement checks (settlement.ts)
// on a loop of their own.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { amountsOutOfRange, recordOutOfRange } from './amount-range.js';
import type { ReconcileJobsTable } from './migration.js';
import { exchangeData } from './gateway.js';
import { noStatusTitle, noStatusWords } from './gateway-errors.js';
import type { Idempotency } from './idempotency.js';
import type { Ledger } from './ledger.js';
import { nextReconcileDelay } from './options.js';
import { platformTrx } from './db.js';
import type { TransactionsService } from './transactions.js';
import { PollLoop } from '../jobs/poll-loop.js';
import { gatewayOrderId } from './rebills.js';
import { SettlementChecks } from './settlement.js';
import { SubscriptionRecovery } from './subscriptions.js';

type ReconcileTrx = Parameters<Parameters<Ledger['tx']>[0]>[0];

/** An operation of Paydesk's whose outcome the reconciler was still following. */
const OPEN_STATES: ReadonlySet<string> = new Set(['sending', 'unknown', 'processing']);

/** What a job that stopped after its last scheduled attempt was following, for its log line. */
interface GaveUp {
  transactionId: string;
  orderid: string | null;
  endpointId: string | null;
  /** its order's operations still open, as `kind state` (`return unknown`) */
  operations: string[];
  attempts: number;
  /** why the last attempt learned nothing (`timeout`, `HTTP 500`...); null: no error */
  lastError: string | null;
}

export class Reconciler {
  readonly #loop: PollLoop;
  /** Subscriptions left `sending` (an instance stopped before recording the reply) or `unknown`. */
  readonly subscriptions: SubscriptionRecovery;
  /** The status check of each approved charge once it is due to settle, on a loop of its own. */
  readonly settlement: SettlementChecks;

  constructor(
    private readonly ledger: Ledger,
    private readonly transactions: TransactionsService,
    private readonly idempotency: Idempotency,
    private readonly logger: Logger,
  ) {
    this.subscriptions = new SubscriptionRecovery(ledger, transactions, logger);
    this.settlement = new SettlementChecks(ledger, transactions, logger);
    this.#loop = new PollLoop(
      ledger.options.reconcile.pollIntervalMs,
      () => this.runOnce(),
      (err: unknown) => {
        logger.error({ err }, 'reconcile pass failed');
      },
    );
  }

  start(): void {
    this.#loop.start();
    this.settlement.start();
  }

  /** Stops the loops and waits for the passes under way. */
  async stop(): Promise<void> {
    await Promise.all([this.#loop.stop(), this.settlement.stop()]);
  }

  /**
   * Claims the due jobs, reconciles each, settles the subscriptions due for a look, purges expired
   * idempotency keys; returns the jobs and subscriptions looked at.
   */
  async runOnce(): Promise<number> {
    const jobs = await this.claim();
    for (const job of jobs) {
      try {
        await this.reconcile(job);
      } catch (err) {
        this.logger.error({ err, transactionId: job.transaction_id }, 'reconcile attempt failed');
        await this.reschedule(job, 'internal error');
      }
    }
    const plans = await this.subscriptions.runOnce();
    await this.idempotency.purge();
    return jobs.length + plans;
  }

  private async claim(): Promise<ReconcileJobsTable[]> {
    const { db, options, clock } = this.ledger;
    const now = clock.now();
    const me = options.instanceId;
    return this.ledger.tx(async (trx) => {
      let due: { transaction_id: string }[];
      if (db.kind === 'postgres') {
        const result = await sql<{ transaction_id: string }>`
          select transaction_id from reconcile_jobs
          where next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
          order by next_attempt_at limit ${options.reconcile.batchSize}
          for update skip locked`.execute(trx);
        due = result.rows;
      } else {
        due = await trx
          .selectFrom('reconcile_jobs')
          .select('transaction_id')
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
          .orderBy('next_attempt_at')
          .limit(options.reconcile.batchSize)
          .execute();
      }
      if (due.length === 0) return [];
      const ids = due.map((d) => d.transaction_id);
      await trx
        .updateTable('reconcile_jobs')
        .set({ lease_owner: me, lease_until: now + options.reconcile.leaseMs })
        .where('transaction_id', 'in', ids)
        .execute();
      return trx
        .selectFrom('reconcile_jobs')
        .selectAll()
        .where('transaction_id', 'in', ids)
        .execute();
    });
  }

  private async reconcile(job: ReconcileJobsTable): Promise<void> {
    const ledger = this.ledger;
    const row = await ledger.k
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', job.transaction_id)
      .executeTakeFirst();
    if (row === undefined) {
      await ledger.k.executeQuery(ledger.reconcileDelete(ledger.k, job.transaction_id));
      return;
    }
    const { outcome, view } = await this.transactions.askStatus(
      row.endpoint_id,
      gatewayOrderId(row.orderid),
      row.client_orderid,
    );
    if (
      view === null &&
      outcome.kind === 'reply' &&
      outcome.httpStatus === 404 &&
      gatewayOrderId(row.orderid) === undefined
    ) {
      // A rebill whose request may never have reached the gateway: settled once it is certain.
      const settled = await ledger.tx((trx) => ledger.settleNotCreated(trx, row.id));
      if (settled !== null) {
        ledger.publish(settled, false);
        return;
      }
    }
    if (view === null) {
      await ledger.tx((trx) =>
        ledger.timeline(trx, row.id, {
          kind: 'reconcile',
          title: noStatusTitle('status check', outcome),
          actor: null,
          data: exchangeData(outcome),
        }),
      );
      await this.reschedule(job, noStatusWords(outcome));
      return;
    }
    const outOfRange = amountsOutOfRange(view);
    if (outOfRange.length > 0) {
      // Asked again, the gateway would say the same: recorded once, and the job stops.
      const flagged = await ledger.tx(async (trx) => {
        if (!(await this.holdsLease(trx, job))) return null;
        await trx.executeQuery(ledger.reconcileDelete(trx, row.id));
        return recordOutOfRange(ledger, trx, row.id, view, outOfRange, {
          source: 'reconcile',
          exchange: exchangeData(outcome),
          timelineAfter: [
            {
              kind: 'reconcile',
              title: 'reconciliation stopped: the status reply cannot be applied',
              actor: null,
              data: { attempts: job.attempts + 1 },
            },
          ],
        });
      });
      if (flagged === null) return;
      this.logger.error(
        {
          transactionId: row.id,
          orderid: row.orderid,
          endpointId: row.endpoint_id,
          amounts: outOfRange,
        },
        'reconcile stopped: the status shows an amount Paydesk cannot hold',
      );
      ledger.publish(flagged, false);
      return;
    }
    const applied = await ledger.tx(async (trx) => {
      if (!(await this.holdsLease(trx, job))) return null;
      const result = await ledger.applyStatus(trx, row.endpoint_id, view, {
        source: 'reconcile',
        actor: null,
        exchange: exchangeData(outcome),
      });
      const ops = await ledger.operationsOf(trx, row.id);
      if (!ledger.needsReconcile(result.row, ops)) {
        await trx.executeQuery(ledger.reconcileDelete(trx, row.id));
        return { ...result, gaveUp: null };
      }
      const gaveUp = await this.rescheduleIn(trx, job, null);
      return { ...result, gaveUp };
    });
    if (applied === null) return;
    ledger.publish(applied.row, false);
    if (applied.gaveUp !== null) this.logGaveUp(applied.gaveUp);
  }

  /** A job that stopped after its last scheduled attempt, logged once it is recorded. */
  private logGaveUp(gaveUp: GaveUp): void {
    this.logger.error(
      gaveUp,
      'reconciliation stopped after its last scheduled attempt; the order needs a refresh by hand',
    );
  }

  /** Only the lease holder writes: a lease that expired mid-call may already be someone else's. */
  private async holdsLease(trx: ReconcileTrx, job: ReconcileJobsTable): Promise<boolean> {
    const mine = await trx
      .selectFrom('reconcile_jobs')
      .select('transaction_id')
      .where('transaction_id', '=', job.transaction_id)
      .where('lease_owner', '=', this.ledger.options.instanceId)
      .executeTakeFirst();
    return mine !== undefined;
  }

  private async reschedule(job: ReconcileJobsTable, error: string): Promise<void> {
    const gaveUp = await this.ledger.tx((trx) => this.rescheduleIn(trx, job, error));
    if (gaveUp !== null) this.logGaveUp(gaveUp);
  }

  /** Schedules the job's next attempt; after its last one, stops it and says what it followed. */
  private async rescheduleIn(
    trx: ReconcileTrx,
    job: ReconcileJobsTable,
    error: string | null,
  ): Promise<GaveUp | null> {
    const ledger = this.ledger;
    const now = ledger.clock.now();
    const delay = nextReconcileDelay(
      ledger.options.reconcile,
      job.first_at,
      now,
      ledger.options.random,
    );
    if (delay === null) {
      await trx.executeQuery(ledger.reconcileDelete(trx, job.transaction_id));
      await ledger.timeline(trx, job.transaction_id, {
        kind: 'reconcile',
        title: 'reconciliation stopped after its last scheduled attempt; refresh the order by hand',
        actor: null,
        data: { attempts: job.attempts + 1, lastError: error },
      });
      await ledger.audit.appendIn(platformTrx(trx), {
        actorId: null,
        actorEmail: null,
        actorRoles: [],
        action: 'transaction.reconcile_gave_up',
        target: `transaction:${job.transaction_id}`,
        summary: { attempts: job.attempts + 1, lastError: error },
        outcome: 'failed',
        errorCode: 'RECONCILE_GAVE_UP',
        requestId: null,
        ip: null,
        userAgent: null,
      });
      const order = await trx
        .selectFrom('transactions')
        .select(['orderid', 'endpoint_id'])
        .where('id', '=', job.transaction_id)
        .executeTakeFirst();
      const ops = await ledger.operationsOf(trx, job.transaction_id);
      return {
        transactionId: job.transaction_id,
        orderid: order?.orderid ?? null,
        endpointId: order?.endpoint_id ?? null,
        operations: ops
          .filter((o) => o.origin === 'paydesk' && OPEN_STATES.has(o.state))
          .map((o) => `${o.kind} ${o.state}`),
        attempts: job.attempts + 1,
        lastError: error,
      };
    }
    await trx
      .updateTable('reconcile_jobs')
      .set({
        next_attempt_at: now + delay,
        attempts: job.attempts + 1,
        lease_owner: null,
        lease_until: null,
        last_error: error,
      })
      .where('transaction_id', '=', job.transaction_id)
      .execute();
    return null;
  }
}
