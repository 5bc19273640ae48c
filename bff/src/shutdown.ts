// The graceful stop (SIGTERM, SIGINT): live-event streams are ended first, since they wait for
// events rather than answer and would hold `server.close()` until the timeout; then no new
// connections, the requests under way answered (a gateway exchange may take GATEWAY_TIMEOUT_MS,
// which is why SHUTDOWN_TIMEOUT_MS must be longer), then the background work and the database.
import type { Server } from 'node:http';

export interface Stopping {
  server: Server;
  /** ends the open `GET /api/events` streams and refuses new ones (StreamSlots.endAll) */
  endStreams: () => void;
  /** the background work and the database, closed once no request is left */
  close: () => Promise<void>;
  /** after this long, the connections still open are cut */
  timeoutMs: number;
}

/** Resolves once everything is closed; `forced`: requests still open at the timeout were cut. */
export function shutdown(s: Stopping): Promise<{ forced: boolean }> {
  let forced = false;
  s.endStreams();
  const force = setTimeout(() => {
    forced = true;
    s.server.closeAllConnections();
  }, s.timeoutMs);
  force.unref();
  return new Promise((resolve, reject) => {
    s.server.close(() => {
      clearTimeout(force);
      s.close().then(() => {
        resolve({ forced });
      }, reject);
    });
    s.server.closeIdleConnections();
  });
}
