// Card references belong to the endpoint they were made on: the gateway charges one only through
// that endpoint (or a group holding it). A reference Paydesk learned on one endpoint and named on
// another is refused here, before any record is written or anything is sent.
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { GatewayClient } from '../gateway-client/client.js';
import type { PayDb } from './db.js';
import { answerText, errorAnswerOf, unansweredText } from './gateway-errors.js';
import { PENDING_ORDERID_PREFIX } from './rebills.js';

/**
 * Throws 400 naming `cardRefId` when the reference is known (from the order it was made from) on
 * configured endpoints other than `endpointId`. Groups are not checked: the configuration does not
 * say which endpoints a group holds, so the gateway decides.
 */
export async function requireCardRefOnEndpoint(
  k: PayDb,
  config: Config,
  cardRefId: string,
  endpointId: string,
): Promise<void> {
  const endpoints = new Set(
    config.merchant.endpoints.filter((e) => e.kind === 'endpoint').map((e) => e.id),
  );
  if (!endpoints.has(endpointId)) return;
  // The orders a reference was made from (a rebill may have named it anywhere, so rebills do not count).
  const rows = await k
    .selectFrom('transactions')
    .select('endpoint_id')
    .distinct()
    .where('card_ref_id', '=', cardRefId)
    .where('type', '<>', 'rebill')
    .execute();
  const known = rows.map((r) => r.endpoint_id).filter((id) => endpoints.has(id));
  if (known.length === 0 || known.includes(endpointId)) return;
  const message = `card reference ${cardRefId} was made on endpoint ${known.join(', ')}, not ${endpointId}: charge it there`;
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
 * (the request may be repeated); any other reply leaves the decision to the charge itself.
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
    // Said as it happened: an error answer with the gateway's HTTP status and code, or no answer.
    const answer = errorAnswerOf(outcome);
    if (answer !== null) {
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        `The gateway answered get-card-info for the card reference with an error (${answerText(answer)}); nothing was sent or recorded. Try again.`,
        { gatewayHttpStatus: answer.httpStatus, gatewayErrorCode: answer.code },
      );
    }
    throw new AppError(
      'GATEWAY_UNAVAILABLE',
      `The gateway did not answer get-card-info for the card reference (${unansweredText(outcome)}); nothing was sent or recorded. Try again.`,
    );
  }
  if (outcome.httpStatus !== 404) return;
  // What the caller typed is not named back: the field is (it could hold anything, a PAN too).
  const message = `the gateway does not know this card reference on endpoint ${endpointId}`;
  throw new AppError('NOT_FOUND', `cardRefId: ${message}; nothing was sent or recorded.`, {
    fields: [{ path: 'cardRefId', rule: 'card_ref_unknown', message }],
    gatewayHttpStatus: 404,
    gatewayErrorCode: outcome.reply.errorCode ?? null,
  });
}
