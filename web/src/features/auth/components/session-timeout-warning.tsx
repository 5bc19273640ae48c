import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Snackbar from '@mui/material/Snackbar';
import type { SessionResponse } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { DateTime } from '../../../components/date-time';
import { sessionKeys, sessionQueryOptions } from '../api/session';
import { ABSOLUTE_WARNING_MS, IDLE_WARNING_MS, sessionDeadlines } from '../api/session-deadlines';
import { lastUserInputAt } from '../../../lib/user-activity';
import { useCachedData } from './use-cached-data';

/** setTimeout's longest wait (about 24.8 days); a longer one is waited in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether this browser's clock has reached `at` (ms); renders again when it does. */
function useReached(at: number): boolean {
  const [reachedAt, setReachedAt] = useState<number | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const wait = at - Date.now();
      if (wait <= 0) setReachedAt(at);
      else timer = setTimeout(check, Math.min(wait, MAX_TIMER_MS));
    };
    timer = setTimeout(check, 0);
    return () => {
      clearTimeout(timer);
    };
  }, [at]);
  return reachedAt === at;
}

/**
 * Non-blocking warnings before the session ends: two minutes before the idle timeout, with "Stay
 * signed in" (one authenticated request, which restarts it), and once, five minutes ahead, before
 * its absolute end, which nothing extends. When the session has ended anyway, the next request
 * finds out and the user signs in again over the page (SessionEndedDialog).
 */
export function SessionTimeoutWarning({ session }: { session: SessionResponse }) {
  const query = useQuery(sessionQueryOptions());
  const lastActivityAt = useCachedData((c) => c.getQueryData<number>(sessionKeys.activity));
  const { idleEndsAt, absoluteEndsAt } = sessionDeadlines(
    session,
    query.dataUpdatedAt,
    lastActivityAt,
  );
  const idleSoon = useReached(idleEndsAt - IDLE_WARNING_MS);
  const endSoon = useReached(absoluteEndsAt - ABSOLUTE_WARNING_MS);
  const [endNoted, setEndNoted] = useState<string | null>(null);
  const staying = query.isFetching;

  // The user acted since the last request told the BFF (typing a long comment, say): one quiet
  // read of the session tells it, and the idle timeout moves on instead of a warning showing.
  const unreported = idleSoon && lastUserInputAt() > (lastActivityAt ?? 0);
  const { refetch } = query;
  useEffect(() => {
    if (unreported) void refetch();
  }, [unreported, refetch]);

  // The idle timeout comes first: staying signed in helps. Else the end, unless already noted. A
  // quiet read that failed (no connection) hides nothing: the warning shows.
  const telling = unreported && !query.isError;
  const idleWarning = idleSoon && !telling && idleEndsAt < absoluteEndsAt;
  const endWarning = !idleWarning && endSoon && endNoted !== session.absoluteExpiresAt;

  return (
    <Snackbar
      open={idleWarning || endWarning}
      anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
    >
      {idleWarning ? (
        <Alert
          severity="warning"
          variant="filled"
          action={
            <Button
              color="inherit"
              size="small"
              loading={staying}
              onClick={() => {
                void query.refetch();
              }}
            >
              Stay signed in
            </Button>
          }
        >
          You will be signed out in 2 minutes for inactivity.
        </Alert>
      ) : endWarning ? (
        <Alert
          severity="warning"
          variant="filled"
          onClose={() => {
            setEndNoted(session.absoluteExpiresAt);
          }}
        >
          Your session ends at <DateTime value={session.absoluteExpiresAt} /> and cannot be
          extended. Save your work: you will then need to sign in again.
        </Alert>
      ) : undefined}
    </Snackbar>
  );
}
