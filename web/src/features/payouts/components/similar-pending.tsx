import Alert from '@mui/material/Alert';
import Link from '@mui/material/Link';
import type { Payout } from '@paydesk/shared/api';
import { Fragment } from 'react';
import { Link as RouterLink } from 'react-router';

/**
 * A possible duplicate: other payouts waiting for approval of the same amount to the same
 * destination (the BFF's `similarPending`), each linked. In a dialog, the links open a new tab so
 * the decision in progress stays as it is. Nothing when there are none.
 */
export function SimilarPendingWarning({
  payout,
  newTab = false,
}: {
  payout: Payout;
  newTab?: boolean;
}) {
  const ids = payout.similarPending;
  if (ids.length === 0) return null;
  const links = ids.map((id, index) => (
    <Fragment key={id}>
      {index === 0 ? '' : ', '}
      <Link
        component={RouterLink}
        to={`/payouts/${encodeURIComponent(id)}`}
        {...(newTab ? { target: '_blank', rel: 'noopener' } : {})}
      >
        payout {id.slice(0, 8)}
      </Link>
    </Fragment>
  ));
  return (
    <Alert severity="warning">
      {ids.length === 1
        ? 'Another payout of the same amount to the same destination is waiting: '
        : 'Other payouts of the same amount to the same destination are waiting: '}
      {links}. Make sure this one is not paid twice.
    </Alert>
  );
}
