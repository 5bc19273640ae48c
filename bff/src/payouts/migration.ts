// Storage of payouts (four-eyes), payment links and their history. Money is integer minor units,
// times integer milliseconds (UTC), as in the platform's and the payments module's tables.
// The four-eyes rule and the single send are database constraints and conditional updates.
import { sql, type Generated, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { DatabaseKind } from '../db/connect.js';
import type { UnansweredColumns } from '../payments/migration.js';
import {
  PAYOUT_UNANSWERED_MIGRATION_NAME,
  payoutUnansweredMigration,
} from './unanswered-migration.js';
import {
  PAYOUT_FIRST_APPROVAL_MIGRATION_NAME,
  payoutFirstApprovalMigration,
} from './first-approval-migration.js';
import {
  PAYOUT_PAYEE_HASH_MIGRATION_NAME,
  payoutPayeeHashMigration,
} from './payee-hash-migration.js';

/** `UnansweredColumns` (0026): how its check's or payout's outcome went unlearned, while it is not known. */
export interface PayoutsTable extends UnansweredColumns {
  id: string;
  /** two-step | single */
  mode: string;
  /** see PAYOUT_STATES in shared/src/api/payouts.ts */
  state: string;
  endpoint_id: string;
  client_orderid: string;
  orderid: string | null;
  amount_minor: number;
  currency: string;
  order_desc: string;
  destination_kind: string;
  destination_masked: string;
  destination_label: string;
  /** HMAC-SHA256 (keyed, hex) of the canonical destination: binds approval to what was prepared */
  destination_hash: string;
  /**
   * HMAC-SHA256 (keyed, hex) of the payee alone (`DestinationHasher.payeeHash`): the
   * possible-duplicate warnings match on it; null for payouts prepared before 0029
   */
  payee_hash: string | null;
  /** single mode only: the destination sealed (AES-256-GCM) until sent or rejected, then null */
  destination_sealed: string | null;
  /** sealed canonical JSON of what the approver is bound to (amount, currency, hash, order) */
  binding: string | null;
  /** the preparer's IP address (the gateway's `ipaddress`) */
  client_ip: string;
  prepared_by: string;
  prepared_by_email: string;
  decided_by: string | null;
  decided_by_email: string | null;
  decided_at: number | null;
  /**
   * paid again (0027): the first approver's email and when they approved, whose payment the
   * gateway did not make (`decided_*` are then the payer's again); null otherwise
   */
  first_decided_by_email: string | null;
  first_decided_at: number | null;
  reject_reason: string | null;
  expires_at: number | null;
  error_code: string | null;
  error_message: string | null;
  sent_at: number | null;
  /** leased status polling while the outcome is not known */
  poll_first_at: number | null;
  poll_next_at: number | null;
  poll_attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
  /**
   * the Idempotency-Key of the request that prepared it (0017): a repeat of that request, when it
   * was interrupted before it answered, finds the payout by it; null before 0017
   */
  idempotency_key: string | null;
  created_at: number;
  updated_at: number;
}

/** `UnansweredColumns` (0026): how its create's outcome went unlearned (state `unknown`). */
export interface PaymentLinksTable extends UnansweredColumns {
  id: string;
  kind: string;
  state: string;
  endpoint_id: string;
  client_orderid: string;
  orderid: string | null;
  amount_minor: number | null;
  currency: string | null;
  order_desc: string;
  customer_email: string | null;
  /** the gateway fields to send (no secrets: forms collect card data on the gateway's page) */
  request: string;
  /** sealed copy of `request` (held payout-forms): what the approver is bound to */
  binding: string | null;
  redirect_url: string | null;
  created_by: string;
  created_by_email: string;
  decided_by: string | null;
  decided_by_email: string | null;
  decided_at: number | null;
  reject_reason: string | null;
  error_code: string | null;
  error_message: string | null;
  /** a held payout-form that lapsed: when (0016); null otherwise */
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface PayoutEventsTable {
  id: Generated<number>;
  /** `payout:<id>` or `link:<id>` */
  subject: string;
  at: number;
  kind: string;
  title: string;
  actor: string | null;
  /** redacted JSON */
  data: string;
}

export interface PayoutsTables {
  payouts: PayoutsTable;
  payment_links: PaymentLinksTable;
  payout_events: PayoutEventsTable;
}

export const PAYOUTS_MIGRATION_NAME = '0003-payouts';

export function payoutsMigration(kind: DatabaseKind): Migration {
  const autoId =
    kind === 'postgres' ? 'bigserial primary key' : 'integer primary key autoincrement';
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      const run = async (text: string) => {
        await sql.raw(text).execute(db);
      };
      await run(`create table payouts (
        id text primary key,
        mode text not null,
        state text not null,
        endpoint_id text not null,
        client_orderid text not null unique,
        orderid text,
        amount_minor ${int} not null,
        currency text not null,
        order_desc text not null,
        destination_kind text not null,
        destination_masked text not null,
        destination_label text not null,
        destination_hash text not null,
        destination_sealed text,
        binding text,
        client_ip text not null,
        prepared_by text not null,
        prepared_by_email text not null,
        decided_by text,
        decided_by_email text,
        decided_at ${int},
        reject_reason text,
        expires_at ${int},
        error_code text,
        error_message text,
        sent_at ${int},
        poll_first_at ${int},
        poll_next_at ${int},
        poll_attempts integer not null default 0,
        lease_owner text,
        lease_until ${int},
        created_at ${int} not null,
        updated_at ${int} not null,
        check (amount_minor > 0),
        check (mode in ('two-step', 'single')),
        check (state <> 'sending' or decided_by is not null),
        check (decided_by is null or state = 'rejected' or decided_by <> prepared_by)
      )`);
      await run(`create index payouts_state_created on payouts (state, created_at)`);
      await run(`create index payouts_prepared_by on payouts (prepared_by, created_at)`);
      await run(`create index payouts_poll on payouts (poll_next_at)`);
      await run(`create table payment_links (
        id text primary key,
        kind text not null,
        state text not null,
        endpoint_id text not null,
        client_orderid text not null unique,
        orderid text,
        amount_minor ${int},
        currency text,
        order_desc text not null,
        customer_email text,
        request text not null,
        binding text,
        redirect_url text,
        created_by text not null,
        created_by_email text not null,
        decided_by text,
        decided_by_email text,
        decided_at ${int},
        reject_reason text,
        error_code text,
        error_message text,
        created_at ${int} not null,
        updated_at ${int} not null,
        check (decided_by is null or state = 'rejected' or decided_by <> created_by)
      )`);
      await run(`create index payment_links_created on payment_links (created_at)`);
      await run(`create table payout_events (
        id ${autoId},
        subject text not null,
        at ${int} not null,
        kind text not null,
        title text not null,
        actor text,
        data text not null
      )`);
      await run(`create index payout_events_subject on payout_events (subject, id)`);
    },
  };
}

