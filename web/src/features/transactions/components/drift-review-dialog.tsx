import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { DriftReviewBodySchema, type TransactionDetail } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import type { z } from 'zod';
import { FormDialog } from '../../../components/form-dialog';
import { useNotify } from '../../../components/notifier';
import { describeError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { commentHelp } from './comment-help';
import { applyServerFieldErrors } from '../../../lib/form-errors';
import { reviewDrift, transactionKeys } from '../api/transactions';
import { orderName } from '../../../lib/order-number';

type ReviewInput = z.input<typeof DriftReviewBodySchema>;
type ReviewOutput = z.output<typeof DriftReviewBodySchema>;

/**
 * Finance marks an order's drift reviewed, saying what was checked. The flag clears (the list's
 * drift filter and Home's count drop the order); the timeline and the audit log keep the comment.
 */
export default function DriftReviewDialog({
  detail,
  onClose,
}: {
  detail: TransactionDetail;
  onClose: () => void;
}) {
  const titleId = useId();
  const client = useQueryClient();
  const notify = useNotify();
  const { register, handleSubmit, formState, setError, control } = useForm<
    ReviewInput,
    unknown,
    ReviewOutput
  >({
    resolver: zodResolver(DriftReviewBodySchema),
    defaultValues: { comment: '' },
  });

  const comment = useWatch({ control, name: 'comment' });
  const [besideField, setBesideField] = useState(false);
  const mutation = useMutation({
    mutationFn: (body: ReviewOutput) => reviewDrift(detail.id, body),
    onSuccess: async (fresh) => {
      client.setQueryData(transactionKeys.detail(detail.id), fresh);
      notify(`Drift on ${orderName(detail)} marked reviewed.`);
      onClose();
      // Home's figures follow the live event the review sends.
      await client.invalidateQueries({ queryKey: transactionKeys.lists });
    },
    // A refusal is said once, in the dialog: under the comment when it names it, else in its alert.
    onError: (error) => {
      setBesideField(applyServerFieldErrors(error, setError, ['comment']));
    },
  });

  return (
    <FormDialog
      open
      dirty={formState.isDirty}
      busy={mutation.isPending}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form
        noValidate
        aria-labelledby={titleId}
        onSubmit={(event) => {
          void handleSubmit((values) => {
            mutation.mutate(values);
          })(event);
        }}
      >
        <DialogTitle id={titleId}>Mark the drift reviewed</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            {mutation.isError && !besideField ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            <DialogContentText>
              Say what you checked. The drift flag on {orderName(detail)} is cleared and its figures
              stay as they are; the timeline keeps what differed, and a new difference flags the
              order again.
            </DialogContentText>
            <TextField
              label="Comment"
              required
              autoFocus
              multiline
              minRows={2}
              // With its live count, as the void's and the return's comments (up to 255).
              {...commentHelp(
                comment,
                fieldHelp(formState.errors.comment, 'Say what you checked (up to 255 characters).'),
                'Kept in the order’s timeline and the audit log.',
              )}
              {...register('comment')}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Mark reviewed
          </Button>
        </DialogActions>
      </form>
    </FormDialog>
  );
}
