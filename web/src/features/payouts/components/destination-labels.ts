import type { PayoutDestinationKind } from '@paydesk/shared/api';

export const DESTINATION_KIND_LABELS: Record<PayoutDestinationKind, string> = {
  card: 'Card',
  bank: 'Bank account',
  ewallet: 'E-wallet',
  phone: 'Phone',
};
