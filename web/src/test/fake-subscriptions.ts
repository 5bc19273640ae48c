// The subscriptions routes of the fake BFF: keyset-paginated list, detail with its charges, and
// create from a card reference (refused with INVALID_STATE naming MERCHANT_RSA_KEY_FILE while
// `rsaKeyConfigured` is false, as the BFF does). Every reply validated with the shared schemas.
import {
  SubscriptionCreateBodySchema,
  SubscriptionDetailSchema,
  SubscriptionListQuerySchema,
  SubscriptionPageSchema,
  SubscriptionResultSchema,
  type Role,
  type SubscriptionCreateBody,
  type SubscriptionDetail,
  type TransactionSummary,
  type User,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { fromMinor, toMinor } from '../lib/money';
import { KeyedReplies } from './fake-cards';
import {
  makeTransaction,
  type ErrorReply,
  type PaymentsReply,
  type PaymentsRequest,
} from './fake-payments';
import type { LargeAmountCheck } from './fake-large-amount';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (offsetMinutes: number) => new Date(T0 + offsetMinutes * 60_000).toISOString();

/** A charge of a plan as the list of transactions shows it. */
export function makeCharge(
  n: number,
  overrides: Partial<TransactionSummary> = {},
): TransactionSummary {
  const {
    amounts: _a,
    customer: _c,
    cardRefId: _r,
    allowedActions: _x,
    driftDetails: _d,
    lastCheckedAt: _l,
    operations: _o,
    timeline: _t,
    ...summary
  } = makeTransaction(n, { type: 'rebill', clientOrderId: `rp-${n}-1` });
  return { ...summary, ...overrides };
}

export function makeSubscription(
  n: number,
  overrides: Partial<SubscriptionDetail> = {},
): SubscriptionDetail {
  return SubscriptionDetailSchema.parse({
    id: `20000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    endpointId: '1001',
    clientOrderId: `rp-${n}`,
    recurringPaymentId: String(3000 + n),
    cardRefId: `card-ref-${n}`,
    amount: `${n}.99`,
    currency: 'EUR',
    orderDesc: `Monthly plan ${n}`,
    email: `subscriber${n}@example.com`,
    state: 'active',
    schedule: {
      period: 'month',
      interval: 1,
      start: iso(n),
      maxPayments: 12,
      paymentsMade: 1,
      nextChargeAt: '2026-12-20T09:00:00.000Z',
    },
    createdBy: 'fin@example.com',
    createdAt: iso(n),
    updatedAt: iso(n),
    startDate: null,
    errorCode: null,
    errorMessage: null,
    unanswered: null,
    charges: [],
    ...overrides,
  });
}

const READERS: readonly Role[] = ['support', 'finance', 'ops', 'auditor'];

export class FakeSubscriptions {
  subscriptions: SubscriptionDetail[];
  /** whether the merchant RSA key (MERCHANT_RSA_KEY_FILE) is configured */
  rsaKeyConfigured = true;
  private keyed: KeyedReplies;
  private seq = 100;

  /**
   * The BFF's amount rules: the per-order limit, then the large-amount confirmation (set by
   * FakeBff from its session settings).
   */
  largeAmount: LargeAmountCheck = () => null;
  /**
   * The BFF's card reference rules (FakeCards.cardRefRefusal, set by FakeBff): the reference's
   * own endpoint and the currencies it takes.
   */
  cardRefRefusal: (body: SubscriptionCreateBody) => PaymentsReply | null = () => null;
  constructor(
    subscriptions: SubscriptionDetail[],
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
  ) {
    this.subscriptions = subscriptions;
    this.keyed = new KeyedReplies(error);
  }

  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    const { method, path } = request;
    if (!path.startsWith('/api/subscriptions')) return null;
    if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
    const allowed = (roles: readonly Role[]) => roles.some((role) => user.roles.includes(role));
    if (method === 'GET') {
      if (!allowed(READERS)) return this.error(403, 'FORBIDDEN', 'not allowed');
      if (path === '/api/subscriptions') return this.list(request);
      const id = decodeURIComponent(path.slice('/api/subscriptions/'.length));
      if (!/^[0-9a-f-]{36}$/.test(id)) {
        return this.error(
          400,
          'VALIDATION_FAILED',
          'params.id: must be a subscription id (a UUID)',
          {
            fields: [
              { path: 'params.id', rule: 'format', message: 'must be a subscription id (a UUID)' },
            ],
          },
        );
      }
      const found = this.subscriptions.find((s) => s.id === id);
      return found
        ? { status: 200, body: SubscriptionDetailSchema.parse(found) }
        : this.error(404, 'NOT_FOUND', 'no such subscription');
    }
    if (method !== 'POST' || path !== '/api/subscriptions')
      return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (!allowed(['finance'])) return this.error(403, 'FORBIDDEN', 'not allowed');
    const parsed = SubscriptionCreateBodySchema.safeParse(request.body ?? {});
    if (!parsed.success) return this.validation(parsed.error.issues);
    if (!this.rsaKeyConfigured) {
      return this.error(
        409,
        'INVALID_STATE',
        'Subscriptions use the v4 create-recurring-payment request, signed with RSA-SHA256: configure the merchant RSA key (MERCHANT_RSA_KEY_FILE) first. Nothing was sent.',
        { reason: 'MERCHANT_RSA_KEY_FILE is not configured', setting: 'MERCHANT_RSA_KEY_FILE' },
      );
    }
    const body = parsed.data;
    const large = this.largeAmount(body);
    if (large) return large;
    const refused = this.cardRefRefusal(body);
    if (refused) return refused;
    return this.keyed.run(request, user, () => {
      const n = ++this.seq;
      const subscription = makeSubscription(n, {
        cardRefId: body.cardRefId,
        amount: fromMinor(toMinor(body.amount) ?? 0n),
        currency: body.currency,
        orderDesc: body.orderDesc,
        email: body.email,
        startDate: body.startDate ?? null,
        schedule: {
          period: body.period,
          interval: body.interval,
          // as the BFF: the start date's midnight UTC, else now (the first charge is made at once)
          start:
            body.startDate === undefined
              ? new Date().toISOString()
              : `${body.startDate}T00:00:00.000Z`,
          maxPayments: body.maxPayments ?? null,
          paymentsMade: 0,
          nextChargeAt: iso(600 + n),
        },
        createdBy: user.email,
        createdAt: iso(600 + n),
        updatedAt: iso(600 + n),
      });
      this.subscriptions = [...this.subscriptions, subscription];
      return {
        status: 200,
        body: SubscriptionResultSchema.parse({
          subscription,
          message: 'Subscription created; the gateway charges it on schedule.',
        }),
      };
    });
  }

  private list(request: PaymentsRequest): PaymentsReply {
    const parsed = SubscriptionListQuerySchema.safeParse(Object.fromEntries(request.query));
    if (!parsed.success) return this.validation(parsed.error.issues);
    const { q, cursor, limit } = parsed.data;
    const sorted = [...this.subscriptions]
      .filter((s) => q === undefined || s.recurringPaymentId === q || s.clientOrderId === q)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    const start = cursor === undefined ? 0 : Number(cursor);
    const page = sorted.slice(start, start + limit);
    const next = start + limit < sorted.length ? String(start + limit) : null;
    return {
      status: 200,
      body: SubscriptionPageSchema.parse({
        items: page.map(
          ({ startDate: _s, errorCode: _e, errorMessage: _m, unanswered: _u, charges: _c, ...s }) =>
            s,
        ),
        nextCursor: next,
      }),
    };
  }
}
