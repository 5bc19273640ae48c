// The home screen's statistics: captured volume per currency and per UTC day, status counts,
// returns per day, and the orders that need a person whatever their age (outcome unknown, flagged
// drift), with the follow-ups of the last days the gateway never applied. Money is dated by when
// it was taken: a sale or rebill by its approval (the order's own operation, `created_at`), a
// preauth's capture by the capture operation; returns by the return operation. Order counts stay per order created in the window, and are of the customers' orders:
// payouts and payout-checks (money out, the payouts screen's) are not counted, nor in the approval
// rate. Every query reads the window through an index: `transactions_created` (or, for the orders
// the gateway never created, `transactions_status_created`; for payouts, `transactions_type_created`),
// `transaction_operations_kind_created` for captures and returns; the unknown outcomes
// `transactions_status_created` and `transaction_operations_unknown`; the follow-ups not made
// `transaction_operations_not_applied`. No query scans a whole table.
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import type { StatsResponse } from '@paydesk/shared/api';
import {
  NOT_MADE_DAYS,
  NOT_MADE_KINDS,
  REDONE_STATES,
  type NotMadeKind,
} from '@paydesk/shared/domain';
import { big, exactSum, sumParts, type PayDatabase, type PayDb } from './db.js';

const DAY = 86_400_000;
/** Attention counts stop here: the home screen says "at least" rather than counting a flood. */
export const ATTENTION_CAP = 1_000;

/**
 * Orders whose approval takes money from a customer for the merchant. Payouts (money out) are
 * not; nor are card-to-card transfers (the money passes from one card to another) or account
 * verifications and PAN eligibility checks (no money moves).
 */
export const MONEY_IN_TYPES = ['sale', 'preauth', 'rebill'] as const;

/** Money-in orders whose money is taken with their approval: dated by the order. */
export const TAKEN_ON_APPROVAL_TYPES = ['sale', 'rebill'] as const;

/**
 * Operation states of a capture or return that count as money moved: approved, or accepted by the
 * gateway and still processing (as the order's captured and returned totals count them).
 */
const MOVED_STATES = ['processing', 'approved'];

/**
 * Orders that pay money out (a payout, and the payout-check registering it): made by staff on the
 * payouts screen, not placed by customers, so not in the order counts or the approval rate. Stored
 * types: a two-step payout stays `payout-check` when paid (the list shows it as a Payout,
 * `records.listedType`); either way it is left out here.
 */
export const MONEY_OUT_TYPES = ['payout', 'payout-check'] as const;

/**
 * The stage of an order the gateway never created (a rebill whose request never reached it, judged
 * not applied): it stays in the list, with its placeholder orderid, but is no order in the stats.
 */
export const NOT_CREATED_STAGE = 'not_created';

type Window = SelectQueryBuilder<PayDatabase, 'transactions', object>;
type TxEb = ExpressionBuilder<PayDatabase, 'transactions'>;

/**
 * The customers' orders of the window that the gateway created (`stage` is null until a status
 * names it): no payouts.
 */
function placedOrders(inWindow: Window): Window {
  return inWindow
    .where((eb) => eb.or([eb('stage', 'is', null), eb('stage', '<>', NOT_CREATED_STAGE)]))
    .where('type', 'not in', MONEY_OUT_TYPES);
}

/**
 * A group's orders (`n`), approved orders (`approved_n`) and the exact money they took from
 * customers on their approval (`captured_high`/`captured_low`, read with `exactSum`): the
 * captured amount of the approved sales and rebills, voided ones excluded. A preauth takes no
 * money on its approval: its capture does, counted by the capture's date (`statsQueries`
 * `captures`). Returns are not deducted: they are reported on their own (`returnsByDay`).
 */
export function capturedVolume(eb: TxEb) {
  const captured = sumParts(
    eb
      .case()
      .when(
        eb.and([
          eb('status', '=', 'approved'),
          eb('type', 'in', TAKEN_ON_APPROVAL_TYPES),
          eb.or([eb('stage', 'is', null), eb('stage', '<>', 'voided')]),
        ]),
      )
      .then(eb.ref('captured_minor'))
      .else(0)
      .end(),
  );
  return [
    eb.fn.countAll<number | string>().as('n'),
    eb.fn
      .sum<number | string | null>(eb.case().when('status', '=', 'approved').then(1).else(0).end())
      .as('approved_n'),
    captured.high.as('captured_high'),
    captured.low.as('captured_low'),
  ] as const;
}

