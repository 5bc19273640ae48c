// Storage of issue 5: one row per gateway order, the operations Paydesk sent or learned, the
// redacted timeline, raw callbacks, idempotency keys and the reconciler's leased jobs. Money is
// integer minor units; times are integer milliseconds (UTC) — the platform's conventions.
// Everything that must hold across BFF instances is a database constraint or a row lock.
import { sql, type Generated, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { DatabaseKind } from '../db/connect.js';
import { big } from './db.js';
import { SETTLEMENT_CHECK_AFTER_MS_DEFAULT } from './options.js';

export interface TransactionsTable {
  id: string;
  endpoint_id: string;
  orderid: string;
  client_orderid: string;
  type: string;
  /** processing | approved | declined | error | filtered | unknown */
  status: string;
  /** the gateway's order-stage (authorized, captured, voided, partially_returned, ...) */
  stage: string | null;
  currency: string;
  amount_minor: number;
  authorized_minor: number;
  captured_minor: number;
  returned_minor: number;
  card_bin: string | null;
  card_last4: string | null;
  card_brand: string | null;
  card_ref_id: string | null;
  customer_email: string | null;
  customer_name: string | null;
  /** 1 when the gateway and Paydesk disagreed; details say how */
  drift: number;
  drift_details: string | null;
  /** how Paydesk learned of the order: lookup | callback | paydesk */
  source: string;
  /** the recurring payment (subscription) whose scheduled charge this order is (0004) */
  recurring_payment_id?: string | null;
  last_checked_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * How the outcome of a request went unlearned (0024-unanswered-outcomes; `Unanswered` of
 * @paydesk/shared/api, written by `unansweredColumns`): `unanswered_kind` error | timeout |
 * connection-closed | unreadable, null when there was a reply (or the row is older than 0024: its
 * `error_message` then says it).
 */
export interface UnansweredColumns {
  unanswered_kind: string | null;
  /** the HTTP status of an error answer, or of a reply that could not be read */
  unanswered_http_status: number | null;
  /** the gateway's error-code of an error answer; null: it named none */
  unanswered_code: string | null;
  /** the gateway's error-message of an error answer (one line, at most 300 characters) */
  unanswered_message: string | null;
  /** how long Paydesk waited for the answer that did not come */
  unanswered_waited_ms: number | null;
}

export interface TransactionOperationsTable extends UnansweredColumns {
  id: string;
  transaction_id: string;
  kind: string;
  /** paydesk | gateway */
  origin: string;
  state: string;
  amount_minor: number | null;
  /** part of the amount still counted against the cap while the outcome is not known */
  reserved_minor: number;
  gateway_serial: string | null;
  idempotency_key: string | null;
  requested_by: string | null;
  reason_code: string | null;
  comment: string | null;
  error_code: string | null;
  error_message: string | null;
  sent_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface TransactionTimelineTable {
  id: Generated<number>;
  transaction_id: string;
  at: number;
  kind: string;
  title: string;
  actor: string | null;
  /** redacted JSON */
  data: string;
}

export interface GatewayCallbacksTable {
  serial_number: string;
  endpoint_id: string;
  orderid: string;
  client_orderid: string;
  status: string;
  type: string | null;
  transaction_id: string | null;
  /** redacted JSON of the query parameters */
  raw: string;
  received_at: number;
}

export interface IdempotencyKeysTable {
  user_id: string;
  key: string;
  route: string;
  request_hash: string;
  /** in_flight | done */
  state: string;
  reply_status: number | null;
  reply_body: string | null;
  created_at: number;
  completed_at: number | null;
}

export interface ReconcileJobsTable {
  transaction_id: string;
  /** start of the schedule: the fast phase runs from here */
  first_at: number;
  next_attempt_at: number;
  attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
}

/**
 * The one `status` check of an approved sale, rebill, transfer or capture shortly after it is due
 * to settle (0013-settlement-checks; the gateway sends no callback for settlement). Claimed by
 * one instance at a time: `due_at` moved past the check is its lease, `lease_owner` its holder.
 */
export interface SettlementChecksTable {
  transaction_id: string;
  /** when the gateway approved the charge (its processing date; never later than Paydesk's clock) */
  approved_at: number;
  /** when the next check is due; null once the checks stopped without seeing it settled */
  due_at: number | null;
  /** checks claimed so far */
  attempts: number;
  /** the instance that holds the check it claimed, until `due_at` */
  lease_owner: string | null;
}

/** A v4 recurring payment Paydesk created (0004-subscriptions). */
export interface SubscriptionsTable extends UnansweredColumns {
  id: string;
  endpoint_id: string;
  client_orderid: string;
  /** the gateway's id; null until its reply (or, after a lost reply, its first charge) names it */
  recurring_payment_id: string | null;
  card_ref_id: string;
  amount_minor: number;
  currency: string;
  /** day | week | month */
  period: string;
  interval_count: number;
  /** YYYY-MM-DD as sent, null when the gateway's default (today, charged at once) applies */
  start_date: string | null;
  /** when the schedule starts: start_date's midnight UTC, or the creation time */
  first_charge_at: number;
  max_payments: number | null;
  order_desc: string;
  email: string;
  /** sending | active | unknown | refused | not_sent */
  state: string;
  gateway_serial: string | null;
  error_code: string | null;
  error_message: string | null;
  /** redacted JSON of the create-recurring-payment exchange */
  exchange: string | null;
  idempotency_key: string | null;
  created_by: string;
  created_by_email: string;
  created_at: number;
  updated_at: number;
  /**
   * Crash recovery of a plan still `sending` or `unknown` (0007-subscription-recovery): when the
   * reconciler next asks the gateway about it; null = its first look, the safe delay after
   * `created_at`.
   */
  check_at: number | null;
  check_attempts: number;
  /** the reconciler instance that holds the plan, until `lease_until` */
  lease_owner: string | null;
  lease_until: number | null;
}

export interface PaymentsTables {
  transactions: TransactionsTable;
  transaction_operations: TransactionOperationsTable;
  transaction_timeline: TransactionTimelineTable;
  gateway_callbacks: GatewayCallbacksTable;
  idempotency_keys: IdempotencyKeysTable;
  reconcile_jobs: ReconcileJobsTable;
  subscriptions: SubscriptionsTable;
  settlement_checks: SettlementChecksTable;
}

export const PAYMENTS_MIGRATION_NAME = '0002-payments';

export function paymentsMigration(kind: DatabaseKind): Migration {
  const autoId =
    kind === 'postgres' ? 'bigserial primary key' : 'integer primary key autoincrement';
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      const run = async (text: string) => {
        await sql.raw(text).execute(db);
      };
      await run(`create table transactions (
        id text primary key,
        endpoint_id text not null,
        orderid text not null unique,
        client_orderid text not null,
        type text not null,
        status text not null,
        stage text,
        currency text not null,
        amount_minor ${int} not null,
        authorized_minor ${int} not null default 0,
        captured_minor ${int} not null default 0,
        returned_minor ${int} not null default 0,
        card_bin text,
        card_last4 text,
        card_brand text,
        card_ref_id text,
        customer_email text,
        customer_name text,
        drift integer not null default 0,
        drift_details text,
        source text not null,
        last_checked_at ${int},
        created_at ${int} not null,
        updated_at ${int} not null,
        check (amount_minor >= 0 and captured_minor >= 0 and returned_minor >= 0)
      )`);
      // Keyset pagination and the filters: every list order has an index ending in id.
      await run(`create index transactions_created on transactions (created_at, id)`);
      await run(`create index transactions_amount on transactions (amount_minor, id)`);
      await run(
        `create index transactions_status_created on transactions (status, created_at, id)`,
      );
      await run(`create index transactions_client_orderid on transactions (client_orderid)`);
      await run(`create index transactions_email on transactions (customer_email)`);
      await run(`create index transactions_last4 on transactions (card_last4)`);
      await run(`create table transaction_operations (
        id text primary key,
        transaction_id text not null references transactions(id),
        kind text not null,
        origin text not null,
        state text not null,
        amount_minor ${int},
        reserved_minor ${int} not null default 0,
        gateway_serial text,
        idempotency_key text,
        requested_by text,
        reason_code text,
        comment text,
        error_code text,
        error_message text,
        sent_at ${int},
        created_at ${int} not null,
        updated_at ${int} not null,
        check (reserved_minor >= 0)
      )`);
      await run(
        `create index transaction_operations_tx on transaction_operations (transaction_id, created_at)`,
      );
      await run(
        `create unique index transaction_operations_serial on transaction_operations (transaction_id, gateway_serial)`,
      );
      await run(
        `create index transaction_operations_kind_created on transaction_operations (kind, created_at)`,
      );
      await run(`create table transaction_timeline (
        id ${autoId},
        transaction_id text not null references transactions(id),
        at ${int} not null,
        kind text not null,
        title text not null,
        actor text,
        data text not null
      )`);
      await run(
        `create index transaction_timeline_tx on transaction_timeline (transaction_id, id)`,
      );
      await run(`create table gateway_callbacks (
        serial_number text primary key,
        endpoint_id text not null,
        orderid text not null,
        client_orderid text not null,
        status text not null,
        type text,
        transaction_id text,
        raw text not null,
        received_at ${int} not null
      )`);
      await run(`create index gateway_callbacks_orderid on gateway_callbacks (orderid)`);
      await run(`create table idempotency_keys (
        user_id text not null,
        key text not null,
        route text not null,
        request_hash text not null,
        state text not null,
        reply_status integer,
        reply_body text,
        created_at ${int} not null,
        completed_at ${int},
        primary key (user_id, key)
      )`);
      await run(`create index idempotency_keys_created on idempotency_keys (created_at)`);
      await run(`create table reconcile_jobs (
        transaction_id text primary key references transactions(id),
        first_at ${int} not null,
        next_attempt_at ${int} not null,
        attempts integer not null default 0,
        lease_owner text,
        lease_until ${int},
        last_error text
      )`);
      await run(`create index reconcile_jobs_due on reconcile_jobs (next_attempt_at)`);
    },
  };
}

export const SUBSCRIPTIONS_MIGRATION_NAME = '0004-subscriptions';

/** Subscriptions (v4 recurring payments) and the link from their charges (rebill orders). */
export function subscriptionsMigration(kind: DatabaseKind): Migration {
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      const run = async (text: string) => {
        await sql.raw(text).execute(db);
      };
      await run(`alter table transactions add column recurring_payment_id text`);
      await run(
        `create index transactions_recurring on transactions (recurring_payment_id, created_at, id)`,
      );
      await run(`create table subscriptions (
        id text primary key,
        endpoint_id text not null,
        client_orderid text not null unique,
        recurring_payment_id text unique,
        card_ref_id text not null,
        amount_minor ${int} not null,
        currency text not null,
        period text not null,
        interval_count integer not null,
        start_date text,
        first_charge_at ${int} not null,
        max_payments integer,
        order_desc text not null,
        email text not null,
        state text not null,
        gateway_serial text,
        error_code text,
        error_message text,
        exchange text,
        idempotency_key text,
        created_by text not null,
        created_by_email text not null,
        created_at ${int} not null,
        updated_at ${int} not null,
        check (amount_minor > 0 and interval_count between 1 and 365)
      )`);
      await run(`create index subscriptions_created on subscriptions (created_at, id)`);
    },
  };
}

