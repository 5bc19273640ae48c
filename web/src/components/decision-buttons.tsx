import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

/** A four-eyes decision on something another user created. */
export type Decision = 'approve' | 'reject';

/**
 * The Approve / Reject pair in a list row the user may decide on (the dialog asks the rest). Each
 * button's accessible name says what it decides, so a list of rows is not a list of "Approve"s.
 */
export function DecisionButtons({
  subject,
  onDecide,
}: {
  /** what is decided, e.g. "payout of €250.00 to ****3000" */
  subject: string;
  onDecide: (decision: Decision) => void;
}) {
  return (
    <Stack direction="row" spacing={1}>
      <Button
        size="small"
        variant="contained"
        aria-label={`Approve ${subject}`}
        onClick={() => {
          onDecide('approve');
        }}
      >
        Approve
      </Button>
      <Button
        size="small"
        color="error"
        aria-label={`Reject ${subject}`}
        onClick={() => {
          onDecide('reject');
        }}
      >
        Reject
      </Button>
    </Stack>
  );
}

/**
 * On one's own item waiting for approval: four eyes, so someone else approves; its creator may
 * still withdraw it (a rejection with a reason, audited).
 */
export function OwnPendingDecision({
  subject,
  onWithdraw,
}: {
  /** what is withdrawn, e.g. "payout of €250.00 to ****3000" */
  subject: string;
  onWithdraw: () => void;
}) {
  return (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start', maxWidth: 170 }}>
      <Typography
        variant="caption"
        component="div"
        color="text.secondary"
        title="Every payout needs two people: someone else in ops must approve it."
      >
        Yours: another ops user approves
      </Typography>
      <Button
        size="small"
        color="error"
        aria-label={`Withdraw ${subject}`}
        onClick={onWithdraw}
        sx={{ ml: -0.5 }}
      >
        Withdraw
      </Button>
    </Stack>
  );
}
