// The payments routes of the fake BFF: transactions (list, export link, detail, lookup, refresh,
// capture, return, void, card-ref) with the real rules that matter to the screens (caps in minor
// units, Idempotency-Key replay and reuse, role checks), every reply validated with the shared
// schemas.
import {
  liveEventName,
  CaptureBodySchema,
  CardRefBodySchema,
  IDEMPOTENCY_KEY_HEADER,
  LookupBodySchema,
  LookupConflictDetailsSchema,
  LookupPayoutReplySchema,
  OperationResultSchema,
  PAYOUT_SENT_STATES,
  ReturnBodySchema,
  TransactionDetailSchema,
  TransactionListQuerySchema,
  TransactionPageSchema,
  TRANSACTION_ID_PATTERN,
  transactionSearchCard,
  VoidBodySchema,
  type ErrorCode,
  type ErrorDetails,
  type FollowUpAction,
  type Operation,
  type OperationKind,
  type PayoutOrder,
  type Role,
  type TransactionAmounts,
  type TransactionDetail,
  type LiveEvent,
  type TransactionSummary,
  type User,
} from '@paydesk/shared/api';
import { netMinor } from '@paydesk/shared/domain';
import type { z } from 'zod';
import { fromMinor, toMinor } from '../lib/money';

export interface PaymentsRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

export interface PaymentsReply {
  status: number;
  body?: unknown;
}

export type ErrorReply = (
  status: number,
  code: ErrorCode,
  message: string,
  details?: ErrorDetails,
) => PaymentsReply;

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (offsetMinutes: number) => new Date(T0 + offsetMinutes * 60_000).toISOString();

const minor = (amount: string) => toMinor(amount) ?? 0n;

/**
 * `amounts.net` as the BFF says it (`netMinor`), from the order's other facts: what it kept. The
 * fake stores every order with it, so a test that changes what was captured or returned, or the
 * stage, never shows a net the BFF would not send.
 */
export function withNet(detail: TransactionDetail): TransactionDetail {
  const net = netMinor({
    type: detail.type,
    status: detail.status,
    stage: detail.stage,
    capturedMinor: minor(detail.amounts.captured),
    returnedMinor: minor(detail.amounts.returned),
  });
  return { ...detail, amounts: { ...detail.amounts, net: net === null ? null : fromMinor(net) } };
}

/** What a test may override; its amounts may leave out `net`, which then follows (`withNet`). */
export type TransactionOverrides = Omit<Partial<TransactionDetail>, 'amounts'> & {
  amounts?: Omit<TransactionAmounts, 'net'> & Partial<Pick<TransactionAmounts, 'net'>>;
};