export const LIST_INDEXES_MIGRATION_NAME = '0005-list-indexes';

/**
 * The transactions list is ordered by (created_at, id) and filtered by currency or type with other
 * columns (measured in test/bench/RESULTS-payments.md over 1,000,000 rows): an index per filter
 * column in list order lets each page and the capped total stop early instead of scanning.
 */
export function listIndexesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index transactions_currency_created on transactions (currency, created_at, id)`.execute(
        db,
      );
      await sql`create index transactions_type_created on transactions (type, created_at, id)`.execute(
        db,
      );
      // An amount range within a currency (the count behind the capped total above all).
      await sql`create index transactions_currency_amount on transactions (currency, amount_minor, id)`.execute(
        db,
      );
    },
  };
}

// Named to sort after `0006-saved-views` (src/views/migration.ts), which databases may have run.
export const DRIFT_INDEX_MIGRATION_NAME = '0006-transactions-drift-index';

/**
 * Orders flagged with drift are few among many: a partial index lets the home screen count them
 * and the list filter them (`drift=true`, newest first, with its capped total) without scanning
 * every order (1,000,000 rows, SQLite: the count went from 120–260 ms to 0.1 ms).
 */
export function driftIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index transactions_drift on transactions (created_at, id) where drift = 1`.execute(
        db,
      );
    },
  };
}

