// Payment links: the gateway's hosted forms. Card forms (finance) are sent at once and give the
// customer's page; a payout-form (ops) is held until a second ops user approves it, like any
// payout, then sent and its page released. Every order's server_callback_url is the payments
// core's receiver, which learns the outcome.
import { randomUUID } from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import type {
  PaymentLink,
  PaymentLinkCreateBody,
  PaymentLinkKind,
  PaymentLinkListQuery,
  PaymentLinkState,
  Role,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { PAYMENT_LINK_DONE_PATH } from '../http/customer-pages.js';
import { canonicalJson } from '../services/redact.js';
import {
  addEvent,
  callbackUrl,
  exchangeData,
  gatewayIp,
  resolveEndpoint,
  type Actor,
  type Ctx,
} from './context.js';
import { deciderFor, requireSeparatePeople, type Decider } from './four-eyes.js';
import { gatewayRefusal } from './gateway-errors.js';
import type { PaymentLinksTable } from './migration.js';

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

export class PaymentLinksService {
  constructor(private readonly c: Ctx) {}

  /** `decider`: the viewer's four-eyes view (`deciderFor`), computed once per reply. */
  toApi(row: PaymentLinksTable, decider: Decider): PaymentLink {
    return {
      id: row.id,
      kind: row.kind as PaymentLinkKind,
      state: row.state as PaymentLinkState,
      endpointId: row.endpoint_id,
      clientOrderId: row.client_orderid,
      orderid: row.orderid,
      amount: row.amount_minor === null ? null : formatMinorUnits(BigInt(row.amount_minor)),
      currency: row.currency,
      orderDesc: row.order_desc,
      customerEmail: row.customer_email,
      redirectUrl: row.state === 'sent' ? row.redirect_url : null,
      createdBy: { id: row.created_by, email: row.created_by_email },
      decidedBy:
        row.decided_by === null ? null : { id: row.decided_by, email: row.decided_by_email ?? '' },
      rejectReason: row.reject_reason,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      canDecide: decider.mayDecide(row.created_by, row.state === 'pending_approval'),
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
      state: row.state as PaymentLinkState,
      orderid: row.orderid,
      at: new Date(this.c.clock.now()).toISOString(),
    });
  }

  /** One link as `actor` sees it (the reply of an action). */
  async viewOf(row: PaymentLinksTable, actor: Actor): Promise<PaymentLink> {
    return this.toApi(row, await deciderFor(this.c.k, actor));
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

  async list(q: PaymentLinkListQuery, viewer: Actor): Promise<PaymentLink[]> {
    // Only ops users approve: nothing awaits the approval of anyone else.
    if (q.view === 'awaiting-my-approval' && !viewer.roles.includes('ops')) return [];
    // The four-eyes view of this viewer: one query, whatever the number of rows.
    const decider = await deciderFor(this.c.k, viewer);
    let query = this.c.k.selectFrom('payment_links').selectAll();
    if (q.kind !== undefined) query = query.where('kind', '=', q.kind);
    if (q.state !== undefined) query = query.where('state', '=', q.state);
    if (q.view === 'mine') query = query.where('created_by', '=', viewer.id);
    if (q.view === 'awaiting-my-approval')
      query = query
        .where('state', '=', 'pending_approval')
        .where('created_by', 'not in', decider.excludedPreparers);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .execute();
    return rows.map((r) => this.toApi(r, decider));
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
      created_at: now,
      updated_at: now,
    };
    await c.k.insertInto('payment_links').values(row).execute();
    this.publish(row, true);
    await addEvent(c.k, c.clock, `link:${id}`, {
      kind: 'staff',
      title: `${body.kind} link created`,
      actor: actor.email,
      data: { held },
    });
    if (held) {
      return {
        link: await this.viewOf(row, actor),
        message:
          'The payout-form link is held until a second ops user approves it; its page address is released then.',
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
        'Every payout needs two people: an ops user other than the one who created this payout-form link must approve it.',
      );
    }
    await requireSeparatePeople(c.k, row.created_by, actor.id, 'payout-form link');
    if (row.state !== 'pending_approval') {
      throw new AppError(
        'INVALID_STATE',
        `The link is ${row.state.replace('_', ' ')}, not waiting for approval.`,
        { state: row.state },
      );
    }
    const request = this.boundRequest(row);
    const now = c.clock.now();
    const claimed = await c.k
      .updateTable('payment_links')
      .set({
        state: 'sending',
        decided_by: actor.id,
        decided_by_email: actor.email,
        decided_at: now,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('state', '=', 'pending_approval')
      .where('created_by', '<>', actor.id)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) {
      const current = await this.row(id);
      throw new AppError(
        'INVALID_STATE',
        `The link is ${current.state.replace('_', ' ')}: another approver got there first.`,
        { state: current.state },
      );
    }
    this.publish({ ...row, state: 'sending', updated_at: now });
    await addEvent(c.k, c.clock, `link:${id}`, {
      kind: 'staff',
      title: 'payout-form link approved',
      actor: actor.email,
      data: {},
    });
    return this.send({ ...row, state: 'sending' }, request, actor);
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
    await addEvent(c.k, c.clock, subject, {
      kind: 'gateway',
      title: row.kind,
      actor: actor.email,
      data: exchangeData(outcome),
    });
    const set = async (values: Partial<PaymentLinksTable>) => {
      await c.k
        .updateTable('payment_links')
        .set({ ...values, updated_at: c.clock.now() })
        .where('id', '=', row.id)
        .execute();
      const after = await this.row(row.id);
      this.publish(after);
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
        `The gateway could not be reached; the ${row.kind} was not sent. Try again.`,
      );
    }
    if (outcome.kind === 'unknown') {
      const code = outcome.exchange.reply?.['error-code'];
      const after = await set({
        state: 'unknown',
        error_code: code ?? outcome.reason.toUpperCase(),
        error_message: `the reply was lost (${outcome.reason})`,
      });
      return {
        link: await this.viewOf(after, actor),
        message: `The ${row.kind} reply was lost (${outcome.reason}${code === undefined ? '' : `, ${code}`}); the order may exist at the gateway but its page address is not known. Create a new link; the callback receiver records whatever the lost one does.`,
      };
    }
    const { httpStatus, reply } = outcome;
    if (httpStatus !== 200 || reply.redirectUrl === undefined) {
      const err = gatewayRefusal(httpStatus, reply, row.kind);
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
    return {
      link: await this.viewOf(after, actor),
      message: 'Send this page address to the customer; the outcome arrives by callback.',
    };
  }

  async reject(id: string, reason: string, actor: Actor): Promise<LinkOutcome> {
    const c = this.c;
    const now = c.clock.now();
    const done = await c.k
      .updateTable('payment_links')
      .set({
        state: 'rejected',
        decided_by: actor.id,
        decided_by_email: actor.email,
        decided_at: now,
        reject_reason: reason,
        binding: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('state', '=', 'pending_approval')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) {
      const row = await this.row(id);
      throw new AppError(
        'INVALID_STATE',
        `The link is ${row.state.replace('_', ' ')}, not waiting for approval.`,
        { state: row.state },
      );
    }
    const after = await this.row(id);
    this.publish(after);
    await addEvent(c.k, c.clock, `link:${id}`, {
      kind: 'staff',
      title: 'payout-form link rejected',
      actor: actor.email,
      data: { reason },
    });
    return {
      link: await this.viewOf(after, actor),
      message: 'The payout-form link was rejected; nothing was sent.',
    };
  }
}
