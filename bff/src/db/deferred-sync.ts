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
// from the middle, and the next durable commit makes every commit before it durable too. The same
// holds for PostgreSQL's write-ahead log, where a transaction commits this way with
// `synchronous_commit` off (its WAL writer flushes such a commit within three `wal_writer_delay`s,
// and any durable commit after it flushes it too). There the wait is the server's, not the event
// loop's, but the request waits for it all the same: about a tenth of a millisecond per commit on
// a local disk, more on a networked one.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { DatabaseKind } from './connect.js';
import type { NodeSqliteDatabase } from './node-sqlite-dialect.js';
import { SYNC_LATER } from './pg-prepared.js';

/**
 * Runs `work` holding SQLite's one connection (`sqlite`, the database `k` uses; null on
 * PostgreSQL), its commits not waited for: `work` gets the Kysely instance to use, the
 * connection's. No other holder commits meanwhile, so nothing else is spared the wait. On
 * PostgreSQL `work` runs as it is, its commits durable (a statement outside a transaction has no
 * way to say otherwise; `transactionSyncedLater` has).
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

/**
 * Runs `work` in one transaction whose commit is not waited for: under `deferredSync` on SQLite;
 * on PostgreSQL with `synchronous_commit` off for this transaction alone, the setting sent with
 * its first statement (pg-prepared.ts, no round trip of its own).
 */
export function transactionSyncedLater<DB, T>(
  db: { kind: DatabaseKind; sqlite: NodeSqliteDatabase | null },
  k: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  if (db.kind === 'postgres') {
    return k.transaction().execute(async (trx) => {
      await trx.executeQuery(CompiledQuery.raw(SYNC_LATER));
      return work(trx);
    });
  }
  return deferredSync(db.sqlite, k, (c) => c.transaction().execute(work));
}
