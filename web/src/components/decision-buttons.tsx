import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';

/** A four-eyes decision on something another user created. */
export type Decision = 'approve' | 'reject';

/** The Approve / Reject pair in a list row the user may decide on (the dialog asks the rest). */
export function DecisionButtons({ onDecide }: { onDecide: (decision: Decision) => void }) {
  return (
    <Stack direction="row" spacing={1}>
      <Button
        size="small"
        variant="contained"
        onClick={() => {
          onDecide('approve');
        }}
      >
        Approve
      </Button>
      <Button
        size="small"
        color="error"
        onClick={() => {
          onDecide('reject');
        }}
      >
        Reject
      </Button>
    </Stack>
  );
}
