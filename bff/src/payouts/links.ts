// Payment links: the gateway's hosted forms. Card forms (finance) are sent at once and give the
// customer's page; a payout-form (ops) is held until a second ops user approves it, like any
// payout, then sent and its page released. Every order's server_callback_url is the payments
// core's receiver, which learns the outcome.
import { randomUUID } from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { sql, type ExpressionBuilder, type RawBuilder, type Transaction } from 'kysely';
import { FINAL_STATUSES, orderStateWords, stageWords } from '@paydesk/shared/domain';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import {
  PAYMENT_LINK_NOT_CREATED,
  PAYMENT_LINK_PAGE_LOST,
  type PaymentLink,
  type PaymentLinkCreateBody,
  type PaymentLinkDetail,
  type PaymentLinkOrder,
  type PaymentLinkKind,
  type PaymentLinkList,
  type PaymentLinkListQuery,
  type PaymentLinkRefreshResult,
  type PaymentLinkState,
  type PayoutEvent,
  type Unanswered,
  type Role,
  type TransactionStatus,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import type { LinkOrder } from '../payments/payout-orders.js';
import { StatusNotApplied } from '../payments/amount-range.js';
import { answerText, errorAnswerOf, unansweredText } from '../payments/gateway-errors.js';
import type { Interruption } from '../payments/idempotency.js';
import type { AuditEntry } from '../services/audit.js';
import { PAYMENT_LINK_DONE_PATH } from '../http/customer-pages.js';
import type { GatewayOutcome } from '../gateway-client/client.js';
import { big, payDb } from '../payments/db.js';
import { configuredEndpointIds } from '../payments/gateway.js';
import { Ledger, type GatewayView } from '../payments/ledger.js';
import { resolveOptions } from '../payments/options.js';
import { maskedCard, paidOutOf } from '../payments/records.js';
import { TransactionsService } from '../payments/transactions.js';
import { canonicalJson } from '../services/redact.js';
import {
  addEvent,
  callbackUrl,
  describeDuration,
  eventsOf,
  exchangeData,
  gatewayIp,
  resolveEndpoint,
  storedEventData,
  withheldFor,
  type Actor,
  type Ctx,
  type EventEntry,
  type PayoutsDatabase,
} from './context.js';
import { decodeKeyset, keysetPage } from './keyset.js';
import { deciderFor, requireSeparatePeople, type Decider } from './four-eyes.js';
import {
  gatewayRefusal,
  unansweredOfColumns,
  unansweredSet,
  unlearnedSentence,
} from './gateway-errors.js';
import type { PaymentLinksTable } from './migration.js';
import { interruptedApproval, interruptedMessage, lapseHeldRows } from './service.js';

export interface LinkOutcome {
  link: PaymentLink;
  message: string;
}

/** Who may create each kind (design §5: finance for payment links, ops for payouts). */
export const LINK_ROLE: Readonly<Record<PaymentLinkKind, Role>> = {
  'sale-form': 'finance',
  'preauth-form': 'finance',
  'payment-form': 'finance',
  'account-verification-form': 'finance',
  'payout-form': 'ops',
};

/** Each kind in staff's words, as the SPA's link kinds say it (timeline titles). */
export const LINK_KIND_LABELS: Readonly<Record<PaymentLinkKind, string>> = {
  'sale-form': 'Sale form',
  'preauth-form': 'Preauthorization form',
  'payment-form': 'Payment form',
  'account-verification-form': 'Account verification form',
  'payout-form': 'Payout form',
};

/** A link's kind as a sentence names it (`the payout form`): its label, never the gateway's name. */
function kindWords(kind: string): string {
  const label = (LINK_KIND_LABELS as Record<string, string | undefined>)[kind];
  return label === undefined ? kind : label.toLowerCase();
}

/** The timeline title of a link's request to the gateway: what came of it, in staff's words. */
function sentTitle(kind: PaymentLinkKind, outcome: GatewayOutcome): string {
  const form = LINK_KIND_LABELS[kind];
  if (outcome.kind === 'not-sent') return `${form} not sent: the gateway could not be reached`;
  if (outcome.kind === 'unknown') {
    // A 5xx is an answer, not a lost reply: said so, as the link's banner says it.
    const answer = errorAnswerOf(outcome);
    return answer === null
      ? `${form} sent to the gateway; its reply was lost`
      : `${form} sent to the gateway; it answered with an error (${answerText({ ...answer, message: null })})`;
  }
  if (outcome.httpStatus === 200 && outcome.reply.redirectUrl !== undefined)
    return `${form} sent to the gateway; its page is ready`;
  return `${form} refused by the gateway`;
}

/**
 * What an unused page means for a link of `kind`, as the check's timeline entry says it ('the
 * customer has not paid yet') or as its reply's sentence ('The customer has not paid yet: the page
 * has not been used.'). An account verification asks for no money: its customer has not verified.
 */
function notYet(kind: PaymentLinkKind, as: 'title' | 'sentence'): string {
  if (kind === 'payout-form') {
    return as === 'title'
      ? 'the payee has not used the page yet'
      : 'The payee has not used the page yet.';
  }
  const done = kind === 'account-verification-form' ? 'verified their card' : 'paid';
  return as === 'title'
    ? `the customer has not ${done} yet`
    : `The customer has not ${done} yet: the page has not been used.`;
}

/**
 * Where the gateway sends the customer (payee) after the form: the `redirect_url` of the request
 * as stored (and, for a payout-form, sealed) at creation, so approvers see it before approving.
 */
function returnUrlOf(request: string): string | null {
  try {
    const fields = JSON.parse(request) as Record<string, unknown>;
    return typeof fields.redirect_url === 'string' ? fields.redirect_url : null;
  } catch {
    return null;
  }
}

/**
 * Whether `viewer` is given a sent link's page address. A card form's (the customer pays) goes to
 * every reader. A payout-form's pays whoever fills it in, so only the ops users who hand it to the
 * payee get it: the one who created it and the one who approved it.
 */
export function maySharePage(row: PaymentLinksTable, viewer: Actor): boolean {
  if (row.kind !== 'payout-form') return true;
  return (
    viewer.roles.includes('ops') && (viewer.id === row.created_by || viewer.id === row.decided_by)
  );
}

/** How every status check in a link's timeline is titled (its schedule reads them). */
export const LINK_CHECK_TITLE = 'status check';

/**
 * How a scheduled check that ends the link's follow-up closes its title (its schedule reads it):
 * the last one, or one whose answer cannot be applied (`StatusNotApplied`).
 */
export const LINK_CHECKS_END = '; no further checks (check payment status to ask again)';

/**
 * How long after its horizon a link whose last-check window no pass saw (no instance running) still
 * gets that last check: the scan stays bounded to recent links, however long the history.
 */
const LATE_LAST_CHECK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How the scheduled check that ends an unknown link's follow-up closes its title (its schedule
 * reads it). Not `LINK_CHECKS_END`: a link settled as sent later has a follow-up of its own.
 */
export const LINK_SETTLE_END = '; no further scheduled checks (check payment status to ask again)';

/** When a link's request left for the gateway: a payout-form's at its approval, else its creation. */
function sentAtOf(row: PaymentLinksTable): number {
  return row.decided_at ?? row.created_at;
}

/** A duration in staff's words: `1 hour`, `90 seconds` (whole seconds), else `describeDuration`. */
function durationWords(ms: number): string {
  const words = describeDuration(ms);
  if (!words.endsWith(' ms') || ms % 1000 !== 0) return words;
  const s = ms / 1000;
  return `${String(s)} second${s === 1 ? '' : 's'}`;
}

/**
 * How a link's create (or approval) went unlearned, from what its row records, as a subscription
 * says it: the instance stopped before recording the reply, the gateway answered with an error
 * (its HTTP status and code), or the reply was lost.
 */
