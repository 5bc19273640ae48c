import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { PayoutRejectBodySchema, type PayoutRejectBody } from '@paydesk/shared/api';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import {
  useEffect,
  useId,
  useRef,
  useState,
  type ReactElement,
  type ReactNode,
  type SyntheticEvent,
} from 'react';
import { describeError, isApiError, type ApiError } from '../lib/api-client';
import { textRefusalIn } from '../lib/field-help';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../lib/idempotency';
import type { Decision } from './decision-buttons';
import { FormDialog } from './form-dialog';
import { useNotify, type Severity } from './notifier';
import { useOneAtATime } from '../lib/one-at-a-time';

/**
 * Whether a decision was refused for good: what was decided is no longer waiting for a decision
 * (another approver got there first, it was rejected or withdrawn, it lapsed) or no longer matches
 * what was prepared. Sending the same decision again would be refused the same way, unlike a lost
 * reply or an unavailable gateway (`isOutcomeUnknown`), where sending again is the way on.
 */
export function isRefusedForGood(error: unknown): error is ApiError {
  return (
    isApiError(error) &&
    (error.code === 'INVALID_STATE' || error.code === 'CONFLICT') &&
    error.fieldErrors.length === 0
  );
}

/** A refusal the same request cannot change, in the server's words, and that sending again is no cure. */
export function RefusedForGoodAlert({ error }: { error: ApiError }) {
  return (
    <Alert severity="error">
      {describeError(error)}
      <Typography variant="body2" sx={{ mt: 0.5 }}>
        Sending it again would be refused too.
      </Typography>
    </Alert>
  );
}

/**
 * The second pair of eyes: approve, or reject with a reason, something another user created (a
 * payout, a payout form); or its creator withdraws it (a rejection too, never an approval). The
 * dialog's Idempotency-Key is created when it opens and reused when the same decision is sent
 * again after a lost reply. Each screen supplies its own words and facts. After a refusal for good
 * (`isRefusedForGood`) only Close is left, with what happened in the screen's words (`refused`).
 */
