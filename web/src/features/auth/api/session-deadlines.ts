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
 * `absoluteExpiresAt`; no header on other replies), and restarts the idle timeout from the user's
 * last input each request tells it of (`Paydesk-Idle-Ms`). So the idle timeout runs from the later
 * of the session reply's `idleExpiresAt` and the last input a request reported, for the length
 * the session reply's settings give (`sessionIdleSeconds`; an older BFF's length is read off the
 * reply: its `idleExpiresAt` less the time it arrived). Assumes the browser's clock agrees with
 * the BFF's.
 *
 * @param receivedAt when `session` arrived
 * @param lastActivityAt the latest user input a successful request reported, if one did
 */
export function sessionDeadlines(
  session: Pick<SessionResponse, 'idleExpiresAt' | 'absoluteExpiresAt' | 'settings'>,
  receivedAt: number,
  lastActivityAt: number | undefined,
): SessionDeadlines {
  const idleExpiresAt = Date.parse(session.idleExpiresAt);
  const absoluteEndsAt = Date.parse(session.absoluteExpiresAt);
  const idleSeconds = session.settings?.sessionIdleSeconds;
  const idleTimeoutMs =
    idleSeconds === undefined ? Math.max(0, idleExpiresAt - receivedAt) : idleSeconds * 1000;
  const sinceActivity =
    lastActivityAt === undefined ? idleExpiresAt : lastActivityAt + idleTimeoutMs;
  return {
    idleEndsAt: Math.min(Math.max(idleExpiresAt, sinceActivity), absoluteEndsAt),
    absoluteEndsAt,
  };
}