function unlearnedCreate(row: PaymentLinksTable, unanswered: Unanswered | null): string {
  if (row.error_code === 'INTERRUPTED')
    return 'the instance sending it stopped before recording the reply';
  if (unanswered?.kind !== 'error') return 'the reply was lost';
  const code = unanswered.code === null ? '' : `, ${unanswered.code}`;
  return `the gateway answered it with an error: HTTP ${String(unanswered.httpStatus)}${code}`;
}

/**
 * An unknown link claimed for a scheduled status check, as a sent link's is (`LinkCheckClaim`):
 * `last` by `LinkSettleTimings.horizonMs`.
 */
export type LinkSettleClaim = LinkCheckClaim;

/** What one status check of an unknown link found, and the link afterwards. */
export interface LinkSettle {
  /**
   * `order_found`: the gateway shows the order (the link is sent with its orderid);
   * `not_created`: it does not, after the safe delay (the link failed); `not_known_yet`: it does
   * not, before then; `no_answer`: the gateway did not answer (still unknown)
   */
  outcome: 'order_found' | 'not_created' | 'not_known_yet' | 'no_answer';
  /** the link's timeline entry: `status check: …` */
  title: string;
  data: Record<string, unknown>;
  gateway: GatewayOutcome;
  /** the link after the check */
  row: PaymentLinksTable;
}

/** A sent link claimed for a scheduled status check; `eventId`: its timeline entry (the lease). */
export interface LinkCheckClaim {
  row: PaymentLinksTable;
  eventId: number;
  /**
   * its last scheduled check: none is claimed after it (`LinkFollowTimings.horizonMs`); claimed
   * past the horizon when no pass came in its window
   */
  last: boolean;
}

/** What one status check of a sent link found. */
export interface LinkCheck {
  outcome: 'order_found' | 'not_paid_yet' | 'no_answer';
  /** the link's timeline entry: `status check: …` */
  title: string;
  /** the order found is final: nothing is left to follow */
  final: boolean;
  data: Record<string, unknown>;
  gateway: GatewayOutcome;
}

/**
 * Whether a `status` reply shows the customer used the page: anything but an order still waiting
 * for its form (`form_pending`, or `processing` with no stage to say more).
 */
function pageUsed(view: GatewayView): boolean {
  if (view.stage === 'form_pending') return false;
  return !(view.status === 'processing' && view.stage === null);
}

/** A link's order as Paydesk knows it, and whether its callback or a `status` reply told it first. */
interface KnownOrder {
  order: PaymentLinkOrder;
  learnedBy: 'callback' | 'status';
  /** the order's last change (its `updatedAt`) */
  changedAt: string;
}

/**
 * The entry a link's timeline gets from its order, read from the order as Paydesk knows it now
 * (never stored: it follows the order's callbacks and checks): at the order's last change, whether
 * the page was used, what came of it and with which card (a payout-form's: where the money went),
 * masked as the order has it. `status: processing` with no stage (or `form_pending`) is an order
 * whose page was not used yet, as `pageUsed` reads a `status` reply.
 */
function orderEntry(kind: PaymentLinkKind, known: KnownOrder): PayoutEvent {
  const { order, learnedBy, changedAt } = known;
  const who = kind === 'payout-form' ? 'payee' : 'customer';
  const how = learnedBy === 'callback' ? 'by callback' : 'by a status check';
  const unused =
    order.stage === 'form_pending' || (order.status === 'processing' && order.stage === null);
  // An unused page's `form_pending` is said by "had not used the page", not as a code.
  const state = orderStateWords(order.status, unused ? null : order.stage);
  const card = order.card ?? null;
  const where =
    card === null
      ? ''
      : kind === 'payout-form' && order.status === 'approved'
        ? ` to ${card.masked}`
        : `, card ${card.masked}`;
  return {
    at: changedAt,
    kind: 'gateway',
    title: unused
      ? `order ${order.orderid} learned ${how}: ${state}; the ${who} had not used the page`
      : `the ${who} used the page: order ${order.orderid} ${state}${where} (learned ${how})`,
    actor: null,
    data: {
      fromOrder: 'as Paydesk knows the order now',
      transactionId: order.transactionId,
      orderid: order.orderid,
      status: order.status,
      stage: order.stage,
      card: card?.masked ?? null,
      learnedBy,
    },
  };
}

/** Conditions of a link's change: when the row no longer meets them, nothing is written. */
interface LinkGuard {
  state?: string;
  notCreatedBy?: string;
  updatedAt?: number;
}

export class PaymentLinksService {
  /** The payments core's lookup: learns an order from a `status` reply as a callback's check does. */
  private readonly transactions: TransactionsService;

  constructor(private readonly c: Ctx) {
    // The same ledger writes on the same database, audit log and event bus as the payments core's,
    // with this module's gateway client and timings (app.ts gives both the RECONCILE_* settings).
    const o = c.options;
    const ledger = new Ledger(
      c.db,
      c.clock,
      c.audit,
      c.bus,
      resolveOptions({
        gatewayTimeoutMs: o.gatewayTimeoutMs,
        instanceId: o.instanceId,
        random: o.random,
        reconcile: {
          fastMinMs: o.poll.fastMinMs,
          fastMaxMs: o.poll.fastMaxMs,
          leaseMs: o.poll.leaseMs,
          pollIntervalMs: o.poll.intervalMs,
          notAppliedAfterMs: o.poll.notAppliedAfterMs,
        },
      }),
    );
    this.transactions = new TransactionsService(ledger, c.gateway, configuredEndpointIds(c.config));
  }

  /**
   * The orders of `rows` by their links' own client_orderid (found even when the reply naming the
   * orderid was lost): one query for a whole list.
   */
  async ordersOf(rows: readonly PaymentLinksTable[]): Promise<Map<string, PaymentLinkOrder>> {
    const known = await this.knownOrdersOf(rows);
    return new Map([...known].map(([id, o]) => [id, o.order]));
  }

  /** `ordersOf`, with how and when Paydesk learned each order (`orderEntry`). */
  private async knownOrdersOf(
    rows: readonly PaymentLinksTable[],
  ): Promise<Map<string, KnownOrder>> {
    const ids = [...new Set(rows.map((r) => r.client_orderid))];
    const orders = new Map<string, KnownOrder>();
    if (ids.length === 0) return orders;
    const found = await payDb(this.c.db)
      .selectFrom('transactions')
      .select([
        'id',
        'client_orderid',
        'orderid',
        'type',
        'status',
        'stage',
        'updated_at',
        'currency',
        'amount_minor',
        'authorized_minor',
        'captured_minor',
        'returned_minor',
        'card_bin',
        'card_last4',
        'card_brand',
        'source',
      ])
      .where('client_orderid', 'in', ids)
      .orderBy('created_at', 'desc')
      .execute();
    // The first order a link's page made (the oldest) is its order.
    for (const o of found) {
      const changedAt = new Date(o.updated_at).toISOString();
      orders.set(o.client_orderid, {
        order: {
          transactionId: o.id,
          orderid: o.orderid,
          status: o.status as TransactionStatus,
          stage: o.stage,
          updatedAt: changedAt,
          money: {
            currency: o.currency,
            authorized: formatMinorUnits(big(o.authorized_minor)),
            captured: formatMinorUnits(big(o.captured_minor)),
            returned: formatMinorUnits(big(o.returned_minor)),
            ...paidOutOf(o),
          },
          card: maskedCard(o),
        },
        learnedBy: o.source === 'callback' ? 'callback' : 'status',
        changedAt,
      });
    }
    return orders;
  }

  /**
   * When a held payout-form lapses: `holdMaxAgeMs` after it was created (the setting as it is now),
   * as a held single payout does. Null: it is not waiting for approval.
   */
  lapsesAt(row: PaymentLinksTable): number | null {
    return row.state === 'pending_approval' && row.kind === 'payout-form'
      ? row.created_at + this.c.options.holdMaxAgeMs
      : null;
  }

