import type { MaskedDestination, PayoutDestinationKind } from '@paydesk/shared/api';

export const DESTINATION_KIND_LABELS: Record<PayoutDestinationKind, string> = {
  card: 'Card',
  bank: 'Bank account',
  ewallet: 'E-wallet',
  phone: 'Phone',
};

/**
 * ` · ` and the destination's label, or nothing when the BFF withholds it (a card's holder and
 * expiry are for ops users only: other readers see the masked card alone).
 */
export function labelSuffix(destination: MaskedDestination): string {
  return destination.label === null ? '' : ` · ${destination.label}`;
}
