import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import type { PayoutDetail } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { Panel } from '../../transactions/components/amounts-panel';
import { PAID_AFTER_NOT_APPLIED } from '../api/payouts';
import { PayoutStateChip } from './payout-state-chip';

/**
 * On a payout the gateway paid after Paydesk had judged it not applied: the payouts of the same
 * amount to the same destination prepared within 7 days after it (the BFF's `repeatCandidates`),
 * each linked with its state, so that ops see at once whether the payee was paid twice. Nothing on
 * any other payout.
 */
export function RepeatCandidates({ payout }: { payout: PayoutDetail }) {
  if (payout.errorCode !== PAID_AFTER_NOT_APPLIED) return null;
  const candidates = payout.repeatCandidates;
  return (
    <Panel title="Possible repeats of this payout">
      {candidates.length === 0 ? (
        <Typography variant="body2">
          No other payout of the same amount to the same destination was prepared within 7 days
          after this one.
        </Typography>
      ) : (
        <>
          <Typography variant="body2" sx={{ mb: 1 }}>
            {candidates.length === 1
              ? 'Another payout of the same amount to the same destination was prepared within 7 days after this one; if it was paid too, the payee was paid twice:'
              : 'Other payouts of the same amount to the same destination were prepared within 7 days after this one; any that was paid too paid the payee twice:'}
          </Typography>
          <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
            {candidates.map((candidate) => (
              <Box component="li" key={candidate.id} sx={{ mb: 1 }}>
                <Link component={RouterLink} to={`/payouts/${encodeURIComponent(candidate.id)}`}>
                  payout {candidate.id.slice(0, 8)}
                </Link>{' '}
                <PayoutStateChip state={candidate.state} />
                <Typography variant="caption" component="div" color="text.secondary">
                  Prepared <DateTime value={candidate.createdAt} /> by{' '}
                  <EmailText value={candidate.preparedBy.email} />
                  {candidate.decidedBy === null ? null : (
                    <>
                      ; decided by <EmailText value={candidate.decidedBy.email} />
                    </>
                  )}
                </Typography>
              </Box>
            ))}
          </Box>
        </>
      )}
    </Panel>
  );
}
