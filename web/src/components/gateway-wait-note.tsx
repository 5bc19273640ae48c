import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useContext, useEffect, useState } from 'react';
import { SessionContext } from '../features/auth/components/session-context';

/**
 * How long a request to the gateway runs before its dialog says that it waits: a usual answer
 * comes sooner, so the spinner alone says enough until then.
 */
export const GATEWAY_WAIT_NOTE_AFTER_MS = 2_000;

/**
 * What staff read while a slow gateway is awaited: how long the BFF waits for it (its
 * GATEWAY_TIMEOUT_MS, from the session's settings) in whole seconds, rounded up and never "0 s"
 * (2500 ms: "up to 3 s"); "a few seconds" when the BFF did not say (an older instance).
 */
export function gatewayWaitNote(timeoutMs: number | undefined): string {
  return `Waiting for the gateway’s answer… Paydesk waits ${waitWords(timeoutMs)} for it; do not close this window or send it again.`;
}

/** The BFF's wait in words: "up to 3 s" for 2500 ms, "a few seconds" when not said. */
function waitWords(timeoutMs: number | undefined): string {
  return timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0
    ? 'a few seconds'
    : `up to ${String(Math.max(1, Math.ceil(timeoutMs / 1000)))} s`;
}

/**
 * The same for a status look-up, which sends nothing that moves money and may ask every configured
 * endpoint in turn: how long each may take (QA: the look-up's spinner alone said nothing for 15 s).
 */
export function lookupWaitNote(timeoutMs: number | undefined): string {
  return `Asking the gateway… Paydesk waits ${waitWords(timeoutMs)} for each endpoint it asks.`;
}

/**
 * The same for one order's status asked now (Refresh status): one endpoint, and nothing it could
 * send twice (QA: the button's spinner alone said nothing for up to 15 s).
 */
export function statusWaitNote(timeoutMs: number | undefined): string {
  return `Asking the gateway for the order’s status… Paydesk waits ${waitWords(timeoutMs)} for its answer.`;
}

const NOTES = {
  operation: gatewayWaitNote,
  lookup: lookupWaitNote,
  status: statusWaitNote,
} as const;

/** True once `waiting` has lasted `afterMs` without a break; false again as soon as it ends. */
export function useWaitedLong(waiting: boolean, afterMs = GATEWAY_WAIT_NOTE_AFTER_MS): boolean {
  const [long, setLong] = useState(false);
  useEffect(() => {
    if (!waiting) return undefined;
    const timer = setTimeout(() => {
      setLong(true);
    }, afterMs);
    return () => {
      clearTimeout(timer);
      setLong(false);
    };
  }, [waiting, afterMs]);
  return waiting && long;
}

/**
 * Said where a request waits on the gateway (`waiting`), once it has waited a while: that the
 * answer is still to come, and how long Paydesk waits. The live region is there from the start,
 * so that a screen reader says the note when it appears.
 */
export function GatewayWaitNote({
  waiting,
  words = 'operation',
}: {
  waiting: boolean;
  /**
   * whose words: a money operation's (`gatewayWaitNote`: do not close or send again), a status
   * look-up's over the endpoints (`lookupWaitNote`), or one order's status (`statusWaitNote`)
   */
  words?: keyof typeof NOTES;
}) {
  const long = useWaitedLong(waiting);
  // The context rather than useSession(): a dialog shown without a session still says its note.
  const timeoutMs = useContext(SessionContext)?.settings?.gatewayTimeoutMs;
  return (
    <Box aria-live="polite" aria-atomic="true" sx={{ mt: long ? 2 : 0 }}>
      {long ? (
        <Typography variant="body2" color="text.secondary">
          {NOTES[words](timeoutMs)}
        </Typography>
      ) : null}
    </Box>
  );
}
