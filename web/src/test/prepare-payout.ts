// The prepare-payout dialog in tests: opening it and typing a card payout, as staff do.
import { screen, within, type BoundFunctions, type queries } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';

/** Opens the dialog from the payouts screen's "Prepare payout" button. */
export async function openPrepareDialog(user: UserEvent) {
  await user.click(await screen.findByRole('button', { name: 'Prepare payout' }));
  return within(await screen.findByRole('dialog', { name: 'Prepare a payout' }));
}

/** What a card payout's fields are typed with, as a preparer types them. */
export interface CardPayoutTyping {
  cardNumber: string;
  cardholderName: string;
  expiryMonth: string;
  expiryYear: string;
  amount: string;
  description: string;
}

/** The card payout most tests prepare: €31.41 to a card that has not expired. */
export const SELLER_SETTLEMENT: CardPayoutTyping = {
  cardNumber: '4111111111111111',
  cardholderName: 'JANE DOE',
  expiryMonth: '09',
  expiryYear: '2031',
  amount: '31.41',
  description: 'Seller settlement',
};

/** Types a card payout into the open dialog, field by field (the card is its default destination). */
export async function typeCardPayout(
  user: UserEvent,
  dialog: BoundFunctions<typeof queries>,
  payout: CardPayoutTyping,
) {
  await user.type(dialog.getByLabelText(/^Card number/), payout.cardNumber);
  await user.type(dialog.getByLabelText(/^Cardholder name/), payout.cardholderName);
  await user.type(dialog.getByLabelText(/^Expiry month/), payout.expiryMonth);
  await user.type(dialog.getByLabelText(/^Expiry year/), payout.expiryYear);
  await user.type(dialog.getByLabelText(/^Amount/), payout.amount);
  await user.type(dialog.getByLabelText(/Description/), payout.description);
}
