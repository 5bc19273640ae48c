// Card references the Cards list knows, on a session that says the configured endpoints: the
// set-up of the rebill and subscription dialogs' endpoint and currency tests.
import type { EndpointChoice } from '@paydesk/shared/api';
import { FakeBff, makeCardInfo, makeTransaction, makeUser } from './fake-bff';

/** Two endpoints (EUR, USD), a group that says its currencies and one that does not. */
export const TEST_ENDPOINTS: EndpointChoice[] = [
  { id: '1001', kind: 'endpoint', currencies: ['EUR'] },
  { id: '1002', kind: 'endpoint', currencies: ['USD'] },
  { id: '2001', kind: 'group', currencies: ['EUR', 'USD'] },
  { id: '2002', kind: 'group', currencies: null },
];

/**
 * A finance user's BFF where card-ref-1 was made on endpoint 1002 in USD and card-ref-2 on 1001 in
 * EUR; the session says `endpoints` (`TEST_ENDPOINTS`), or nothing when null (an older BFF).
 */
export function knownCardRefsBff(endpoints: EndpointChoice[] | null = TEST_ENDPOINTS): FakeBff {
  const bff = new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['finance'] })],
    transactions: [
      makeTransaction(1, { cardRefId: 'card-ref-1', endpointId: '1002', currency: 'USD' }),
      makeTransaction(2, { cardRefId: 'card-ref-2', endpointId: '1001', currency: 'EUR' }),
    ],
    cards: [makeCardInfo('card-ref-1'), makeCardInfo('card-ref-2')],
  });
  bff.endpoints = endpoints ?? undefined;
  return bff;
}
