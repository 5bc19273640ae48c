// Steps shared by the reject and withdraw tests of the four-eyes screens (payouts, payout forms).
import { within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { expect } from 'vitest';

/**
 * In an open reject (or withdraw) dialog: sending with no reason is refused with the rule, then
 * `reason` is typed and sent with the `button` named.
 */
export async function sendWithReason(
  user: UserEvent,
  dialog: HTMLElement,
  button: string,
  reason: string,
): Promise<void> {
  const inDialog = within(dialog);
  await user.click(inDialog.getByRole('button', { name: button }));
  expect(inDialog.getByText('Say why (up to 255 characters).')).toBeInTheDocument();
  await user.type(inDialog.getByLabelText(/Reason/), reason);
  await user.click(inDialog.getByRole('button', { name: button }));
}
