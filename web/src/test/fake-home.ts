// The home screen's route of the fake BFF: `GET /api/stats`, computed from the fake transactions
// with the BFF's rules (window on creation time, approval rate over final statuses, returns by the
// return's own time, attention counts over every order), every reply validated.
import {
  StatsQuerySchema,
  StatsResponseSchema,
  type Role,
  type StatsResponse,
  type TransactionDetail,
  type User,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { fromMinor, toMinor } from '../lib/money';
import type { ErrorReply, FakePayments, PaymentsReply, PaymentsRequest } from './fake-payments';

const READERS: readonly Role[] = ['support', 'finance', 'ops', 'auditor'];
const DAY = 86_400_000;
const FINAL = ['approved', 'declined', 'error', 'filtered'];

const minor = (amount: string | null) => (amount === null ? 0n : (toMinor(amount) ?? 0n));

function sumBy<K>(items: TransactionDetail[], keyOf: (t: TransactionDetail) => K) {
  const out = new Map<K, { count: number; approvedCount: number; approved: bigint }>();
  for (const t of items) {
    const key = keyOf(t);
    const current = out.get(key) ?? { count: 0, approvedCount: 0, approved: 0n };
    const approved = t.status === 'approved';
    out.set(key, {
      count: current.count + 1,
      approvedCount: current.approvedCount + (approved ? 1 : 0),
      approved: current.approved + (approved ? minor(t.amount) : 0n),
    });
  }
  return out;
}

export class FakeHome {
  /** the server's clock (end of the default window) */
  now = (): number => Date.now();

  constructor(
    private readonly payments: FakePayments,
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
  ) {}

  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    if (request.path !== '/api/stats') return null;
    if (request.method !== 'GET') return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
    if (!READERS.some((role) => user.roles.includes(role)))
      return this.error(403, 'FORBIDDEN', 'not allowed');
    const parsed = StatsQuerySchema.safeParse(Object.fromEntries(request.query));
    if (!parsed.success) return this.validation(parsed.error.issues);
    const to = parsed.data.to === undefined ? this.now() : Date.parse(parsed.data.to);
    const from = parsed.data.from === undefined ? to - 30 * DAY : Date.parse(parsed.data.from);
    return { status: 200, body: StatsResponseSchema.parse(this.stats(from, to)) };
  }

  stats(from: number, to: number): StatsResponse {
    const all = this.payments.transactions;
    const inWindow = all.filter((t) => {
      const at = Date.parse(t.createdAt);
      return at >= from && at < to;
    });
    const byStatus: Record<string, number> = {};
    for (const t of inWindow) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
    const final = FINAL.reduce((n, s) => n + (byStatus[s] ?? 0), 0);
    const dayOf = (iso: string) => iso.slice(0, 10);
    const returns = new Map<
      string,
      { day: string; currency: string; count: number; sum: bigint }
    >();
    for (const t of all) {
      for (const op of t.operations) {
        const at = Date.parse(op.createdAt);
        if (op.kind !== 'return' || !['processing', 'approved'].includes(op.state)) continue;
        if (at < from || at >= to) continue;
        const key = `${dayOf(op.createdAt)} ${t.currency}`;
        const current = returns.get(key) ?? {
          day: dayOf(op.createdAt),
          currency: t.currency,
          count: 0,
          sum: 0n,
        };
        returns.set(key, {
          ...current,
          count: current.count + 1,
          sum: current.sum + minor(op.amount),
        });
      }
    }
    const byDay = sumBy(inWindow, (t) => `${dayOf(t.createdAt)} ${t.currency}`);
    return {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      volumes: [...sumBy(inWindow, (t) => t.currency)]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, v]) => ({
          currency,
          count: v.count,
          approvedCount: v.approvedCount,
          capturedAmount: fromMinor(v.approved),
        })),
      approvalRate: final === 0 ? null : (byStatus.approved ?? 0) / final,
      byStatus,
      returnsByDay: [...returns.values()]
        .map((r) => ({
          day: r.day,
          currency: r.currency,
          count: r.count,
          amount: fromMinor(r.sum),
        }))
        .sort((a, b) => `${a.day} ${a.currency}`.localeCompare(`${b.day} ${b.currency}`)),
      volumeByDay: [...byDay]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, v]) => ({
          day: key.slice(0, 10),
          currency: key.slice(11),
          count: v.count,
          approvedCount: v.approvedCount,
          capturedAmount: fromMinor(v.approved),
        })),
      attention: {
        unknown: all.filter((t) => t.status === 'unknown').length,
        drift: all.filter((t) => t.drift).length,
        cap: 1000,
      },
    };
  }
}
