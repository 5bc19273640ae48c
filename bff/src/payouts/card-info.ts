// get-card-info for support and finance: a stated reason (audited by the route), and only BIN,
// brand, masked number and expiry in the reply — never the holder's name or anything more.
import { sql } from 'kysely';
import type { CardInfo, CardRefList } from '@paydesk/shared/api';
import type { GatewayReply } from '@paydesk/shared/protocol';
import { AppError } from '../errors.js';
import { maskTail } from '../gateway-client/redact.js';
import { big, payDb } from '../payments/db.js';
import { cardRefLookupEndpoint } from '../payments/card-refs.js';
import { unansweredQuestion } from '../payments/gateway-errors.js';
import { NOT_CREATED_STAGE } from '../payments/stats.js';
import { asTransactionType, iso, maskedCard } from '../payments/records.js';
import type { Ctx } from './context.js';
import { gatewayRefusal } from './gateway-errors.js';

export const CARD_REF_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** How staff read the question in messages: never its API name (`get-card-info`). */
const ASKED = 'the card information request';

/**
 * A refusal of get-card-info in words for support and finance staff. A 404 says that no card is
 * stored under the reference and where to find one, without the gateway's own message (it names
 * the request field `cardrefid` and the endpoint); the reference is named back unless it looks
 * like a card number (13 or more digits), which must not be echoed into an error that may be
 * logged or screenshotted. Other refusals keep the gateway's code and message (support needs them
 * to raise a ticket), under the request's plain name.
 */
function cardInfoRefusal(cardRefId: string, httpStatus: number, reply: GatewayReply): AppError {
  if (httpStatus === 404) {
    const under = /^\d{13,}$/.test(cardRefId) ? 'this reference' : `reference ${cardRefId}`;
    return new AppError(
      'NOT_FOUND',
      `No card is stored under ${under} at the gateway. Check the reference, or pick one from the list below.`,
      { gatewayHttpStatus: httpStatus, gatewayErrorCode: reply.errorCode ?? null },
    );
  }
  if (httpStatus === 200) {
    // Answered, but not with card details (the reply's type is the API's, not for staff).
    return new AppError(
      'GATEWAY_ERROR',
      `The gateway answered ${ASKED} without the card details; nothing was changed. Try again in a minute.`,
      { gatewayHttpStatus: httpStatus, gatewayErrorCode: reply.errorCode ?? null },
    );
  }
  return gatewayRefusal(httpStatus, reply, 'card information');
}

export class CardInfoService {
  constructor(private readonly c: Ctx) {}

  /**
   * The card references Paydesk knows: every one some order carries (made with create-card-ref,
   * or learned from a rebill's callback), with the order it came from and that order's endpoint
   * and currency (where the gateway charges it); most recently used first.
   * Last used is when the card was last charged: the latest order made with it, by its creation
   * (the gateway's processing date as recorded), so returns, voids and refreshes of an order do not
   * move it. A rebill the gateway never created charged nothing: it counts only when no order
   * did.
   */
  async list(limit: number): Promise<CardRefList> {
    const k = payDb(this.c.db);
    const refs = await k
      .selectFrom('transactions')
      .select((eb) => [
        'card_ref_id',
        eb.fn.countAll().as('orders'),
        eb.fn
          .coalesce(
            eb.fn.max(
              eb
                .case()
                .when('stage', '=', NOT_CREATED_STAGE)
                .then(sql<number | null>`null`)
                .else(eb.ref('created_at'))
                .end(),
            ),
            eb.fn.max('created_at'),
          )
          .as('last_used'),
      ])
      .where('card_ref_id', 'is not', null)
      .groupBy('card_ref_id')
      .orderBy('last_used', 'desc')
      .orderBy('card_ref_id')
      .limit(limit)
      .execute();
    const ids = refs.flatMap((r) => (r.card_ref_id === null ? [] : [r.card_ref_id]));
    if (ids.length === 0) return { items: [] };
    const orders = await k
      .selectFrom('transactions')
      .selectAll()
      .where('card_ref_id', 'in', ids)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const items = refs.flatMap((ref) => {
      // The order the reference was made from: never a rebill (a rebill is charged to a reference
      // that already exists), whatever the clocks say about which order came first.
      const usedBy = orders.filter((o) => o.card_ref_id === ref.card_ref_id);
      const source = usedBy.find((o) => o.type !== 'rebill') ?? usedBy[0];
      if (ref.card_ref_id === null || source === undefined) return [];
      return [
        {
          cardRefId: ref.card_ref_id,
          card: maskedCard(source),
          source: {
            transactionId: source.id,
            orderid: source.orderid,
            type: asTransactionType(source.type),
          },
          endpointId: source.endpoint_id,
          currency: source.currency,
          orders: Number(big(ref.orders)),
          lastUsedAt: iso(Number(big(ref.last_used))),
        },
      ];
    });
    return { items };
  }

  async info(cardRefId: string, endpointId: string | undefined): Promise<CardInfo> {
    // Asked where the reference was made when Paydesk knows it: the gateway knows it only there.
    const endpoint = await cardRefLookupEndpoint(
      payDb(this.c.db),
      this.c.config,
      cardRefId,
      endpointId,
    );
    const outcome = await this.c.gateway.send('get-card-info', endpoint, { cardrefid: cardRefId });
    if (outcome.kind !== 'reply') throw unansweredQuestion(outcome, ASKED);
    const { httpStatus, reply } = outcome;
    if (httpStatus !== 200 || reply.type !== 'get-card-info-response')
      throw cardInfoRefusal(cardRefId, httpStatus, reply);
    const f = reply.fields;
    const bin = f.bin ?? null;
    const last4 = f['last-four-digits'] ?? null;
    const masked = f['masked-number'];
    // Only a masked number leaves: the gateway's own mask if it has one, else BIN + last four.
    const safeMask =
      masked !== undefined && !/\d{11,}/.test(masked.replace(/\s/g, ''))
        ? masked
        : bin !== null && last4 !== null
          ? `${bin}******${last4}`
          : last4 !== null
            ? maskTail(`000000000000${last4}`)
            : '****';
    return {
      cardRefId,
      bin,
      brand: f['card-type'] ?? null,
      maskedNumber: safeMask,
      expiryMonth: f['expire-month'] ?? null,
      expiryYear: f['expire-year'] ?? null,
    };
  }
}