/** The statements of one statistics request over [from, to). */
export function statsQueries(k: PayDb, from: number, to: number) {
  const inWindow = k
    .selectFrom('transactions')
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  /** the follow-ups of one kind made in the window that moved money, with their order */
  const operations = (kind: 'capture' | 'return') =>
    k
      .selectFrom('transaction_operations as o')
      .innerJoin('transactions as t', 't.id', 'o.transaction_id')
      .where('o.kind', '=', kind)
      .where('o.state', 'in', MOVED_STATES)
      .where('o.created_at', '>=', from)
      .where('o.created_at', '<', to);
  const day = sql<number>`created_at / ${sql.lit(DAY)}`;
  const operationDay = sql<number>`o.created_at / ${sql.lit(DAY)}`;
  return {
    byCurrency: placedOrders(inWindow)
      .select((eb) => ['currency', ...capturedVolume(eb)])
      .groupBy('currency')
      .orderBy('currency'),
    byDay: placedOrders(inWindow)
      .select((eb) => [day.as('day'), 'currency', ...capturedVolume(eb)])
      .groupBy([day, 'currency']),
    // The money of preauths, by the day of their capture, whenever the hold was authorized: what
    // the capture took (the order's captured amount; the gateway captures a preauth once). A hold
    // voided after its capture took nothing in the end.
    captures: operations('capture')
      .where('t.type', '=', 'preauth')
      .where('t.status', '=', 'approved')
      .where((eb) => eb.or([eb('t.stage', 'is', null), eb('t.stage', '<>', 'voided')]))
      .select((eb) => {
        const amount = sumParts(eb.ref('t.captured_minor'));
        return [
          operationDay.as('day'),
          't.currency as currency',
          amount.high.as('captured_high'),
          amount.low.as('captured_low'),
        ];
      })
      .groupBy([operationDay, 't.currency']),
    // Counted from the status index alone; the few orders never created, and the payouts, are
    // taken off after.
    byStatus: inWindow
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status'),
    moneyOut: inWindow
      .where('type', 'in', MONEY_OUT_TYPES)
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status'),
    notCreated: inWindow
      .where('status', '=', 'error')
      .where('stage', '=', NOT_CREATED_STAGE)
      .select((eb) => eb.fn.countAll<number | string>().as('n')),
    // Money actually returned: a return on a preauth never captured cancels the hold (stage
    // `hold_cancelled`); no money had come in, so none goes back.
    returns: operations('return')
      .where((eb) => eb.or([eb('t.type', '<>', 'preauth'), eb('t.captured_minor', '>', 0)]))
      .select((eb) => {
        const amount = sumParts(eb.ref('o.amount_minor'));
        return [
          operationDay.as('day'),
          't.currency as currency',
          eb.fn.countAll<number | string>().as('n'),
          amount.high.as('amount_high'),
          amount.low.as('amount_low'),
        ];
      })
      .groupBy([operationDay, 't.currency']),
  };
}

const byDayThenCurrency = (a: { day: string; currency: string }, b: typeof a) =>
  a.day === b.day ? a.currency.localeCompare(b.currency) : a.day.localeCompare(b.day);

const utcDay = (day: unknown) => new Date(Number(big(day)) * DAY).toISOString().slice(0, 10);

/** Orders created, approved, and the money taken, of one currency (and day). */
interface Figures {
  count: number;
  approvedCount: number;
  captured: bigint;
}

/** Adds figures to a group of `groups` (a new group starts from nothing). */
function addTo<K>(groups: Map<K, Figures>, key: K, figures: Partial<Figures>): void {
  const now = groups.get(key) ?? { count: 0, approvedCount: 0, captured: 0n };
  groups.set(key, {
    count: now.count + (figures.count ?? 0),
    approvedCount: now.approvedCount + (figures.approvedCount ?? 0),
    captured: now.captured + (figures.captured ?? 0n),
  });
}

const figuresOf = (r: {
  n: unknown;
  approved_n: unknown;
  captured_high: unknown;
  captured_low: unknown;
}) => ({
  count: Number(big(r.n)),
  approvedCount: Number(big(r.approved_n)),
  captured: exactSum(r.captured_high, r.captured_low),
});

const asVolume = (f: Figures) => ({
  count: f.count,
  approvedCount: f.approvedCount,
  capturedAmount: formatMinorUnits(f.captured),
});

