// Card references belong to the endpoint they were made on: the gateway charges or describes one
// only through that endpoint (or a group holding it). A charge or lookup named without an endpoint
// goes to the reference's own endpoint when Paydesk knows it; a charge that cannot go there (in a
// currency that endpoint does not take, or named on another endpoint) is refused here, before any
// record is written or anything is sent.
import type { Config, EndpointConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { GatewayClient } from '../gateway-client/client.js';
import { resolveEndpoint, takesCurrency } from '../payouts/context.js';
import type { PayDb } from './db.js';
import { unansweredQuestion } from './gateway-errors.js';
import { PENDING_ORDERID_PREFIX } from './rebills.js';

type PlainEndpoint = Extract<EndpointConfig, { kind: 'endpoint' }>;

/**
 * The configured endpoints (not groups) a card reference is known on: those of the orders it was
 * made from. A rebill may have named it anywhere, so rebills do not count. Empty: Paydesk does not
 * know where it was made (the gateway decides).
 */
async function madeOn(k: PayDb, config: Config, cardRefId: string): Promise<PlainEndpoint[]> {
  const rows = await k
    .selectFrom('transactions')
    .select('endpoint_id')
    .distinct()
    .where('card_ref_id', '=', cardRefId)
    .where('type', '<>', 'rebill')
    .execute();
  const ids = new Set(rows.map((r) => r.endpoint_id));
  return config.merchant.endpoints.filter(
    (e): e is PlainEndpoint => e.kind === 'endpoint' && ids.has(e.id),
  );
}

/** `endpoint 1002, which takes USD` / `endpoints 1001 (EUR) and 1002 (USD)` */
function describeEndpoints(endpoints: readonly PlainEndpoint[]): string {
  const [only] = endpoints;
  if (only !== undefined && endpoints.length === 1)
    return `endpoint ${only.id}, which takes ${only.currency}`;
  const named = endpoints.map((e) => `${e.id} (${e.currency})`);
  return `endpoints ${named.slice(0, -1).join(', ')} and ${named.at(-1) ?? ''}`;
}

/**
 * The endpoint get-card-info asks about a card reference: the one named; else the endpoint the
 * reference was made on when Paydesk knows exactly one; else the first configured endpoint.
 */
export async function cardRefLookupEndpoint(
  k: PayDb,
  config: Config,
  cardRefId: string,
  requested: string | undefined,
): Promise<string> {
  if (requested === undefined) {
    const known = await madeOn(k, config, cardRefId);
    if (known.length === 1 && known[0] !== undefined) return known[0].id;
  }
  return resolveEndpoint(config, requested, undefined);
}

/**
 * The endpoint a charge on a card reference (a rebill, a subscription) is sent to, checked before
 * anything is written or sent. The endpoint or group named, or the one of the currency, must be
 * configured and take the currency (`resolveEndpoint`: 400 naming `endpointId` or `currency`).
 * Then:
 * - none named and the reference known on exactly one configured endpoint: that endpoint, which
 *   must take the currency (400 naming `currency`, rule `card_ref_currency`);
 * - else, when the reference is known on configured endpoints and the chosen endpoint is another
 *   one: 400 naming `cardRefId` (rule `card_ref_endpoint`), saying where it was made and in which
 *   currency. Groups are not checked: the configuration does not say which endpoints a group
 *   holds, so the gateway decides;
 * - a reference Paydesk does not know goes to the endpoint of the currency (see
 *   `requireCardRefAtGateway`).
 * `action` is what the advice tells staff to do (`rebill it`).
 */
export async function cardRefChargeEndpoint(
  k: PayDb,
  config: Config,
  cardRefId: string,
  requested: string | undefined,
  currency: string,
  action: string,
): Promise<string> {
  // First, so that a currency no configured endpoint takes is refused as that, whatever the card.
  const resolved = resolveEndpoint(config, requested, currency);
  const known = await madeOn(k, config, cardRefId);
  const [only] = known;
  if (requested === undefined && only !== undefined && known.length === 1) {
    if (takesCurrency(only, currency) !== false) return only.id;
    const message = `card reference ${cardRefId} was made on ${describeEndpoints(known)}: ${action} in ${only.currency}`;
    throw new AppError('VALIDATION_FAILED', `currency: ${message}`, {
      fields: [{ path: 'currency', rule: 'card_ref_currency', message }],
    });
  }
  const chosen = config.merchant.endpoints.find((e) => e.id === resolved);
  if (chosen?.kind !== 'endpoint' || known.length === 0 || known.some((e) => e.id === resolved))
    return resolved;
  const advice =
    only !== undefined && known.length === 1
      ? `${action} on endpoint ${only.id} in ${only.currency}`
      : `${action} on one of those, in its currency`;
  const message = `card reference ${cardRefId} was made on ${describeEndpoints(known)}, not on endpoint ${resolved}: ${advice}`;
  throw new AppError('VALIDATION_FAILED', `cardRefId: ${message}`, {
    fields: [{ path: 'cardRefId', rule: 'card_ref_endpoint', message }],
  });
}

/**
 * Throws 404 naming `cardRefId` when the gateway does not know the reference on `endpointId`, so
 * that a charge on it is refused before any record is written or anything is charged. A reference
 * on an order the gateway made (its card reference, or a charge it accepted) needs no question;
 * any other is looked up with get-card-info, which creates nothing. When that lookup gets no
 * answer, or a 5xx (said with the gateway's HTTP status and error code), 503 and nothing is written
 * (the request may be repeated); any other reply leaves the decision to the charge itself. The
 * words are for finance staff: no API names (`get-card-info`, `cardrefid`).
 */
export async function requireCardRefAtGateway(
  k: PayDb,
  gateway: GatewayClient,
  cardRefId: string,
  endpointId: string,
): Promise<void> {
  const seen = await k
    .selectFrom('transactions')
    .select('id')
    .where('card_ref_id', '=', cardRefId)
    .where('orderid', 'not like', `${PENDING_ORDERID_PREFIX}%`)
    .limit(1)
    .executeTakeFirst();
  if (seen !== undefined) return;
  const outcome = await gateway.send('get-card-info', endpointId, { cardrefid: cardRefId });
  if (outcome.kind !== 'reply') {
    throw unansweredQuestion(
      outcome,
      "Paydesk's question about this card",
      'nothing was charged or recorded',
    );
  }
  if (outcome.httpStatus !== 404) return;
  // What the caller typed is not named back: the field is (it could hold anything, a PAN too).
  // The endpoint stays: a reference made on another endpoint is unknown on this one.
  const message = `no card is stored under this reference at the gateway (endpoint ${endpointId}); check the reference, or pick one from the list of stored cards`;
  throw new AppError('NOT_FOUND', `cardRefId: ${message}; nothing was charged or recorded.`, {
    fields: [{ path: 'cardRefId', rule: 'card_ref_unknown', message }],
    gatewayHttpStatus: 404,
    gatewayErrorCode: outcome.reply.errorCode ?? null,
  });
}