export const SUBSCRIPTION_RECOVERY_MIGRATION_NAME = '0007-subscription-recovery';

/**
 * A plan left `sending` by an instance that stopped before recording the gateway's reply (or
 * `unknown` after a lost reply) is settled by the reconciler: its schedule and its lease live on
 * the row, and the few plans awaiting an outcome are found by state.
 */
export function subscriptionRecoveryMigration(kind: DatabaseKind): Migration {
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      const run = async (text: string) => {
        await sql.raw(text).execute(db);
      };
      await run(`alter table subscriptions add column check_at ${int}`);
      await run(`alter table subscriptions add column check_attempts integer not null default 0`);
      await run(`alter table subscriptions add column lease_owner text`);
      await run(`alter table subscriptions add column lease_until ${int}`);
      await run(
        `create index subscriptions_awaiting on subscriptions (state, created_at) where state in ('sending', 'unknown')`,
      );
    },
  };
}

export const ORDER_LOCK_MIGRATION_NAME = '0009-order-lock';

/**
 * PostgreSQL: `paydesk_lock_order(order_id, gateway_orderid, entry, timeline_limit)` locks an
 * order's row (by Paydesk's id, or else by the gateway's orderid) and then reads its operations:
 * one round trip with the meaning of two statements. Each query of a PL/pgSQL function takes a
 * fresh snapshot, so the operations are read as committed when the lock was granted, which a
 * single statement (its snapshot taken before any lock wait) would not see. Given `entry` (a
 * transaction_timeline row as JSON: at, kind, title, actor, data) it also appends it and returns
 * the first `timeline_limit` entries of the timeline. Rows come as JSON (what node-postgres gives
 * for these text and integer columns); null when there is no such order.
 */
