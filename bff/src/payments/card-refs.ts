// Card references belong to the endpoint they were made on: the gateway charges one only through
// that endpoint (or a group holding it). A reference Paydesk learned on one endpoint and named on
// another is refused here, before any record is written or anything is sent.
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { PayDb } from './db.js';

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
