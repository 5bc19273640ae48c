// The home screen's route of the fake BFF: `GET /api/stats`, computed from the fake transactions
// with the BFF's rules (orders counted by creation time, approval rate over their final statuses;
// money by when it was taken: a sale or rebill on approval, a preauth on its capture; returns by
// the return's own time; attention counts over every order), every reply validated.
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
import {
  hasUnknownOutcome,
  type ErrorReply,
  type FakePayments,
  type PaymentsReply,
  type PaymentsRequest,
} from './fake-payments';

const READERS: readonly Role[] = ['support', 'finance', 'ops', 'auditor'];
const DAY = 86_400_000;
const FINAL = ['approved', 'declined', 'error', 'filtered'];

const minor = (amount: string | null) => (amount === null ? 0n : (toMinor(amount) ?? 0n));

/** Operation states of a capture or return that moved money (as the BFF counts them). */
const MOVED = ['processing', 'approved'];

/** Orders created, approved, and the money taken, of one currency (and day). */
interface Figures {
  count: number;
  approvedCount: number;
  captured: bigint;
}

function addTo(groups: Map<string, Figures>, key: string, figures: Partial<Figures>): void {
  const now = groups.get(key) ?? { count: 0, approvedCount: 0, captured: 0n };
  groups.set(key, {
    count: now.count + (figures.count ?? 0),
    approvedCount: now.approvedCount + (figures.approvedCount ?? 0),
    captured: now.captured + (figures.captured ?? 0n),
  });
}

/**
 * The money an order took from customers, with when it was taken: an approved sale or rebill its
 * captured amount on approval (its creation), a preauth its captured amount on its capture; none
 * for a voided order or one that moves no money in.
 */
function moneyTaken(t: TransactionDetail): { at: string; minor: bigint }[] {
  if (t.status !== 'approved' || t.stage === 'voided') return [];
  const captured = minor(t.amounts.captured);
  if (t.type === 'sale' || t.type === 'rebill') return [{ at: t.createdAt, minor: captured }];
  if (t.type !== 'preauth') return [];
  return t.operations
    .filter((op) => op.kind === 'capture' && MOVED.includes(op.state))
    .map((op) => ({ at: op.createdAt, minor: captured }));
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
    const within = (iso: string) => {
      const at = Date.parse(iso);
      return at >= from && at < to;
    };
    // Orders the gateway never created are in no figure.
    const created = all.filter((t) => t.stage !== 'not_created');
    // Counted: the customers' orders placed in the window (payouts and payout checks are money out).
    const inWindow = created.filter(
      (t) => within(t.createdAt) && t.type !== 'payout' && t.type !== 'payout-check',
    );
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
        if (op.kind !== 'return' || !MOVED.includes(op.state)) continue;
        if (!within(op.createdAt)) continue;
        // A return on a hold never captured cancels it: no money had come in, none goes back.
        if (t.type === 'preauth' && minor(t.amounts.captured) === 0n) continue;
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
    const currencies = new Map<string, Figures>();
    const days = new Map<string, Figures>();
    for (const t of inWindow) {
      const order = { count: 1, approvedCount: t.status === 'approved' ? 1 : 0 };
      addTo(currencies, t.currency, order);
      addTo(days, `${dayOf(t.createdAt)} ${t.currency}`, order);
    }
    for (const t of created) {
      for (const taken of moneyTaken(t)) {
        if (!within(taken.at) || taken.minor === 0n) continue;
        addTo(currencies, t.currency, { captured: taken.minor });
        addTo(days, `${dayOf(taken.at)} ${t.currency}`, { captured: taken.minor });
      }
    }
    const volume = (v: Figures) => ({
      count: v.count,
      approvedCount: v.approvedCount,
      capturedAmount: fromMinor(v.captured),
    });
    return {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      volumes: [...currencies]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, v]) => ({ currency, ...volume(v) })),
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
      volumeByDay: [...days]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, v]) => ({ day: key.slice(0, 10), currency: key.slice(11), ...volume(v) })),
      attention: {
        unknown: all.filter(hasUnknownOutcome).length,
        drift: all.filter((t) => t.drift).length,
        cap: 1000,
      },
    };
  }
}