export const PAYOUT_LIST_INDEX_MIGRATION_NAME = '0014-payout-list-index';

/**
 * The payouts' history (`view=all` without a state) pages newest first on (created_at, id): without
 * this index each page would read and sort every payout (keyset.ts).
 */
export function payoutListIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index payouts_created on payouts (created_at, id)`.execute(db);
    },
  };
}

export const PAYOUT_HOLD_LAPSE_MIGRATION_NAME = '0016-payout-hold-lapse';

/**
 * Held payout-forms lapse (PAYOUT_HOLD_MAX_AGE_MS): `payment_links.expires_at` keeps when one did,
 * and the poll loop's search for those due (state, created_at) reads an index rather than every
 * link. Held single payouts are found by `payouts_state_created`; their lapse time goes in
 * `payouts.expires_at`, as a two-step payout's registration's does.
 */
export function payoutHoldLapseMigration(kind: DatabaseKind): Migration {
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw(`alter table payment_links add column expires_at ${int}`).execute(db);
      await sql`create index payment_links_state_created on payment_links (state, created_at)`.execute(
        db,
      );
    },
  };
}

export const PAYOUT_PREPARE_KEY_MIGRATION_NAME = '0017-payout-prepare-key';

/**
 * A payout keeps the Idempotency-Key of the request that prepared it, so that a repeat of a
 * request interrupted before it answered learns what it did (`PayoutsService.prepareInterruption`)
 * rather than 409 until the key's retention ends. The index: that search reads one row, not every
 * payout.
 */
export function payoutPrepareKeyMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`alter table payouts add column idempotency_key text`.execute(db);
      await sql`create index payouts_idempotency_key on payouts (idempotency_key)`.execute(db);
    },
  };
}

export const PAYOUT_QUEUE_INDEX_MIGRATION_NAME = '0019-payout-queue-index';

/**
 * The approval queue is worked in the order payouts lapse (keyset.ts `lapsePage`): a checked
 * two-step payout's from `expires_at`, read in that order from `payouts_pending_lapse` (held single
 * ones lapse in creation order: `payouts_state_created`). `payouts_destination`: the payouts
 * waiting with the same destination (a possible duplicate, `similarPending`) are found by the keyed
 * hash rather than by reading every payout waiting.
 */
export function payoutQueueIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index payouts_pending_lapse on payouts (state, expires_at, created_at, id)`.execute(
        db,
      );
      await sql`create index payouts_destination on payouts (destination_hash, state)`.execute(db);
    },
  };
}

