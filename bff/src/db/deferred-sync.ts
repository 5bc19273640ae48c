// Commits that may reach the disk a moment after they return.
//
// Every commit is on disk before its caller goes on (db/node-sqlite-dialect.ts on SQLite; on
// PostgreSQL, synchronous_commit). Waiting for it is most of what a write costs on SQLite, where
// the writes of one request also wait for one another. Some writes need not wait: losing them in a
// power cut leaves what a crash just before them leaves, which Paydesk recovers from anyway. The
// outcome of an operation whose record was on disk before its request left for the gateway is one
// (the operation is `sending` again, and the reconciler settles it with `status`); a callback's
// claim is another (the callback is answered 200 only after the durable commit that applies it).
// Nothing that must survive a power cut on its own may commit this way.
//
// On SQLite the log keeps commits in order, so a power cut can only lose the last ones, never one
// from the middle, and the next durable commit makes every commit before it durable too. On
// PostgreSQL a commit's wait is in the database server, not on the event loop: the work runs as it
// is, durable as every other commit.
import type { Kysely } from 'kysely';
import type { NodeSqliteDatabase } from './node-sqlite-dialect.js';

/**
 * Runs `work` holding SQLite's one connection (`sqlite`, the database `k` uses; null on
 * PostgreSQL), its commits not waited for: `work` gets the Kysely instance to use, the
 * connection's. No other holder commits meanwhile, so nothing else is spared the wait.
 */
export function deferredSync<DB, T>(
  sqlite: NodeSqliteDatabase | null,
  k: Kysely<DB>,
  work: (k: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (sqlite === null) return work(k);
  return k.connection().execute(async (connection) => {
    sqlite.deferring = true;
    try {
      return await work(connection);
    } finally {
      sqlite.deferring = false;
    }
  });
}
