import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import type { Payout } from '@paydesk/shared/api';
import { Fragment } from 'react';
import { Link as RouterLink } from 'react-router';

/** Payouts named as links, each to its page (in a new tab from a dialog). */
function PayoutLinks({ ids, newTab }: { ids: readonly string[]; newTab: boolean }) {
  return ids.map((id, index) => (
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
}

/**
 * The payouts of the same amount to the same destination judged not applied that the gateway may
 * still pay late (the BFF's `similarNotApplied`), in the words of the prepare reply's caution: the
 * approver, who releases the money, is told what the preparer was (QA).
 */
function notAppliedWords(n: number): string {
  return n === 1
    ? 'of the same amount to the same destination was judged not applied, and the gateway may still pay late: check its status before this one is approved, or it may be paid twice.'
    : 'of the same amount to the same destination were judged not applied, and the gateway may still pay late: check their status before this one is approved, or it may be paid twice.';
}

/**
 * A possible duplicate: other payouts of the same amount to the same destination judged not
 * applied that the gateway may still pay late (the BFF's `similarNotApplied`: a payment already
 * made may yet show, said first), approved for payment in the last 7 days (`similarSent`: already
 * paid, or on its way) or waiting for approval too (`similarPending`), each linked. In a dialog,
 * the links open a new tab so the decision in progress stays as it is. Nothing when there are none.
 */
export function SimilarPendingWarning({
  payout,
  newTab = false,
}: {
  payout: Payout;
  newTab?: boolean;
}) {
  const notApplied = payout.similarNotApplied;
  const sent = payout.similarSent;
  const waiting = payout.similarPending;
  if (notApplied.length === 0 && sent.length === 0 && waiting.length === 0) return null;
  const late = notAppliedWords(notApplied.length);
  return (
    <>
      {notApplied.length === 0 ? null : (
        <Alert severity="error">
          Caution: <PayoutLinks ids={notApplied} newTab={newTab} /> {late}
        </Alert>
      )}
      {sent.length === 0 ? null : (
        <Alert severity="error">
          {sent.length === 1
            ? 'A payout of the same amount to the same destination was approved for payment in the last 7 days: '
            : 'Payouts of the same amount to the same destination were approved for payment in the last 7 days: '}
          <PayoutLinks ids={sent} newTab={newTab} />. Make sure this one is not paying the payee
          twice.
        </Alert>
      )}
      {waiting.length === 0 ? null : (
        <Alert severity="warning">
          {waiting.length === 1
            ? 'Another payout of the same amount to the same destination is waiting: '
            : 'Other payouts of the same amount to the same destination are waiting: '}
          <PayoutLinks ids={waiting} newTab={newTab} />. Make sure this one is not paid twice.
        </Alert>
      )}
    </>
  );
}

/** A payout as the lists and toasts name it: its id's first 8 characters. */
const shortId = (id: string) => id.slice(0, 8);

/**
 * What the preparer is told when the payout they just prepared may duplicate one judged not
 * applied that the gateway may still pay late, one approved for payment lately or one waiting (the
 * prepare reply's `similarNotApplied`, `similarSent`, `similarPending`); null when none.
 */
export function similarPendingSentence(
  payout: Pick<Payout, 'similarPending' | 'similarSent' | 'similarNotApplied'>,
): string | null {
  const named = (ids: readonly string[]) => ids.map((id) => `payout ${shortId(id)}`).join(', ');
  const notApplied = payout.similarNotApplied;
  const sent = payout.similarSent;
  const waiting = payout.similarPending;
  const late = notAppliedWords(notApplied.length);
  const said = [
    notApplied.length === 0 ? null : `Caution: ${named(notApplied)} ${late}`,
    sent.length === 0
      ? null
      : sent.length === 1
        ? `A payout of the same amount to the same destination was approved for payment in the last 7 days: ${named(sent)}.`
        : `Payouts of the same amount to the same destination were approved for payment in the last 7 days: ${named(sent)}.`,
    waiting.length === 0
      ? null
      : waiting.length === 1
        ? `Another payout of the same amount to the same destination is waiting: ${named(waiting)}.`
        : `Other payouts of the same amount to the same destination are waiting: ${named(waiting)}.`,
  ].filter((sentence) => sentence !== null);
  return said.length === 0 ? null : `${said.join(' ')} Check this one is not a duplicate.`;
}

/**
 * A small marker in a list row's state: other payouts of the same amount to the same destination
 * were judged not applied and may still be paid late, or were approved for payment lately (red),
 * or wait for approval too (the page and the approve dialog name them). Nothing when none do.
 */
export function PossibleDuplicateMarker({
  payout,
}: {
  payout: Pick<Payout, 'similarPending' | 'similarSent' | 'similarNotApplied'>;
}) {
  const n = payout.similarPending.length;
  if (payout.similarNotApplied.length > 0) {
    return (
      <Chip
        size="small"
        color="error"
        variant="outlined"
        label="Possible duplicate"
        title={
          payout.similarNotApplied.length === 1
            ? 'A payout of the same amount to the same destination was judged not applied, and the gateway may still pay late'
            : 'Payouts of the same amount to the same destination were judged not applied, and the gateway may still pay late'
        }
        sx={{ mt: 0.5, display: 'flex', width: 'fit-content' }}
      />
    );
  }
  if (payout.similarSent.length > 0) {
    return (
      <Chip
        size="small"
        color="error"
        variant="outlined"
        label="Possible duplicate"
        title="A payout of the same amount to the same destination was approved for payment in the last 7 days"
        sx={{ mt: 0.5, display: 'flex', width: 'fit-content' }}
      />
    );
  }
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