export function orderLockMigration(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (kind !== 'postgres') return;
      await sql
        .raw(
          `create function paydesk_lock_order(
            order_id text, gateway_orderid text, entry json, timeline_limit integer
          ) returns json language plpgsql as $$
          declare
            tx_id text;
            locked json;
            ops json;
            timeline json;
          begin
            if order_id is not null then
              select t.id, row_to_json(t) into tx_id, locked
                from transactions t where t.id = order_id for update;
            else
              select t.id, row_to_json(t) into tx_id, locked
                from transactions t where t.orderid = gateway_orderid for update;
            end if;
            if locked is null then
              return null;
            end if;
            select coalesce(json_agg(o order by o.created_at, o.id), '[]') into ops
              from transaction_operations o where o.transaction_id = tx_id;
            if entry is not null then
              insert into transaction_timeline (transaction_id, at, kind, title, actor, data)
                select tx_id, e.at, e.kind, e.title, e.actor, e.data
                from json_populate_record(null::transaction_timeline, entry) e;
              select coalesce(json_agg(l order by l.id), '[]') into timeline
                from (select * from transaction_timeline where transaction_id = tx_id
                      order by id limit timeline_limit) l;
            end if;
            return json_build_object('row', locked, 'ops', ops, 'timeline', timeline);
          end $$`,
        )
        .execute(db);
    },
  };
}

export const CARD_REF_INDEX_MIGRATION_NAME = '0010-card-ref-index';

/**
 * The orders of a card reference: read before every rebill and subscription (which endpoint made
 * it, whether the gateway made it) and by the card-reference list. Most orders carry none, so the
 * index is partial (1,000,000 orders: a lookup by reference no longer scans the table).
 */
