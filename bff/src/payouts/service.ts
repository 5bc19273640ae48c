// Payouts under four-eyes approval (design §5): prepared by one ops user (two-step: payout-check
// now; single: held, destination sealed), approved by another, bound to what was checked, sent
// once (a conditional update claims the payout; the loser of a race sends nothing), and followed
// with `status` until final. A lost reply is `unknown`, reconciled, never sent again.
// Each change is written with its timeline entries, and a change Paydesk makes on its own with its
// audit row, in one transaction (`write`); a gateway exchange or status check goes to the timeline
// first, on its own, so that the evidence stays even when recording what follows fails.
import { randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder, type SelectQueryBuilder, type Transaction } from 'kysely';
import {
  formatMinorUnits,
  parseGatewayReply,
  toMinorUnits,
  type GatewayReply,
} from '@paydesk/shared/protocol';
import {
  cardExpiryRefusal,
  PAYOUT_SENT_STATES,
  type PayoutCreateBody,
  type PayoutDestination,
  type PayoutDetail,
  type Payout,
  type PayoutList,
  type PayoutListQuery,
  type PayoutOrder,
  type PayoutRepeatCandidate,
  type PayoutState,
  type TransactionPayout,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import type { Interruption } from '../payments/idempotency.js';
import type { GatewayOutcome } from '../gateway-client/client.js';
import type { AuditEntry } from '../services/audit.js';
import {
  gatewayRefusal,
  PAYOUT_REQUEST_WORDS,
  unansweredOfColumns,
  unansweredSet,
  unlearnedSentence,
  unlearnedWhy,
} from './gateway-errors.js';
import {
  addEvent,
  askStatus,
  callbackUrl,
  describeDuration,
  eventsOf,
  exchangeData,
  gatewayIp,
  resolveEndpoint,
  type Actor,
  type Ctx,
  type EventEntry,
  type PayoutsDatabase,
  type PayoutsOptions,
  type StatusView,
} from './context.js';
import {
  checkBinding,
  destinationFields,
  HeldDestinationSchema,
  maskDestination,
  sealBinding,
  type Binding,
} from './destination.js';
import {
  decodeKeyset,
  decodeLapseKeyset,
  expiringAfter,
  heldAfter,
  keysetPage,
  lapsePage,
  type LapseKeyset,
} from './keyset.js';
import { deciderFor, requireSeparatePeople, type Decider } from './four-eyes.js';
import type { PayoutsTable } from './migration.js';

export interface PayoutOutcome {
  payout: Payout;
  message: string;
}

const FINAL_STATUSES = new Set(['approved', 'declined', 'error', 'filtered']);

/**
 * At most this many possible duplicates are named on a payout (`similarPending`, `similarSent`,
 * `similarNotApplied`).
 */
const SIMILAR_MAX = 10;

/** A payout judged not applied that the gateway may still pay late, as a twin names it. */
type NotAppliedTwin = Pick<PayoutsTable, 'id' | 'mode' | 'expires_at'>;

/**
 * A waiting payout's possible duplicates (`similarOf`): the other payouts of the same amount to the
 * same destination waiting too, those approved for payment lately, and those judged not applied
 * that the gateway may still pay late (`notApplied`, oldest first).
 */
interface Similar {
  pending: readonly string[];
  sent: readonly string[];
  notApplied: readonly NotAppliedTwin[];
}
const NO_SIMILAR: Similar = { pending: [], sent: [], notApplied: [] };

/**
 * Whether two payouts go to the same destination, as the possible-duplicate warnings see it: the
 * same payee (`DestinationHasher.payeeHash`: the same card or account, whatever the holder's name
 * typed), or, for a payout prepared before payees were kept (0029), the same whole destination.
 */
function samePayee(
  a: Pick<PayoutsTable, 'destination_hash' | 'payee_hash'>,
  b: Pick<PayoutsTable, 'destination_hash' | 'payee_hash'>,
): boolean {
  return (
    a.destination_hash === b.destination_hash ||
    (a.payee_hash !== null && a.payee_hash === b.payee_hash)
  );
}

/** A payout judged not applied (`notFound`) and its money request was sent: it may be paid late. */
export const NOT_APPLIED = 'NOT_APPLIED';

/**
 * The error code a payout keeps once the gateway shows it paid (or paying) after Paydesk had judged
 * it not applied: staff may have prepared it again meanwhile (`appliedAfterNotApplied`).
 */
export const PAID_AFTER_NOT_APPLIED = 'PAID_AFTER_NOT_APPLIED';

/** How far back preparing a payout looks for one of the same kind judged not applied. */
const LATE_PAYMENT_LOOKBACK_MS = 7 * 24 * 60 * 60_000;

/**
 * Whether a payout was judged not applied after its money-moving request (payout-pay, or a single
 * payout's `payout`) was sent: the gateway may still apply it, so a callback or a status check of
 * its order is still worth applying (`PayoutsService.applyStatus`).
 */
export function mayBePaidLate(row: Pick<PayoutsTable, 'state' | 'error_code' | 'decided_at'>) {
  return row.state === 'failed' && row.error_code === NOT_APPLIED && row.decided_at !== null;
}

/**
 * Whether a payout may be paid again on its checked order (`PayoutsService.payAgain`) at `now`: a
 * two-step payout judged not applied after its payout-pay was sent (`mayBePaidLate`), whose
 * registration at the gateway has not lapsed (`expires_at`). The gateway pays a registered payout
 * at most once (design §4), so paying it again cannot pay the payee twice; preparing it again could.
 */
export function mayPayAgain(
  row: Pick<
    PayoutsTable,
    'mode' | 'state' | 'error_code' | 'decided_at' | 'orderid' | 'expires_at'
  >,
  now: number,
): boolean {
  return (
    row.mode !== 'single' &&
    mayBePaidLate(row) &&
    row.orderid !== null &&
    row.expires_at !== null &&
    row.expires_at > now
  );
}

/** Columns only the status poller's schedule uses: writing just these is no change a screen shows. */
const SCHEDULE_COLUMNS = new Set<string>([
  'poll_first_at',
  'poll_next_at',
  'poll_attempts',
  'lease_owner',
  'lease_until',
  'updated_at',
]);

/** What goes with a change of a payout row, in its transaction (`PayoutsService.write`). */
export interface ChangeOptions {
  /** its timeline entries */
  events?: readonly EventEntry[];
  /** the system's audit row of the change, built from the row as the change leaves it */
  audit?: (after: PayoutsTable) => AuditEntry;
}

/** Conditions of a change: when the row no longer meets them, nothing is written. */
interface Guard {
  /** the row is still in this state (a claim, a decision) */
  state?: string;
  /** the approver did not prepare it */
  notPreparedBy?: string;
  /** still this error code (a payout judged not applied, paid again) */
  errorCode?: string;
  /** still the same claim (approved at this time) */
  decidedAt?: number;
}

/**
 * How a repeat of an approval whose request was interrupted (its instance stopped before it
 * answered, its Idempotency-Key left in flight) learns what became of it, from the payout or
 * payout-form link it approved. Not claimed by this approver (`decided_by`), or rejected since:
 * nothing was sent under the key, and the approval runs again (meeting whatever the row is now).
 * Otherwise `confirming` says why the outcome is not known yet (409), or null; then the reply the
 * approval would have given, `reply` of the row as it is now. A key younger than a stale claim
 * (`PayoutPoller.recoverStale`: a gateway timeout and a lease) is a live request's.
 */
export function interruptedApproval<Row extends { state: string; decided_by: string | null }>(
  actor: Actor,
  options: PayoutsOptions,
  recovery: {
    row: () => Promise<Row>;
    confirming: (row: Row) => string | null;
    reply: (row: Row) => Promise<unknown>;
  },
): Interruption {
  return {
    afterMs: options.gatewayTimeoutMs + options.poll.leaseMs,
    outcome: async () => {
      const row = await recovery.row();
      if (row.decided_by !== actor.id || row.state === 'rejected') return { kind: 'not_applied' };
      const message = recovery.confirming(row);
      if (message !== null) return { kind: 'confirming', message };
      return { kind: 'reply', status: 200, body: await recovery.reply(row) };
    },
  };
}

/**
 * Lapses the held rows `held` picks (single payouts, payout-forms: `table` filtered by its kind)
 * created more than `holdMaxAgeMs` ago, at most poll.batchSize, oldest first: each written by
 * `lapse` (guarded on still waiting for approval; undefined when it no longer was) in the
 * transaction that picked it, claimed as the poller claims due payouts (FOR UPDATE SKIP LOCKED on
 * PostgreSQL, BEGIN IMMEDIATE on SQLite), so two instances never lapse one twice and an approval
 * that got there first wins. Each lapsed row is published once committed; returns how many.
 */
export async function lapseHeldRows<TB extends 'payouts' | 'payment_links', Row>(
  c: Ctx,
  held: (trx: Transaction<PayoutsDatabase>) => SelectQueryBuilder<PayoutsDatabase, TB, Row>,
  lapse: (trx: Transaction<PayoutsDatabase>, row: Row) => Promise<Row | undefined>,
  publish: (row: Row) => void,
): Promise<number> {
  const { db, k, clock, options } = c;
  const heldSince = clock.now() - options.holdMaxAgeMs;
  const lapsed = await k.transaction().execute(async (trx) => {
    // Both tables name these columns alike (the picked table's own, as in keyset.ts).
    const due = held(trx)
      .where(sql<boolean>`${sql.ref('state')} = 'pending_approval'`)
      .where(sql<boolean>`${sql.ref('created_at')} <= ${heldSince}`)
      .orderBy(sql.ref('created_at'))
      .limit(options.poll.batchSize);
    const rows = await (db.kind === 'postgres' ? due.forUpdate().skipLocked() : due).execute();
    const after: Row[] = [];
    for (const row of rows) {
      const written = await lapse(trx, row);
      if (written !== undefined) after.push(written);
    }
    return after;
  });
  for (const row of lapsed) publish(row);
  return lapsed.length;
}

/**
 * A prepare's answer when its payout-check could not be sent (the gateway unreachable): 503, the
 * key let go. A repeat of such a request that was interrupted gets the same (`prepareInterruption`).
 */
function checkNotSent(): AppError {
  return new AppError(
    'GATEWAY_UNAVAILABLE',
    "The gateway could not be reached, so it did not check the payee's details; nothing was prepared. Try again.",
  );
}

const CHECK_CONFIRMING =
  "The payee's details were sent to the gateway for checking; Paydesk is confirming the outcome with it.";

/**
 * The timeline titles of a two-step payout's check as Paydesk wrote them before they were said in
 * staff's words (`CHECK_TITLE`): `checkRefusal` finds an older payout's check under either.
 */
const CHECK_TITLE = "check of the payee's details";
const CHECK_TITLES = [CHECK_TITLE, 'payout-check'];

/** What a prepare answers once `status` told its payout-check's outcome (applied to `row`). */
function checkedMessage(row: PayoutsTable): string {
  if (row.state === 'pending_approval')
    return 'The gateway checked the destination; the payout waits for approval by a second ops user.';
  if (row.state === 'checking') return CHECK_CONFIRMING;
  return `The gateway did not accept the destination (${row.error_code ?? row.state}); nothing can be paid.`;
}

/**
 * Whether `status` found a payout's check not accepted (`applyCheck`): declined (`check_declined`),
 * or expired before it was registered (a registered payout always has its `expires_at`). Final: the
 * payout never changes again, so what the prepare answered is still what a repeat of it answers.
 */
function checkNotAccepted(row: PayoutsTable): boolean {
  return (
    row.state === 'check_declined' ||
    (row.mode !== 'single' && row.state === 'expired' && row.expires_at === null)
  );
}

/** What the reply to a repeat of an interrupted approval says (`interruptedApproval`). */
export function interruptedMessage(what: string, state: string): string {
  return `The approval was interrupted before Paydesk recorded its outcome; the ${what} is ${state.replace('_', ' ')}. It was not sent again.`;
}

/** The columns that say whether (and when) a payout waiting for approval lapses (`stateOf`). */
type LapseColumns = Pick<PayoutsTable, 'state' | 'mode' | 'created_at' | 'expires_at'>;

/** At most this many payouts are named for one search term (`ordersNamed`; ids are unique). */
const ORDERS_NAMED_MAX = 5;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export class PayoutsService {
  constructor(private readonly c: Ctx) {}

  // ------------------------------------------------------------------ reading

  /**
   * When a payout waiting for approval lapses: a checked two-step payout when its registration at
   * the gateway does (expires_at), a held single one `holdMaxAgeMs` after it was prepared (the
   * setting as it is now, so a shorter one applies to the payouts already held). Null: it does not.
   */
  lapsesAt(row: LapseColumns): number | null {
    if (row.state !== 'pending_approval') return null;
    return row.mode === 'single' ? row.created_at + this.c.options.holdMaxAgeMs : row.expires_at;
  }

  /** What preparing a held single payout answers: it waits, and until when. */
  private heldMessage(row: PayoutsTable): string {
    const lapses = new Date(row.created_at + this.c.options.holdMaxAgeMs).toISOString();
    return `The payout is held until a second ops user approves it; it lapses at ${lapses} if not approved. Nothing was sent yet.`;
  }

  /** The state as screens show it: a payout that lapsed is expired, whatever the row says. */
  stateOf(row: LapseColumns): PayoutState {
    const at = this.lapsesAt(row);
    return (at !== null && at <= this.c.clock.now() ? 'expired' : row.state) as PayoutState;
  }

  /** Payouts waiting for approval that have not lapsed (`stateOf` in SQL). */
  private notLapsed(now: number) {
    const heldSince = now - this.c.options.holdMaxAgeMs;
    return (eb: ExpressionBuilder<PayoutsDatabase, 'payouts'>) =>
      eb.and([
        eb('state', '=', 'pending_approval'),
        eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]),
        eb.or([eb('mode', '<>', 'single'), eb('created_at', '>', heldSince)]),
      ]);
  }

  /**
   * `decider`: the viewer's four-eyes view (`deciderFor`), computed once per reply. A card's label
   * (its holder's name and expiry) is for ops users only: other readers see the masked card alone.
   */
  toApi(row: PayoutsTable, viewer: Actor, decider: Decider, similar: Similar = NO_SIMILAR): Payout {
    const state = this.stateOf(row);
    const labelWithheld = row.destination_kind === 'card' && !viewer.roles.includes('ops');
    return {
      id: row.id,
      mode: row.mode === 'single' ? 'single' : 'two-step',
      state,
      endpointId: row.endpoint_id,
      clientOrderId: row.client_orderid,
      orderid: row.orderid,
      amount: formatMinorUnits(BigInt(row.amount_minor)),
      currency: row.currency,
      orderDesc: row.order_desc,
      destination: {
        kind: row.destination_kind as Payout['destination']['kind'],
        masked: row.destination_masked,
        label: labelWithheld ? null : row.destination_label,
      },
      preparedBy: { id: row.prepared_by, email: row.prepared_by_email },
      decidedBy:
        row.decided_by === null ? null : { id: row.decided_by, email: row.decided_by_email ?? '' },
      decidedAt: iso(row.decided_at),
      paidAgain:
        row.first_decided_at === null
          ? null
          : {
              firstApprovedBy: { email: row.first_decided_by_email ?? '' },
              firstApprovedAt: new Date(row.first_decided_at).toISOString(),
            },
      rejectReason: row.reject_reason,
      withdrawn: row.state === 'rejected' && row.decided_by === row.prepared_by,
      similarPending: [...similar.pending],
      similarSent: [...similar.sent],
      similarNotApplied: similar.notApplied.map((twin) => twin.id),
      expiresAt: iso(this.lapsesAt(row) ?? row.expires_at),
      errorCode: row.error_code,
      errorMessage: row.error_message,
      unanswered: unansweredOfColumns(row),
      canDecide: decider.mayDecide(row.prepared_by, state === 'pending_approval'),
      canPayAgain: decider.mayDecide(row.prepared_by, mayPayAgain(row, this.c.clock.now())),
      checksStopped: state === 'unknown' && row.poll_next_at === null,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  /**
   * One payout as `actor` sees it (the reply of an action); `similar`: its possible duplicates when
   * already read (`similarOf`).
   */
  async viewOf(row: PayoutsTable, actor: Actor, similar?: Similar): Promise<Payout> {
    const decider = await deciderFor(this.c.k, actor);
    return this.toApi(row, actor, decider, similar ?? (await this.similarOf([row])).get(row.id));
  }

  /**
   * For each payout of `rows` waiting for approval (not lapsed): the other payouts waiting (not
   * lapsed) to the same destination (`samePayee`) of the same amount and currency, oldest first, at
   * most SIMILAR_MAX: a possible duplicate, which the approver should see before paying twice;
   * those approved for payment within LATE_PAYMENT_LOOKBACK_MS, newest first (`Similar.sent`); and
   * those judged not applied that the gateway may still pay late (`mayBePaidLateSince`), oldest
   * first (`Similar.notApplied`): what preparing it cautioned of (`paidLateWarning`), which the
   * approver, who releases the money, must be told too (QA). Three queries (`payouts_payee`,
   * `payouts_destination`) for any number of rows.
   */
  async similarOf(rows: readonly PayoutsTable[]): Promise<Map<string, Similar>> {
    const similar = new Map<string, Similar>();
    const waiting = rows.filter((row) => this.stateOf(row) === 'pending_approval');
    if (waiting.length === 0) return similar;
    const payees = [...new Set(waiting.flatMap((row) => row.payee_hash ?? []))];
    const destinations = [...new Set(waiting.map((row) => row.destination_hash))];
    const now = this.c.clock.now();
    const toTheseDestinations = (eb: ExpressionBuilder<PayoutsDatabase, 'payouts'>) =>
      eb.or([
        eb('destination_hash', 'in', destinations),
        ...(payees.length === 0 ? [] : [eb('payee_hash', 'in', payees)]),
      ]);
    const columns = [
      'id',
      'destination_hash',
      'payee_hash',
      'amount_minor',
      'currency',
      'created_at',
      'decided_at',
    ] as const;
    const [pending, sent, notApplied] = await Promise.all([
      this.c.k
        .selectFrom('payouts')
        .select(columns)
        .where(toTheseDestinations)
        .where(this.notLapsed(now))
        .execute(),
      // Its twin may have been paid already, the likeliest way to pay twice (QA): the payouts
      // approved for payment (sent, or paid) within LATE_PAYMENT_LOOKBACK_MS.
      this.c.k
        .selectFrom('payouts')
        .select(columns)
        .where(toTheseDestinations)
        .where('state', 'in', ['sending', 'processing', 'unknown', 'approved'])
        .where('decided_at', '>=', now - LATE_PAYMENT_LOOKBACK_MS)
        .execute(),
      this.c.k
        .selectFrom('payouts')
        .select([...columns, 'mode', 'expires_at'])
        .where(toTheseDestinations)
        .where(this.mayBePaidLateSince(now))
        .execute(),
    ]);
    // Waiting and not-applied ones oldest first, sent ones newest first, sorted here: the indexes
    // serve the search, not an order.
    const oldestFirst = (a: Pick<PayoutsTable, 'id' | 'created_at'>, b: typeof a) =>
      a.created_at - b.created_at || (a.id < b.id ? -1 : 1);
    pending.sort(oldestFirst);
    notApplied.sort(oldestFirst);
    sent.sort((a, b) => (b.decided_at ?? 0) - (a.decided_at ?? 0) || (a.id < b.id ? -1 : 1));
    for (const row of waiting) {
      const twins = <T extends (typeof pending)[number]>(found: readonly T[]) =>
        found
          .filter(
            (other) =>
              other.id !== row.id &&
              samePayee(other, row) &&
              String(other.amount_minor) === String(row.amount_minor) &&
              other.currency === row.currency,
          )
          .slice(0, SIMILAR_MAX);
      similar.set(row.id, {
        pending: twins(pending).map((other) => other.id),
        sent: twins(sent).map((other) => other.id),
        notApplied: twins(notApplied).map(({ id, mode, expires_at }) => ({ id, mode, expires_at })),
      });
    }
    return similar;
  }

  /**
   * The payouts judged not applied after their money request was sent (`mayBePaidLate`: the
   * gateway may still pay them late) and prepared within LATE_PAYMENT_LOOKBACK_MS before `now`: the
   * one definition of a twin that may be paid late, for the caution when preparing one
   * (`paidLateWarning`) and the approver's warning (`similarOf`, `similarNotApplied`).
   */
  private mayBePaidLateSince(now: number) {
    return (eb: ExpressionBuilder<PayoutsDatabase, 'payouts'>) =>
      eb.and([
        eb('state', '=', 'failed'),
        eb('error_code', '=', NOT_APPLIED),
        eb('decided_at', 'is not', null),
        eb('created_at', '>=', now - LATE_PAYMENT_LOOKBACK_MS),
      ]);
  }

  async row(id: string): Promise<PayoutsTable> {
    const row = await this.c.k
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) throw new AppError('NOT_FOUND', 'no such payout');
    return row;
  }

  /** Tells every screen, on every instance (`GET /api/events`, `event: payout`), that it changed. */
  publish(row: PayoutsTable, created = false): void {
    this.c.bus.publish({
      type: created ? 'payout.created' : 'payout.updated',
      payoutId: row.id,
      state: this.stateOf(row),
      orderid: row.orderid,
      at: new Date(this.c.clock.now()).toISOString(),
    });
  }

  /**
   * The payouts whose gateway order `term` names exactly, its orderid or client_orderid, for the
   * transactions search and the lookup (a payout's order is no transaction until its money was
   * sent): one query, each side read from its index (`payouts_orderid`, 0020, and client_orderid's
   * unique one). Oldest first. What a reader of payouts may see, never the destination.
   */
  async ordersNamed(term: string): Promise<PayoutOrder[]> {
    const rows = await this.c.k
      .selectFrom('payouts')
      .select([
        'id',
        'state',
        'mode',
        'created_at',
        'expires_at',
        'amount_minor',
        'currency',
        'endpoint_id',
        'orderid',
        'client_orderid',
      ])
      .where((eb) => eb.or([eb('orderid', '=', term), eb('client_orderid', '=', term)]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(ORDERS_NAMED_MAX)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      state: this.stateOf(row),
      amount: formatMinorUnits(BigInt(row.amount_minor)),
      currency: row.currency,
      endpointId: row.endpoint_id,
      orderid: row.orderid,
      clientOrderId: row.client_orderid,
    }));
  }

  /**
   * The payout whose gateway order `order` is (its orderid, or its client_orderid on its endpoint),
   * as an order's detail names it (`TransactionPayout`): who prepared and who approved it, and its
   * destination masked. Null: no payout of Paydesk's. One query through `payouts_orderid` and the
   * client_orderid's unique index.
   */
  async payoutOfOrder(order: {
    orderid: string;
    clientOrderId: string;
    endpointId: string;
  }): Promise<TransactionPayout | null> {
    const row = await this.c.k
      .selectFrom('payouts')
      .select([
        'id',
        'state',
        'mode',
        'created_at',
        'expires_at',
        'endpoint_id',
        'orderid',
        'prepared_by_email',
        'decided_by_email',
        'destination_kind',
        'destination_masked',
      ])
      .where((eb) =>
        eb.or([
          eb('orderid', '=', order.orderid),
          eb.and([
            eb('client_orderid', '=', order.clientOrderId),
            eb('endpoint_id', '=', order.endpointId),
          ]),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (row === undefined) return null;
    const state = this.stateOf(row);
    return {
      id: row.id,
      state,
      preparedBy: row.prepared_by_email,
      // The decider of a payout whose money order was sent approved it; one rejected, or whose
      // approval lapsed at the gateway, was not approved.
      approvedBy: PAYOUT_SENT_STATES.has(state) ? row.decided_by_email : null,
      destination: {
        kind: row.destination_kind as TransactionPayout['destination']['kind'],
        masked: row.destination_masked,
      },
    };
  }

  async get(id: string, viewer: Actor): Promise<PayoutDetail> {
    const row = await this.row(id);
    return {
      ...(await this.viewOf(row, viewer)),
      events: await eventsOf(this.c.k, `payout:${id}`),
      repeatCandidates: await this.repeatCandidatesOf(row),
    };
  }

  async list(q: PayoutListQuery, viewer: Actor): Promise<PayoutList> {
    // The approval queue is in lapse order, its cursor too (`lapsePage`); the other views newest first.
    const queue = q.view === 'awaiting-my-approval';
    const queueAfter = queue ? decodeLapseKeyset(q.cursor, q.view) : null;
    const after = queue ? null : decodeKeyset(q.cursor, q.view);
    // Only ops users approve: nothing awaits the approval of anyone else.
    if (queue && !viewer.roles.includes('ops')) return { items: [], nextCursor: null };
    // The four-eyes view of this viewer: one query, whatever the number of rows.
    const decider = await deciderFor(this.c.k, viewer);
    let query = this.c.k.selectFrom('payouts').selectAll();
    const now = this.c.clock.now();
    if (q.state === 'expired') {
      query = query.where((eb) =>
        eb.or([
          eb('state', '=', 'expired'),
          eb.and([eb('state', '=', 'pending_approval'), eb.not(this.notLapsed(now)(eb))]),
        ]),
      );
    } else if (q.state === 'pending_approval') {
      query = query.where(this.notLapsed(now));
    } else if (q.state !== undefined) {
      query = query.where('state', '=', q.state);
    }
    if (q.view === 'mine') query = query.where('prepared_by', '=', viewer.id);
    // Paid after Paydesk had judged them not applied: each may have been prepared and paid again.
    // The code written out, as the partial index `payouts_paid_late` (0025) says it.
    if (q.paidLate === 'true')
      query = query.where('error_code', '=', sql.lit(PAID_AFTER_NOT_APPLIED));
    if (q.decidedFrom !== undefined)
      query = query.where('decided_at', '>=', Date.parse(q.decidedFrom));
    const { page: rows, nextCursor } = queue
      ? await this.queuePage(
          query.where('prepared_by', 'not in', decider.excludedPreparers),
          q,
          queueAfter,
          now,
        )
      : await keysetPage(query, q, after);
    const similar = await this.similarOf(rows);
    return {
      items: rows.map((r) => this.toApi(r, viewer, decider, similar.get(r.id))),
      nextCursor,
    };
  }

  /**
   * A page of the approval queue (`query`: the viewer's filters) in the order its payouts lapse,
   * soonest first, then by creation and id (`lapsePage`): held single payouts not lapsed, which
   * lapse `holdMaxAgeMs` after they were prepared and so come in creation order
   * (`payouts_state_created`), merged with checked two-step ones in the order their registration
   * at the gateway lapses (`expires_at`, `payouts_pending_lapse`), and with the two-step ones
   * the viewer may pay again, in the order their check lapses (the same index, state `failed`).
   * Each read as `limit + 1` rows after the cursor, so a page reads three index ranges, never every
   * payout waiting.
   */
  private async queuePage(
    query: SelectQueryBuilder<PayoutsDatabase, 'payouts', PayoutsTable>,
    q: PayoutListQuery,
    after: LapseKeyset | null,
    now: number,
  ): Promise<{ page: PayoutsTable[]; nextCursor: string | null }> {
    const hold = this.c.options.holdMaxAgeMs;
    const waiting = query.where('state', '=', 'pending_approval');
    let held = waiting.where('mode', '=', 'single').where('created_at', '>', now - hold);
    let checked = waiting.where('mode', '<>', 'single').where('expires_at', '>', now);
    // Two-step payouts the gateway did not pay (judged not applied after their payout-pay) that a
    // second person may pay again while the check holds (`mayPayAgain`, in SQL): they wait for the
    // viewer as much as those never approved, in the order their check lapses.
    let payAgain = query
      .where('state', '=', 'failed')
      .where('error_code', '=', NOT_APPLIED)
      .where('decided_at', 'is not', null)
      .where('mode', '<>', 'single')
      .where('orderid', 'is not', null)
      .where('expires_at', '>', now);
    if (after !== null) {
      held = held.where(heldAfter(after, hold));
      checked = checked.where(expiringAfter(after));
      payAgain = payAgain.where(expiringAfter(after));
    }
    const heldRows = await held
      .orderBy('created_at')
      .orderBy('id')
      .limit(q.limit + 1)
      .execute();
    const byExpiry = (rows: typeof checked) =>
      rows
        .orderBy('expires_at')
        .orderBy('created_at')
        .orderBy('id')
        .limit(q.limit + 1)
        .execute();
    const checkedRows = await byExpiry(checked);
    const againRows = await byExpiry(payAgain);
    return lapsePage([heldRows, checkedRows, againRows], (row) => this.queueLapse(row, now), q);
  }

  /**
   * When a payout leaves the approval queue: as it lapses (`lapsesAt`), or, one that may be paid
   * again, when its check at the gateway does (`expires_at`).
   */
  private queueLapse(row: PayoutsTable, now: number): number {
    return this.lapsesAt(row) ?? row.expires_at ?? now;
  }

  // ------------------------------------------------------------------ preparing

  /**
   * `onCreated` learns the payout's id as soon as it exists (the audit row names it even when the
   * check fails); `key`, the request's Idempotency-Key, is kept on the payout
   * (`prepareInterruption`).
   */
  async prepare(
    body: PayoutCreateBody,
    actor: Actor,
    ip: string | null,
    onCreated: (id: string) => void = () => undefined,
    key: string | null = null,
  ): Promise<PayoutOutcome> {
    const c = this.c;
    if (body.mode === 'two-step' && c.config.merchant.rsaPrivateKeyPem === null) {
      throw new AppError(
        'VALIDATION_FAILED',
        'mode: a two-step payout (v4, RSA-SHA256) needs the merchant RSA key, which is not configured; use mode single',
        {
          fields: [
            {
              path: 'mode',
              rule: 'rsa_key_configured',
              message: 'two-step payouts need MERCHANT_RSA_KEY_FILE; use mode single',
            },
          ],
        },
      );
    }
    const endpointId = resolveEndpoint(c.config, body.endpointId, body.currency);
    if (body.destination.kind === 'card') {
      const refusal = cardExpiryRefusal(body.destination, c.clock.now());
      if (refusal !== null) {
        const path = `destination.${refusal.path}`;
        throw new AppError('VALIDATION_FAILED', `${path}: ${refusal.message}`, {
          fields: [{ path, rule: refusal.rule, message: refusal.message }],
        });
      }
    }
    const amountMinor = toMinorUnits(body.amount);
    const id = randomUUID();
    onCreated(id);
    const clientOrderId = `pd-payout-${id}`;
    const destination = body.destination;
    const masked = maskDestination(destination);
    const hash = c.hasher.hash(destination);
    const now = c.clock.now();
    const base: PayoutsTable = {
      id,
      mode: body.mode,
      state: body.mode === 'single' ? 'pending_approval' : 'checking',
      endpoint_id: endpointId,
      client_orderid: clientOrderId,
      orderid: null,
      amount_minor: Number(amountMinor),
      currency: body.currency,
      order_desc: body.orderDesc,
      destination_kind: destination.kind,
      destination_masked: masked.masked,
      destination_label: masked.label,
      destination_hash: hash,
      payee_hash: c.hasher.payeeHash(destination),
      destination_sealed: null,
      binding: null,
      client_ip: gatewayIp(ip),
      prepared_by: actor.id,
      prepared_by_email: actor.email,
      decided_by: null,
      decided_by_email: null,
      decided_at: null,
      first_decided_by_email: null,
      first_decided_at: null,
      reject_reason: null,
      expires_at: null,
      error_code: null,
      error_message: null,
      ...unansweredSet(null),
      sent_at: null,
      poll_first_at: null,
      poll_next_at: null,
      poll_attempts: 0,
      lease_owner: null,
      lease_until: null,
      idempotency_key: key,
      created_at: now,
      updated_at: now,
    };
    const subject = `payout:${id}`;

    if (body.mode === 'single') {
      // Nothing is sent: the destination waits sealed until a second ops user approves.
      const row: PayoutsTable = {
        ...base,
        destination_sealed: c.sealer.seal(JSON.stringify(destination)),
        binding: sealBinding(c.sealer, this.bindingOf({ ...base })),
      };
      await this.insert(row, {
        kind: 'staff',
        title: 'payout prepared (held until approved)',
        actor: actor.email,
        data: { mode: 'single', destination: masked },
      });
      // The hold lapses (PAYOUT_HOLD_MAX_AGE_MS, `lapsesAt`): the one who prepares it learns when.
      const similar = (await this.similarOf([row])).get(row.id) ?? NO_SIMILAR;
      return {
        payout: await this.viewOf(row, actor, similar),
        message: `${this.heldMessage(row)}${this.paidLateWarning(similar.notApplied)}`,
      };
    }

    // A safety net, as a money operation's step A has: should this instance stop before it records
    // the check's outcome, the poller asks `status` once this request (payout-check, then status)
    // is certainly over, and finds the check registered, or not applied.
    await this.insert(
      {
        ...base,
        sent_at: now,
        poll_first_at: now,
        poll_next_at: now + this.prepareOverAfterMs(),
      },
      {
        kind: 'staff',
        title: "payout prepared; payee's details sent to the gateway for checking",
        actor: actor.email,
        data: { mode: 'two-step', destination: masked },
      },
    );
    const outcome = await c.gateway.send(
      'payout-check',
      endpointId,
      this.orderFields(base, destination),
    );
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: CHECK_TITLE,
      actor: actor.email,
      data: exchangeData(outcome),
    });

    if (outcome.kind === 'not-sent') {
      await this.update(id, {
        state: 'failed',
        error_code: 'NOT_SENT',
        error_message: outcome.reason,
        ...this.pollStop(),
      });
      throw checkNotSent();
    }
    if (outcome.kind === 'unknown') {
      const code = outcome.exchange.reply?.['error-code'] ?? null;
      const after = await this.update(id, {
        state: 'checking',
        sent_at: now,
        error_code: code,
        error_message: outcome.exchange.error,
        ...unansweredSet(outcome),
        ...this.pollStart(),
      });
      return {
        payout: await this.viewOf(after, actor),
        message: `${unlearnedSentence(outcome, `the ${PAYOUT_REQUEST_WORDS.check}`)} Nothing was paid. Paydesk is asking the gateway whether it checked them; once checked, the payout waits for approval.`,
      };
    }
    const { reply, httpStatus } = outcome;
    if (httpStatus !== 200 || reply.orderId === undefined) {
      const err = gatewayRefusal(httpStatus, reply, PAYOUT_REQUEST_WORDS.check);
      await this.update(id, {
        state: 'failed',
        error_code: reply.errorCode ?? `HTTP_${httpStatus}`,
        error_message: err.message,
        ...this.pollStop(),
      });
      throw err;
    }
    const sent = await this.update(id, { orderid: reply.orderId, sent_at: now });
    // The check's outcome is final at once (no funds move): learn it now.
    const answer = await askStatus(c.gateway, endpointId, clientOrderId, reply.orderId);
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: 'status after the check',
      actor: null,
      data: exchangeData(answer.outcome),
    });
    if (answer.kind !== 'view') {
      return {
        payout: await this.viewOf(await this.update(id, this.pollStart()), actor),
        message: CHECK_CONFIRMING,
      };
    }
    const after = await this.applyCheck(sent, answer.view);
    // Only a payout waiting for approval has twins named (`similarOf`): none otherwise.
    const similar = (await this.similarOf([after])).get(after.id) ?? NO_SIMILAR;
    return {
      payout: await this.viewOf(after, actor, similar),
      message: `${checkedMessage(after)}${this.paidLateWarning(similar.notApplied)}`,
    };
  }

  /**
   * What preparing a payout adds when payouts of the same amount and currency to the same
   * destination were judged not applied after their money request was sent (`found`: its
   * `similarNotApplied`, `mayBePaidLateSince`): the gateway may still pay those late, so this one
   * could pay the payee twice. The approver is told the same from the payout's `similarNotApplied`.
   * Empty when there is none.
   */
  private paidLateWarning(found: readonly NotAppliedTwin[]): string {
    if (found.length === 0) return '';
    const ids = found.map((f) => f.id).join(', ');
    // One whose check still holds can be paid again on its own order, which the gateway pays once.
    const now = this.c.clock.now();
    const again = found.filter(
      (f) => f.mode !== 'single' && f.expires_at !== null && f.expires_at > now,
    );
    const instead =
      again.length === 0
        ? ''
        : ` Rather than this one, ${again.length === 1 ? `payout ${again[0]?.id ?? ''}` : `payouts ${again.map((f) => f.id).join(', ')}`} can be paid again (“Pay again” on its page): the gateway pays a checked payout at most once.`;
    return ` Caution: ${found.length === 1 ? `payout ${ids}` : `payouts ${ids}`} of the same amount to the same destination ${found.length === 1 ? 'was' : 'were'} judged not applied, and the gateway may still pay late: check ${found.length === 1 ? 'its' : 'their'} status before this one is approved, or it may be paid twice.${instead}`;
  }

  /**
   * The other payouts of the same amount and currency to the same destination as `row`
   * (`samePayee`, `payouts_payee`, `payouts_destination`) prepared from `from` (and until `to`),
   * oldest first, at most SIMILAR_MAX: "the same payout again" for the repeats named on a payout
   * paid late (`repeatCandidatesOf`), as the warnings when preparing and approving one see it
   * (`similarOf`, which reads every waiting payout's twins at once).
   */
  private sameKind(row: PayoutsTable, window: { from: number; to?: number }) {
    const payee = row.payee_hash;
    let query = this.c.k
      .selectFrom('payouts')
      .where((eb) =>
        eb.or([
          eb('destination_hash', '=', row.destination_hash),
          ...(payee === null ? [] : [eb('payee_hash', '=', payee)]),
        ]),
      )
      .where('amount_minor', '=', row.amount_minor)
      .where('currency', '=', row.currency)
      .where('created_at', '>=', window.from)
      .where('id', '<>', row.id);
    if (window.to !== undefined) query = query.where('created_at', '<=', window.to);
    return query.orderBy('created_at').orderBy('id').limit(SIMILAR_MAX);
  }

  /**
   * A payout the gateway paid after Paydesk had judged it not applied (PAID_AFTER_NOT_APPLIED):
   * the payouts that may repeat it, as preparing them was warned of (`paidLateWarning`), those of
   * the same kind (`sameKind`) prepared within LATE_PAYMENT_LOOKBACK_MS after it. Any other payout:
   * none, and nothing is read.
   */
  async repeatCandidatesOf(row: PayoutsTable): Promise<PayoutRepeatCandidate[]> {
    if (row.error_code !== PAID_AFTER_NOT_APPLIED) return [];
    const found = await this.sameKind(row, {
      from: row.created_at,
      to: row.created_at + LATE_PAYMENT_LOOKBACK_MS,
    })
      .select([
        'id',
        'state',
        'mode',
        'created_at',
        'expires_at',
        'orderid',
        'prepared_by',
        'prepared_by_email',
        'decided_by',
        'decided_by_email',
      ])
      .execute();
    return found.map((other) => ({
      id: other.id,
      state: this.stateOf(other),
      orderid: other.orderid,
      preparedBy: { id: other.prepared_by, email: other.prepared_by_email },
      decidedBy:
        other.decided_by === null
          ? null
          : { id: other.decided_by, email: other.decided_by_email ?? '' },
      createdAt: new Date(other.created_at).toISOString(),
    }));
  }

  /** How long after it began a prepare's request is certainly over (payout-check, then status). */
  private prepareOverAfterMs(): number {
    const { gatewayTimeoutMs, poll } = this.c.options;
    return 2 * gatewayTimeoutMs + poll.fastMinMs;
  }

  /**
   * A repeat of a prepare whose request was interrupted (its instance stopped before it answered,
   * its Idempotency-Key `key` left in flight): the payout the request prepared under the key tells
   * what became of it, and the repeat answers what the request would have. None: nothing was
   * prepared, the request runs again. Its payout-check refused by the gateway (`checkRefusal`):
   * that refusal, kept as the key's reply as then. Still `checking`: the poller is confirming the
   * payout-check's outcome with `status` (409 naming the payout). Failed because the payout-check
   * could not be sent (`NOT_SENT`): the 503 the request would have answered, its key let go as then
   * (the same request may be made again). Not accepted by the check (`checkNotAccepted`): the
   * payout with the prepare's message. Otherwise the payout as it is now (it may have moved on
   * since), saying the request was interrupted. A key younger than the request can take is a live
   * request's.
   */
  prepareInterruption(key: string, actor: Actor): Interruption {
    return {
      afterMs: this.prepareOverAfterMs(),
      outcome: async (takenAt) => {
        const row = await this.c.k
          .selectFrom('payouts')
          .selectAll()
          .where('idempotency_key', '=', key)
          .where('prepared_by', '=', actor.id)
          .where('created_at', '>=', takenAt)
          .executeTakeFirst();
        if (row === undefined) return { kind: 'not_applied' };
        const refusal = await this.checkRefusal(row);
        if (refusal !== null) return { kind: 'error', error: refusal };
        if (row.state === 'checking') {
          return {
            kind: 'confirming',
            message: `The first attempt of this request was interrupted before it answered; it prepared payout ${row.id}, whose check of the payee's details is being confirmed with the gateway (the payout’s timeline shows the status checks). Nothing is prepared twice: once the outcome is known, this same request gets the payout.`,
          };
        }
        if (row.state === 'failed' && row.error_code === 'NOT_SENT')
          return { kind: 'error', error: checkNotSent() };
        const payout = await this.viewOf(row, actor);
        // Still waiting for approval (not lapsed) or not accepted: what the request answered then.
        const asFirst = payout.state === 'pending_approval' || checkNotAccepted(row);
        const message = !asFirst
          ? `The request was interrupted before it answered; it had prepared this payout, which is ${payout.state.replace('_', ' ')}.`
          : row.mode === 'single'
            ? this.heldMessage(row)
            : checkedMessage(row);
        return { kind: 'reply', status: 200, body: { payout, message } satisfies PayoutOutcome };
      },
    };
  }

  /**
   * The gateway's refusal of a payout's payout-check (an answer other than 200, or a 200 without
   * the order's id) as the prepare answered it (`gatewayRefusal`), rebuilt from the exchange its
   * timeline recorded (written before anything else, so also when the instance stopped before
   * recording the refusal on the payout); null when the check was not refused, or not answered.
   * The message is the one recorded on the payout with the refusal (the timeline keeps the
   * gateway's text redacted), or, when the payout did not record it, rebuilt from the timeline.
   */
  private async checkRefusal(row: PayoutsTable): Promise<AppError | null> {
    const entry = await this.c.k
      .selectFrom('payout_events')
      .select('data')
      .where('subject', '=', `payout:${row.id}`)
      .where('kind', '=', 'gateway')
      .where('title', 'in', CHECK_TITLES)
      .orderBy('id')
      .executeTakeFirst();
    if (entry === undefined) return null;
    const data = JSON.parse(entry.data) as Record<string, unknown>;
    const httpStatus = data.httpStatus;
    if (data.outcome !== 'reply' || typeof httpStatus !== 'number' || !isObject(data.reply))
      return null;
    let reply: GatewayReply;
    try {
      reply = parseGatewayReply('application/json', JSON.stringify(data.reply));
    } catch {
      return null;
    }
    if (httpStatus === 200 && reply.orderId !== undefined) return null;
    const refusal = gatewayRefusal(httpStatus, reply, PAYOUT_REQUEST_WORDS.check);
    const recorded =
      row.state === 'failed' && row.error_code === (reply.errorCode ?? `HTTP_${httpStatus}`)
        ? row.error_message
        : null;
    return recorded === null ? refusal : new AppError(refusal.code, recorded, refusal.details);
  }

  /** The request fields of a payout or payout-check for this row and destination. */
  private orderFields(row: PayoutsTable, destination: PayoutDestination): Record<string, string> {
    return {
      client_orderid: row.client_orderid,
      amount: formatMinorUnits(BigInt(row.amount_minor)),
      currency: row.currency,
      order_desc: row.order_desc,
      ipaddress: row.client_ip,
      ...destinationFields(destination),
      server_callback_url: callbackUrl(this.c.config, row.endpoint_id),
    };
  }

  private bindingOf(
    row: Pick<
      PayoutsTable,
      | 'id'
      | 'mode'
      | 'endpoint_id'
      | 'client_orderid'
      | 'orderid'
      | 'amount_minor'
      | 'currency'
      | 'destination_hash'
    >,
  ): Binding {
    return {
      id: row.id,
      mode: row.mode,
      endpointId: row.endpoint_id,
      clientOrderId: row.client_orderid,
      orderid: row.orderid,
      amountMinor: String(row.amount_minor),
      currency: row.currency,
      destinationHash: row.destination_hash,
    };
  }

  /** Applies what `status` says about a payout-check; returns the row afterwards. */
  async applyCheck(row: PayoutsTable, view: StatusView): Promise<PayoutsTable> {
    const orderid = row.orderid ?? view.orderid;
    const checked: ChangeOptions = {
      audit: (after) => this.systemAudit('payout.checked', after, { state: after.state }),
    };
    if (view.status === 'approved' && view.stage === 'registered') {
      return this.update(
        row.id,
        {
          state: 'pending_approval',
          orderid,
          error_code: null,
          error_message: null,
          expires_at: (row.sent_at ?? this.c.clock.now()) + this.c.options.registrationTtlMs,
          binding: sealBinding(this.c.sealer, this.bindingOf({ ...row, orderid })),
          ...this.pollStop(),
        },
        checked,
      );
    }
    if (view.stage === 'expired')
      return this.update(
        row.id,
        { state: 'expired', orderid, ...this.learned(row), ...this.pollStop() },
        checked,
      );
    if (FINAL_STATUSES.has(view.status)) {
      return this.update(
        row.id,
        {
          state: 'check_declined',
          orderid,
          error_code: view.errorCode ?? view.status.toUpperCase(),
          error_message:
            view.errorMessage ?? `the gateway's check of the payee's details: ${view.status}`,
          ...this.pollStop(),
        },
        checked,
      );
    }
    // Still being checked: the poller asks again (a row without a schedule gets one).
    return this.update(row.id, {
      orderid,
      ...(row.poll_next_at === null ? this.pollStart() : {}),
    });
  }

  // ------------------------------------------------------------------ deciding

  /**
   * Four eyes: `actor` is not the payout's preparer, nor an account tied to the preparer's
   * (`requireSeparatePeople`); `doing` says what the other ops user must do (`approve it`).
   */
  private async requireSecondPerson(row: PayoutsTable, actor: Actor, doing: string) {
    if (row.prepared_by === actor.id) {
      throw new AppError(
        'FOUR_EYES_REQUIRED',
        `Every payout needs two people: an ops user other than the one who prepared it must ${doing}.`,
      );
    }
    await requireSeparatePeople(this.c.k, row.prepared_by, actor.id, 'payout');
  }

  async approve(id: string, actor: Actor): Promise<PayoutOutcome> {
    const c = this.c;
    const row = await this.row(id);
    await this.requireSecondPerson(row, actor, 'approve it');
    const now = c.clock.now();
    const lapsesAt = this.lapsesAt(row);
    if (lapsesAt !== null && lapsesAt <= now && row.mode === 'single') {
      await this.write(id, this.lapse(row), { state: 'pending_approval' }, this.lapsed());
      throw new AppError(
        'INVALID_STATE',
        'The held payout lapsed (not approved in time; its destination was erased) and cannot be approved; prepare it again.',
        { state: 'expired' },
      );
    }
    if (lapsesAt !== null && lapsesAt <= now) {
      await this.write(id, { state: 'expired' }, { state: 'pending_approval' }, this.expiry());
      throw new AppError(
        'INVALID_STATE',
        "The registered payout expired (24 h after the gateway checked the payee's details) and cannot be approved; prepare it again.",
        { state: 'expired' },
      );
    }
    if (row.state !== 'pending_approval') {
      throw new AppError(
        'INVALID_STATE',
        `The payout is ${row.state.replace('_', ' ')}, not waiting for approval.`,
        { state: row.state },
      );
    }
    const bound = checkBinding(c.sealer, row.binding, this.bindingOf(row));
    if (!bound.ok) {
      throw new AppError(
        'CONFLICT',
        `Approval refused: ${bound.reason}. Reject it and prepare it again.`,
        { binding: 'mismatch' },
      );
    }
    let destination: PayoutDestination | null = null;
    if (row.mode === 'single') {
      destination = this.openDestination(row);
      if (c.hasher.hash(destination) !== row.destination_hash) {
        throw new AppError(
          'CONFLICT',
          'Approval refused: the held destination differs from the one prepared. Reject it and prepare it again.',
          { binding: 'mismatch' },
        );
      }
    }

    // The claim: exactly one approver moves it from pending_approval to sending.
    const claimed = await this.write(
      id,
      { state: 'sending', decided_by: actor.id, decided_by_email: actor.email, decided_at: now },
      { state: 'pending_approval', notPreparedBy: actor.id },
      { events: [{ kind: 'staff', title: 'payout approved', actor: actor.email, data: {} }] },
    );
    if (claimed === undefined) {
      const current = await this.row(id);
      throw new AppError(
        'INVALID_STATE',
        `The payout is ${current.state.replace('_', ' ')}: another approver got there first.`,
        { state: current.state },
      );
    }
    return row.mode === 'single' && destination !== null
      ? this.sendSingle(row, destination, actor)
      : this.sendPay(row, actor);
  }

  /**
   * A repeat of an approval whose request was interrupted (`interruptedApproval`): `sending` or
   * `unknown`, the poller is still confirming the outcome with `status` (409).
   */
  approvalInterruption(id: string, actor: Actor): Interruption {
    return interruptedApproval(actor, this.c.options, {
      row: () => this.row(id),
      confirming: (row) =>
        row.state === 'sending' || row.state === 'unknown'
          ? 'The first attempt of this approval was interrupted before it answered; its outcome is being confirmed with the gateway (the payout’s timeline shows the status checks). It is never sent twice: once the outcome is known, this same request gets it.'
          : null,
      reply: async (row) => {
        const payout = await this.viewOf(row, actor);
        return {
          payout,
          message: interruptedMessage('payout', payout.state),
        } satisfies PayoutOutcome;
      },
    });
  }

  /**
   * Pays again, on the same checked order, a two-step payout whose payment the gateway did not make
   * (judged not applied after its payout-pay was sent, `mayBePaidLate`), while its registration
   * holds (`mayPayAgain`), by an ops user other than its preparer (the previous approver may). The
   * gateway pays a registered payout at most once (design §4: a second payout-pay is refused), so
   * this cannot pay the payee twice, where preparing it again (a new order) could.
   *
   * First `status` of the order, once: if it shows the payout-pay after all (paid late, or being
   * paid), that is applied (`applyStatus`, the paid-late path) and nothing is sent (409). Otherwise
   * the payout is claimed (failed NOT_APPLIED → sending, guarded: of two pressing at once, one
   * sends), payout-pay goes again with the same orderid and client_orderid, and what follows is an
   * approval's (`afterSend`). Not sent, or refused by the gateway: the payout is as it was (failed,
   * judged not applied, its approver's), and a refusal's order is asked about again.
   */
  async payAgain(id: string, actor: Actor): Promise<PayoutOutcome> {
    const c = this.c;
    const row = await this.row(id);
    await this.requireSecondPerson(row, actor, 'pay it again');
    const orderid = row.orderid;
    if (row.mode === 'single' || !mayBePaidLate(row) || orderid === null) {
      throw new AppError(
        'INVALID_STATE',
        `The payout is ${this.stateOf(row).replace('_', ' ')}: only a checked payout whose payment the gateway did not make (judged not applied) can be paid again.`,
        { state: row.state },
      );
    }
    const now = c.clock.now();
    if (!mayPayAgain(row, now)) {
      const lapsed = iso(row.expires_at);
      throw new AppError(
        'INVALID_STATE',
        `The gateway's check of the payee's details lapsed${lapsed === null ? '' : ` at ${lapsed}`} (24 h after it was made), so the payout cannot be paid again; prepare it again, after checking that the first payment was not made late.`,
        { state: row.state, lapsedAt: lapsed },
      );
    }
    const subject = `payout:${row.id}`;
    // Did the gateway make the first payment after all? Asked once, before anything is sent.
    const before = await askStatus(c.gateway, row.endpoint_id, row.client_orderid, orderid);
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: 'status before paying again',
      actor: actor.email,
      data: exchangeData(before.outcome),
    });
    if (before.kind === 'no-answer') {
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        'The gateway did not answer whether the first payment went through; nothing was sent. Try again.',
      );
    }
    if (before.kind === 'not-found') {
      throw new AppError(
        'INVALID_STATE',
        'The gateway does not show the checked payout; nothing was sent. Prepare it again if it is still due.',
        { state: row.state },
      );
    }
    const v = before.view;
    const current = await this.row(id);
    if (!mayBePaidLate(current) || current.decided_at !== row.decided_at)
      throw this.paidAgainFirst(current);
    if (v.lastOperation === 'payout-pay' || v.stage === 'paid' || v.stage === 'processing') {
      const after = await this.applyStatus(current, v);
      throw new AppError(
        'INVALID_STATE',
        after.state === 'processing' || after.state === 'unknown'
          ? 'The gateway is making the first payment after all: nothing was sent again. Paydesk follows it until it is paid or declined.'
          : after.state === 'approved'
            ? 'The gateway made the first payment after all (the payout is paid): nothing was sent again.'
            : `The gateway answered the first payment after all: the payout is ${this.stateOf(after).replace('_', ' ')}. Nothing was sent again.`,
        { state: after.state },
      );
    }
    if (v.stage === 'expired') {
      await this.write(
        id,
        { state: 'expired', error_code: null, error_message: null },
        { state: 'failed', errorCode: NOT_APPLIED },
        this.expiry(),
      );
      throw new AppError(
        'INVALID_STATE',
        "The registered payout expired at the gateway (24 h after it checked the payee's details), so it cannot be paid again; prepare it again.",
        { state: 'expired' },
      );
    }
    if (v.status !== 'approved' || v.stage !== 'registered') {
      throw new AppError(
        'INVALID_STATE',
        `The gateway shows the payout ${v.stage ?? v.status}, not registered; nothing was sent.`,
        { gatewayStage: v.stage },
      );
    }
    if (
      v.amount === null ||
      v.currency !== row.currency ||
      toMinorUnits(v.amount) !== BigInt(row.amount_minor)
    ) {
      throw new AppError(
        'CONFLICT',
        'Paying again refused: the gateway registered a different amount or currency than this payout; nothing was sent.',
        { binding: 'mismatch' },
      );
    }

    // The claim: of the ops users paying it again at once, exactly one moves it to sending. A
    // status check under way (a callback's) loses its lease: it no longer writes what it learned
    // from before this payment.
    const claimed = await this.write(
      id,
      {
        state: 'sending',
        error_code: null,
        error_message: null,
        decided_by: actor.id,
        decided_by_email: actor.email,
        decided_at: now,
        // The first approval, whose payment the gateway did not make; paid again more than once,
        // the first of all is kept.
        first_decided_by_email: row.first_decided_by_email ?? row.decided_by_email,
        first_decided_at: row.first_decided_at ?? row.decided_at,
        sent_at: now,
        ...this.pollStop(),
      },
      {
        state: 'failed',
        errorCode: NOT_APPLIED,
        notPreparedBy: actor.id,
        ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
      },
      {
        events: [
          {
            kind: 'staff',
            title: `Paid again by ${actor.email}: the gateway had not made the first payment`,
            actor: actor.email,
            data: {
              firstApprovedBy: row.decided_by_email,
              checkValidUntil: iso(row.expires_at),
            },
          },
        ],
      },
    );
    if (claimed === undefined) throw this.paidAgainFirst(await this.row(id));
    const outcome = await c.gateway.send('payout-pay', row.endpoint_id, {
      client_orderid: row.client_orderid,
      orderid,
    });
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: 'payment of the checked payout, again',
      actor: actor.email,
      data: exchangeData(outcome),
    });
    if (outcome.kind === 'not-sent') {
      throw await this.undoPayAgain(
        row,
        now,
        actor,
        new AppError(
          'GATEWAY_UNAVAILABLE',
          'The gateway could not be reached; nothing was sent and the payout stays failed (judged not applied). Try again.',
        ),
      );
    }
    if (outcome.kind === 'reply' && outcome.httpStatus !== 200) {
      // Refused (a second payout-pay is, once the first was made): nothing was paid by this one.
      // The payout is as it was, and its order is asked about again, as a status check would.
      const err = gatewayRefusal(outcome.httpStatus, outcome.reply, PAYOUT_REQUEST_WORDS.pay);
      await this.undoPayAgain(row, now, actor, err);
      const answer = await askStatus(c.gateway, row.endpoint_id, row.client_orderid, orderid);
      await addEvent(c.k, c.clock, subject, {
        kind: 'gateway',
        title: 'status after paying again was refused',
        actor: actor.email,
        data: exchangeData(answer.outcome),
      });
      const current = await this.row(id);
      if (answer.kind === 'view' && mayBePaidLate(current))
        await this.applyStatus(current, answer.view);
      throw err;
    }
    const result = await this.afterSend(row, outcome, actor, PAYOUT_REQUEST_WORDS.pay);
    return { ...result, message: `Paid again on the same checked payout. ${result.message}` };
  }

  /** What paying again answers when the payout changed meanwhile (another's payment again, say). */
  private paidAgainFirst(current: PayoutsTable): AppError {
    return new AppError(
      'INVALID_STATE',
      `The payout is ${this.stateOf(current).replace('_', ' ')}: it changed meanwhile (another ops user paid it again first, or its outcome was learned from the gateway); nothing was sent.`,
      { state: current.state },
    );
  }

  /**
   * A payment again that sent nothing, or that the gateway refused: back to failed, judged not
   * applied, with its approver as before (guarded on this claim). Returns `why` to throw; its
   * message goes in the timeline.
   */
  private async undoPayAgain(
    row: PayoutsTable,
    claimedAt: number,
    actor: Actor,
    why: AppError,
  ): Promise<AppError> {
    await this.write(
      row.id,
      {
        state: 'failed',
        error_code: row.error_code,
        error_message: row.error_message,
        decided_by: row.decided_by,
        decided_by_email: row.decided_by_email,
        decided_at: row.decided_at,
        first_decided_by_email: row.first_decided_by_email,
        first_decided_at: row.first_decided_at,
        sent_at: row.sent_at,
        ...this.pollStop(),
      },
      { state: 'sending', decidedAt: claimedAt },
      {
        events: [
          {
            kind: 'staff',
            title:
              'paying again undone: the gateway did not pay it; the payout stays failed (judged not applied)',
            actor: actor.email,
            data: { reason: why.message },
          },
        ],
      },
    );
    return why;
  }

  /**
   * A repeat of a payment again whose request was interrupted: still failed, judged not applied
   * (nothing claimed, or put back), or claimed by someone else: nothing was sent under the key, it
   * runs again. `sending` or `unknown`: the outcome is being confirmed (409). Otherwise the reply
   * the request would have given, from the payout as it is now.
   */
  payAgainInterruption(id: string, actor: Actor): Interruption {
    return {
      afterMs: this.c.options.gatewayTimeoutMs + this.c.options.poll.leaseMs,
      outcome: async () => {
        const row = await this.row(id);
        if (mayBePaidLate(row) || row.decided_by !== actor.id) return { kind: 'not_applied' };
        if (row.state === 'sending' || row.state === 'unknown') {
          return {
            kind: 'confirming',
            message:
              'The first attempt to pay this payout again was interrupted before it answered; its outcome is being confirmed with the gateway (the payout’s timeline shows the status checks). The gateway pays it at most once: once the outcome is known, this same request gets it.',
          };
        }
        const payout = await this.viewOf(row, actor);
        return {
          kind: 'reply',
          status: 200,
          body: {
            payout,
            message: `Paying again was interrupted before Paydesk recorded its outcome; the payout is ${payout.state.replace('_', ' ')}. It was not sent again.`,
          } satisfies PayoutOutcome,
        };
      },
    };
  }

  private openDestination(row: PayoutsTable): PayoutDestination {
    if (row.destination_sealed === null) {
      throw new AppError(
        'INVALID_STATE',
        'The held destination is no longer stored; prepare the payout again.',
      );
    }
    let plain: string;
    try {
      plain = this.c.sealer.open(row.destination_sealed);
    } catch {
      throw new AppError(
        'CONFLICT',
        'Approval refused: the held destination does not open (altered). Reject it and prepare it again.',
        { binding: 'mismatch' },
      );
    }
    return HeldDestinationSchema.parse(JSON.parse(plain));
  }

  /**
   * Back to pending_approval: nothing reached the gateway. Returns `why` (the approver's reply) to
   * throw; its message goes in the timeline.
   */
  private async release(id: string, actor: Actor, why: AppError): Promise<AppError> {
    await this.write(
      id,
      { state: 'pending_approval', decided_by: null, decided_by_email: null, decided_at: null },
      { state: 'sending' },
      {
        events: [
          {
            kind: 'staff',
            title: 'approval undone: nothing was sent; the payout waits for approval again',
            actor: actor.email,
            data: { reason: why.message },
          },
        ],
      },
    );
    return why;
  }

  private async sendPay(row: PayoutsTable, actor: Actor): Promise<PayoutOutcome> {
    const c = this.c;
    const subject = `payout:${row.id}`;
    const orderid = row.orderid;
    if (orderid === null)
      throw new AppError('INVALID_STATE', 'The payout has no registered order.');
    // Bound to what the gateway registered: it must still be registered, for this amount.
    const before = await askStatus(c.gateway, row.endpoint_id, row.client_orderid, orderid);
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: 'status before paying',
      actor: actor.email,
      data: exchangeData(before.outcome),
    });
    if (before.kind !== 'view') {
      throw await this.release(
        row.id,
        actor,
        new AppError(
          'GATEWAY_UNAVAILABLE',
          'The gateway could not confirm the registered payout; nothing was sent. Try again.',
        ),
      );
    }
    const v = before.view;
    if (v.stage === 'expired') {
      await this.update(row.id, { state: 'expired' }, this.expiry());
      throw new AppError(
        'INVALID_STATE',
        "The registered payout expired at the gateway (24 h after it checked the payee's details) and cannot be approved; prepare it again.",
        { state: 'expired' },
      );
    }
    if (v.status !== 'approved' || v.stage !== 'registered') {
      throw await this.release(
        row.id,
        actor,
        new AppError(
          'INVALID_STATE',
          `The gateway shows the payout ${v.stage ?? v.status}, not registered; nothing was sent.`,
          { gatewayStage: v.stage },
        ),
      );
    }
    if (
      v.amount === null ||
      v.currency !== row.currency ||
      toMinorUnits(v.amount) !== BigInt(row.amount_minor)
    ) {
      throw await this.release(
        row.id,
        actor,
        new AppError(
          'CONFLICT',
          'Approval refused: the gateway registered a different amount or currency than this payout; nothing was sent.',
          { binding: 'mismatch' },
        ),
      );
    }
    const outcome = await c.gateway.send('payout-pay', row.endpoint_id, {
      client_orderid: row.client_orderid,
      orderid,
    });
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: 'payment of the checked payout',
      actor: actor.email,
      data: exchangeData(outcome),
    });
    return this.afterSend(row, outcome, actor, PAYOUT_REQUEST_WORDS.pay);
  }

  private async sendSingle(
    row: PayoutsTable,
    destination: PayoutDestination,
    actor: Actor,
  ): Promise<PayoutOutcome> {
    const c = this.c;
    const outcome = await c.gateway.send(
      'payout',
      row.endpoint_id,
      this.orderFields(row, destination),
    );
    await addEvent(c.k, c.clock, `payout:${row.id}`, {
      kind: 'gateway',
      title: 'single payout sent',
      actor: actor.email,
      data: exchangeData(outcome),
    });
    return this.afterSend(row, outcome, actor, PAYOUT_REQUEST_WORDS.single);
  }

  private async afterSend(
    row: PayoutsTable,
    outcome: GatewayOutcome,
    actor: Actor,
    operation: string,
  ): Promise<PayoutOutcome> {
    const c = this.c;
    const now = c.clock.now();
    if (outcome.kind === 'not-sent') {
      throw await this.release(
        row.id,
        actor,
        new AppError(
          'GATEWAY_UNAVAILABLE',
          'The gateway could not be reached; nothing was sent and the payout still waits for approval.',
        ),
      );
    }
    // From here the request may have reached the gateway: the held destination is never needed again.
    const wipe = { destination_sealed: null };
    if (outcome.kind === 'unknown') {
      const code = outcome.exchange.reply?.['error-code'] ?? null;
      const after = await this.update(row.id, {
        ...wipe,
        state: 'unknown',
        sent_at: now,
        error_code: code,
        error_message: outcome.exchange.error,
        ...unansweredSet(outcome),
        ...this.pollStart(),
      });
      return {
        payout: await this.viewOf(after, actor),
        // One sentence: why (the gateway's status said once), and what happens next, truthfully:
        // never sent again on its own; if the gateway does not show it (judged not applied), a
        // checked payout can be paid again by a second ops user, a single one prepared again.
        message: `Not known yet whether the payout was paid (${unlearnedWhy(outcome)}): Paydesk does not send it again on its own but checks its status, and if the gateway does not show it, ${
          row.mode === 'single'
            ? 'it is marked failed and must be prepared again'
            : `an ops user other than ${row.prepared_by_email} can pay it again`
        }.`,
      };
    }
    const { httpStatus, reply } = outcome;
    if (httpStatus !== 200) {
      const err = gatewayRefusal(httpStatus, reply, operation);
      let state: PayoutState = 'failed';
      if (httpStatus === 409 && row.orderid !== null) {
        const answer = await askStatus(c.gateway, row.endpoint_id, row.client_orderid, row.orderid);
        if (answer.kind === 'view' && answer.view.stage === 'expired') state = 'expired';
      }
      await this.update(
        row.id,
        {
          ...wipe,
          state,
          sent_at: now,
          error_code: reply.errorCode ?? `HTTP_${httpStatus}`,
          error_message: err.message,
        },
        state === 'expired' ? this.expiry() : {},
      );
      throw err;
    }
    const after = await this.update(row.id, {
      ...wipe,
      state: 'processing',
      orderid: row.orderid ?? reply.orderId ?? null,
      sent_at: now,
      ...this.pollStart(),
    });
    return {
      payout: await this.viewOf(after, actor),
      message: `The gateway accepted the ${operation}; Paydesk follows it until it is paid or declined.`,
    };
  }

  /**
   * Whether `actor` deciding against payout `id` would be its preparer withdrawing it (audited
   * `payout.withdraw`) rather than a second person rejecting it; false when there is no such payout.
   */
  async isWithdrawal(id: string, actor: Actor): Promise<boolean> {
    const row = await this.c.k
      .selectFrom('payouts')
      .select('prepared_by')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.prepared_by === actor.id;
  }

  /**
   * Rejects a payout waiting for approval; by its preparer, it is a withdrawal: still `rejected`
   * (nothing is sent either way), told apart by `decided_by = prepared_by` (`withdrawn`), with a
   * timeline entry of its own.
   */
  async reject(id: string, reason: string, actor: Actor): Promise<PayoutOutcome> {
    const withdrawal = (await this.row(id)).prepared_by === actor.id;
    const after = await this.write(
      id,
      {
        state: 'rejected',
        decided_by: actor.id,
        decided_by_email: actor.email,
        decided_at: this.c.clock.now(),
        reject_reason: reason,
        destination_sealed: null,
      },
      { state: 'pending_approval' },
      {
        events: [
          {
            kind: 'staff',
            title: withdrawal ? 'payout withdrawn by its preparer' : 'payout rejected',
            actor: actor.email,
            data: { reason },
          },
        ],
      },
    );
    if (after === undefined) {
      const row = await this.row(id);
      throw new AppError(
        'INVALID_STATE',
        `The payout is ${row.state.replace('_', ' ')}, not waiting for approval.`,
        { state: row.state },
      );
    }
    return {
      payout: await this.viewOf(after, actor),
      message: withdrawal
        ? 'You withdrew the payout; nothing was paid.'
        : 'The payout was rejected; nothing was paid.',
    };
  }

  // ------------------------------------------------------------------ following the outcome

  /** Applies a status answer to a payout whose outcome is awaited; returns the row afterwards. */
  async applyStatus(row: PayoutsTable, view: StatusView | null): Promise<PayoutsTable> {
    if (mayBePaidLate(row)) return this.recheckNotApplied(row, view);
    if (row.state === 'checking') {
      if (view === null) return this.notFound(row, 'check');
      return this.applyCheck(row, view);
    }
    if (view === null) return this.notFound(row, 'pay');
    const orderid = row.orderid ?? view.orderid;
    const payApplied =
      row.mode === 'single' || view.lastOperation === 'payout-pay' || view.stage === 'paid';
    if (!payApplied) {
      if (view.stage === 'expired') {
        return this.update(
          row.id,
          { state: 'expired', ...this.learned(row), ...this.pollStop() },
          { ...this.reconciled(), events: this.expiry().events },
        );
      }
      return this.notFound(row, 'pay');
    }
    if (FINAL_STATUSES.has(view.status) && view.stage !== 'processing') {
      // Paid after Paydesk had judged it not applied: it keeps saying so (`appliedAfterNotApplied`).
      const paidLate = view.status === 'approved' && row.error_code === PAID_AFTER_NOT_APPLIED;
      return this.update(
        row.id,
        {
          state: view.status,
          orderid,
          error_code: paidLate
            ? row.error_code
            : view.status === 'approved'
              ? null
              : view.errorCode,
          error_message: paidLate
            ? row.error_message
            : view.status === 'approved'
              ? null
              : view.errorMessage,
          ...this.pollStop(),
        },
        this.reconciled(),
      );
    }
    // still processing: the state shows it, the poller asks again
    if (row.state === 'unknown' || row.orderid !== orderid)
      return this.update(row.id, { state: 'processing', orderid, ...this.learned(row) });
    return row;
  }

  /**
   * The gateway does not show the request: after a while Paydesk judges it not applied. A verdict,
   * not a fact: the gateway may still apply a money-moving request it held (`recheckNotApplied`),
   * so its words say so; a check of the payee's details moves no money, nothing can have been paid.
   */
  private async notFound(row: PayoutsTable, request: 'check' | 'pay'): Promise<PayoutsTable> {
    const sentAt = row.sent_at ?? row.updated_at;
    const after = this.c.options.poll.notAppliedAfterMs;
    if (this.c.clock.now() - sentAt < after) return row;
    const what = request === 'check' ? "the check of the payee's details" : 'the payout';
    const judged = `The gateway still did not show ${what} ${describeDuration(after)} after it was sent, so Paydesk judged it not applied.`;
    // The verdict only, for a payment: what to do next depends on who reads it and when (paying it
    // again while the check holds, `canPayAgain` and `expiresAt`; else checking its status), which
    // the screens say beside it. Nothing was paid by a check, whatever follows.
    const advice =
      request === 'check'
        ? " Checking the payee's details moves no money: nothing was paid. Prepare the payout again if it is still due."
        : ' The gateway may still apply it late.';
    return this.update(
      row.id,
      {
        state: 'failed',
        error_code: NOT_APPLIED,
        error_message: `${judged}${advice}`,
        ...this.pollStop(),
      },
      this.reconciled(),
    );
  }

  /**
   * A `status` answer for a payout judged not applied whose money-moving request was sent
   * (`mayBePaidLate`: asked on its order's callback, or by staff). Still not shown, or not the
   * payout-pay: it stays failed, its checks stop again. Shown after all: the gateway held the
   * request past the verdict and applied it (`appliedAfterNotApplied`).
   */
  private async recheckNotApplied(
    row: PayoutsTable,
    view: StatusView | null,
  ): Promise<PayoutsTable> {
    const applied =
      view !== null &&
      (row.mode === 'single' || view.lastOperation === 'payout-pay' || view.stage === 'paid');
    if (view === null || !applied) {
      // Only the schedule: nothing a screen shows changed.
      return this.update(row.id, this.pollStop());
    }
    return this.appliedAfterNotApplied(row, view);
  }

  /**
   * The gateway shows a payout Paydesk had judged not applied (`notFound`): it held the request
   * past the verdict and applied it. The payout takes the gateway's status (still processing: it
   * is followed again); since its money moved (or may), and staff may have prepared it again as
   * the verdict allowed, it keeps PAID_AFTER_NOT_APPLIED with words saying so, its timeline says
   * so, and it is audited as reconciled and as a disagreement to review (`payout.drift`, as an
   * order's `transaction.drift`). Declined or failed at the gateway after all: no money moved,
   * nothing to flag.
   */
  private async appliedAfterNotApplied(row: PayoutsTable, view: StatusView): Promise<PayoutsTable> {
    const operation = 'payout';
    const amount = `${formatMinorUnits(BigInt(row.amount_minor))} ${row.currency}`;
    const what = `the ${operation} of ${amount} to ${row.destination_masked}`;
    const approvedBy = row.decided_by_email === null ? '' : ` approved by ${row.decided_by_email}`;
    const orderid = row.orderid ?? view.orderid;
    const processing = !FINAL_STATUSES.has(view.status) || view.stage === 'processing';
    const moved = processing || view.status === 'approved';
    const state: PayoutState = processing ? 'processing' : (view.status as PayoutState);
    const message = `${what}${approvedBy} was applied by the gateway after Paydesk had judged it not applied (${processing ? 'processing' : view.status}): check whether it was prepared again and paid twice.`;
    const set: Partial<PayoutsTable> = moved
      ? {
          state,
          orderid,
          error_code: PAID_AFTER_NOT_APPLIED,
          error_message: message.charAt(0).toUpperCase() + message.slice(1),
          ...(processing ? this.pollStart() : this.pollStop()),
        }
      : {
          state,
          orderid,
          error_code: view.errorCode,
          error_message: view.errorMessage,
          ...this.pollStop(),
        };
    return this.update(row.id, set, {
      events: [
        {
          kind: 'reconcile',
          title: moved
            ? `${operation} applied by the gateway after Paydesk had judged it not applied (${processing ? 'processing' : view.status}): check for a repeat of this payout`
            : `${operation} reached the gateway after Paydesk had judged it not applied: ${view.status}`,
          actor: null,
          data: {
            finding: 'applied_after_not_applied',
            status: view.status,
            stage: view.stage,
            orderid,
          },
        },
      ],
      audit: (after) =>
        moved
          ? {
              ...this.systemAudit('payout.drift', after, {
                state: after.state,
                finding: 'applied_after_not_applied',
                reasons: [message],
                approvedBy: after.decided_by_email,
                preparedBy: after.prepared_by_email,
              }),
              outcome: 'failed',
              errorCode: 'DRIFT',
            }
          : this.systemAudit('payout.reconciled', after, {
              state: after.state,
              errorCode: after.error_code,
              finding: 'applied_after_not_applied',
              approvedBy: after.decided_by_email,
              preparedBy: after.prepared_by_email,
            }),
    });
  }

  /**
   * The audit row of a payout's final outcome learned by reconciliation. The approver's own audit
   * row is written when the request answers; an instance that died mid-send never wrote it, so
   * this one names who approved (and who prepared) it.
   */
  private reconciled(): ChangeOptions {
    return {
      audit: (after) =>
        this.systemAudit('payout.reconciled', after, {
          state: after.state,
          errorCode: after.error_code,
          approvedBy: after.decided_by_email,
          preparedBy: after.prepared_by_email,
        }),
    };
  }

  /**
   * What goes with marking a registered payout expired (the gateway's 24 h, whoever noticed it):
   * a timeline entry and a system audit row naming whoever tried to approve it, if anyone did.
   */
  private expiry(): ChangeOptions {
    return {
      events: [
        {
          kind: 'reconcile',
          title: 'expired at the gateway before it was paid',
          actor: null,
          data: {},
        },
      ],
      audit: (after) =>
        this.systemAudit('payout.expired', after, {
          state: after.state,
          approvalAttemptedBy: after.decided_by_email,
          preparedBy: after.prepared_by_email,
        }),
    };
  }

  /** What lapsing a held single payout writes: expired, its sealed destination erased. */
  private lapse(row: PayoutsTable): Partial<PayoutsTable> {
    return {
      state: 'expired',
      destination_sealed: null,
      expires_at: row.created_at + this.c.options.holdMaxAgeMs,
    };
  }

  /** What goes with lapsing a held single payout: as an expiry's, its timeline says why. */
  private lapsed(): ChangeOptions {
    const age = describeDuration(this.c.options.holdMaxAgeMs);
    return {
      ...this.expiry(),
      events: [
        {
          kind: 'reconcile',
          title: `lapsed: not approved within ${age} of being prepared; the held destination was erased`,
          actor: null,
          data: {},
        },
      ],
    };
  }

  /**
   * Lapses the held single payouts prepared more than `holdMaxAgeMs` ago (`lapseHeldRows`): each
   * becomes expired, its sealed destination erased, with its timeline entry and audit row, only
   * while still waiting for approval. Returns how many lapsed.
   */
  lapseHeld(): Promise<number> {
    return lapseHeldRows(
      this.c,
      (trx) => trx.selectFrom('payouts').selectAll().where('mode', '=', 'single'),
      (trx, row) =>
        this.writeIn(trx, row.id, this.lapse(row), { state: 'pending_approval' }, this.lapsed()),
      (row) => {
        this.publish(row);
      },
    );
  }

  /** An audit row of Paydesk's own (no user, no request) about `row`. */
  systemAudit(action: string, row: PayoutsTable, summary: Record<string, unknown>): AuditEntry {
    return {
      actorId: null,
      actorEmail: null,
      actorRoles: [],
      action,
      target: `payout:${row.id}`,
      summary: { ...summary, orderid: row.orderid, clientOrderId: row.client_orderid },
      outcome: row.state === 'failed' ? 'failed' : 'success',
      errorCode: row.error_code,
      requestId: null,
      ip: null,
      userAgent: null,
    };
  }

  pollStart(): Pick<
    PayoutsTable,
    'poll_first_at' | 'poll_next_at' | 'poll_attempts' | 'lease_owner' | 'lease_until'
  > {
    const now = this.c.clock.now();
    return {
      poll_first_at: now,
      poll_next_at: now + this.c.options.poll.fastMinMs,
      poll_attempts: 0,
      lease_owner: null,
      lease_until: null,
    };
  }

  pollStop(): Pick<PayoutsTable, 'poll_next_at' | 'lease_owner' | 'lease_until'> {
    return { poll_next_at: null, lease_owner: null, lease_until: null };
  }

  /** Inserts a prepared payout with its first timeline entry in one transaction; publishes it. */
  private async insert(row: PayoutsTable, entry: EventEntry): Promise<void> {
    await this.c.k.transaction().execute(async (trx) => {
      await trx.insertInto('payouts').values(row).execute();
      await addEvent(trx, this.c.clock, `payout:${row.id}`, entry);
    });
    this.publish(row, true);
  }

  /**
   * Writes `set` with its timeline entries and its audit row (`change`) in one transaction: a
   * change never lacks its entries, nor an entry its change. A change a screen shows (anything but
   * the poll schedule) is published once committed. Undefined when the row no longer met `guard`
   * (nothing written).
   */
  async write(
    id: string,
    set: Partial<PayoutsTable>,
    guard: Guard = {},
    change: ChangeOptions = {},
  ): Promise<PayoutsTable | undefined> {
    const after = await this.c.k
      .transaction()
      .execute((trx) => this.writeIn(trx, id, set, guard, change));
    if (after !== undefined && Object.keys(set).some((column) => !SCHEDULE_COLUMNS.has(column)))
      this.publish(after);
    return after;
  }

  /** `write` in the caller's transaction, unpublished (the caller publishes once committed). */
  private async writeIn(
    trx: Transaction<PayoutsDatabase>,
    id: string,
    set: Partial<PayoutsTable>,
    guard: Guard,
    change: ChangeOptions,
  ): Promise<PayoutsTable | undefined> {
    const { clock, audit } = this.c;
    // A change of state or of the recorded error says how the outcome went unlearned, or it is
    // learned (or refused, or said in Paydesk's own words): no longer unanswered.
    const clears = ['state', 'error_code', 'error_message'].some((column) => column in set);
    let update = trx
      .updateTable('payouts')
      .set({
        ...(clears && !('unanswered_kind' in set) ? unansweredSet(null) : {}),
        ...set,
        updated_at: clock.now(),
      })
      .where('id', '=', id);
    if (guard.state !== undefined) update = update.where('state', '=', guard.state);
    if (guard.notPreparedBy !== undefined)
      update = update.where('prepared_by', '<>', guard.notPreparedBy);
    if (guard.decidedAt !== undefined) update = update.where('decided_at', '=', guard.decidedAt);
    if (guard.errorCode !== undefined) update = update.where('error_code', '=', guard.errorCode);
    const done = await update.executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) return undefined;
    for (const entry of change.events ?? []) await addEvent(trx, clock, `payout:${id}`, entry);
    const row = await trx
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    if (change.audit !== undefined) await audit.appendIn(trx, change.audit(row));
    return row;
  }

  /**
   * For a write that learns the outcome of a payout whose check or payout went unlearned: the
   * recorded words of how it did go too (the timeline keeps them), as an operation's do.
   */
  private learned(row: PayoutsTable): Partial<PayoutsTable> {
    return row.unanswered_kind === null ? {} : { error_code: null, error_message: null };
  }

  /** `write` without a guard: the row afterwards. */
  async update(
    id: string,
    set: Partial<PayoutsTable>,
    change: ChangeOptions = {},
  ): Promise<PayoutsTable> {
    const after = await this.write(id, set, {}, change);
    if (after === undefined) throw new AppError('NOT_FOUND', 'no such payout');
    return after;
  }
}