/** A transaction in the shape the BFF returns; `n` makes ids and order numbers distinct. */
export function makeTransaction(
  n: number,
  overrides: TransactionOverrides = {},
): TransactionDetail {
  const amount = overrides.amount ?? `${10 + n}.50`;
  const type = overrides.type ?? 'sale';
  const approved = (overrides.status ?? 'approved') === 'approved';
  const authorized = approved ? amount : '0.00';
  const captured = approved && type !== 'preauth' ? amount : '0.00';
  const base: TransactionDetail = {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    endpointId: '1001',
    orderid: String(900000 + n),
    clientOrderId: `shop-${n}`,
    type,
    status: 'approved',
    stage: null,
    currency: 'EUR',
    amount,
    card: { bin: '411111', lastFour: '1111', brand: 'VISA', masked: '411111******1111' },
    customerEmail: `customer${n}@example.com`,
    drift: false,
    createdAt: iso(n),
    updatedAt: iso(n),
    amounts: {
      amount,
      authorized,
      captured,
      returned: '0.00',
      reserved: '0.00',
      remainingReturnable: captured,
      remainingCapturable: type === 'preauth' && approved ? amount : '0.00',
      net: null, // follows from the rest (`withNet`)
    },
    customer: { email: `customer${n}@example.com`, name: `Customer ${n}` },
    cardRefId: null,
    // As the BFF: nothing captured on a preauth, nothing to return (a void releases the hold).
    allowedActions: approved
      ? type === 'preauth'
        ? ['capture', 'void', 'card-ref']
        : ['return', 'void', 'card-ref']
      : [],
    driftDetails: null,
    lastCheckedAt: null,
    operations: [
      {
        id: `op-${n}-0`,
        kind: type === 'preauth' ? 'preauth' : 'sale',
        origin: 'gateway',
        state: approved ? 'approved' : 'declined',
        amount,
        gatewaySerial: `serial-${n}`,
        requestedBy: null,
        reasonCode: null,
        comment: null,
        errorCode: null,
        errorMessage: null,
        unanswered: null,
        createdAt: iso(n),
        updatedAt: iso(n),
      },
    ],
    timeline: [
      {
        id: n * 10,
        at: iso(n),
        kind: 'callback',
        title: `callback: ${type} ${approved ? 'approved' : 'declined'}`,
        actor: null,
        data: { status: approved ? 'approved' : 'declined', 'serial-number': `serial-${n}` },
      },
    ],
  };
  const { amounts, ...rest } = overrides;
  const detail = withNet({ ...base, ...rest, amounts: { ...base.amounts, ...amounts, net: null } });
  const net = amounts?.net;
  return TransactionDetailSchema.parse(
    net === undefined ? detail : { ...detail, amounts: { ...detail.amounts, net } },
  );
}

/** The kinds of the order's operations whose outcome is unknown, once each (the list's rows). */
export function unknownOperationsOf(detail: TransactionDetail): OperationKind[] {
  return [...new Set(detail.operations.filter((o) => o.state === 'unknown').map((o) => o.kind))];
}

/** The BFF's `status=unknown`: the order's own outcome is unknown, or an operation's is. */
export function hasUnknownOutcome(detail: TransactionDetail): boolean {
  return detail.status === 'unknown' || unknownOperationsOf(detail).length > 0;
}

function summaryOf(detail: TransactionDetail): TransactionSummary {
  return {
    id: detail.id,
    endpointId: detail.endpointId,
    orderid: detail.orderid,
    clientOrderId: detail.clientOrderId,
    type: detail.type,
    status: detail.status,
    stage: detail.stage,
    currency: detail.currency,
    amount: detail.amount,
    card: detail.card,
    customerEmail: detail.customerEmail,
    drift: detail.drift,
    createdAt: detail.createdAt,
    updatedAt: detail.updatedAt,
    unknownOperations: unknownOperationsOf(detail),
  };
}

/** `q` as the BFF reads it: ids, e-mail, last four, Paydesk's id, a masked card. */
function matchesSearch(t: TransactionSummary, term: string): boolean {
  // As the BFF: a client order id and an e-mail in any case.
  if ([t.orderid, t.card?.lastFour].includes(term)) return true;
  const lower = term.toLowerCase();
  if (t.clientOrderId.toLowerCase() === lower || t.customerEmail?.toLowerCase() === lower)
    return true;
  if (TRANSACTION_ID_PATTERN.test(term) && t.id === term.toLowerCase()) return true;
  const card = transactionSearchCard(term);
  if (card === null || t.card?.lastFour !== card.last4) return false;
  return (
    card.bin === null ||
    t.card.bin === null ||
    [card.bin, card.bin.slice(0, 6)].includes(t.card.bin)
  );
}

const READERS: readonly Role[] = ['support', 'finance', 'ops', 'auditor'];
const LOOKUP: readonly Role[] = ['support', 'finance', 'ops'];
const MONEY: readonly Role[] = ['finance'];

interface StoredKey {
  hash: string;
  reply: PaymentsReply;
}

export class FakePayments {
  transactions: TransactionDetail[];
  /** count shown as `total`; the real BFF caps counting (then `totalCapped`) */
  totalCap = 10_000;
  private keys = new Map<string, StoredKey>();
  private listeners = new Set<(event: LiveEvent) => void>();
  /** the open streams, to interrupt them */
  private streams = new Set<FakeStream>();
  private opSeq = 0;

