// The home screen's extra statistics: volume per UTC day and currency (its chart), and the orders
// that need a person whatever their age (outcome unknown, flagged drift).
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import type { StatsResponse } from '@paydesk/shared/api';
import { big, exactSum, sumParts, type PayDatabase, type PayDb } from './db.js';

const DAY = 86_400_000;
/** Attention counts stop here: the home screen says "at least" rather than counting a flood. */
export const ATTENTION_CAP = 1_000;

type Window = SelectQueryBuilder<PayDatabase, 'transactions', object>;

/**
 * A group's orders (`n`), approved orders (`approved_n`) and their exact approved amount
 * (`approved_high`/`approved_low`, read with `exactSum`).
 */
export function approvedVolume(eb: ExpressionBuilder<PayDatabase, 'transactions'>) {
  const approved = sumParts(
    eb.case().when('status', '=', 'approved').then(eb.ref('amount_minor')).else(0).end(),
  );
  return [
    eb.fn.countAll<number | string>().as('n'),
    eb.fn
      .sum<number | string | null>(eb.case().when('status', '=', 'approved').then(1).else(0).end())
      .as('approved_n'),
    approved.high.as('approved_high'),
    approved.low.as('approved_low'),
  ] as const;
}

export async function volumeByDay(inWindow: Window): Promise<StatsResponse['volumeByDay']> {
  const day = sql<number>`created_at / ${sql.lit(DAY)}`;
  const rows = await inWindow
    .select((eb) => [day.as('day'), 'currency', ...approvedVolume(eb)])
    .groupBy([day, 'currency'])
    .execute();
  return rows
    .map((r) => ({
      day: new Date(Number(big(r.day)) * DAY).toISOString().slice(0, 10),
      currency: r.currency,
      count: Number(big(r.n)),
      approvedCount: Number(big(r.approved_n)),
      approvedAmount: formatMinorUnits(exactSum(r.approved_high, r.approved_low)),
    }))
    .sort((a, b) =>
      a.day === b.day ? a.currency.localeCompare(b.currency) : a.day.localeCompare(b.day),
    );
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