export function cardRefIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index transactions_card_ref on transactions (card_ref_id) where card_ref_id is not null`.execute(
        db,
      );
    },
  };
}

export const SETTLEMENT_CHECKS_MIGRATION_NAME = '0013-settlement-checks';

/**
 * The settlement checks (settlement.ts), and one for every order that already waits for its
 * settlement to show (approved, stage `captured`): due the default delay after its approval as
 * Paydesk recorded it (the approved charge operation, else the order's creation), so that orders
 * approved long ago are checked at once.
 */
export function settlementChecksMigration(kind: DatabaseKind): Migration {
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      const run = async (text: string) => {
        await sql.raw(text).execute(db);
      };
      await run(`create table settlement_checks (
        transaction_id text primary key references transactions(id),
        approved_at ${int} not null,
        due_at ${int},
        attempts integer not null default 0,
        lease_owner text
      )`);
      await run(`create index settlement_checks_due on settlement_checks (due_at)`);
      await run(`insert into settlement_checks (transaction_id, approved_at, due_at, attempts)
        select id, approved_at, approved_at + ${SETTLEMENT_CHECK_AFTER_MS_DEFAULT}, 0 from (
          select t.id, coalesce((select max(o.created_at) from transaction_operations o
              where o.transaction_id = t.id and o.state = 'approved'
                and o.kind in ('sale', 'rebill', 'transfer', 'capture')), t.created_at) as approved_at
          from transactions t where t.status = 'approved' and t.stage = 'captured') awaiting`);
    },
  };
}

export const UNKNOWN_OPERATIONS_INDEX_MIGRATION_NAME = '0018-operations-unknown-index';

/**
 * The operations whose outcome is unknown (a lost reply; the reconciler asks `status`) are few
 * among many: a partial index lets the list's `status=unknown` filter and the home screen's count
 * find their orders, whatever the orders' own status, without scanning every operation
 * (stats.ts `unknownOutcomeIds`; 1,000,000 orders: a page in under 1 ms on both databases). It
 * needs no upkeep from the code that writes operations: the database keeps it with the `state`.
 */
export function unknownOperationsIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index transaction_operations_unknown on transaction_operations (transaction_id) where state = 'unknown'`.execute(
        db,
      );
    },
  };
}

/** For the platform's migration provider: `{ ...paymentsMigrations(kind) }` after `0001-platform`. */
export function paymentsMigrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    [PAYMENTS_MIGRATION_NAME]: paymentsMigration(kind),
    [SUBSCRIPTIONS_MIGRATION_NAME]: subscriptionsMigration(kind),
    [LIST_INDEXES_MIGRATION_NAME]: listIndexesMigration(),
    [DRIFT_INDEX_MIGRATION_NAME]: driftIndexMigration(),
    [SUBSCRIPTION_RECOVERY_MIGRATION_NAME]: subscriptionRecoveryMigration(kind),
    [ORDER_LOCK_MIGRATION_NAME]: orderLockMigration(kind),
    [CARD_REF_INDEX_MIGRATION_NAME]: cardRefIndexMigration(),
    [SETTLEMENT_CHECKS_MIGRATION_NAME]: settlementChecksMigration(kind),
    [UNKNOWN_OPERATIONS_INDEX_MIGRATION_NAME]: unknownOperationsIndexMigration(),
  };
}

async function tableExists(db: Kysely<unknown>, kind: DatabaseKind, name: string) {
  const exists =
    kind === 'postgres'
      ? await sql<{
          n: unknown;
        }>`select count(*)::int as n from information_schema.tables where table_name = ${name} and table_schema = current_schema()`.execute(
          db,
        )
      : await sql<{
          n: unknown;
        }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(
          db,
        );
  return big(exists.rows[0]?.n) > 0n;
}

/**
 * Applies the payments tables to a database opened by the platform when its migration provider
 * does not (yet) include them: true when it created them.
 */
export async function ensurePaymentsSchema(
  db: Kysely<unknown>,
  kind: DatabaseKind,
): Promise<boolean> {
  const hasPayments = await tableExists(db, kind, 'transactions');
  const hasSubscriptions = await tableExists(db, kind, 'subscriptions');
  if (hasPayments && hasSubscriptions) return false;
  await db.transaction().execute(async (trx) => {
    if (!hasPayments) {
      await paymentsMigration(kind).up(trx);
      await orderLockMigration(kind).up(trx);
      await cardRefIndexMigration().up(trx);
      await settlementChecksMigration(kind).up(trx);
      await unknownOperationsIndexMigration().up(trx);
    }
    if (!hasSubscriptions) {
      await subscriptionsMigration(kind).up(trx);
      await subscriptionRecoveryMigration(kind).up(trx);
    }
  });
  return true;
}
