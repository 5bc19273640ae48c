import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
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
        payout {shortId(id)}
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

/** A payout as the lists and toasts name it: its id's first 8 characters. */
const shortId = (id: string) => id.slice(0, 8);

/**
 * What the preparer is told when the payout they just prepared may duplicate one waiting (the
 * prepare reply's `similarPending`); null when none does.
 */
export function similarPendingSentence(payout: Pick<Payout, 'similarPending'>): string | null {
  const ids = payout.similarPending;
  if (ids.length === 0) return null;
  const named = ids.map((id) => `payout ${shortId(id)}`).join(', ');
  return ids.length === 1
    ? `Another payout of the same amount to the same destination is waiting: ${named} — check this one is not a duplicate.`
    : `Other payouts of the same amount to the same destination are waiting: ${named} — check this one is not a duplicate.`;
}

/**
 * A small marker in a list row's state: other payouts of the same amount to the same destination
 * wait for approval too (the page and the approve dialog name them). Nothing when none do.
 */
export function PossibleDuplicateMarker({ payout }: { payout: Pick<Payout, 'similarPending'> }) {
  const n = payout.similarPending.length;
  if (n === 0) return null;
  return (
    <Chip
      size="small"
      color="warning"
      variant="outlined"
      label="Possible duplicate"
      title={
        n === 1
          ? 'Another payout of the same amount to the same destination is waiting'
          : `${n} other payouts of the same amount to the same destination are waiting`
      }
      sx={{ mt: 0.5, display: 'flex', width: 'fit-content' }}
    />
  );
}
