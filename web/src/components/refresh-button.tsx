import Refresh from '@mui/icons-material/Refresh';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { describeError, isApiError } from '../lib/api-client';
import { useOneAtATime } from '../lib/one-at-a-time';

/**
 * A button that asks the gateway now (an order's or a link's status). Busy, not disabled, while
 * asking: a disabled button would drop the keyboard focus, and a second press does nothing, a
 * double click's too (it lands before the button re-renders as busy: `useOneAtATime`).
 * `onRefresh` asks and settles when the answer (or the failure, said by its caller) is in.
 */
export function RefreshButton({
  pending,
  onRefresh,
  children,
}: {
  pending: boolean;
  onRefresh: () => Promise<unknown>;
  children: ReactNode;
}) {
  const once = useOneAtATime();
  return (
    <Button
      variant="outlined"
      startIcon={pending ? <CircularProgress size={18} color="inherit" aria-hidden /> : <Refresh />}
      aria-disabled={pending}
      aria-busy={pending}
      sx={{ '&[aria-disabled="true"]': { cursor: 'progress', opacity: 0.7 } }}
      onClick={() => {
        once((done) => {
          // A failure is the caller's to say (its mutation's onError): here it only ends the ask.
          void onRefresh()
            .catch(() => undefined)
            .finally(done);
        });
      }}
    >
      {children}
    </Button>
  );
}

/** What the last status check found, shown until the next one (`useStatusCheck`). */
export interface StatusCheckResult {
  severity: 'success' | 'info' | 'error';
  text: string;
}

/**
 * "Check payment status" of a payout or a payment link: asks, shows what it found (or why it
 * could not ask) until the next check, and refetches what `queryKey` names. The page places the
 * `button` (among its actions, when a check may be made) and the `result` (above its facts).
 */
export function useStatusCheck<R extends { message: string }>(
  ask: () => Promise<R>,
  settled: (result: R) => boolean,
  queryKey: QueryKey,
) {
  const client = useQueryClient();
  const [checked, setChecked] = useState<StatusCheckResult | null>(null);
  const check = useMutation({
    mutationFn: ask,
    onSuccess: async (result) => {
      setChecked({ severity: settled(result) ? 'success' : 'info', text: result.message });
      await client.invalidateQueries({ queryKey });
    },
    onError: (error) => {
      setChecked({
        severity: 'error',
        text: isApiError(error) ? describeError(error) : 'The payment status could not be asked.',
      });
    },
  });
  const result = (
    <Box role="status" aria-live="polite">
      {checked === null ? null : (
        <Alert
          severity={checked.severity}
          onClose={() => {
            setChecked(null);
          }}
        >
          {checked.text}
        </Alert>
      )}
    </Box>
  );
  const button = (
    <RefreshButton pending={check.isPending} onRefresh={() => check.mutateAsync()}>
      Check payment status
    </RefreshButton>
  );
  return { button, result };
}
