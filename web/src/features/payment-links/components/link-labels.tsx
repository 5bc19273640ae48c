import Chip from '@mui/material/Chip';
import type {
  PaymentLink,
  PaymentLinkKind,
  PaymentLinkOrder,
  PaymentLinkState,
} from '@paydesk/shared/api';

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
  expired: { label: 'Expired', color: 'default' },
};

type Look = (typeof LOOK)[PaymentLinkState];

/** What a sent link's order says: once the customer used the page, the link is no longer to share. */
function orderLook(kind: PaymentLinkKind, order: PaymentLinkOrder): Look {
  switch (order.status) {
    case 'approved':
      return {
        label:
          kind === 'preauth-form'
            ? 'Authorized'
            : kind === 'account-verification-form'
              ? 'Verified'
              : kind === 'payout-form'
                ? 'Paid out'
                : 'Paid',
        color: 'success',
      };
    case 'processing':
      return { label: 'Customer paying', color: 'info' };
    case 'unknown':
      return { label: 'Outcome unknown', color: 'warning' };
    case 'declined':
      return { label: 'Declined', color: 'error' };
    case 'filtered':
    case 'error':
      return { label: 'Not paid', color: 'error' };
  }
}

export function LinkStateChip({ link }: { link: Pick<PaymentLink, 'state' | 'kind' | 'order'> }) {
  const look =
    link.state === 'sent' && link.order !== null
      ? orderLook(link.kind, link.order)
      : LOOK[link.state];
  return <Chip size="small" variant="outlined" color={look.color} label={look.label} />;
}

/**
 * A sent payout-form whose page address the BFF withholds from this viewer: it pays whoever fills
 * it in, so only its creator and its approver see it and send it to the payee.
 */
export function pageWithheld(link: Pick<PaymentLink, 'state' | 'kind' | 'redirectUrl'>): boolean {
  return link.state === 'sent' && link.kind === 'payout-form' && link.redirectUrl === null;
}

/** Who may send a payout-form's page address to the payee: its creator and its approver. */
export function pageHolders(link: Pick<PaymentLink, 'createdBy' | 'decidedBy'>): string {
  const creator = `${link.createdBy.email} (who created it)`;
  return link.decidedBy === null
    ? creator
    : `${creator} and ${link.decidedBy.email} (who approved it)`;
}
