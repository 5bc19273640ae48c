import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import type { PaymentLinkResult } from '@paydesk/shared/api';
import { useId } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import { PageAddress } from './page-address';

function titleOf({ link }: PaymentLinkResult): string {
  if (link.state === 'pending_approval') return 'Payout form waits for approval';
  if (link.redirectUrl !== null)
    return link.kind === 'payout-form' ? 'Payout form ready' : 'Payment link ready';
  return 'The link is not ready';
}

/**
 * The answer to creating a link, or to approving a payout form: the BFF's message beside the page
 * address it speaks of, to copy and send, and the way to the link's page, which keeps it.
 */
export function LinkResultDialog({
  result,
  onClose,
}: {
  result: PaymentLinkResult;
  onClose: () => void;
}) {
  const titleId = useId();
  const { link } = result;
  const page = `/payment-links/${encodeURIComponent(link.id)}`;
  const onItsPage = useLocation().pathname === page;
  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>{titleOf(result)}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Alert
            severity={
              link.state === 'failed' ? 'error' : link.state === 'unknown' ? 'warning' : 'success'
            }
          >
            {result.message}
          </Alert>
          {link.redirectUrl !== null ? (
            <PageAddress
              label={link.kind === 'payout-form' ? 'Payee page address' : 'Customer page address'}
              value={link.redirectUrl}
            />
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        {onItsPage ? null : (
          <Button component={RouterLink} to={page} onClick={onClose}>
            Open the link’s page
          </Button>
        )}
        <Button onClick={onClose} variant="contained">
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}
