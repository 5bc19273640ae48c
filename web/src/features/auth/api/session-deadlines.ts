import type { SessionResponse } from '@paydesk/shared/api';

/** How long before the idle timeout the user is warned (and may stay signed in). */
export const IDLE_WARNING_MS = 2 * 60_000;
/** How long before the session's absolute end (which nothing extends) the user is warned. */
export const ABSOLUTE_WARNING_MS = 5 * 60_000;

/** When the session ends, on this browser's clock (ms since the epoch). */
export interface SessionDeadlines {
  /** when it times out if no request is made meanwhile */
  idleEndsAt: number;
  /** when it ends whatever is done */
  absoluteEndsAt: number;
}

/**
 * When the session ends. The BFF says it only in the session reply (`idleExpiresAt`,
 * `absoluteExpiresAt`; no header on other replies), and restarts the idle timeout with every
 * authenticated request. So the idle timeout's length is taken from the latest session reply (its
 * `idleExpiresAt` less the time it arrived: never more than the BFF's setting) and restarted from
 * the last request that succeeded since. Assumes the browser's clock agrees with the BFF's.
 *
 * @param receivedAt when `session` arrived
 * @param lastActivityAt when the last request with the session succeeded, if one did
 */
export function sessionDeadlines(
  session: Pick<SessionResponse, 'idleExpiresAt' | 'absoluteExpiresAt'>,
  receivedAt: number,
  lastActivityAt: number | undefined,
): SessionDeadlines {
  const idleExpiresAt = Date.parse(session.idleExpiresAt);
  const absoluteEndsAt = Date.parse(session.absoluteExpiresAt);
  const idleTimeoutMs = Math.max(0, idleExpiresAt - receivedAt);
  const sinceActivity =
    lastActivityAt === undefined || lastActivityAt <= receivedAt
      ? idleExpiresAt
      : lastActivityAt + idleTimeoutMs;
  return {
    idleEndsAt: Math.min(Math.max(idleExpiresAt, sinceActivity), absoluteEndsAt),
    absoluteEndsAt,
  };
}
