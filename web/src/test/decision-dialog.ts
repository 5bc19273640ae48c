// Steps shared by the reject and withdraw tests of the four-eyes screens (payouts, payout forms).
import { within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { expect } from 'vitest';

/**
 * In an open reject (or withdraw) dialog: sending with no reason, or one too short to say anything
 * ("ab"), is refused with the rule, then `reason` is typed and sent with the `button` named.
 */
export async function sendWithReason(
  user: UserEvent,
  dialog: HTMLElement,
  button: string,
  reason: string,
): Promise<void> {
  const inDialog = within(dialog);
  await user.click(inDialog.getByRole('button', { name: button }));
  expect(inDialog.getByText('Say why in 3 to 255 characters.')).toBeInTheDocument();
  const field = inDialog.getByLabelText(/Reason/);
  await user.type(field, 'ab');
  await user.click(inDialog.getByRole('button', { name: button }));
  expect(inDialog.getByText('Say why in 3 to 255 characters.')).toBeInTheDocument();
  await user.clear(field);
  await user.type(field, reason);
  await user.click(inDialog.getByRole('button', { name: button }));
}
