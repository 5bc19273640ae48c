// Card references the Cards list knows, on a session that says the configured endpoints: the
// set-up of the rebill and subscription dialogs' endpoint and currency tests, and their steps.
import type { EndpointChoice } from '@paydesk/shared/api';
import { screen, waitFor, within, type BoundFunctions, type queries } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { expect } from 'vitest';
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

/** A charge dialog on a card reference: its confirm step's title and where it is sent. */
export interface CardRefCharge {
  confirmTitle: string;
  path: string;
}

export const REBILL: CardRefCharge = { confirmTitle: 'Confirm the rebill', path: '/api/rebills' };
export const SUBSCRIPTION: CardRefCharge = {
  confirmTitle: 'Confirm the subscription',
  path: '/api/subscriptions',
};

/**
 * Presses Continue in `dialog` and expects the form's own refusal: `field` says `refusal` and is
 * marked invalid, the confirm step does not come and nothing is sent to `bff`.
 */
export async function expectRefusedBeforeConfirm(
  app: { user: UserEvent },
  bff: FakeBff,
  dialog: BoundFunctions<typeof queries>,
  charge: CardRefCharge,
  field: HTMLElement,
  refusal: string,
): Promise<void> {
  await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
  await waitFor(() => {
    expect(field).toHaveAccessibleDescription(refusal);
  });
  expect(field).toHaveAttribute('aria-invalid', 'true');
  expect(screen.queryByRole('dialog', { name: charge.confirmTitle })).not.toBeInTheDocument();
  expect(bff.requestsTo('POST', charge.path)).toHaveLength(0);
}

/**
 * Types EUR as the currency of `dialog` on card-ref-1 (made on endpoint 1002, which takes USD):
 * the endpoint choices that do not take it are marked, and Continue is refused at the currency
 * with `refusal` (`expectRefusedBeforeConfirm`). Returns the currency field.
 */
export async function refuseEurBeforeConfirm(
  app: { user: UserEvent },
  bff: FakeBff,
  dialog: BoundFunctions<typeof queries>,
  charge: CardRefCharge,
  refusal: string,
): Promise<HTMLElement> {
  const currency = dialog.getByLabelText(/Currency/);
  await app.user.clear(currency);
  await app.user.type(currency, 'EUR');
  expect(
    within(dialog.getByLabelText(/^Endpoint/)).getByRole('option', {
      name: '1002 · USD (does not take EUR)',
    }),
  ).toBeInTheDocument();
  await expectRefusedBeforeConfirm(app, bff, dialog, charge, currency, refusal);
  return currency;
}

/**
 * With card-ref-1's currency refused at its field (`refusal`: EUR, where endpoint 1002 takes
 * USD), changes only the endpoint and expects the currency checked again each time: group 2001
 * (the gateway decides) takes the refusal away at once, the reference's own endpoint brings it
 * back. Leaves group 2001 chosen, EUR unchanged.
 */
export async function expectCurrencyCheckedWithEndpoint(
  app: { user: UserEvent },
  dialog: BoundFunctions<typeof queries>,
  refusal: string,
): Promise<void> {
  const currency = dialog.getByLabelText(/Currency/);
  const endpoint = dialog.getByLabelText(/^Endpoint/);
  await app.user.selectOptions(endpoint, '2001');
  await waitFor(() => {
    expect(currency).toHaveAccessibleDescription('ISO code');
  });
  expect(currency).toHaveAttribute('aria-invalid', 'false');
  expect(currency).toHaveValue('EUR');
  await app.user.selectOptions(endpoint, '');
  await waitFor(() => {
    expect(currency).toHaveAccessibleDescription(refusal);
  });
  await app.user.selectOptions(endpoint, '2001');
}