export function DecisionDialog<Result extends { message: string }>({
  id,
  decision,
  title,
  question,
  facts,
  decidedFacts = facts,
  approveNote,
  approveLabel,
  reasonHint,
  rejectLabel = 'Reject',
  lostReplyNote,
  approve,
  reject,
  failed,
  severity,
  queryKey,
  done,
  refused,
  onClose,
}: {
  /** the id of what is decided; an approval's key is bound to it */
  id: string;
  decision: Decision;
  title: string;
  /** the approval's question in words (shown only when approving) */
  question: ReactNode;
  facts: ReactNode;
  /**
   * shown instead of `facts` once the decision was refused for good (someone else decided, it
   * lapsed): the record's facts without the warnings meant for whoever decides
   */
  decidedFacts?: ReactNode;
  /** what approving does (shown instead of the reason field) */
  approveNote: string;
  approveLabel: string;
  /** the reason field's hint: who sees it */
  reasonHint: string;
  /** the reject button's words ("Withdraw" when the creator takes back their own) */
  rejectLabel?: string;
  /** after "Sending again is safe: it is the same request", e.g. ", and Paydesk will not pay twice" */
  lostReplyNote?: string;
  approve: (idempotencyKey: string) => Promise<Result>;
  reject: (body: PayoutRejectBody, idempotencyKey: string) => Promise<Result>;
  /**
   * whether the answer is a failure (notified as an error; else as a success); superseded by
   * `severity`, which can also say an outcome is not known yet
   */
  failed?: (result: Result) => boolean;
  /**
   * how the answer is notified: `success` only for a real success, `warning` for an outcome not
   * known yet, `error` for a refusal or failure, `info` while the final status is to come
   */
  severity?: (result: Result) => Severity;
  /** the lists to refresh after a definite answer */
  queryKey: QueryKey;
  /**
   * What to show instead of closing with a snackbar after a definite answer, or null: e.g. the page
   * address an approval released, which the approver must be able to copy.
   */
  done?: (result: Result) => ReactElement | null;
  /**
   * What a refusal for good means, said from what is known now (e.g. who decided it instead, from
   * the refreshed lists), as the alert to show; by default the server's sentence as an error
   */
  refused?: (error: ApiError) => ReactNode;
  onClose: () => void;
}) {
  const titleId = useId();
  const once = useOneAtATime();
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const notify = useNotify();
  const [reason, setReason] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const parsedReason = PayoutRejectBodySchema.safeParse({ reason });

  const mutation = useMutation({
    mutationFn: () => {
      if (decision === 'approve') return approve(keeper.keyFor({ approve: id }));
      const body = PayoutRejectBodySchema.parse({ reason });
      return reject(body, keeper.keyFor(body));
    },
    onSuccess: async (result) => {
      if ((done?.(result) ?? null) === null) {
        notify(
          result.message,
          severity?.(result) ?? (failed?.(result) === true ? 'error' : 'success'),
        );
        onClose();
      }
      await client.invalidateQueries({ queryKey });
    },
    // A failure is said once, inline in the dialog (a snackbar would cover its buttons).
    onError: async (error) => {
      if (!isOutcomeUnknown(error)) await client.invalidateQueries({ queryKey });
    },
  });
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  // Nothing left to decide: only Close is offered, and takes the focus from the button that went.
  const final = !outcomeUnknown && isRefusedForGood(mutation.error) ? mutation.error : null;
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (final !== null) closeRef.current?.focus();
  }, [final]);
  const reasonError =
    submitted && !parsedReason.success
      ? (textRefusalIn(parsedReason.error.issues) ?? 'Say why in 3 to 255 characters.')
      : undefined;

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (final !== null) return;
    setSubmitted(true);
    if (decision === 'reject' && !parsedReason.success) return;
    once((done) => {
      mutation.mutate(undefined, { onSettled: done });
    });
  };

  const shown = mutation.isSuccess ? (done?.(mutation.data) ?? null) : null;
  if (shown !== null) return shown;

  return (
    <FormDialog
      open
      dirty={final === null && decision === 'reject' && reason.trim() !== ''}
      busy={mutation.isPending}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form noValidate aria-labelledby={titleId} onSubmit={submit}>
        <DialogTitle id={titleId}>{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeError(mutation.error)} Sending again is safe: it is the same request
                {lostReplyNote ?? ''}.
              </Alert>
            ) : final !== null ? (
              (refused?.(final) ?? <RefusedForGoodAlert error={final} />)
            ) : mutation.isError ? (
              <Alert severity="error">{describeError(mutation.error)}</Alert>
            ) : null}
            {decision === 'approve' && final === null ? question : null}
            {final === null ? facts : decidedFacts}
            {final !== null ? null : decision === 'reject' ? (
              <TextField
                label="Reason"
                value={reason}
                onChange={(event) => {
                  setReason(event.target.value);
                }}
                required
                autoFocus
                multiline
                minRows={2}
                disabled={outcomeUnknown || mutation.isPending}
                error={reasonError !== undefined}
                helperText={reasonError ?? reasonHint}
              />
            ) : (
              <Typography color="text.secondary">{approveNote}</Typography>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button
            ref={closeRef}
            onClick={onClose}
            disabled={mutation.isPending}
            variant={final === null ? 'text' : 'contained'}
          >
            {final === null ? 'Cancel' : 'Close'}
          </Button>
          {final === null ? (
            <Button
              type="submit"
              variant="contained"
              color={decision === 'approve' ? 'primary' : 'error'}
              loading={mutation.isPending}
            >
              {outcomeUnknown ? 'Send again' : decision === 'approve' ? approveLabel : rejectLabel}
            </Button>
          ) : null}
        </DialogActions>
      </form>
    </FormDialog>
  );
}