  /** The state as screens show it: a held payout-form that lapsed is expired, whatever the row says. */
  stateOf(row: PaymentLinksTable): PaymentLinkState {
    const at = this.lapsesAt(row);
    return (at !== null && at <= this.c.clock.now() ? 'expired' : row.state) as PaymentLinkState;
  }

  /** Links waiting for approval that have not lapsed (`stateOf` in SQL). */
  private notLapsed(now: number) {
    const heldSince = now - this.c.options.holdMaxAgeMs;
    return (eb: ExpressionBuilder<PayoutsDatabase, 'payment_links'>) =>
      eb.and([
        eb('state', '=', 'pending_approval'),
        eb.or([eb('kind', '<>', 'payout-form'), eb('created_at', '>', heldSince)]),
      ]);
  }

  /** `decider`: the viewer's four-eyes view (`deciderFor`), computed once per reply. */
  toApi(
    row: PaymentLinksTable,
    viewer: Actor,
    decider: Decider,
    order: PaymentLinkOrder | undefined,
  ): PaymentLink {
    const state = this.stateOf(row);
    const lapsesAt = this.lapsesAt(row) ?? row.expires_at;
    return {
      id: row.id,
      kind: row.kind as PaymentLinkKind,
      state,
      endpointId: row.endpoint_id,
      clientOrderId: row.client_orderid,
      orderid: row.orderid,
      amount: row.amount_minor === null ? null : formatMinorUnits(BigInt(row.amount_minor)),
      currency: row.currency,
      orderDesc: row.order_desc,
      customerEmail: row.customer_email,
      redirectUrl: row.state === 'sent' && maySharePage(row, viewer) ? row.redirect_url : null,
      returnUrl: returnUrlOf(row.request),
      createdBy: { id: row.created_by, email: row.created_by_email },
      decidedBy:
        row.decided_by === null ? null : { id: row.decided_by, email: row.decided_by_email ?? '' },
      decidedAt: row.decided_at === null ? null : new Date(row.decided_at).toISOString(),
      rejectReason: row.reject_reason,
      withdrawn: row.state === 'rejected' && row.decided_by === row.created_by,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      unanswered: unansweredOfColumns(row),
      canDecide: decider.mayDecide(row.created_by, state === 'pending_approval'),
      expiresAt: lapsesAt === null ? null : new Date(lapsesAt).toISOString(),
      order: order ?? null,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  /** Tells every screen, on every instance (`GET /api/events`, `event: payment_link`), that it changed. */
  publish(row: PaymentLinksTable, created = false): void {
    this.c.bus.publish({
      type: created ? 'payment_link.created' : 'payment_link.updated',
      linkId: row.id,
      kind: row.kind as PaymentLinkKind,
      state: this.stateOf(row),
      orderid: row.orderid,
      at: new Date(this.c.clock.now()).toISOString(),
    });
  }

  /** One link as `actor` sees it (the reply of an action). */
  async viewOf(row: PaymentLinksTable, actor: Actor): Promise<PaymentLink> {
    const [decider, orders] = await Promise.all([
      deciderFor(this.c.k, actor),
      this.ordersOf([row]),
    ]);
    return this.toApi(row, actor, decider, orders.get(row.client_orderid));
  }

  /**
   * The link whose gateway order has this orderid, for the lookup (`PayoutOrders.linkOfOrder`):
   * read from its index (`payment_links_orderid`, 0030). The order's ids only.
   */
  async linkOfOrder(orderid: string): Promise<LinkOrder | null> {
    const row = await this.c.k
      .selectFrom('payment_links')
      .select(['id', 'endpoint_id', 'client_orderid'])
      .where('orderid', '=', orderid)
      .executeTakeFirst();
    return row === undefined
      ? null
      : { id: row.id, endpointId: row.endpoint_id, orderid, clientOrderId: row.client_orderid };
  }

  async row(id: string): Promise<PaymentLinksTable> {
    const row = await this.c.k
      .selectFrom('payment_links')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) throw new AppError('NOT_FOUND', 'no such payment link');
    return row;
  }

  /**
   * One link as `viewer` sees it, with its history: what was written, and the order its page made
   * as Paydesk knows it now (`orderEntry`, at the order's last change; its callbacks and status
   * checks are the order's own timeline).
   */
  async get(id: string, viewer: Actor): Promise<PaymentLinkDetail> {
    const row = await this.row(id);
    const [decider, orders, events] = await Promise.all([
      deciderFor(this.c.k, viewer),
      this.knownOrdersOf([row]),
      eventsOf(this.c.k, `link:${id}`, withheldFor(`link:${id}`, row.kind)),
    ]);
    const known = orders.get(row.client_orderid);
    if (known !== undefined) {
      const entry = orderEntry(row.kind as PaymentLinkKind, known);
      // In time order: after every entry written up to the order's last change.
      const at = events.findIndex((e) => e.at > entry.at);
      events.splice(at === -1 ? events.length : at, 0, entry);
    }
    return { ...this.toApi(row, viewer, decider, known?.order), events };
  }

  async list(q: PaymentLinkListQuery, viewer: Actor): Promise<PaymentLinkList> {
    const after = decodeKeyset(q.cursor, q.view);
    // Only ops users approve: nothing awaits the approval of anyone else.
    if (q.view === 'awaiting-my-approval' && !viewer.roles.includes('ops'))
      return { items: [], nextCursor: null };
    // The four-eyes view of this viewer: one query, whatever the number of rows.
    const decider = await deciderFor(this.c.k, viewer);
    let query = this.c.k.selectFrom('payment_links').selectAll();
    const now = this.c.clock.now();
    if (q.kind !== undefined) query = query.where('kind', '=', q.kind);
    if (q.state === 'expired') {
      query = query.where((eb) =>
        eb.or([
          eb('state', '=', 'expired'),
          eb.and([eb('state', '=', 'pending_approval'), eb.not(this.notLapsed(now)(eb))]),
        ]),
      );
    } else if (q.state === 'pending_approval') {
      query = query.where(this.notLapsed(now));
    } else if (q.state !== undefined) {
      query = query.where('state', '=', q.state);
    }
    if (q.view === 'mine') query = query.where('created_by', '=', viewer.id);
    if (q.view === 'awaiting-my-approval')
      query = query
        .where(this.notLapsed(now))
        .where('created_by', 'not in', decider.excludedPreparers);
    const { page: rows, nextCursor } = await keysetPage(query, q, after);
    const orders = await this.ordersOf(rows);
    return {
      items: rows.map((r) => this.toApi(r, viewer, decider, orders.get(r.client_orderid))),
      nextCursor,
    };
  }

  private requestFields(
    body: PaymentLinkCreateBody,
    clientOrderId: string,
    endpointId: string,
    ip: string,
  ): Record<string, string> {
    const fields: Record<string, string> = {
      client_orderid: clientOrderId,
      order_desc: body.orderDesc,
    };
    if (body.amount !== undefined && body.currency !== undefined) {
      fields.amount = formatMinorUnits(toMinorUnits(body.amount));
      fields.currency = body.currency;
    }
    const customer = body.customer;
    if (customer !== undefined) {
      fields.address1 = customer.address1;
      fields.city = customer.city;
      fields.zip_code = customer.zipCode;
      fields.country = customer.country;
      fields.email = customer.email;
      if (customer.phone !== undefined) fields.phone = customer.phone;
      if (customer.firstName !== undefined) fields.first_name = customer.firstName;
      if (customer.lastName !== undefined) fields.last_name = customer.lastName;
    }
    fields.ipaddress = ip;
    fields.redirect_url =
      body.redirectUrl ??
      `${this.c.config.publicOrigin.replace(/\/+$/, '')}${PAYMENT_LINK_DONE_PATH}`;
    fields.server_callback_url = callbackUrl(this.c.config, endpointId);
    return fields;
  }

  async create(
    body: PaymentLinkCreateBody,
    actor: Actor,
    roles: readonly Role[],
    ip: string | null,
    onCreated: (id: string) => void = () => undefined,
  ): Promise<LinkOutcome> {
    const c = this.c;
    const needed = LINK_ROLE[body.kind];
    if (!roles.includes(needed)) {
      throw new AppError('FORBIDDEN', `a ${body.kind} link needs the ${needed} role`);
    }
    const endpointId = resolveEndpoint(c.config, body.endpointId, body.currency);
    const id = randomUUID();
    onCreated(id);
    const clientOrderId = `pd-link-${id}`;
    const request = this.requestFields(body, clientOrderId, endpointId, gatewayIp(ip));
    const held = body.kind === 'payout-form';
    const now = c.clock.now();
    const row: PaymentLinksTable = {
      id,
      kind: body.kind,
      state: held ? 'pending_approval' : 'sending',
      endpoint_id: endpointId,
      client_orderid: clientOrderId,
      orderid: null,
      amount_minor: body.amount === undefined ? null : Number(toMinorUnits(body.amount)),
      currency: body.currency ?? null,
      order_desc: body.orderDesc,
      customer_email: body.customer?.email ?? null,
      request: canonicalJson(request),
      binding: held ? c.sealer.seal(canonicalJson(request)) : null,
      redirect_url: null,
      created_by: actor.id,
      created_by_email: actor.email,
      decided_by: null,
      decided_by_email: null,
      decided_at: null,
      reject_reason: null,
      error_code: null,
      error_message: null,
      ...unansweredSet(null),
      expires_at: null,
      created_at: now,
      updated_at: now,
    };
    await c.k.transaction().execute(async (trx) => {
      await trx.insertInto('payment_links').values(row).execute();
      await addEvent(trx, c.clock, `link:${id}`, {
        kind: 'staff',
        title: `${LINK_KIND_LABELS[body.kind]} link created`,
        actor: actor.email,
        data: { held },
      });
    });
    this.publish(row, true);
    if (held) {
      return {
        link: await this.viewOf(row, actor),
        message:
          'The payout form is held until a second ops user approves it; its page address is released then.',
      };
    }
    return this.send(row, request, actor);
  }

  async approve(id: string, actor: Actor): Promise<LinkOutcome> {
    const c = this.c;
    const row = await this.row(id);
    if (row.created_by === actor.id) {
      throw new AppError(
        'FOUR_EYES_REQUIRED',
        'Every payout needs two people: an ops user other than the one who created this payout form must approve it.',
      );
    }
    await requireSeparatePeople(c.k, row.created_by, actor.id, 'payout form');
    const lapsesAt = this.lapsesAt(row);
    if (lapsesAt !== null && lapsesAt <= c.clock.now()) {
      await this.write(id, this.lapse(row), { state: 'pending_approval' }, ...this.lapsed());
      throw new AppError(
        'INVALID_STATE',
        'The held payout form lapsed (not approved in time; its sealed request was erased) and cannot be approved; create it again.',
        { state: 'expired' },
      );
    }
    if (row.state !== 'pending_approval') {
      throw new AppError(
        'INVALID_STATE',
        `The link is ${row.state.replace('_', ' ')}, not waiting for approval.`,
        { state: row.state },
      );
    }
    const request = this.boundRequest(row);
    const claimed = await this.write(
      id,
      {
        state: 'sending',
        decided_by: actor.id,
        decided_by_email: actor.email,
        decided_at: c.clock.now(),
      },
      { state: 'pending_approval', notCreatedBy: actor.id },
      [
        {
          kind: 'staff',
          title: `${LINK_KIND_LABELS['payout-form']} link approved`,
          actor: actor.email,
          data: {},
        },
      ],
    );
    if (claimed === undefined) {
      const current = await this.row(id);
      throw new AppError(
        'INVALID_STATE',
        `The link is ${current.state.replace('_', ' ')}: another approver got there first.`,
        { state: current.state },
      );
    }
    return this.send(claimed, request, actor);
  }

  /**
   * A repeat of an approval whose request was interrupted (`interruptedApproval`): still
   * `sending`, the instance that sent it stopped, and the link becomes unknown once no gateway
   * call can still be running (`recoverStale`): 409 until then.
   */
  approvalInterruption(id: string, actor: Actor): Interruption {
    return interruptedApproval(actor, this.c.options, {
      row: () => this.row(id),
      confirming: (row) =>
        row.state === 'sending'
          ? 'The first attempt of this approval was interrupted before it answered; the link is being sent, and is marked unknown if its reply never comes (its timeline shows what was sent). It is never sent twice: once that is settled, this same request gets the link as it ended.'
          : null,
      reply: async (row) => {
        const link = await this.viewOf(row, actor);
        const next =
          link.state === 'sent'
            ? ' Send this page address to the payee. Paydesk learns the outcome from the gateway automatically when the payee finishes.'
            : link.state === 'unknown'
              ? " Its page address is not known: Paydesk asks the gateway's status and shows here whether the order was created."
              : '';
        return {
          link,
          message: `${interruptedMessage('payout form', link.state)}${next}`,
        } satisfies LinkOutcome;
      },
    });
  }

  /** The request sealed at creation, if it still equals the stored one and the stored columns. */
  private boundRequest(row: PaymentLinksTable): Record<string, string> {
    const refuse = () =>
      new AppError(
        'CONFLICT',
        'Approval refused: the stored link differs from what was created. Reject it and create it again.',
        { binding: 'mismatch' },
      );
    if (row.binding === null) throw refuse();
    let opened: string;
    try {
      opened = this.c.sealer.open(row.binding);
    } catch {
      throw refuse();
    }
    const a = Buffer.from(opened);
    const b = Buffer.from(row.request);
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw refuse();
    const request = JSON.parse(opened) as Record<string, string>;
    const amountOk =
      row.amount_minor !== null &&
      request.amount !== undefined &&
      toMinorUnits(request.amount) === BigInt(row.amount_minor);
    if (
      !amountOk ||
      request.currency !== row.currency ||
      request.client_orderid !== row.client_orderid
    )
      throw refuse();
    return request;
  }

  private async send(
    row: PaymentLinksTable,
    request: Record<string, string>,
    actor: Actor,
  ): Promise<LinkOutcome> {
    const c = this.c;
    const subject = `link:${row.id}`;
    const outcome = await c.gateway.send(row.kind, row.endpoint_id, request);
    await addEvent(
      c.k,
      c.clock,
      subject,
      {
        kind: 'gateway',
        title: sentTitle(row.kind as PaymentLinkKind, outcome),
        actor: actor.email,
        data: exchangeData(outcome),
      },
      withheldFor(subject, row.kind),
    );
    const set = async (values: Partial<PaymentLinksTable>) => {
      // Unguarded: even an answer that comes after recoverStale gave the link up is worth keeping.
      const after = await this.write(row.id, values);
      if (after === undefined) throw new AppError('NOT_FOUND', 'no such payment link');
      return after;
    };
    if (outcome.kind === 'not-sent') {
      if (row.kind === 'payout-form') {
        await set({
          state: 'pending_approval',
          decided_by: null,
          decided_by_email: null,
          decided_at: null,
        });
      } else {
        await set({ state: 'failed', error_code: 'NOT_SENT', error_message: outcome.reason });
      }
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        `The gateway could not be reached; the ${kindWords(row.kind)} was not sent. Try again.`,
      );
    }
    if (outcome.kind === 'unknown') {
      const code = outcome.exchange.reply?.['error-code'];
      const after = await set({
        state: 'unknown',
        error_code: code ?? outcome.reason.toUpperCase(),
        // In words (the reason code stays in the timeline's exchange); the code column keeps the
        // gateway's code, or the reason's as it always did. The web reads `unanswered`.
        error_message: unansweredText(outcome),
        ...unansweredSet(outcome),
      });
      return {
        link: await this.viewOf(after, actor),
        message: `${unlearnedSentence(outcome, `the ${kindWords(row.kind)}`)} The order may exist at the gateway but its page address is not known. It is never sent again: Paydesk asks the gateway's status and shows here whether the order was created.`,
      };
    }
    const { httpStatus, reply } = outcome;
    if (httpStatus !== 200 || reply.redirectUrl === undefined) {
      const err = gatewayRefusal(httpStatus, reply, kindWords(row.kind));
      await set({
        state: 'failed',
        error_code: reply.errorCode ?? `HTTP_${httpStatus}`,
        error_message: err.message,
      });
      throw err;
    }
    const after = await set({
      state: 'sent',
      orderid: reply.orderId ?? null,
      redirect_url: reply.redirectUrl,
    });
    const who = row.kind === 'payout-form' ? 'payee' : 'customer';
    return {
      link: await this.viewOf(after, actor),
      message: `Send this page address to the ${who}. Paydesk learns the outcome from the gateway automatically when the ${who} finishes.`,
    };
  }

