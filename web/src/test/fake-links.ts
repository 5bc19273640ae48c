// The payment-links routes of the fake BFF: list (kind, state, views), create (card forms for
// finance, sent at once; payout-forms for ops, held for a second ops user), approve and reject with
// the four-eyes rule, and the reader's status check of a sent link (refresh). Idempotency-Key
// replay as the BFF does it; replies validated with the shared schemas.
import {
  PaymentLinkCreateBodySchema,
  PaymentLinkDetailSchema,
  PaymentLinkListQuerySchema,
  PaymentLinkListSchema,
  PaymentLinkRefreshResultSchema,
  PaymentLinkResultSchema,
  PaymentLinkSchema,
  PayoutRejectBodySchema,
  type PaymentLink,
  type PaymentLinkKind,
  type PayoutEvent,
  type Role,
  type User,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { orderStateWords } from '@paydesk/shared/domain';
import { fromMinor, toMinor } from '../lib/money';
import { KeyedReplies } from './fake-cards';
import type { ErrorReply, PaymentsReply, PaymentsRequest } from './fake-payments';
import type { LargeAmountCheck } from './fake-large-amount';
import { fakePage } from './fake-pages';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (offsetMinutes: number) => new Date(T0 + offsetMinutes * 60_000).toISOString();

/** A payout-form link Otto (ops) created, held for a second ops user's approval. */
export function heldPayoutForm(n: number): PaymentLink {
  return makeLink(n, {
    kind: 'payout-form',
    state: 'pending_approval',
    orderid: null,
    customerEmail: null,
    redirectUrl: null,
    returnUrl: `https://shop.example/payees/${String(n)}/done`,
    amount: '75.00',
    orderDesc: `Seller payout ${String(n)}`,
    createdBy: { id: 'u-otto', email: 'otto@example.com' },
    // as the BFF: it lapses PAYOUT_HOLD_MAX_AGE_MS (7 days) after its creation
    expiresAt: iso(7 * 24 * 60 + n),
  });
}

export function makeLink(n: number, overrides: Partial<PaymentLink> = {}): PaymentLink {
  const id = `30000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return PaymentLinkSchema.parse({
    id,
    kind: 'sale-form',
    state: 'sent',
    endpointId: '1001',
    clientOrderId: `pl-${n}`,
    orderid: String(800000 + n),
    amount: `${20 + n}.00`,
    currency: 'EUR',
    orderDesc: `Invoice ${n}`,
    customerEmail: `payer${n}@example.com`,
    redirectUrl: `https://gateway.example/paynet/form/${n}`,
    returnUrl: 'https://shop.example/thanks',
    createdBy: { id: 'u-fin', email: 'fin@example.com' },
    decidedBy: null,
    decidedAt: null,
    rejectReason: null,
    errorCode: null,
    errorMessage: null,
    unanswered: null,
    canDecide: false,
    expiresAt: null,
    order: null,
    createdAt: iso(n),
    updatedAt: iso(n),
    ...overrides,
  });
}

/** Each kind as the BFF's timeline titles say it. */
const KIND_WORDS: Record<PaymentLinkKind, string> = {
  'sale-form': 'Sale form',
  'preauth-form': 'Preauthorization form',
  'payment-form': 'Payment form',
  'account-verification-form': 'Account verification form',
  'payout-form': 'Payout form',
};

const LINK_ROLE: Record<PaymentLinkKind, Role> = {
  'sale-form': 'finance',
  'preauth-form': 'finance',
  'payment-form': 'finance',
  'account-verification-form': 'finance',
  'payout-form': 'ops',
};

export class FakeLinks {
  links: PaymentLink[];
  private keyed: KeyedReplies;
  private seq = 100;

  /**
   * The BFF's amount rules: the per-order limit, then the large-amount confirmation (set by
   * FakeBff from its session settings).
   */
  largeAmount: LargeAmountCheck = () => null;
  constructor(
    links: PaymentLink[],
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
  ) {
    this.links = links;
    this.keyed = new KeyedReplies(error);
  }

