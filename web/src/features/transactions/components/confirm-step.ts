import { useState } from 'react';
import { isOutcomeUnknown } from '../../../lib/idempotency';

/** What a confirm step needs of the dialog's TanStack mutation. */
interface SendMutation<Body> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  reset: () => void;
  mutate: (body: Body) => void;
}

/**
 * The two steps of a form that moves money (rebill, subscription): the form, then the request in
 * words (a FollowUpFrame each). Continue keeps the checked body; Back (or a field the server named)
 * returns to the form. The confirmation is locked after a lost reply, so "Send again" sends the
 * very same body, under the dialog's Idempotency-Key.
 */
export function useConfirmStep<Body>() {
  const [confirming, setConfirming] = useState<Body | null>(null);
  return {
    /** the checked body awaiting confirmation, or null while the form shows */
    confirming,
    /** back to the form, e.g. when the server named a field */
    edit: () => {
      setConfirming(null);
    },
    /** FollowUpFrame props of the form step: Continue checks the form and confirms its body */
    formFrame: (
      mutation: SendMutation<Body>,
      handleSubmit: (onValid: (body: Body) => void) => () => Promise<void>,
    ) => ({
      pending: false,
      error: null as unknown,
      outcomeUnknown: false,
      submitLabel: 'Continue',
      onSubmit: () => {
        void handleSubmit((body) => {
          mutation.reset();
          setConfirming(body);
        })();
      },
    }),
    /** FollowUpFrame props of the confirmation step of `body` */
    confirmFrame: (mutation: SendMutation<Body>, body: Body) => ({
      confirming: true,
      pending: mutation.isPending,
      error: mutation.error,
      outcomeUnknown: mutation.isError && isOutcomeUnknown(mutation.error),
      onBack: () => {
        mutation.reset();
        setConfirming(null);
      },
      onSubmit: () => {
        mutation.mutate(body);
      },
    }),
  };
}