  /**
   * Whether `actor` deciding against link `id` would be its creator withdrawing it (audited
   * `payment_link.withdraw`) rather than a second person rejecting it; false when there is no such
   * link.
   */
  async isWithdrawal(id: string, actor: Actor): Promise<boolean> {
    const row = await this.c.k
      .selectFrom('payment_links')
      .select('created_by')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.created_by === actor.id;
  }

  /**
   * Rejects a link waiting for approval; by its creator, it is a withdrawal: still `rejected`
   * (nothing is sent either way), told apart by `decided_by = created_by` (`withdrawn`), with a
   * timeline entry of its own.
   */
  async reject(id: string, reason: string, actor: Actor): Promise<LinkOutcome> {
    const row = await this.row(id);
    const withdrawal = row.created_by === actor.id;
    const form = LINK_KIND_LABELS[row.kind as PaymentLinkKind];
    const after = await this.write(
      id,
      {
        state: 'rejected',
        decided_by: actor.id,
        decided_by_email: actor.email,
        decided_at: this.c.clock.now(),
        reject_reason: reason,
        binding: null,
      },
      { state: 'pending_approval' },
      [
        {
          kind: 'staff',
          title: withdrawal ? `${form} link withdrawn by its creator` : `${form} link rejected`,
          actor: actor.email,
          data: { reason },
        },
      ],
    );
    if (after === undefined) {
      const current = await this.row(id);
      throw new AppError(
        'INVALID_STATE',
        `The link is ${current.state.replace('_', ' ')}, not waiting for approval.`,
        { state: current.state },
      );
    }
    return {
      link: await this.viewOf(after, actor),
      message: withdrawal
        ? `You withdrew the ${kindWords(row.kind)}; nothing was sent.`
        : `The ${kindWords(row.kind)} was rejected; nothing was sent.`,
    };
  }

