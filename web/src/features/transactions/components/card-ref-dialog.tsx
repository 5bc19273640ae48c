import Typography from '@mui/material/Typography';
import type { TransactionDetail } from '@paydesk/shared/api';
import { useFollowUp } from '../api/follow-up';
import { FollowUpFrame } from './follow-up-frame';

/** Create a card reference from the order's card, for rebills and recurring payments. */
export default function CardRefDialog({
  detail,
  onClose,
}: {
  detail: TransactionDetail;
  onClose: () => void;
}) {
  const { mutation, outcomeUnknown } = useFollowUp(detail, onClose);
  return (
    <FollowUpFrame
      title="Create a card reference"
      what="creating the card reference"
      currency={detail.currency}
      pending={mutation.isPending}
      error={mutation.error}
      outcomeUnknown={outcomeUnknown}
      submitLabel="Create card reference"
      sends
      onClose={onClose}
      onSubmit={() => {
        mutation.mutate({ action: 'card-ref', body: {} });
      }}
    >
      <Typography>
        Ask the gateway for a reference to the card of order {detail.orderid}
        {detail.card ? ` (${detail.card.masked})` : ''}. The reference lets finance charge the card
        again (rebills, recurring payments) without its number; no money moves now.
      </Typography>
    </FollowUpFrame>
  );
}
