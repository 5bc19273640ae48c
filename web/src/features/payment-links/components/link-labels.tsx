import Chip from '@mui/material/Chip';
import type { PaymentLinkKind, PaymentLinkState } from '@paydesk/shared/api';

export const KIND_LABELS: Record<PaymentLinkKind, string> = {
  'sale-form': 'Sale form',
  'preauth-form': 'Preauthorization form',
  'payment-form': 'Payment form',
  'account-verification-form': 'Account verification form',
  'payout-form': 'Payout form',
};

const LOOK: Record<
  PaymentLinkState,
  { label: string; color: 'success' | 'error' | 'warning' | 'info' | 'default' }
> = {
  pending_approval: { label: 'Awaiting approval', color: 'warning' },
  sending: { label: 'Sending', color: 'info' },
  sent: { label: 'Ready to share', color: 'success' },
  unknown: { label: 'Unknown outcome', color: 'warning' },
  failed: { label: 'Failed', color: 'error' },
  rejected: { label: 'Rejected', color: 'default' },
};

export function LinkStateChip({ state }: { state: PaymentLinkState }) {
  const look = LOOK[state];
  return <Chip size="small" variant="outlined" color={look.color} label={look.label} />;
}
