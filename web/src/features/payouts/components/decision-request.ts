import { useCallback, useState } from 'react';
import { isRefusedForGood } from '../../../components/decision-dialog';
import { isOutcomeUnknown } from '../../../lib/idempotency';

/** Where the dialog's own request stands: not sent, on its way, or how it was answered. */
type RequestStatus = 'idle' | 'sending' | 'answered' | 'unknown' | 'refused' | 'failed';

/**
 * Follows the request a payout's decision dialog sends (`track` wraps it), for what the shared
 * decision dialog does not tell its caller: whether it is on its way (`sending`: the gateway may take
 * long to answer), and whether a change of the payout may be the dialog's own doing (`ours`): while
 * it is on its way, once it was answered, when its outcome is not known (sending again is safe) or
 * when it was refused for good (the dialog already says why). A request that plainly failed changed
 * nothing.
 */
export function useDecisionRequest() {
  const [status, setStatus] = useState<RequestStatus>('idle');
  const track = useCallback(<T>(request: Promise<T>): Promise<T> => {
    setStatus('sending');
    return request.then(
      (answer) => {
        setStatus('answered');
        return answer;
      },
      (error: unknown) => {
        // In the order the decision dialog reads the error: a lost reply first.
        setStatus(
          isOutcomeUnknown(error) ? 'unknown' : isRefusedForGood(error) ? 'refused' : 'failed',
        );
        throw error;
      },
    );
  }, []);
  return { sending: status === 'sending', ours: status !== 'idle' && status !== 'failed', track };
}
