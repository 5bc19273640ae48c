// The payouts routes of the fake BFF: list (views), prepare, approve, reject, with the four-eyes
// rule, Idempotency-Key replay, and every reply validated with the shared schemas.
import {
  IDEMPOTENCY_KEY_HEADER,
  PayoutCreateBodySchema,
  PayoutDetailSchema,
  PayoutListQuerySchema,
  PayoutListSchema,
  PayoutRejectBodySchema,
  PayoutResultSchema,
  PayoutSchema,
  type Payout,
  type PayoutChangeEvent,
  type PayoutDestination,
  type PayoutEvent,
  type PayoutOrder,
  type PayoutRepeatCandidate,
  type Role,
  type User,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { fromMinor, toMinor } from '../lib/money';
import type { ErrorReply, PaymentsReply, PaymentsRequest } from './fake-payments';
import type { LargeAmountCheck } from './fake-large-amount';
import { fakePage } from './fake-pages';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (offsetMinutes: number) => new Date(T0 + offsetMinutes * 60_000).toISOString();

/**
 * As the BFF's `mayPayAgain`: a checked payout judged not applied after its payment was sent, its
 * check not lapsed (now: the real clock; tests give such a payout a future `expiresAt`).
 */
function payAgainPossible(payout: Payout): boolean {
  return (
    payout.mode === 'two-step' &&
    payout.state === 'failed' &&
    payout.errorCode === 'NOT_APPLIED' &&
    payout.decidedBy !== null &&
    payout.expiresAt !== null &&
    Date.parse(payout.expiresAt) > Date.now()
  );
}

export function makePayout(n: number, overrides: Partial<Payout> = {}): Payout {
  return PayoutSchema.parse({
    id: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    mode: 'two-step',
    state: 'pending_approval',
    endpointId: '2001',
    clientOrderId: `payout-${n}`,
    orderid: String(700000 + n),
    amount: `${100 + n}.00`,
    currency: 'EUR',
    orderDesc: `Seller settlement ${n}`,
    destination: { kind: 'card', masked: '411111******1111', label: 'JANE DOE' },
    preparedBy: { id: 'u-otto', email: 'otto@example.com' },
    decidedBy: null,
    decidedAt: null,
    rejectReason: null,
    expiresAt: iso(24 * 60 + n),
    errorCode: null,
    errorMessage: null,
    unanswered: null,
    canDecide: false,
    createdAt: iso(n),
    updatedAt: iso(n),
    ...overrides,
  });
}

function mask(destination: PayoutDestination): Payout['destination'] {
  switch (destination.kind) {
    case 'card':
      return {
        kind: 'card',
        masked: `${destination.cardNumber.slice(0, 6)}******${destination.cardNumber.slice(-4)}`,
        label: destination.cardholderName,
      };
    case 'bank':
      return {
        kind: 'bank',
        masked: `******${destination.accountNumber.slice(-4)}`,
        label: `${destination.bankName} ${destination.bankBic}`,
      };
    case 'ewallet':
      return {
        kind: 'ewallet',
        masked: `${destination.ewalletType} ****${destination.ewalletId.slice(-5)}`,
        label: destination.ewalletType,
      };
    case 'phone':
      return {
        kind: 'phone',
        masked: `****${destination.phone.slice(-4)}`,
        label: destination.fpsBankId,
      };
  }
}

export class FakePayouts {
  payouts: Payout[];
  /** each payout's timeline as the BFF keeps it; prepared entries are made up for seeded payouts */
  readonly events = new Map<string, PayoutEvent[]>();
  /** what the gateway shows when a payout's status is asked ("Check payment status"); none: still open */
  readonly gatewayShows = new Map<string, Payout['state']>();
  private keys = new Map<string, { hash: string; reply: PaymentsReply }>();
  private seq = 100;

  /**
   * The BFF's amount rules: the per-order limit, then the large-amount confirmation (set by
   * FakeBff from its session settings).
   */
  largeAmount: LargeAmountCheck = () => null;
  constructor(
    payouts: Payout[],
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
  ) {
    this.payouts = payouts;
  }

  /** The payouts whose orderid or client_orderid `term` is, as the BFF names them to a search. */
  ordersNamed(term: string): PayoutOrder[] {
    return this.payouts
      .filter((p) => p.orderid === term || p.clientOrderId === term)
      .map((p) => ({
        id: p.id,
        state: p.state,
        amount: p.amount,
        currency: p.currency,
        endpointId: p.endpointId,
        orderid: p.orderid,
        clientOrderId: p.clientOrderId,
      }));
  }

  /** Changes a payout as another ops user or the gateway would; returns the event the BFF streams. */
  change(id: string, patch: Partial<Payout>): PayoutChangeEvent {
    const index = this.payouts.findIndex((p) => p.id === id);
    const current = this.payouts[index];
    if (!current) throw new Error(`no payout ${id}`);
    const next = PayoutSchema.parse({ ...current, ...patch, updatedAt: iso(500) });
    this.payouts[index] = next;
    return {
      type: 'payout.updated',
      payoutId: next.id,
      state: next.state,
      orderid: next.orderid,
      at: next.updatedAt,
    };
  }

  private view(payout: Payout, user: User): Payout {
    const canDecide =
      user.roles.includes('ops') &&
      payout.state === 'pending_approval' &&
      payout.preparedBy.id !== user.id;
    // As the BFF: paid again by an ops user other than its preparer, while its check holds.
    const canPayAgain =
      user.roles.includes('ops') && payout.preparedBy.id !== user.id && payAgainPossible(payout);
    // As the BFF: a card's holder and expiry (its label) are for ops users only.
    const destination =
      payout.destination.kind === 'card' && !user.roles.includes('ops')
        ? { ...payout.destination, label: null }
        : payout.destination;
    return PayoutSchema.parse({ ...payout, canDecide, canPayAgain, destination });
  }

  private timeline(payout: Payout): PayoutEvent[] {
    return (
      this.events.get(payout.id) ?? [
        {
          at: payout.createdAt,
          kind: 'staff',
          title: "payout prepared; payee's details sent to the gateway for checking",
          actor: payout.preparedBy.email,
          data: { mode: payout.mode },
        },
      ]
    );
  }

  /**
   * As the BFF, on a payout paid after a not-applied verdict only: the payouts of the same amount
   * and currency to the same destination (here: its masked form) prepared within 7 days after it,
   * oldest first, at most 10.
   */
  private repeatCandidates(payout: Payout): PayoutRepeatCandidate[] {
    if (payout.errorCode !== 'PAID_AFTER_NOT_APPLIED') return [];
    const from = Date.parse(payout.createdAt);
    return this.payouts
      .filter(
        (p) =>
          p.id !== payout.id &&
          p.destination.kind === payout.destination.kind &&
          p.destination.masked === payout.destination.masked &&
          p.amount === payout.amount &&
          p.currency === payout.currency &&
          Date.parse(p.createdAt) >= from &&
          Date.parse(p.createdAt) <= from + 7 * 86_400_000,
      )
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
      .slice(0, 10)
      .map((p) => ({
        id: p.id,
        state: p.state,
        orderid: p.orderid,
        preparedBy: p.preparedBy,
        decidedBy: p.decidedBy,
        createdAt: p.createdAt,
      }));
  }

  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    const { method, path } = request;
    if (!path.startsWith('/api/payouts')) return null;
    if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
    const allowed = (roles: readonly Role[]) => roles.some((role) => user.roles.includes(role));
    const detail = /^\/api\/payouts\/([^/]+)$/.exec(path);
    if (detail && method === 'GET') {
      if (!allowed(['support', 'finance', 'ops', 'auditor']))
        return this.error(403, 'FORBIDDEN', 'no');
      const payout = this.payouts.find((p) => p.id === detail[1]);
      if (!payout) return this.error(404, 'NOT_FOUND', 'no such payout');
      return {
        status: 200,
        body: PayoutDetailSchema.parse({
          ...this.view(payout, user),
          events: this.timeline(payout),
          repeatCandidates: this.repeatCandidates(payout),
        }),
      };
    }
    if (path === '/api/payouts' && method === 'GET') {
      if (!allowed(['support', 'finance', 'ops', 'auditor']))
        return this.error(403, 'FORBIDDEN', 'no');
      const parsed = PayoutListQuerySchema.safeParse(Object.fromEntries(request.query));
      if (!parsed.success) return this.validation(parsed.error.issues);
      const { view, state, paidLate, decidedFrom } = parsed.data;
      const page = fakePage(
        this.payouts
          .filter((p) => state === undefined || p.state === state)
          .filter((p) => paidLate === undefined || p.errorCode === 'PAID_AFTER_NOT_APPLIED')
          .filter(
            (p) =>
              decidedFrom === undefined ||
              (p.decidedAt !== null && Date.parse(p.decidedAt) >= Date.parse(decidedFrom)),
          )
          .filter((p) => view !== 'mine' || p.preparedBy.id === user.id)
          .filter(
            (p) =>
              view !== 'awaiting-my-approval' ||
              ((p.state === 'pending_approval' || payAgainPossible(p)) &&
                p.preparedBy.id !== user.id),
          ),
        parsed.data,
      );
      if (page === null) return this.error(400, 'VALIDATION_FAILED', 'query.cursor: not a cursor');
      const items = page.items.map((p) => this.view(p, user));
      return {
        status: 200,
        body: PayoutListSchema.parse({ items, nextCursor: page.nextCursor }),
      };
    }
    const refresh = /^\/api\/payouts\/([^/]+)\/refresh$/.exec(path);
    if (refresh && method === 'POST') {
      // As the BFF: a status check moves no money (no Idempotency-Key); auditors read only.
      if (!allowed(['support', 'finance', 'ops'])) return this.error(403, 'FORBIDDEN', 'no');
      return this.refresh(decodeURIComponent(refresh[1] ?? ''), user);
    }
    if (method !== 'POST') return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (!allowed(['ops'])) return this.error(403, 'FORBIDDEN', 'not allowed');
    const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
    if (key === null || key.length < 8) {
      return this.error(400, 'IDEMPOTENCY_KEY_MISSING', 'send an Idempotency-Key header');
    }
    const hash = `${path} ${JSON.stringify(request.body)}`;
    const stored = this.keys.get(`${user.id} ${key}`);
    if (stored) {
      return stored.hash === hash
        ? stored.reply
        : this.error(422, 'IDEMPOTENCY_KEY_REUSED', 'key used for a different request');
    }
    const reply = this.decide(request, user);
    this.keys.set(`${user.id} ${key}`, { hash, reply });
    return reply;
  }

  /**
   * As the BFF: `status` now for a payout whose outcome is open, or whose approval was sent and
   * judged not applied (the gateway may pay it late), the answer applied.
   */
  private refresh(id: string, user: User): PaymentsReply {
    const payout = this.payouts.find((p) => p.id === id);
    if (!payout) return this.error(404, 'NOT_FOUND', 'no such payout');
    const paidLatePossible =
      payout.state === 'failed' && payout.errorCode === 'NOT_APPLIED' && payout.decidedBy !== null;
    if (!['checking', 'processing', 'unknown'].includes(payout.state) && !paidLatePossible) {
      return this.error(
        409,
        'INVALID_STATE',
        `The payout is ${payout.state}: its outcome is not open.`,
      );
    }
    const shown = this.gatewayShows.get(id);
    if (shown !== undefined) this.change(id, { state: shown });
    const next = this.payouts.find((p) => p.id === id) ?? payout;
    this.events.set(id, [
      ...this.timeline(payout),
      {
        at: iso(950),
        kind: 'staff',
        title: `status check by ${user.email}`,
        actor: user.email,
        data: {},
      },
    ]);
    return {
      status: 200,
      body: PayoutResultSchema.parse({
        payout: this.view(next, user),
        message:
          shown === undefined
            ? `The gateway does not show a final outcome yet (the payout is ${next.state}). Check again later.`
            : `The gateway shows the payout ${shown}.`,
      }),
    };
  }

  /**
   * As the BFF: pays again a payout whose payment the gateway did not make, on its checked order;
   * first asks the gateway (`gatewayShows`): paid after all, nothing is sent (409).
   */
  private payAgain(id: string, user: User): PaymentsReply {
    const payout = this.payouts.find((p) => p.id === id);
    if (!payout) return this.error(404, 'NOT_FOUND', 'no such payout');
    if (payout.preparedBy.id === user.id) {
      return this.error(
        403,
        'FOUR_EYES_REQUIRED',
        'Every payout needs two people: an ops user other than the one who prepared it must pay it again.',
      );
    }
    if (!payAgainPossible(payout)) {
      return this.error(
        409,
        'INVALID_STATE',
        `The payout is ${payout.state}: it cannot be paid again.`,
      );
    }
    const shown = this.gatewayShows.get(id);
    if (shown !== undefined) {
      this.change(id, { state: shown, errorCode: 'PAID_AFTER_NOT_APPLIED' });
      return this.error(
        409,
        'INVALID_STATE',
        `The gateway made the first payment after all (the payout is ${shown}): nothing was sent again.`,
      );
    }
    const next: Payout = {
      ...payout,
      state: 'processing',
      errorCode: null,
      errorMessage: null,
      decidedBy: { id: user.id, email: user.email },
      decidedAt: iso(960),
      paidAgain:
        payout.paidAgain ??
        (payout.decidedBy === null || payout.decidedAt === null
          ? null
          : {
              firstApprovedBy: { email: payout.decidedBy.email },
              firstApprovedAt: payout.decidedAt,
            }),
      updatedAt: iso(960),
    };
    this.payouts = this.payouts.map((p) => (p.id === id ? next : p));
    this.events.set(id, [
      ...this.timeline(payout),
      {
        at: iso(960),
        kind: 'staff',
        title: `Paid again by ${user.email}: the gateway had not made the first payment`,
        actor: user.email,
        data: {},
      },
    ]);
    return {
      status: 200,
      body: PayoutResultSchema.parse({
        payout: this.view(next, user),
        message:
          'Paid again on the same checked payout. The gateway accepted the payment of the checked payout; Paydesk follows it until it is paid or declined.',
      }),
    };
  }

  private decide(request: PaymentsRequest, user: User): PaymentsReply {
    const { path } = request;
    if (path === '/api/payouts') {
      const parsed = PayoutCreateBodySchema.safeParse(request.body);
      if (!parsed.success) return this.validation(parsed.error.issues);
      const body = parsed.data;
      const large = this.largeAmount(body);
      if (large) return large;
      const n = ++this.seq;
      const payout = makePayout(n, {
        mode: body.mode,
        amount: fromMinor(toMinor(body.amount) ?? 0n),
        currency: body.currency,
        orderDesc: body.orderDesc,
        destination: mask(body.destination),
        preparedBy: { id: user.id, email: user.email },
        // As the BFF's default hold age (7 days) for a held single payout.
        ...(body.mode === 'single' ? { expiresAt: iso(600 + n + 7 * 24 * 60) } : {}),
        createdAt: iso(600 + n),
        updatedAt: iso(600 + n),
      });
      // As the BFF's `similarOf`: the others waiting of the same amount to the same destination
      // (here: its masked form), oldest first.
      payout.similarPending = this.payouts
        .filter(
          (p) =>
            p.state === 'pending_approval' &&
            p.destination.kind === payout.destination.kind &&
            p.destination.masked === payout.destination.masked &&
            p.amount === payout.amount &&
            p.currency === payout.currency,
        )
        .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
        .map((p) => p.id)
        .slice(0, 10);
      // As the BFF's `similarOf` too: those judged not applied after their payment was sent,
      // prepared in the 7 days before it, which the gateway may still pay late, oldest first.
      payout.similarNotApplied = this.payouts
        .filter(
          (p) =>
            p.state === 'failed' &&
            p.errorCode === 'NOT_APPLIED' &&
            p.decidedBy !== null &&
            Date.parse(p.createdAt) >= Date.parse(payout.createdAt) - 7 * 86_400_000 &&
            p.destination.kind === payout.destination.kind &&
            p.destination.masked === payout.destination.masked &&
            p.amount === payout.amount &&
            p.currency === payout.currency,
        )
        .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
        .map((p) => p.id)
        .slice(0, 10);
      this.payouts = [...this.payouts, payout];
      // As the BFF's `paidLateWarning` (its first sentence).
      const late = payout.similarNotApplied;
      const caution =
        late.length === 0
          ? ''
          : ` Caution: ${late.length === 1 ? 'payout' : 'payouts'} ${late.join(', ')} of the same amount to the same destination ${late.length === 1 ? 'was' : 'were'} judged not applied, and the gateway may still pay late: check ${late.length === 1 ? 'its' : 'their'} status before this one is approved, or it may be paid twice.`;
      return {
        status: 200,
        body: PayoutResultSchema.parse({
          payout: this.view(payout, user),
          message:
            body.mode === 'single'
              ? `The payout is held until a second ops user approves it; it lapses at ${String(payout.expiresAt)} if not approved. Nothing was sent yet.${caution}`
              : `Payout checked; it waits for a second ops user.${caution}`,
        }),
      };
    }
    const again = /^\/api\/payouts\/([^/]+)\/pay-again$/.exec(path);
    if (again) return this.payAgain(decodeURIComponent(again[1] ?? ''), user);
    const match = /^\/api\/payouts\/([^/]+)\/(approve|reject)$/.exec(path);
    const payout = this.payouts.find((p) => p.id === match?.[1]);
    if (!match || !payout) return this.error(404, 'NOT_FOUND', 'no such payout');
    // As the BFF: the preparer may withdraw (reject) their own payout, never approve it.
    if (payout.preparedBy.id === user.id && match[2] === 'approve') {
      return this.error(403, 'FOUR_EYES_REQUIRED', 'another ops user must approve this payout');
    }
    if (payout.state !== 'pending_approval') {
      return this.error(409, 'INVALID_STATE', `the payout is ${payout.state}`);
    }
    let next: Payout;
    // As the BFF: the preparer's reject is a withdrawal (still `rejected`).
    const withdrawal = match[2] === 'reject' && payout.preparedBy.id === user.id;
    if (match[2] === 'reject') {
      const parsed = PayoutRejectBodySchema.safeParse(request.body);
      if (!parsed.success) return this.validation(parsed.error.issues);
      next = {
        ...payout,
        state: 'rejected',
        rejectReason: parsed.data.reason,
        withdrawn: withdrawal,
      };
    } else {
      next = { ...payout, state: 'approved' };
    }
    next = {
      ...next,
      decidedBy: { id: user.id, email: user.email },
      decidedAt: iso(900),
      updatedAt: iso(900),
    };
    this.payouts = this.payouts.map((p) => (p.id === next.id ? next : p));
    this.events.set(next.id, [
      ...this.timeline(payout),
      {
        at: iso(900),
        kind: 'staff',
        title: withdrawal
          ? 'payout withdrawn by its preparer'
          : match[2] === 'reject'
            ? 'payout rejected'
            : 'payout approved',
        actor: user.email,
        data: match[2] === 'reject' ? { reason: next.rejectReason } : {},
      },
    ]);
    return {
      status: 200,
      body: PayoutResultSchema.parse({
        payout: this.view(next, user),
        message: withdrawal
          ? 'You withdrew the payout; nothing was paid.'
          : match[2] === 'reject'
            ? 'Payout rejected; nothing was sent.'
            : 'Payout approved and paid.',
      }),
    };
  }
}