  /**
   * Asks `status` for a sent link's order now (a reader's "Check payment status"): an order the
   * page made is learned as if its callback had come (the transaction's timeline says by status);
   * an unused page leaves the link waiting. Nothing that moves money is sent. An unknown link's
   * outcome is settled the same way (`refreshUnknown`).
   */
  async refresh(id: string, actor: Actor): Promise<PaymentLinkRefreshResult> {
    const c = this.c;
    const row = await this.row(id);
    if (row.state === 'unknown') return this.refreshUnknown(row, actor);
    if (row.state !== 'sent') {
      throw new AppError(
        'INVALID_STATE',
        `The link is ${row.state.replace('_', ' ')}: only a sent link's order, or one whose outcome is unknown, can be checked.`,
        { state: row.state },
      );
    }
    const check = await this.check(row, actor);
    const subject = `link:${id}`;
    await addEvent(
      c.k,
      c.clock,
      subject,
      { kind: 'gateway', title: check.title, actor: actor.email, data: check.data },
      withheldFor(subject, row.kind),
    );
    if (check.outcome === 'no_answer') {
      const g = check.gateway;
      if (g.kind === 'reply' && g.httpStatus !== 200)
        throw gatewayRefusal(g.httpStatus, g.reply, 'status');
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        'The gateway did not answer the status request. Nothing changed; try again.',
      );
    }
    this.publish(row);
    const link = await this.viewOf(row, actor);
    if (check.outcome === 'order_found' && link.order !== null) {
      const { orderid, status, stage } = link.order;
      return {
        link,
        outcome: 'order_found',
        message: `The gateway shows order ${orderid}: ${orderStateWords(status, stage)}. It is now among the transactions.`,
      };
    }
    // Scheduled checks end at the horizon (`claimDueChecks`); after it only staff ask.
    const horizon = c.options.linkFollow.horizonMs;
    const span = `${describeDuration(horizon)} after the link was sent`;
    const later =
      c.clock.now() < row.updated_at + horizon
        ? `Paydesk keeps checking by itself for ${span}.`
        : `Paydesk checked by itself for ${span} and no longer does: check the payment status again later.`;
    return {
      link,
      outcome: 'not_paid_yet',
      message: `${notYet(row.kind as PaymentLinkKind, 'sentence')} ${later}`,
    };
  }

  /** One `status` check of a sent link; an order the page made is learned (ledger, published). */
  private async check(row: PaymentLinksTable, actor: Actor | null): Promise<LinkCheck> {
    const { outcome, view } = await this.transactions.askStatus(
      row.endpoint_id,
      row.orderid ?? undefined,
      row.client_orderid,
    );
    const data = exchangeData(outcome);
    if (view !== null && pageUsed(view)) {
      const known = (await this.ordersOf([row])).get(row.client_orderid);
      const by = actor === null ? 'a scheduled status check' : `a status check by ${actor.email}`;
      await this.transactions.learn(row.endpoint_id, { outcome, view }, actor?.email ?? null, [
        {
          kind: actor === null ? 'reconcile' : 'staff',
          title:
            known === undefined
              ? `order learned by status, not by callback (none had come): ${by} of payment link ${row.id}`
              : `order updated by ${by} of payment link ${row.id}`,
          actor: actor?.email ?? null,
          data: { linkId: row.id },
        },
      ]);
      return {
        outcome: 'order_found',
        title: `${LINK_CHECK_TITLE}: order ${view.orderid} is ${orderStateWords(view.status, view.stage)}`,
        final: FINAL_STATUSES.some((s) => s === view.status),
        data,
        gateway: outcome,
      };
    }
    if (view !== null || (outcome.kind === 'reply' && outcome.httpStatus === 404)) {
      // `form_pending` is what "not used yet" means: said in words, not as the gateway's code.
      const stage = view?.stage ?? null;
      const also = stage === null || stage === 'form_pending' ? '' : ` (${stageWords(stage)})`;
      return {
        outcome: 'not_paid_yet',
        title: `${LINK_CHECK_TITLE}: ${notYet(row.kind as PaymentLinkKind, 'title')}${also}`,
        final: false,
        data,
        gateway: outcome,
      };
    }
    return {
      outcome: 'no_answer',
      title: `${LINK_CHECK_TITLE}: no answer (${outcome.kind === 'reply' ? `HTTP ${String(outcome.httpStatus)}` : outcome.reason})`,
      final: false,
      data,
      gateway: outcome,
    };
  }

  /**
   * A reader's "Check payment status" of an unknown link: `status` asked now by its client_orderid
   * and the answer applied as a scheduled check applies it (`settleCheck`); nothing is sent again.
   * It counts as the link's latest check.
   */
  private async refreshUnknown(
    row: PaymentLinksTable,
    actor: Actor,
  ): Promise<PaymentLinkRefreshResult> {
    const c = this.c;
    const settle = await this.settleCheck(row, actor);
    const subject = `link:${row.id}`;
    await addEvent(
      c.k,
      c.clock,
      subject,
      { kind: 'gateway', title: settle.title, actor: actor.email, data: settle.data },
      withheldFor(subject, row.kind),
    );
    if (settle.outcome === 'no_answer') {
      const g = settle.gateway;
      if (g.kind === 'reply' && g.httpStatus !== 200)
        throw gatewayRefusal(g.httpStatus, g.reply, 'status');
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        'The gateway did not answer the status request. Nothing changed; try again.',
      );
    }
    const link = await this.viewOf(settle.row, actor);
    if (settle.outcome === 'order_found') {
      return { link, outcome: 'order_found', message: this.foundWords(settle.row, link) };
    }
    if (settle.outcome === 'not_created') {
      return {
        link,
        outcome: 'not_created',
        message: settle.row.error_message ?? 'The link was not created.',
      };
    }
    const s = c.options.linkSettle;
    const span = durationWords(s.horizonMs);
    const later =
      c.clock.now() < sentAtOf(row) + s.horizonMs
        ? `Paydesk keeps asking by itself for ${span} after it was sent`
        : `Paydesk asked by itself for ${span} after it was sent and no longer does: check the payment status again later`;
    return {
      link,
      outcome: 'not_known_yet',
      message: `The gateway does not show the link's order yet: its request may still be on its way. It is never sent again. ${later}; if the gateway still does not show the order ${durationWords(this.notCreatedAfterMs())} after it was sent, the link is marked not created.`,
    };
  }

  /** What a check that found an unknown link's order tells staff (its refresh's message). */
  private foundWords(row: PaymentLinksTable, link: PaymentLink): string {
    const orderid = row.orderid ?? '';
    if (link.order !== null) {
      const { status, stage } = link.order;
      return `The gateway shows order ${orderid}: ${orderStateWords(status, stage)}. It is now among the transactions.`;
    }
    if (row.error_code === PAYMENT_LINK_PAGE_LOST && row.error_message !== null)
      return row.error_message;
    const who = row.kind === 'payout-form' ? 'payee' : 'customer';
    return `The gateway shows order ${orderid}: the link was created and its page address is known. Send it to the ${who}.`;
  }

  /**
   * After this long from sending, a link's request is certainly no longer on its way, and a
   * gateway that does not know its order never created it: a lost request's safe delay, as a
   * rebill's and a subscription's (`poll.notAppliedAfterMs`, at least a gateway timeout, plus one).
   */
  notCreatedAfterMs(): number {
    const o = this.c.options;
    return Math.max(o.poll.notAppliedAfterMs, o.gatewayTimeoutMs) + o.gatewayTimeoutMs;
  }

  /**
   * One `status` check of an unknown link (its create, or a payout-form's approval, went
   * unanswered), by its client_orderid (no orderid was learned), and its answer applied; never the
   * create again. An order the gateway shows makes the link `sent` with its orderid: an order whose
   * page was used is learned as a lost callback's is (`check`); one whose page was not used keeps
   * its page address only if the reply names it (`redirect-url`; the spec's status reply does not),
   * else the link says its page address was lost and must be made again (`PAYMENT_LINK_PAGE_LOST`). A 404
   * once the safe delay has passed (`notCreatedAfterMs`) means it was never created: `failed`,
   * `PAYMENT_LINK_NOT_CREATED`, in words saying it may be made again. A 404 before then, or no answer,
   * leaves it unknown. A change is written only while the link is still unknown, with the system's
   * (or the staff member's) `payment_link.reconciled` audit row.
   */
  private async settleCheck(row: PaymentLinksTable, actor: Actor | null): Promise<LinkSettle> {
    const c = this.c;
    const { outcome, view } = await this.transactions.askStatus(
      row.endpoint_id,
      undefined,
      row.client_orderid,
    );
    const data = exchangeData(outcome);
    const who = row.kind === 'payout-form' ? 'payee' : 'customer';
    const unlearned = unlearnedCreate(row, unansweredOfColumns(row));
    const form = kindWords(row.kind);
    if (view !== null) {
      const used = pageUsed(view);
      if (used) {
        const by = actor === null ? 'a scheduled status check' : `a status check by ${actor.email}`;
        await this.transactions.learn(row.endpoint_id, { outcome, view }, actor?.email ?? null, [
          {
            kind: actor === null ? 'reconcile' : 'staff',
            title: `order learned by status, not by callback (none had come): ${by} of payment link ${row.id}`,
            actor: actor?.email ?? null,
            data: { linkId: row.id },
          },
        ]);
      }
      const page = outcome.kind === 'reply' ? (outcome.reply.redirectUrl ?? null) : null;
      const lost = page === null && !used;
      // An unused page's `form_pending` is said by "its page not used", not as a code.
      const state = orderStateWords(view.status, view.stage === 'form_pending' ? null : view.stage);
      const message = lost
        ? `The gateway shows order ${view.orderid} (${state}, its page not used): the ${form} was created, but its page address was lost with the gateway's reply (${unlearned}), so nobody can be sent to it. Create the link again for the ${who}; this one was not sent again.`
        : null;
      const title = used
        ? `${LINK_CHECK_TITLE}: order ${view.orderid} is ${orderStateWords(view.status, view.stage)}`
        : lost
          ? `${LINK_CHECK_TITLE}: order ${view.orderid} exists at the gateway (${state}); its page address was lost: create the link again`
          : `${LINK_CHECK_TITLE}: order ${view.orderid} exists at the gateway (${state}); its page address is learned`;
      const after = await this.settleWrite(
        row,
        {
          state: 'sent',
          orderid: view.orderid,
          redirect_url: page,
          error_code: lost ? PAYMENT_LINK_PAGE_LOST : null,
          error_message: message,
        },
        actor,
        { finding: 'created', orderid: view.orderid, orderStatus: view.status, pageLost: lost },
      );
      return { outcome: 'order_found', title, data, gateway: outcome, row: after };
    }
    if (outcome.kind === 'reply' && outcome.httpStatus === 404) {
      const waited = this.notCreatedAfterMs();
      if (c.clock.now() - sentAtOf(row) < waited) {
        return {
          outcome: 'not_known_yet',
          title: `${LINK_CHECK_TITLE}: the gateway does not show the order yet (HTTP 404); its request may still be on its way`,
          data,
          gateway: outcome,
          row,
        };
      }
      const after = await this.settleWrite(
        row,
        {
          state: 'failed',
          error_code: PAYMENT_LINK_NOT_CREATED,
          error_message: `The link was not created: Paydesk did not learn the outcome of its ${form} (${unlearned}), and ${durationWords(waited)} after it was sent the gateway still does not show its order (${row.client_orderid}). Nothing was sent again and nobody can pay on it; create the link again if the ${who} still needs one.`,
        },
        actor,
        { finding: 'not_created', orderid: null, orderStatus: null, pageLost: false },
      );
      return {
        outcome: 'not_created',
        title: `${LINK_CHECK_TITLE}: the gateway does not show the order ${durationWords(waited)} after it was sent (HTTP 404): not created; it may be made again`,
        data,
        gateway: outcome,
        row: after,
      };
    }
    return {
      outcome: 'no_answer',
      title: `${LINK_CHECK_TITLE}: no answer (${outcome.kind === 'reply' ? `HTTP ${String(outcome.httpStatus)}` : outcome.reason})`,
      data,
      gateway: outcome,
      row,
    };
  }

  /**
   * An unknown link's outcome learned (`settleCheck`), written only while it is still unknown,
   * with its audit row, and published; the link as it is afterwards (another check's, if that one
   * settled it first).
   */
  private async settleWrite(
    row: PaymentLinksTable,
    set: Partial<PaymentLinksTable>,
    actor: Actor | null,
    found: {
      finding: 'created' | 'not_created';
      orderid: string | null;
      orderStatus: string | null;
      pageLost: boolean;
    },
  ): Promise<PaymentLinksTable> {
    const after = await this.write(row.id, set, { state: 'unknown' }, [], (changed) => ({
      actorId: actor?.id ?? null,
      actorEmail: actor?.email ?? null,
      actorRoles: actor?.roles ?? [],
      action: 'payment_link.reconciled',
      target: `link:${changed.id}`,
      summary: {
        kind: changed.kind,
        clientOrderId: changed.client_orderid,
        createdBy: changed.created_by_email,
        approvedBy: changed.decided_by_email,
        stateBefore: row.state,
        state: changed.state,
        ...found,
      },
      outcome: found.finding === 'created' ? 'success' : 'failed',
      errorCode: changed.error_code,
      requestId: null,
      ip: null,
      userAgent: null,
    }));
    return after ?? (await this.row(row.id));
  }

  /**
   * The unknown links due a scheduled status check (`options.linkSettle`), claimed as sent links'
   * are (`claimDueChecks`: the check's timeline entry is the lease and the schedule, written in the
   * transaction that picks the link, FOR UPDATE SKIP LOCKED and re-read under the locks on
   * PostgreSQL, BEGIN IMMEDIATE on SQLite): sent at least `firstAfterMs` ago, no status check in
   * their timeline within `intervalMs`, and their follow-up not ended. A check claimed within
   * `intervalMs` of the horizon is the last (`last`), its entry says so (`LINK_SETTLE_END`) and no
   * check is claimed after it; when no pass came before the horizon (no instance running), the
   * first pass after it makes that last check (up to `LATE_LAST_CHECK_MS` past it). At most
   * `batchSize`.
   */
  async claimUnknownChecks(): Promise<LinkSettleClaim[]> {
    const { clock, options } = this.c;
    const t = options.linkSettle;
    const now = clock.now();
    const sentAt = sql`coalesce(l.decided_at, l.created_at)`;
    const due = (more: RawBuilder<unknown>) => sql<{ id: string }>`
      select l.id from payment_links l
      where l.state = 'unknown' and ${sentAt} <= ${now - t.firstAfterMs}
        and ${sentAt} > ${now - t.horizonMs - LATE_LAST_CHECK_MS}
        and not exists (select 1 from payout_events e
          where e.subject = 'link:' || l.id and e.title like ${`${LINK_CHECK_TITLE}%`}
            and e.at > ${now - t.intervalMs})
        and not exists (select 1 from payout_events e
          where e.subject = 'link:' || l.id and e.kind = 'reconcile'
            and e.title like ${`${LINK_CHECK_TITLE}%${LINK_SETTLE_END}`})
        ${more}`;
    return this.claimLinks(
      due,
      { now, batchSize: t.batchSize },
      (row) => sentAtOf(row) + t.horizonMs <= now + t.intervalMs,
    );
  }

  /** A claimed scheduled check's answer, written into its timeline entry (`claimLinks`). */
  private async writeClaimEntry(
    row: PaymentLinksTable,
    eventId: number,
    title: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    await this.c.k
      .updateTable('payout_events')
      .set({
        title,
        data: storedEventData(
          { scheduled: true, ...data },
          withheldFor(`link:${row.id}`, row.kind),
        ),
      })
      .where('id', '=', eventId)
      .execute();
  }

  /**
   * A claimed scheduled check of an unknown link (`settleCheck`), its answer written into the
   * claim's timeline entry; the last one's entry says no further checks follow unless the link was
   * settled. A check that fails says so in its entry and throws: it was an attempt all the same.
   */
  async runUnknownCheck(claim: LinkSettleClaim): Promise<LinkSettle> {
    const { row, eventId } = claim;
    const entry = (title: string, data: Record<string, unknown>) =>
      this.writeClaimEntry(row, eventId, title, data);
    let settle: LinkSettle;
    try {
      settle = await this.settleCheck(row, null);
    } catch (err) {
      const reason = err instanceof AppError ? err.message : 'internal error';
      const title = `${LINK_CHECK_TITLE}: failed (${reason})`;
      await entry(claim.last ? `${title}${LINK_SETTLE_END}` : title, {});
      throw err;
    }
    const open = settle.outcome === 'not_known_yet' || settle.outcome === 'no_answer';
    await entry(
      claim.last && open ? `${settle.title}${LINK_SETTLE_END}` : settle.title,
      settle.data,
    );
    return settle;
  }

  /**
   * The sent links due a scheduled status check (`options.linkFollow`), claimed: sent at least
   * `firstAfterMs` ago, no final order learned for their client_orderid, no status check in their
   * timeline within `intervalMs`, and their follow-up not ended (below). Claiming writes the
   * check's timeline entry (the lease and the schedule at once) in the transaction that picked the
   * link: rows locked with FOR UPDATE SKIP LOCKED and the choice re-read under the locks on
   * PostgreSQL, BEGIN IMMEDIATE on SQLite, so several instances never ask for one link twice. At
   * most `batchSize`.
   *
   * The first scheduled check claimed within `intervalMs` (and a scan's delay) of the horizon is
   * the last (`last`), and no check is claimed after it, so the end of the follow-up is known at
   * one check, once (its entry says so, the poller logs it). When no pass came in that window (no
   * instance running), the first pass after it claims that last check, past the horizon (up to
   * `LATE_LAST_CHECK_MS` past it: the scan reads recent links only). A
   * scheduled check whose answer cannot be applied ends the follow-up too (`runScheduledCheck`).
   */
  async claimDueChecks(): Promise<LinkCheckClaim[]> {
    const { clock, options } = this.c;
    const t = options.linkFollow;
    const now = clock.now();
    // the last check's window opens this long after a link was sent
    const lastFrom = t.horizonMs - t.intervalMs - t.scanEveryMs - options.poll.intervalMs;
    const finals = sql.join(FINAL_STATUSES.map((s) => sql.lit(s)));
    const due = (more: RawBuilder<unknown>) => sql<{ id: string }>`
      select l.id from payment_links l
      where l.state = 'sent' and l.updated_at <= ${now - t.firstAfterMs}
        and l.updated_at > ${now - t.horizonMs - LATE_LAST_CHECK_MS}
        and not exists (select 1 from transactions x
          where x.client_orderid = l.client_orderid and x.status in (${finals}))
        and not exists (select 1 from payout_events e
          where e.subject = 'link:' || l.id and e.title like ${`${LINK_CHECK_TITLE}%`}
            and e.at > ${now - t.intervalMs})
        and not exists (select 1 from payout_events e
          where e.subject = 'link:' || l.id and e.kind = 'reconcile'
            and e.title like ${`${LINK_CHECK_TITLE}%`}
            and (e.at >= l.updated_at + ${lastFrom}
              or e.title like ${`${LINK_CHECK_TITLE}%${LINK_CHECKS_END}`}))
        ${more}`;
    return this.claimLinks(
      due,
      { now, batchSize: t.batchSize },
      (row) => row.updated_at + lastFrom <= now,
    );
  }

  /**
   * Claims the links `due` selects (`more`: its order and limit, or the ids to re-read), each with
   * a status check's timeline entry written in the transaction that picked it (the lease and the
   * schedule at once): rows locked with FOR UPDATE SKIP LOCKED and the choice re-read under the
   * locks on PostgreSQL, BEGIN IMMEDIATE on SQLite, so several instances never ask for one link
   * twice. `lastOf`: whether a claim is its link's last scheduled check. For sent links'
   * follow-up (`claimDueChecks`) and unknown links' settling (`claimUnknownChecks`).
   */
  private claimLinks(
    due: (more: RawBuilder<unknown>) => RawBuilder<{ id: string }>,
    { now, batchSize }: { now: number; batchSize: number },
    lastOf: (row: PaymentLinksTable) => boolean,
  ): Promise<LinkCheckClaim[]> {
    const { db, k } = this.c;
    return k.transaction().execute(async (trx) => {
      let ids = (
        await due(
          sql`order by l.updated_at limit ${batchSize}${db.kind === 'postgres' ? sql` for update of l skip locked` : sql``}`,
        ).execute(trx)
      ).rows.map((r) => r.id);
      if (ids.length === 0) return [];
      if (db.kind === 'postgres') {
        // Read again under the locks: another instance's claim committed since this statement's
        // snapshot was taken is seen now.
        ids = (await due(sql`and l.id in (${sql.join(ids)})`).execute(trx)).rows.map((r) => r.id);
        if (ids.length === 0) return [];
      }
      const rows = await trx
        .selectFrom('payment_links')
        .selectAll()
        .where('id', 'in', ids)
        .execute();
      const claims: LinkCheckClaim[] = [];
      for (const row of rows) {
        const subject = `link:${row.id}`;
        const inserted = await trx
          .insertInto('payout_events')
          .values({
            subject,
            at: now,
            kind: 'reconcile',
            title: LINK_CHECK_TITLE,
            actor: null,
            data: storedEventData({ scheduled: true }, withheldFor(subject, row.kind)),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        claims.push({ row, eventId: inserted.id, last: lastOf(row) });
      }
      return claims;
    });
  }

  /**
   * A claimed scheduled check: `status` asked, its answer written into the claim's timeline entry;
   * an order found is learned and the link published. Returns what the check found. The last
   * check's entry says no further checks follow (`LINK_CHECKS_END`) unless the order found is
   * final. A check that fails says so in its entry and throws: it was an attempt all the same, and
   * the link is asked again only on the schedule, until the horizon. One whose answer cannot be
   * applied (`StatusNotApplied`: the known order flagged and audited once, by `learn`) ends the
   * follow-up, as a settlement check does: asked again, the gateway would say the same; staff
   * look at the order, and may still check the link's payment status by hand.
   */
  async runScheduledCheck(claim: LinkCheckClaim): Promise<LinkCheck> {
    const { row, eventId } = claim;
    const end = (title: string) => `${title}${LINK_CHECKS_END}`;
    const entry = (title: string, data: Record<string, unknown>) =>
      this.writeClaimEntry(row, eventId, title, data);
    let check: LinkCheck;
    try {
      check = await this.check(row, null);
    } catch (err) {
      if (err instanceof StatusNotApplied) {
        await entry(
          end(`${LINK_CHECK_TITLE}: the status reply cannot be applied (${err.message})`),
          {
            transactionId: err.details?.transactionId ?? null,
          },
        );
        throw err;
      }
      const reason = err instanceof AppError ? err.message : 'internal error';
      const title = `${LINK_CHECK_TITLE}: failed (${reason})`;
      await entry(claim.last ? end(title) : title, {});
      throw err;
    }
    await entry(claim.last && !check.final ? end(check.title) : check.title, check.data);
    if (check.outcome === 'order_found') this.publish(row);
    return check;
  }

  /**
   * A link left `sending` longer than a gateway call can take (`staleBefore`: its last change) was
   * being sent by an instance that stopped: the order may exist at the gateway, but its page
   * address is not known. It becomes `unknown`, as when the reply is lost; the callback receiver
   * records whatever the order does. Returns how many.
   */
  async recoverStale(staleBefore: number): Promise<number> {
    const stale = await this.c.k
      .selectFrom('payment_links')
      .select(['id', 'updated_at'])
      .where('state', '=', 'sending')
      .where('updated_at', '<', staleBefore)
      .execute();
    let recovered = 0;
    for (const { id, updated_at: since } of stale) {
      const message = 'the instance sending it stopped before recording the reply';
      const after = await this.write(
        id,
        { state: 'unknown', error_code: 'INTERRUPTED', error_message: message },
        { state: 'sending', updatedAt: since },
        [
          {
            kind: 'reconcile',
            title: `outcome unknown: ${message}; its page address is not known`,
            actor: null,
            data: { sendingSince: new Date(since).toISOString() },
          },
        ],
      );
      if (after !== undefined) recovered += 1;
    }
    return recovered;
  }

  /** What lapsing a held payout-form writes: expired, its sealed request erased. */
  private lapse(row: PaymentLinksTable): Partial<PaymentLinksTable> {
    return {
      state: 'expired',
      binding: null,
      expires_at: row.created_at + this.c.options.holdMaxAgeMs,
    };
  }

  /**
   * The timeline entry and the system audit row of a held payout-form that lapsed: a payout's
   * expiry (`payout.expired`), its target the link.
   */
  private lapsed(): [readonly EventEntry[], (after: PaymentLinksTable) => AuditEntry] {
    const age = describeDuration(this.c.options.holdMaxAgeMs);
    return [
      [
        {
          kind: 'reconcile',
          title: `lapsed: not approved within ${age} of being created; the held request was erased`,
          actor: null,
          data: {},
        },
      ],
      (after) => ({
        actorId: null,
        actorEmail: null,
        actorRoles: [],
        action: 'payout.expired',
        target: `link:${after.id}`,
        summary: {
          state: after.state,
          kind: after.kind,
          createdBy: after.created_by_email,
          clientOrderId: after.client_orderid,
        },
        outcome: 'success',
        errorCode: null,
        requestId: null,
        ip: null,
        userAgent: null,
      }),
    ];
  }

  /**
   * Lapses the held payout-forms created more than `holdMaxAgeMs` ago (`lapseHeldRows`), as
   * `PayoutsService.lapseHeld` does held payouts: each expired, its sealed request erased, with its
   * timeline entry and audit row, only while still waiting for approval. Returns how many lapsed.
   */
  lapseHeld(): Promise<number> {
    return lapseHeldRows(
      this.c,
      (trx) => trx.selectFrom('payment_links').selectAll().where('kind', '=', 'payout-form'),
      (trx, row) =>
        this.writeIn(trx, row.id, this.lapse(row), { state: 'pending_approval' }, ...this.lapsed()),
      (row) => {
        this.publish(row);
      },
    );
  }

  /**
   * Writes `set` with its timeline entries (and `audit`, the system's audit row of the change) in
   * one transaction and publishes the row once committed. Undefined when the row no longer met
   * `guard` (nothing written).
   */
  private async write(
    id: string,
    set: Partial<PaymentLinksTable>,
    guard: LinkGuard = {},
    events: readonly EventEntry[] = [],
    audit?: (after: PaymentLinksTable) => AuditEntry,
  ): Promise<PaymentLinksTable | undefined> {
    const after = await this.c.k
      .transaction()
      .execute((trx) => this.writeIn(trx, id, set, guard, events, audit));
    if (after !== undefined) this.publish(after);
    return after;
  }

  /** `write` in the caller's transaction, unpublished (the caller publishes once committed). */
  private async writeIn(
    trx: Transaction<PayoutsDatabase>,
    id: string,
    set: Partial<PaymentLinksTable>,
    guard: LinkGuard,
    events: readonly EventEntry[],
    audit?: (after: PaymentLinksTable) => AuditEntry,
  ): Promise<PaymentLinksTable | undefined> {
    const { clock } = this.c;
    // As a payout's: a change of state or of the recorded error no longer goes unanswered.
    const clears = ['state', 'error_code', 'error_message'].some((column) => column in set);
    let update = trx
      .updateTable('payment_links')
      .set({
        ...(clears && !('unanswered_kind' in set) ? unansweredSet(null) : {}),
        ...set,
        updated_at: clock.now(),
      })
      .where('id', '=', id);
    if (guard.state !== undefined) update = update.where('state', '=', guard.state);
    if (guard.notCreatedBy !== undefined)
      update = update.where('created_by', '<>', guard.notCreatedBy);
    if (guard.updatedAt !== undefined) update = update.where('updated_at', '=', guard.updatedAt);
    const done = await update.executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) return undefined;
    for (const entry of events) await addEvent(trx, clock, `link:${id}`, entry);
    const row = await trx
      .selectFrom('payment_links')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    if (audit !== undefined) await this.c.audit.appendIn(trx, audit(row));
    return row;
  }
}