  private view(link: PaymentLink, user: User): PaymentLink {
    // As the BFF computes it: an ops user who is not the creator, while it is still pending.
    const canDecide =
      link.state === 'pending_approval' &&
      user.roles.includes('ops') &&
      link.createdBy.id !== user.id;
    return PaymentLinkSchema.parse({
      ...link,
      canDecide,
      // As the BFF: a payout-form's page only for the ops users who created and approved it.
      redirectUrl:
        link.state === 'sent' &&
        (link.kind !== 'payout-form' ||
          (user.roles.includes('ops') &&
            (link.createdBy.id === user.id || link.decidedBy?.id === user.id)))
          ? link.redirectUrl
          : null,
      order: this.orders.get(link.id) ?? link.order,
    });
  }

  /** a link's order as the BFF learned it from callbacks (none by default) */
  readonly orders = new Map<string, PaymentLink['order']>();

  /**
   * a link's order as the gateway's `status` shows it though no callback told the BFF (a lost
   * callback): a status check (refresh) learns it; a link without one has an unused page
   */
  readonly atGateway = new Map<string, NonNullable<PaymentLink['order']>>();

  /**
   * what the gateway's `status` settles an unknown link to (its create's reply lost): the order
   * found (sent, its page address lost) or not created (failed); a link without one is not known
   * to the gateway yet
   */
  readonly settles = new Map<string, Partial<PaymentLink>>();

  /** the ids of the links whose status was checked, in order */
  readonly refreshed: string[] = [];

