// The cards routes of the fake BFF: card info by card reference (reason required) and rebills of a
// stored card, which add a new rebill order to the fake payments. Idempotency-Key replay and reuse
// as the BFF does them; every reply validated with the shared schemas.
import {
  CardInfoBodySchema,
  CardInfoSchema,
  CardRefListQuerySchema,
  CardRefListSchema,
  IDEMPOTENCY_KEY_HEADER,
  OperationResultSchema,
  RebillBodySchema,
  type CardInfo,
  type CardRefSummary,
  type EndpointChoice,
  type Role,
  type User,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { fromMinor, toMinor } from '../lib/money';
import {
  makeTransaction,
  type ErrorReply,
  type FakePayments,
  type PaymentsReply,
  type PaymentsRequest,
} from './fake-payments';
import type { LargeAmountCheck } from './fake-large-amount';

/** The replies stored per (user, Idempotency-Key), bound to the request they first came with. */
export class KeyedReplies {
  private keys = new Map<string, { hash: string; reply: PaymentsReply }>();

  constructor(private readonly error: ErrorReply) {}

  run(request: PaymentsRequest, user: User, work: () => PaymentsReply): PaymentsReply {
    const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
    if (key === null || key.length < 8) {
      return this.error(400, 'IDEMPOTENCY_KEY_MISSING', 'send an Idempotency-Key header');
    }
    const hash = `${request.path} ${JSON.stringify(request.body)}`;
    const stored = this.keys.get(`${user.id} ${key}`);
    if (stored) {
      return stored.hash === hash
        ? stored.reply
        : this.error(422, 'IDEMPOTENCY_KEY_REUSED', 'key used for a different request');
    }
    const reply = work();
    this.keys.set(`${user.id} ${key}`, { hash, reply });
    return reply;
  }
}

export function makeCardInfo(cardRefId: string, overrides: Partial<CardInfo> = {}): CardInfo {
  return CardInfoSchema.parse({
    cardRefId,
    bin: '411111',
    brand: 'VISA',
    maskedNumber: '411111******1111',
    expiryMonth: '12',
    expiryYear: '2028',
    ...overrides,
  });
}

export class FakeCards {
  /** card reference ids the fake gateway knows */
  cards: Map<string, CardInfo>;
  private keyed: KeyedReplies;
  private seq = 500;

  /**
   * The BFF's amount rules: the per-order limit, then the large-amount confirmation (set by
   * FakeBff from its session settings).
   */
  largeAmount: LargeAmountCheck = () => null;
  /** The configured endpoints and groups (set by FakeBff from its session settings). */
  endpoints: () => EndpointChoice[] | undefined = () => undefined;
  constructor(
    cards: CardInfo[],
    private readonly payments: FakePayments,
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
  ) {
    this.cards = new Map(cards.map((c) => [c.cardRefId, c]));
    this.keyed = new KeyedReplies(error);
  }

  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    const { method, path } = request;
    const info = /^\/api\/cards\/([^/]+)\/info$/.exec(path);
    if (!info && path !== '/api/rebills' && path !== '/api/cards') return null;
    if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
    const allowed = (roles: readonly Role[]) => roles.some((role) => user.roles.includes(role));
    if (path === '/api/cards' && method === 'GET') {
      if (!allowed(['support', 'finance'])) return this.error(403, 'FORBIDDEN', 'not allowed');
      const parsed = CardRefListQuerySchema.safeParse(Object.fromEntries(request.query));
      if (!parsed.success) return this.validation(parsed.error.issues);
      return {
        status: 200,
        body: CardRefListSchema.parse({ items: this.list(parsed.data.limit) }),
      };
    }
    if (method !== 'POST') return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (info?.[1] !== undefined) {
      if (!allowed(['support', 'finance'])) return this.error(403, 'FORBIDDEN', 'not allowed');
      const parsed = CardInfoBodySchema.safeParse(request.body ?? {});
      if (!parsed.success) return this.validation(parsed.error.issues);
      const card = this.cards.get(decodeURIComponent(info[1]));
      if (!card) {
        // As the BFF answers it (payouts/card-info.ts).
        return this.error(
          404,
          'NOT_FOUND',
          `No card is stored under reference ${decodeURIComponent(info[1])} at the gateway. Check the reference, or pick one from the list below.`,
          { gatewayHttpStatus: 404, gatewayErrorCode: 'NOT_FOUND' },
        );
      }
      return { status: 200, body: CardInfoSchema.parse(card) };
    }
    if (!allowed(['finance'])) return this.error(403, 'FORBIDDEN', 'not allowed');
    return this.keyed.run(request, user, () => this.rebill(request, user));
  }

  /** As the BFF lists them: every reference some order carries, with its first order. */
  private list(limit: number): CardRefSummary[] {
    const byRef = new Map<string, CardRefSummary>();
    const orders = [...this.payments.transactions].sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : 1,
    );
    for (const t of orders) {
      if (t.cardRefId === null) continue;
      const known = byRef.get(t.cardRefId);
      byRef.set(t.cardRefId, {
        cardRefId: t.cardRefId,
        card: known?.card ?? t.card,
        source: known?.source ?? { transactionId: t.id, orderid: t.orderid, type: t.type },
        endpointId: known?.endpointId ?? t.endpointId,
        currency: known?.currency ?? t.currency,
        orders: (known?.orders ?? 0) + 1,
        // the card's last charge: its latest order's creation, not the last change to an order
        lastUsedAt: t.createdAt,
      });
    }
    return [...byRef.values()]
      .sort((a, b) => (a.lastUsedAt < b.lastUsedAt ? 1 : -1))
      .slice(0, limit);
  }

  /**
   * As the BFF (payments/card-refs.ts, rebills.ts, subscriptions.ts): a rebill or a subscription
   * without an endpoint goes to the one its reference was made on, and is refused when that
   * endpoint does not take the currency; a reference named on another configured plain endpoint
   * is refused (groups are not checked). FakeSubscriptions asks it too (set by FakeBff).
   */
  cardRefRefusal(body: {
    cardRefId: string;
    currency: string;
    endpointId?: string | undefined;
  }): PaymentsReply | null {
    const endpoints = this.endpoints();
    const ref = this.list(200).find((r) => r.cardRefId === body.cardRefId);
    if (endpoints === undefined || ref === undefined) return null;
    const target = body.endpointId ?? ref.endpointId;
    const plain = endpoints.find((e) => e.kind === 'endpoint' && e.id === target);
    if (plain === undefined) return null;
    if (target !== ref.endpointId) {
      const message = `card reference ${ref.cardRefId} was made on endpoint ${ref.endpointId}, not ${target}: charge it there`;
      return this.error(400, 'VALIDATION_FAILED', `cardRefId: ${message}`, {
        fields: [{ path: 'cardRefId', rule: 'card_ref_endpoint', message }],
      });
    }
    if (plain.currencies !== null && !plain.currencies.includes(body.currency)) {
      const message = `card reference ${ref.cardRefId} was made on endpoint ${ref.endpointId}, which takes ${plain.currencies.join(', ')}, not ${body.currency}`;
      return this.error(400, 'VALIDATION_FAILED', `currency: ${message}`, {
        fields: [{ path: 'currency', rule: 'card_ref_currency', message }],
      });
    }
    return null;
  }

  private rebill(request: PaymentsRequest, user: User): PaymentsReply {
    const parsed = RebillBodySchema.safeParse(request.body ?? {});
    if (!parsed.success) return this.validation(parsed.error.issues);
    const body = parsed.data;
    const large = this.largeAmount(body);
    if (large) return large;
    const refused = this.cardRefRefusal(body);
    if (refused) return refused;
    const card = this.cards.get(body.cardRefId);
    if (!card) {
      // As the BFF answers it (payments/card-refs.ts): asked with get-card-info before the rebill.
      const message =
        'no card is stored under this reference at the gateway (endpoint 1001); check the reference, or pick one from the list of stored cards';
      return this.error(
        404,
        'NOT_FOUND',
        `cardRefId: ${message}; nothing was charged or recorded.`,
        {
          fields: [{ path: 'cardRefId', rule: 'card_ref_unknown', message }],
          gatewayHttpStatus: 404,
          gatewayErrorCode: null,
        },
      );
    }
    const n = ++this.seq;
    const amount = fromMinor(toMinor(body.amount) ?? 0n);
    const base = makeTransaction(n, {
      type: 'rebill',
      amount,
      currency: body.currency,
      clientOrderId: `rb-${n}`,
      cardRefId: body.cardRefId,
    });
    const operation = {
      id: `op-rebill-${n}`,
      kind: 'rebill' as const,
      origin: 'paydesk' as const,
      state: 'approved' as const,
      amount,
      gatewaySerial: `serial-rebill-${n}`,
      requestedBy: user.email,
      reasonCode: null,
      comment: body.reason,
      errorCode: null,
      errorMessage: null,
      unanswered: null,
      createdAt: base.createdAt,
      updatedAt: base.updatedAt,
    };
    const transaction = { ...base, operations: [operation] };
    this.payments.transactions = [...this.payments.transactions, transaction];
    return {
      status: 200,
      body: OperationResultSchema.parse({
        operation,
        transaction,
        message: `Rebill of ${amount} ${body.currency} approved by the gateway.`,
      }),
    };
  }
}