export const PAYOUT_ORDER_INDEX_MIGRATION_NAME = '0020-payout-order-index';

/**
 * The transactions search and the lookup find the payout a gateway order belongs to (a payout
 * awaiting approval is no transaction yet) by its orderid or client_orderid: one query, `orderid =
 * ? or client_orderid = ?`, each side read from an index (client_orderid's is its unique
 * constraint's), never every payout.
 */
export function payoutOrderIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index payouts_orderid on payouts (orderid)`.execute(db);
    },
  };
}

export const PAYMENT_LINK_ORDER_INDEX_MIGRATION_NAME = '0030-payment-link-order-index';

/**
 * The lookup finds the payment link a gateway order belongs to (a link's order is no transaction
 * until its page was used and learned) by its orderid as it does a payout's (0020): from an index,
 * never every link. Its client_orderid is read from its unique constraint's.
 */
export function paymentLinkOrderIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index payment_links_orderid on payment_links (orderid)`.execute(db);
    },
  };
}

export const PAYOUT_PAID_LATE_INDEX_MIGRATION_NAME = '0025-payout-paid-late-index';

/**
 * The payouts the gateway paid after Paydesk had judged them not applied (`PAID_AFTER_NOT_APPLIED`)
 * are few among many: the list's `paidLate=true` filter, and the home screen's card that counts
 * them, page through this partial index newest first (created_at, id) rather than walk every
 * payout to find them. The code is written out in the query as the index says it (a bound
 * parameter would keep SQLite, and PostgreSQL's generic plan, from using it). The database keeps
 * it with the `error_code`: no upkeep from the code that writes payouts.
 */
export function payoutPaidLateIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index payouts_paid_late on payouts (created_at, id) where error_code = 'PAID_AFTER_NOT_APPLIED'`.execute(
        db,
      );
    },
  };
}

/** For the platform's migration provider: `{ ...payoutsMigrations(kind) }` after the payments one. */
export function payoutsMigrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    [PAYOUTS_MIGRATION_NAME]: payoutsMigration(kind),
    [PAYOUT_LIST_INDEX_MIGRATION_NAME]: payoutListIndexMigration(),
    [PAYOUT_HOLD_LAPSE_MIGRATION_NAME]: payoutHoldLapseMigration(kind),
    [PAYOUT_PREPARE_KEY_MIGRATION_NAME]: payoutPrepareKeyMigration(),
    [PAYOUT_QUEUE_INDEX_MIGRATION_NAME]: payoutQueueIndexMigration(),
    [PAYOUT_ORDER_INDEX_MIGRATION_NAME]: payoutOrderIndexMigration(),
    [PAYOUT_PAID_LATE_INDEX_MIGRATION_NAME]: payoutPaidLateIndexMigration(),
    [PAYOUT_UNANSWERED_MIGRATION_NAME]: payoutUnansweredMigration(),
    [PAYOUT_FIRST_APPROVAL_MIGRATION_NAME]: payoutFirstApprovalMigration(kind),
    [PAYOUT_PAYEE_HASH_MIGRATION_NAME]: payoutPayeeHashMigration(),
    [PAYMENT_LINK_ORDER_INDEX_MIGRATION_NAME]: paymentLinkOrderIndexMigration(),
  };
}

/** Creates the payouts tables when the platform's provider does not (yet) include them. */
export async function ensurePayoutsSchema(
  db: Kysely<unknown>,
  kind: DatabaseKind,
): Promise<boolean> {
  const exists =
    kind === 'postgres'
      ? await sql<{
          n: unknown;
        }>`select count(*)::int as n from information_schema.tables where table_name = 'payouts' and table_schema = current_schema()`.execute(
          db,
        )
      : await sql<{
          n: unknown;
        }>`select count(*) as n from sqlite_master where type = 'table' and name = 'payouts'`.execute(
          db,
        );
  if (Number(exists.rows[0]?.n ?? 0) > 0) return false;
  await db.transaction().execute(async (trx) => {
    await payoutsMigration(kind).up(trx);
    await payoutListIndexMigration().up(trx);
    await payoutHoldLapseMigration(kind).up(trx);
    await payoutPrepareKeyMigration().up(trx);
    await payoutQueueIndexMigration().up(trx);
    await payoutOrderIndexMigration().up(trx);
    await payoutPaidLateIndexMigration().up(trx);
    await payoutUnansweredMigration().up(trx);
    await payoutFirstApprovalMigration(kind).up(trx);
    await payoutPayeeHashMigration().up(trx);
    await paymentLinkOrderIndexMigration().up(trx);
  });
  return true;
}