  /** the timeline entries of the links' status checks, by link id */
  private readonly checks = new Map<string, PayoutEvent[]>();

  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    const { method, path } = request;
    if (!path.startsWith('/api/payment-links')) return null;
    if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
    const allowed = (roles: readonly Role[]) => roles.some((role) => user.roles.includes(role));
    if (path === '/api/payment-links' && method === 'GET') {
      if (!allowed(['support', 'finance', 'ops', 'auditor']))
        return this.error(403, 'FORBIDDEN', 'not allowed');
      const parsed = PaymentLinkListQuerySchema.safeParse(Object.fromEntries(request.query));
      if (!parsed.success) return this.validation(parsed.error.issues);
      const q = parsed.data;
      const page = fakePage(
        this.links
          .filter((l) => q.kind === undefined || l.kind === q.kind)
          .filter((l) => q.state === undefined || l.state === q.state)
          .filter((l) => q.view !== 'mine' || l.createdBy.id === user.id)
          .filter(
            (l) =>
              q.view !== 'awaiting-my-approval' ||
              (l.state === 'pending_approval' && l.createdBy.id !== user.id),
          ),
        q,
      );
      if (page === null) return this.error(400, 'VALIDATION_FAILED', 'query.cursor: not a cursor');
      const items = page.items.map((l) => this.view(l, user));
      return {
        status: 200,
        body: PaymentLinkListSchema.parse({ items, nextCursor: page.nextCursor }),
      };
    }
    const detail = /^\/api\/payment-links\/([^/]+)$/.exec(path);
    if (detail && method === 'GET') {
      if (!allowed(['support', 'finance', 'ops', 'auditor']))
        return this.error(403, 'FORBIDDEN', 'not allowed');
      const link = this.links.find((l) => l.id === decodeURIComponent(detail[1] ?? ''));
      if (!link) return this.error(404, 'NOT_FOUND', 'no such payment link');
      return {
        status: 200,
        body: PaymentLinkDetailSchema.parse({
          ...this.view(link, user),
          events: this.timeline(link),
        }),
      };
    }
    if (method !== 'POST') return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (path === '/api/payment-links') {
      if (!allowed(['finance', 'ops'])) return this.error(403, 'FORBIDDEN', 'not allowed');
      const parsed = PaymentLinkCreateBodySchema.safeParse(request.body ?? {});
      if (!parsed.success) return this.validation(parsed.error.issues);
      if (!allowed([LINK_ROLE[parsed.data.kind]])) {
        return this.error(
          403,
          'FORBIDDEN',
          `a ${parsed.data.kind} needs the ${LINK_ROLE[parsed.data.kind]} role`,
        );
      }
      const large = this.largeAmount(parsed.data);
      if (large) return large;
      return this.keyed.run(request, user, () => this.create(parsed.data, user));
    }
    const refresh = /^\/api\/payment-links\/([^/]+)\/refresh$/.exec(path);
    if (refresh) {
      if (!allowed(['support', 'finance', 'ops', 'auditor']))
        return this.error(403, 'FORBIDDEN', 'not allowed');
      return this.refresh(decodeURIComponent(refresh[1] ?? ''), user);
    }
    const match = /^\/api\/payment-links\/([^/]+)\/(approve|reject)$/.exec(path);
    if (!match) return this.error(404, 'NOT_FOUND', `no route ${method} ${path}`);
    if (!allowed(['ops'])) return this.error(403, 'FORBIDDEN', 'not allowed');
    return this.keyed.run(request, user, () =>
      this.decide(request, user, match[1] ?? '', match[2] === 'approve'),
    );
  }

  /** As the BFF: `status` now; an order the gateway shows is learned, else "not paid yet". */
  private refresh(id: string, user: User): PaymentsReply {
    const link = this.links.find((l) => l.id === id);
    if (!link) return this.error(404, 'NOT_FOUND', 'no such payment link');
    if (link.state === 'unknown') return this.refreshUnknown(link, user);
    if (link.state !== 'sent') {
      return this.error(
        409,
        'INVALID_STATE',
        `The link is ${link.state.replace('_', ' ')}: only a sent link's order, or one whose outcome is unknown, can be checked.`,
      );
    }
    this.refreshed.push(id);
    const found = this.atGateway.get(id);
    if (found !== undefined) this.orders.set(id, found);
    const who = link.kind === 'payout-form' ? 'payee' : 'customer';
    // As the BFF: the check (by the user who asked) is in the link's timeline; the link itself
    // stays as it was.
    this.checks.set(id, [
      ...(this.checks.get(id) ?? []),
      {
        at: iso(1000 + this.refreshed.length),
        kind: 'gateway',
        title:
          found === undefined
            ? `status check: ${link.kind === 'payout-form' ? 'the payee has not used the page' : 'the customer has not paid'} yet`
            : `status check: order ${found.orderid} is ${found.status}`,
        actor: user.email,
        data: { outcome: found === undefined ? 'not_paid_yet' : 'order_found' },
      },
    ]);
    return {
      status: 200,
      body: PaymentLinkRefreshResultSchema.parse({
        link: this.view(link, user),
        outcome: found === undefined ? 'not_paid_yet' : 'order_found',
        message:
          found === undefined
            ? `The ${who} has not paid yet: the page has not been used. Paydesk keeps checking by itself for 24 hours after the link was sent.`
            : `The gateway shows order ${found.orderid}: ${orderStateWords(found.status, found.stage)}. It is now among the transactions.`,
      }),
    };
  }

  /** As the BFF: an unknown link's `status` by its client_orderid, settled as `settles` says. */
  private refreshUnknown(link: PaymentLink, user: User): PaymentsReply {
    this.refreshed.push(link.id);
    const settled = this.settles.get(link.id);
    const next: PaymentLink =
      settled === undefined ? link : { ...link, unanswered: null, ...settled };
    this.links = this.links.map((l) => (l.id === next.id ? next : l));
    const outcome =
      settled === undefined
        ? 'not_known_yet'
        : next.state === 'sent'
          ? 'order_found'
          : 'not_created';
    return {
      status: 200,
      body: PaymentLinkRefreshResultSchema.parse({
        link: this.view(next, user),
        outcome,
        message:
          settled === undefined
            ? "The gateway does not show the link's order yet: its request may still be on its way. It is never sent again."
            : (next.errorMessage ?? ''),
      }),
    };
  }

  /** The history the BFF would have kept for a link in this state. */
  private timeline(link: PaymentLink): PayoutEvent[] {
    const events: PayoutEvent[] = [
      {
        at: link.createdAt,
        kind: 'staff',
        title: `${KIND_WORDS[link.kind]} link created`,
        actor: link.createdBy.email,
        data: { held: link.kind === 'payout-form' },
      },
    ];
    if (link.decidedBy !== null) {
      events.push({
        at: link.updatedAt,
        kind: 'staff',
        title: `Payout form link ${link.rejectReason === null ? 'approved' : link.withdrawn ? 'withdrawn by its creator' : 'rejected'}`,
        actor: link.decidedBy.email,
        data: link.rejectReason === null ? {} : { reason: link.rejectReason },
      });
    }
    if (link.orderid !== null) {
      events.push({
        at: link.updatedAt,
        kind: 'gateway',
        title: `${KIND_WORDS[link.kind]} sent to the gateway; its page is ready`,
        actor: link.decidedBy?.email ?? link.createdBy.email,
        data: { outcome: 'reply', httpStatus: 200 },
      });
    }
    // As the BFF: the order the page made, as known now, at its last change (never stored).
    const order = this.orders.get(link.id) ?? link.order;
    if (order !== null) {
      const who = link.kind === 'payout-form' ? 'payee' : 'customer';
      const state = orderStateWords(order.status, order.stage);
      const card = order.card ?? null;
      const where =
        card === null
          ? ''
          : link.kind === 'payout-form' && order.status === 'approved'
            ? ` to ${card.masked}`
            : `, card ${card.masked}`;
      events.push({
        at: order.updatedAt ?? link.updatedAt,
        kind: 'gateway',
        title: `the ${who} used the page: order ${order.orderid} ${state}${where} (learned by callback)`,
        actor: null,
        data: { orderid: order.orderid, status: order.status, card: card?.masked ?? null },
      });
    }
    return [...events, ...(this.checks.get(link.id) ?? [])];
  }

  private create(body: z.output<typeof PaymentLinkCreateBodySchema>, user: User): PaymentsReply {
    const n = ++this.seq;
    const payout = body.kind === 'payout-form';
    const link = makeLink(n, {
      kind: body.kind,
      state: payout ? 'pending_approval' : 'sent',
      orderid: payout ? null : String(800000 + n),
      amount: body.amount === undefined ? null : fromMinor(toMinor(body.amount) ?? 0n),
      currency: body.currency ?? null,
      orderDesc: body.orderDesc,
      customerEmail: body.customer?.email ?? null,
      redirectUrl: payout ? null : `https://gateway.example/paynet/form/${n}`,
      // As the BFF: the address given, else Paydesk's own page.
      returnUrl: body.redirectUrl ?? 'https://paydesk.example/payment-links/done',
      createdBy: { id: user.id, email: user.email },
      expiresAt: payout ? iso(7 * 24 * 60 + 600 + n) : null,
      createdAt: iso(600 + n),
      updatedAt: iso(600 + n),
    });
    this.links = [...this.links, link];
    return {
      status: 200,
      body: PaymentLinkResultSchema.parse({
        link: this.view(link, user),
        message: payout
          ? 'Payout form held: a second ops user must approve it before its page is released.'
          : // As the BFF answers it (bff/src/payouts/links.ts).
            'Send this page address to the customer. Paydesk learns the outcome from the gateway automatically when the customer finishes.',
      }),
    };
  }

  private decide(
    request: PaymentsRequest,
    user: User,
    id: string,
    approve: boolean,
  ): PaymentsReply {
    const link = this.links.find((l) => l.id === decodeURIComponent(id));
    if (!link) return this.error(404, 'NOT_FOUND', 'no such payment link');
    // As the BFF: the creator may withdraw (reject) their own link, never approve it.
    if (link.createdBy.id === user.id && approve) {
      return this.error(403, 'FOUR_EYES_REQUIRED', 'another ops user must approve this link');
    }
    if (link.state !== 'pending_approval') {
      return this.error(409, 'INVALID_STATE', `the link is ${link.state}`);
    }
    let next: PaymentLink;
    if (approve) {
      next = {
        ...link,
        state: 'sent',
        expiresAt: null,
        orderid: String(800000 + this.seq),
        redirectUrl: `https://gateway.example/paynet/form/p${link.clientOrderId}`,
      };
    } else {
      const parsed = PayoutRejectBodySchema.safeParse(request.body ?? {});
      if (!parsed.success) return this.validation(parsed.error.issues);
      next = {
        ...link,
        state: 'rejected',
        expiresAt: null,
        rejectReason: parsed.data.reason,
        // As the BFF: its creator's rejection is a withdrawal.
        withdrawn: link.createdBy.id === user.id,
      };
    }
    next = {
      ...next,
      decidedBy: { id: user.id, email: user.email },
      decidedAt: iso(900),
      updatedAt: iso(900),
    };
    this.links = this.links.map((l) => (l.id === next.id ? next : l));
    return {
      status: 200,
      body: PaymentLinkResultSchema.parse({
        link: this.view(next, user),
        message: approve
          ? 'Send this page address to the payee. Paydesk learns the outcome from the gateway automatically when the payee finishes.'
          : next.withdrawn
            ? 'You withdrew the payout form; nothing was sent.'
            : 'Payout form rejected; nothing was sent.',
      }),
    };
  }
}