/** Everything of `StatsResponse` but the attention counts, over [from, to). */
export async function windowStats(
  k: PayDb,
  from: number,
  to: number,
): Promise<Omit<StatsResponse, 'from' | 'to' | 'attention'>> {
  const q = statsQueries(k, from, to);
  const [byCurrency, byDay, captures, byStatus, moneyOut, notCreated, returns] = await Promise.all([
    q.byCurrency.execute(),
    q.byDay.execute(),
    q.captures.execute(),
    q.byStatus.execute(),
    q.moneyOut.execute(),
    q.notCreated.executeTakeFirst(),
    q.returns.execute(),
  ]);
  // Per status, the customers' orders: all orders of the window, less the payouts and the orders
  // never created.
  const counted = new Map<string, number>();
  for (const s of byStatus) counted.set(s.status, Number(big(s.n)));
  const takeOff = (status: string, n: number) =>
    counted.set(status, (counted.get(status) ?? 0) - n);
  for (const s of moneyOut) takeOff(s.status, Number(big(s.n)));
  takeOff('error', Number(big(notCreated?.n)));
  const statusCounts: Record<string, number> = {};
  for (const [status, n] of counted) if (n > 0) statusCounts[status] = n;
  const final = ['approved', 'declined', 'error', 'filtered'].reduce(
    (sum, s) => sum + (statusCounts[s] ?? 0),
    0,
  );
  // The orders of the window, with the money taken on approval; then the captures of the window,
  // in a currency (and on a day) that may have no order at all.
  const currencies = new Map<string, Figures>();
  const days = new Map<string, Figures>();
  const dayKey = (day: unknown, currency: string) => `${utcDay(day)} ${currency}`;
  for (const r of byCurrency) addTo(currencies, r.currency, figuresOf(r));
  for (const r of byDay) addTo(days, dayKey(r.day, r.currency), figuresOf(r));
  for (const r of captures) {
    const captured = exactSum(r.captured_high, r.captured_low);
    if (captured === 0n) continue;
    addTo(currencies, r.currency, { captured });
    addTo(days, dayKey(r.day, r.currency), { captured });
  }
  return {
    volumes: [...currencies]
      .map(([currency, f]) => ({ currency, ...asVolume(f) }))
      .sort((a, b) => a.currency.localeCompare(b.currency)),
    approvalRate: final === 0 ? null : (statusCounts.approved ?? 0) / final,
    byStatus: statusCounts,
    returnsByDay: returns
      .map((r) => ({
        day: utcDay(r.day),
        currency: r.currency,
        count: Number(big(r.n)),
        amount: formatMinorUnits(exactSum(r.amount_high, r.amount_low)),
      }))
      .sort(byDayThenCurrency),
    volumeByDay: [...days]
      .map(([key, f]) => ({ day: key.slice(0, 10), currency: key.slice(11), ...asVolume(f) }))
      .sort(byDayThenCurrency),
  };
}

/**
 * The ids of the orders whose fate is unknown (the list's `status=unknown`, the home screen's
 * count): the order's own outcome is unknown, or an operation's is (a capture, return, void or
 * card reference whose reply was lost) whatever the order's status — an approved sale with a
 * return left unknown, say. An id may come twice; `in` takes it once.
 *
 * Each side reads an index of its own (`transactions_status_created`; the partial
 * `transaction_operations_unknown`), and the orders are then read by id: as an `or` on the order's
 * row, both databases walked every order in list order to test it (1,000,000 orders: 0.3–2 s).
 */
export function unknownOutcomeIds(k: PayDb) {
  // Written out as the partial index says it: a bound parameter would keep PostgreSQL's generic
  // plan of a prepared statement from using that index.
  const unknown = sql.lit('unknown');
  return k
    .selectFrom('transactions')
    .select('id')
    .where('status', '=', 'unknown')
    .unionAll(
      k
        .selectFrom('transaction_operations')
        .select('transaction_id as id')
        .where('state', '=', unknown),
    );
}

/** How many of them the home screen names, newest first, to open. */
export const NOT_APPLIED_LISTED = 5;