  constructor(
    transactions: TransactionDetail[],
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
    /** the payouts whose orderid or client_orderid a term is (the BFF's payouts module) */
    private readonly payoutOrders: (term: string) => PayoutOrder[] = () => [],
  ) {
    this.transactions = transactions.map(withNet);
  }

  /** Server-sent events: what `GET /api/events` streams to every open EventSource. */
  subscribe(listener: (event: LiveEvent) => void, stream?: FakeStream): () => void {
    this.listeners.add(listener);
    if (stream !== undefined) this.streams.add(stream);
    return () => {
      this.listeners.delete(listener);
      if (stream !== undefined) this.streams.delete(stream);
    };
  }

  /**
   * Drops every open event stream, runs `meanwhile` (changes nobody streams), then lets the
   * browsers reconnect: as when the connection to the BFF, or the BFF's own listener, was lost.
   */
  interruptStreams(meanwhile: () => void): void {
    const streams = [...this.streams];
    for (const stream of streams) stream.interrupt();
    meanwhile();
    for (const stream of streams) stream.resume();
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Changes a transaction as the gateway would (callback) and tells every subscriber. */
  change(id: string, patch: Partial<TransactionDetail>): void {
    const current = this.byId(id);
    if (!current) throw new Error(`no transaction ${id}`);
    const next = this.replace({ ...current, ...patch, updatedAt: iso(500) });
    this.publish({
      type: 'transaction.updated',
      transactionId: next.id,
      orderid: next.orderid,
      status: next.status,
      drift: next.drift,
      at: next.updatedAt,
    });
  }

  /** Tells every open event stream (any subject: the BFF has one stream). */
  publish(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  byId(id: string): TransactionDetail | undefined {
    return this.transactions.find((t) => t.id === id);
  }

  private replace(detail: TransactionDetail): TransactionDetail {
    const parsed = TransactionDetailSchema.parse(withNet(detail));
    this.transactions = this.transactions.map((t) => (t.id === parsed.id ? parsed : t));
    return parsed;
  }

  /** The reply, or null when the path is not a payments route. */
  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    const { method, path } = request;
    if (!path.startsWith('/api/transactions')) return null;
    const need = (roles: readonly Role[]): PaymentsReply | null => {
      if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
      if (!roles.some((role) => user.roles.includes(role)))
        return this.error(403, 'FORBIDDEN', 'not allowed');
      return null;
    };
    if (path === '/api/transactions' && method === 'GET')
      return need(READERS) ?? this.list(request);
    if (path === '/api/transactions/lookup' && method === 'POST')
      return need(LOOKUP) ?? this.lookup(request);
    const match = /^\/api\/transactions\/([^/]+)(?:\/([a-z-]+))?$/.exec(path);
    const id = match?.[1];
    if (id === undefined) return this.error(404, 'NOT_FOUND', `no route ${method} ${path}`);
    const action = match?.[2];
    if (action === undefined && method === 'GET') {
      const denied = need(READERS);
      if (denied) return denied;
      const detail = this.byId(decodeURIComponent(id));
      return detail
        ? { status: 200, body: TransactionDetailSchema.parse(detail) }
        : this.error(404, 'NOT_FOUND', 'no such transaction');
    }
    if (method !== 'POST') return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (action === 'refresh') {
      const denied = need(LOOKUP);
      if (denied) return denied;
      const detail = this.byId(decodeURIComponent(id));
      if (!detail) return this.error(404, 'NOT_FOUND', 'no such transaction');
      const fresh = this.replace({ ...detail, lastCheckedAt: iso(600) });
      return { status: 200, body: TransactionDetailSchema.parse(fresh) };
    }
    if (action === 'capture' || action === 'return' || action === 'void' || action === 'card-ref') {
      const denied = need(MONEY);
      if (denied || !user) return denied;
      return this.followUp(request, decodeURIComponent(id), action, user);
    }
    return this.error(404, 'NOT_FOUND', `no route ${method} ${path}`);
  }

  private list(request: PaymentsRequest): PaymentsReply {
    const parsed = TransactionListQuerySchema.safeParse(Object.fromEntries(request.query));
    if (!parsed.success) return this.validation(parsed.error.issues);
    const q = parsed.data;
    const rows = this.transactions
      .filter(
        (t) =>
          q.status === undefined ||
          (q.status === 'unknown' ? hasUnknownOutcome(t) : t.status === q.status),
      )
      .filter((t) => q.type === undefined || t.type === q.type)
      .filter((t) => q.endpoint === undefined || t.endpointId === q.endpoint)
      .filter((t) => q.currency === undefined || t.currency === q.currency)
      .filter((t) => q.drift === undefined || String(t.drift) === q.drift)
      .filter((t) => q.createdFrom === undefined || t.createdAt >= q.createdFrom)
      .filter((t) => q.createdTo === undefined || t.createdAt < q.createdTo)
      .filter((t) => q.amountMin === undefined || minor(t.amount) >= minor(q.amountMin))
      .filter((t) => q.amountMax === undefined || minor(t.amount) <= minor(q.amountMax))
      .filter((t) => q.q === undefined || matchesSearch(t, q.q))
      .sort((a, b) => {
        const [field, direction] = q.sort.split('_');
        const sign = direction === 'asc' ? 1 : -1;
        if (field === 'amount') {
          const diff = minor(a.amount) - minor(b.amount);
          return diff === 0n ? 0 : diff > 0n ? sign : -sign;
        }
        return a.createdAt === b.createdAt ? 0 : a.createdAt > b.createdAt ? sign : -sign;
      });
    const start = q.cursor === undefined ? 0 : Number(q.cursor.replace(/^after-/, ''));
    const items = rows.slice(start, start + q.limit);
    const end = start + items.length;
    // As the BFF: a search that finds no transaction names the payout whose order it is (every
    // reader of transactions may read payouts).
    const payouts =
      q.q !== undefined && items.length === 0 && q.cursor === undefined
        ? this.payoutOrders(q.q)
        : [];
    return {
      status: 200,
      body: TransactionPageSchema.parse({
        items: items.map(summaryOf),
        nextCursor: end < rows.length ? `after-${end}` : null,
        total: Math.min(rows.length, this.totalCap),
        totalCapped: rows.length > this.totalCap,
        ...(payouts.length === 0 ? {} : { payouts }),
      }),
    };
  }

  private lookup(request: PaymentsRequest): PaymentsReply {
    const parsed = LookupBodySchema.safeParse(request.body);
    if (!parsed.success) return this.validation(parsed.error.issues);
    const { orderid, client_orderid: clientOrderId, endpointId } = parsed.data;
    // As the BFF: the order of a payout whose money was not sent, not learned as a transaction,
    // is answered with the payout (nothing recorded, the gateway not asked).
    const payout = this.payoutOrders(orderid ?? clientOrderId ?? '').find(
      (p) =>
        (orderid === undefined || p.orderid === orderid) &&
        (clientOrderId === undefined || p.clientOrderId === clientOrderId) &&
        (endpointId === undefined || p.endpointId === endpointId) &&
        !PAYOUT_SENT_STATES.has(p.state) &&
        !this.transactions.some((t) => t.orderid === p.orderid),
    );
    if (payout !== undefined)
      return { status: 200, body: LookupPayoutReplySchema.parse({ payout }) };
    const matches = this.transactions.filter(
      (t) =>
        (orderid === undefined || t.orderid === orderid) &&
        (clientOrderId === undefined || t.clientOrderId === clientOrderId) &&
        (endpointId === undefined || t.endpointId === endpointId),
    );
    // One client_orderid on several endpoints: the BFF opens none of them.
    if (matches.length > 1 && orderid === undefined) {
      const details = LookupConflictDetailsSchema.parse({
        candidates: matches.map((t) => ({
          endpointId: t.endpointId,
          orderid: t.orderid,
          clientOrderId: t.clientOrderId,
          type: t.type,
          status: t.status,
          amount: t.amount,
          currency: t.currency,
          id: t.id,
        })),
      });
      return this.error(
        409,
        'CONFLICT',
        `The gateway knows ${matches.length} such orders.`,
        details,
      );
    }
    const [found] = matches;
    if (!found) {
      if (orderid !== undefined && clientOrderId === undefined) {
        return this.error(400, 'VALIDATION_FAILED', 'client_orderid: required', {
          fields: [
            {
              path: 'client_orderid',
              rule: 'required',
              message: 'required when the order is not known to Paydesk yet',
            },
          ],
        });
      }
      return this.error(404, 'NOT_FOUND', 'The gateway knows no such order.');
    }
    const fresh = this.replace({ ...found, lastCheckedAt: iso(600) });
    return { status: 200, body: TransactionDetailSchema.parse(fresh) };
  }

  private followUp(
    request: PaymentsRequest,
    id: string,
    action: FollowUpAction,
    user: User,
  ): PaymentsReply {
    const schema = {
      capture: CaptureBodySchema,
      return: ReturnBodySchema,
      void: VoidBodySchema,
      'card-ref': CardRefBodySchema,
    }[action];
    const parsed = schema.safeParse(request.body ?? {});
    if (!parsed.success) return this.validation(parsed.error.issues);
    const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
    if (key === null || key.length < 8) {
      return this.error(400, 'IDEMPOTENCY_KEY_MISSING', 'send an Idempotency-Key header');
    }
    const hash = `${action} ${id} ${JSON.stringify(parsed.data)}`;
    const storeKey = `${user.id} ${key}`;
    const stored = this.keys.get(storeKey);
    if (stored) {
      if (stored.hash !== hash) {
        return this.error(422, 'IDEMPOTENCY_KEY_REUSED', 'key used for a different request');
      }
      return stored.reply;
    }
    const reply = this.apply(id, action, parsed.data, user);
    this.keys.set(storeKey, { hash, reply });
    return reply;
  }

  private apply(id: string, action: FollowUpAction, body: unknown, user: User): PaymentsReply {
    const detail = this.byId(id);
    if (!detail) return this.error(404, 'NOT_FOUND', 'no such transaction');
    const a = detail.amounts;
    const refuse = (reason: string, remaining: string, cap = true) =>
      this.error(
        409,
        cap ? 'CAP_EXCEEDED' : 'INVALID_STATE',
        `${action} refused: ${reason} (remaining ${remaining} ${detail.currency}).`,
        {
          reason,
          remaining,
          currency: detail.currency,
        },
      );
    if (!detail.allowedActions.includes(action))
      return refuse('the order does not allow it', '0.00', false);
    const operation = (
      kind: Operation['kind'],
      amount: string | null,
      extra: Partial<Operation> = {},
    ): Operation => ({
      id: `op-${id}-${++this.opSeq}`,
      kind,
      origin: 'paydesk',
      state: 'approved',
      amount,
      gatewaySerial: `serial-op-${this.opSeq}`,
      requestedBy: user.email,
      reasonCode: null,
      comment: null,
      errorCode: null,
      errorMessage: null,
      unanswered: null,
      createdAt: iso(700 + this.opSeq),
      updatedAt: iso(700 + this.opSeq),
      ...extra,
    });
    let next: TransactionDetail;
    let op: Operation;
    if (action === 'capture') {
      const { amount = a.remainingCapturable } = body as { amount?: string };
      if (minor(amount) > minor(a.remainingCapturable)) {
        return refuse('exceeds the authorized amount', a.remainingCapturable);
      }
      op = operation('capture', fromMinor(minor(amount)));
      const captured = fromMinor(minor(amount));
      next = {
        ...detail,
        stage: 'captured',
        amounts: { ...a, captured, remainingCapturable: '0.00', remainingReturnable: captured },
        allowedActions: ['return', 'card-ref'],
      };
    } else if (action === 'return') {
      const {
        amount = a.remainingReturnable,
        reasonCode,
        comment,
      } = body as {
        amount?: string;
        reasonCode: string;
        comment: string;
      };
      if (minor(amount) > minor(a.remainingReturnable)) {
        return refuse('exceeds the captured amount not yet returned', a.remainingReturnable);
      }
      op = operation('return', fromMinor(minor(amount)), { reasonCode, comment });
      const returned = minor(a.returned) + minor(amount);
      const rest = minor(a.remainingReturnable) - minor(amount);
      next = {
        ...detail,
        amounts: { ...a, returned: fromMinor(returned), remainingReturnable: fromMinor(rest) },
        allowedActions:
          rest > 0n ? detail.allowedActions.filter((x) => x !== 'void' && x !== 'capture') : [],
      };
    } else if (action === 'void') {
      const { comment } = body as { comment: string };
      // As the BFF records it: a void has no amount of its own (it takes back the order's).
      op = operation('void', null, { comment });
      next = {
        ...detail,
        stage: 'voided',
        amounts: { ...a, remainingCapturable: '0.00', remainingReturnable: '0.00' },
        allowedActions: [],
      };
    } else {
      op = operation('card-ref', null);
      next = {
        ...detail,
        cardRefId: `card-ref-${id.slice(-4)}`,
        allowedActions: detail.allowedActions.filter((x) => x !== 'card-ref'),
      };
    }
    next = this.replace({
      ...next,
      operations: [...detail.operations, op],
      timeline: [
        ...detail.timeline,
        {
          id: 10_000 + this.opSeq,
          at: op.createdAt,
          kind: 'staff',
          title: `${action} by ${user.email}`,
          actor: user.email,
          data: {},
        },
      ],
    });
    const label = op.amount === null ? '' : ` ${op.amount} ${detail.currency}`;
    return {
      status: 200,
      body: OperationResultSchema.parse({
        operation: op,
        transaction: next,
        message: `${action}${label} approved by the gateway.`,
      }),
    };
  }
}

/** An open event stream as the fake BFF sees it. */
export interface FakeStream {
  /** the connection drops (the EventSource says so and will retry) */
  interrupt(): void;
  /** the retry connects */
  resume(): void;
}

/**
 * `EventSource` for the tests: connects to the fake BFF's event stream. Like the BFF, it refuses a
 * browser without a session (`signedIn`): the EventSource then gives up (CLOSED).
 */
export function fakeEventSourceFor(
  payments: () => FakePayments,
  signedIn: () => boolean = () => true,
) {
  return class FakeEventSource extends EventTarget {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSED = 2;
    readonly CONNECTING = 0;
    readonly OPEN = 1;
    readonly CLOSED = 2;
    readyState = 0;
    onopen: ((event: Event) => void) | null = null;
    onerror: ((event: Event) => void) | null = null;
    onmessage: ((event: MessageEvent) => void) | null = null;
    readonly withCredentials: boolean;
    private unsubscribe: (() => void) | null = null;

    constructor(
      readonly url: string,
      init?: EventSourceInit,
    ) {
      super();
      this.withCredentials = init?.withCredentials ?? false;
      this.connect();
    }

    private connect(): void {
      queueMicrotask(() => {
        if (this.readyState === 2) return;
        if (!signedIn()) {
          this.readyState = 2;
          this.onerror?.(new Event('error'));
          return;
        }
        this.readyState = 1;
        this.onopen?.(new Event('open'));
        this.unsubscribe = payments().subscribe(
          (event) => {
            this.dispatchEvent(
              new MessageEvent(liveEventName(event), { data: JSON.stringify(event) }),
            );
          },
          {
            interrupt: () => {
              this.unsubscribe?.();
              this.unsubscribe = null;
              this.readyState = 0;
              this.onerror?.(new Event('error'));
            },
            resume: () => {
              this.connect();
            },
          },
        );
      });
    }

    close(): void {
      this.readyState = 2;
      this.unsubscribe?.();
      this.unsubscribe = null;
    }
  };
}
