// The home screen's statistics: captured volume per currency and per UTC day, status counts,
// returns per day, and the orders that need a person whatever their age (outcome unknown, flagged
// drift). Every query reads the window through `transactions_created` (or, for the orders the
// gateway never created, `transactions_status_created`): no query scans the whole table.
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import type { StatsResponse } from '@paydesk/shared/api';
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

/**
 * The stage of an order the gateway never created (a rebill whose request never reached it, judged
 * not applied): it stays in the list, with its placeholder orderid, but is no order in the stats.
 */
export const NOT_CREATED_STAGE = 'not_created';

type Window = SelectQueryBuilder<PayDatabase, 'transactions', object>;
type TxEb = ExpressionBuilder<PayDatabase, 'transactions'>;

/** The orders of the window that the gateway created (`stage` is null until a status names it). */
function createdOrders(inWindow: Window): Window {
  return inWindow.where((eb) =>
    eb.or([eb('stage', 'is', null), eb('stage', '<>', NOT_CREATED_STAGE)]),
  );
}

/**
 * A group's orders (`n`), approved orders (`approved_n`) and the exact money captured from
 * customers (`captured_high`/`captured_low`, read with `exactSum`): the captured amount of the
 * approved money-in orders (a sale or rebill: its amount; a preauth: only what was captured, so
 * nothing for a hold never captured or cancelled), voided ones excluded. Returns are not deducted:
 * they are reported on their own (`returnsByDay`).
 */
export function capturedVolume(eb: TxEb) {
  const captured = sumParts(
    eb
      .case()
      .when(
        eb.and([
          eb('status', '=', 'approved'),
          eb('type', 'in', MONEY_IN_TYPES),
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
  const day = sql<number>`created_at / ${sql.lit(DAY)}`;
  const returnDay = sql<number>`o.created_at / ${sql.lit(DAY)}`;
  return {
    byCurrency: createdOrders(inWindow)
      .select((eb) => ['currency', ...capturedVolume(eb)])
      .groupBy('currency')
      .orderBy('currency'),
    byDay: createdOrders(inWindow)
      .select((eb) => [day.as('day'), 'currency', ...capturedVolume(eb)])
      .groupBy([day, 'currency']),
    // Counted from the status index alone; the few orders never created are taken off after.
    byStatus: inWindow
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status'),
    notCreated: inWindow
      .where('status', '=', 'error')
      .where('stage', '=', NOT_CREATED_STAGE)
      .select((eb) => eb.fn.countAll<number | string>().as('n')),
    // Money actually returned: a return on a preauth never captured cancels the hold (stage
    // `hold_cancelled`); no money had come in, so none goes back.
    returns: k
      .selectFrom('transaction_operations as o')
      .innerJoin('transactions as t', 't.id', 'o.transaction_id')
      .where('o.kind', '=', 'return')
      .where('o.state', 'in', ['processing', 'approved'])
      .where('o.created_at', '>=', from)
      .where('o.created_at', '<', to)
      .where((eb) => eb.or([eb('t.type', '<>', 'preauth'), eb('t.captured_minor', '>', 0)]))
      .select((eb) => {
        const amount = sumParts(eb.ref('o.amount_minor'));
        return [
          returnDay.as('day'),
          't.currency as currency',
          eb.fn.countAll<number | string>().as('n'),
          amount.high.as('amount_high'),
          amount.low.as('amount_low'),
        ];
      })
      .groupBy([returnDay, 't.currency']),
  };
}

const byDayThenCurrency = (a: { day: string; currency: string }, b: typeof a) =>
  a.day === b.day ? a.currency.localeCompare(b.currency) : a.day.localeCompare(b.day);

const utcDay = (day: unknown) => new Date(Number(big(day)) * DAY).toISOString().slice(0, 10);

/** Everything of `StatsResponse` but the attention counts, over [from, to). */
export async function windowStats(
  k: PayDb,
  from: number,
  to: number,
): Promise<Omit<StatsResponse, 'from' | 'to' | 'attention'>> {
  const q = statsQueries(k, from, to);
  const [byCurrency, byDay, byStatus, notCreated, returns] = await Promise.all([
    q.byCurrency.execute(),
    q.byDay.execute(),
    q.byStatus.execute(),
    q.notCreated.executeTakeFirst(),
    q.returns.execute(),
  ]);
  const statusCounts: Record<string, number> = {};
  for (const s of byStatus) statusCounts[s.status] = Number(big(s.n));
  const error = (statusCounts.error ?? 0) - Number(big(notCreated?.n));
  if (error > 0) statusCounts.error = error;
  else delete statusCounts.error;
  const final = ['approved', 'declined', 'error', 'filtered'].reduce(
    (sum, s) => sum + (statusCounts[s] ?? 0),
    0,
  );
  return {
    volumes: byCurrency.map((r) => ({
      currency: r.currency,
      count: Number(big(r.n)),
      approvedCount: Number(big(r.approved_n)),
      capturedAmount: formatMinorUnits(exactSum(r.captured_high, r.captured_low)),
    })),
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
    volumeByDay: byDay
      .map((r) => ({
        day: utcDay(r.day),
        currency: r.currency,
        count: Number(big(r.n)),
        approvedCount: Number(big(r.approved_n)),
        capturedAmount: formatMinorUnits(exactSum(r.captured_high, r.captured_low)),
      }))
      .sort(byDayThenCurrency),
  };
}

export async function attentionCounts(k: PayDb): Promise<StatsResponse['attention']> {
  const capped = async (column: 'status' | 'drift', value: string | number) => {
    const row = await k
      .selectFrom(
        k
          .selectFrom('transactions')
          .select('id')
          .where(column, '=', value)
          .limit(ATTENTION_CAP)
          .as('capped'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(big(row.n));
  };
  const [unknown, drift] = await Promise.all([capped('status', 'unknown'), capped('drift', 1)]);
  return { unknown, drift, cap: ATTENTION_CAP };
}