/**
 * The follow-ups that were not made, the one definition of the home screen's card
 * (`notAppliedFollowUps`) and of the list's `notMade=true` filter and its export (queries.ts): the
 * operations of `NOT_MADE_KINDS` sent by Paydesk (origin `paydesk`) in the last
 * `NOT_MADE_DAYS` days by `now` that reconciliation judged not applied (`not_applied`), as `o`,
 * unless done again since: a later operation of the same kind on the same order, also sent by
 * Paydesk, recorded strictly after it (`created_at`), in one of `REDONE_STATES` (sending,
 * processing, approved, or unknown: made again, or on its way). A redo also not applied, or
 * refused, leaves both named; a follow-up of another kind redoes nothing. The rule is the order
 * page's banner's, `notMadeFollowUps` in `@paydesk/shared/domain`, and is tested against it.
 *
 * Read through the partial index `transaction_operations_not_applied` (kind, created_at; where
 * state = 'not_applied', migration 0023): the state is written out as the index says it, since a
 * bound parameter would keep PostgreSQL's generic plan of a prepared statement from using it. With
 * the kind first, SQLite's planner prefers it to `transaction_operations_kind_created`, which
 * would read every capture, return and void of the week, then their rows (1,000,000 orders:
 * ~270,000 operations, 60–120 ms on PostgreSQL); through it, under 1 ms on both databases. The
 * redo is looked for, for each of those few, among its order's operations after it, through
 * `transaction_operations_tx` (transaction_id, created_at) on both databases (checked with
 * EXPLAIN over 300,000 operations: PostgreSQL an anti join, ~0.2 ms).
 */
export function notAppliedOperations(k: PayDb, now: number) {
  return k
    .selectFrom('transaction_operations as o')
    .where('o.kind', 'in', NOT_MADE_KINDS)
    .where('o.created_at', '>=', now - NOT_MADE_DAYS * DAY)
    .where('o.state', '=', sql.lit('not_applied'))
    .where('o.origin', '=', 'paydesk')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('transaction_operations as later')
            .select('later.id')
            .whereRef('later.transaction_id', '=', 'o.transaction_id')
            .whereRef('later.created_at', '>', 'o.created_at')
            // An expression, that no index on the kind may serve: SQLite, which keeps no
            // statistics here, would otherwise read every operation of that kind since.
            .where(sql<SqlBool>`${sql.ref('later.kind')} || '' = ${sql.ref('o.kind')}`)
            .where('later.origin', '=', 'paydesk')
            .where('later.state', 'in', REDONE_STATES),
        ),
      ),
    );
}

/**
 * The orders with a follow-up not made (`notAppliedOperations`), by id: the list's `notMade=true`
 * (`id in (…)`). The few operations are found first and their orders read by id; as a correlated
 * `exists`, SQLite walked every order in list order to test it (1,000,000 orders: 0.2–2 s).
 */
export function notAppliedOrderIds(k: PayDb, now: number) {
  return notAppliedOperations(k, now).select('o.transaction_id as id');
}

/**
 * The follow-ups sent by staff in the last `NOT_MADE_DAYS` days that reconciliation judged not
 * applied and that were not done again since (`notAppliedOperations`): counted up to
 * `ATTENTION_CAP`, and the latest few named.
 */
export async function notAppliedFollowUps(
  k: PayDb,
  now: number,
): Promise<NonNullable<StatsResponse['attention']['notApplied']>> {
  const recent = notAppliedOperations(k, now).innerJoin(
    'transactions as t',
    't.id',
    'o.transaction_id',
  );
  const [counted, latest] = await Promise.all([
    k
      .selectFrom(recent.select('o.id').limit(ATTENTION_CAP).as('capped'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    recent
      .select([
        't.id as id',
        't.orderid as orderid',
        't.client_orderid as client_orderid',
        't.currency as currency',
        'o.kind as kind',
        'o.amount_minor as amount_minor',
        'o.requested_by as requested_by',
        'o.created_at as created_at',
      ])
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .limit(NOT_APPLIED_LISTED)
      .execute(),
  ]);
  return {
    count: Number(big(counted.n)),
    days: NOT_MADE_DAYS,
    orders: latest.map((r) => ({
      id: r.id,
      orderid: r.orderid,
      clientOrderId: r.client_orderid,
      kind: r.kind as NotMadeKind,
      amount: r.amount_minor === null ? null : formatMinorUnits(big(r.amount_minor)),
      currency: r.currency,
      requestedBy: r.requested_by,
      at: new Date(Number(big(r.created_at))).toISOString(),
    })),
  };
}

/** `now`: the clock, for the not-applied follow-ups' window (the others have none). */
export async function attentionCounts(k: PayDb, now: number): Promise<StatsResponse['attention']> {
  const capped = async (match: (eb: TxEb) => Expression<SqlBool>) => {
    const row = await k
      .selectFrom(
        k.selectFrom('transactions').select('id').where(match).limit(ATTENTION_CAP).as('capped'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(big(row.n));
  };
  const [unknown, drift, notApplied] = await Promise.all([
    capped((eb) => eb('id', 'in', unknownOutcomeIds(k))),
    capped((eb) => eb('drift', '=', 1)),
    notAppliedFollowUps(k, now),
  ]);
  return { unknown, drift, cap: ATTENTION_CAP, notApplied };
}
