// Kysely over node:sqlite (DatabaseSync). Kysely's SqliteDialect wants a better-sqlite3-like
// object; node:sqlite's statements differ only in how they take parameters and say whether they
// return rows. Transactions start with BEGIN IMMEDIATE so a writer takes the lock up front (what
// PostgreSQL would do with row locks) instead of failing to upgrade later.
//
// Durability, as PostgreSQL's: a commit is on disk before its caller goes on. SQLite's own way
// (synchronous=FULL) syncs the write-ahead log inside COMMIT, on the event loop's thread, which
// nothing else could use meanwhile: 0.3-1 ms a commit on the benchmark machines, most of a
// capture's database time (test/bench/RESULTS-payments.md, session 12). Here SQLite commits with
// synchronous=NORMAL (written to the log, not synced) and the driver, once it has released the
// connection, waits for an fdatasync of the log (`durable`). The log keeps commits in order, so one
// sync makes every commit before it durable. When another holder waits for the connection, the sync
// runs in libuv's thread pool: the event loop serves requests meanwhile, and the commits made while
// it runs share the next one (a group commit). Alone, the sync runs at once on this thread, as
// SQLite's would: a round trip through the thread pool cost 0.2 ms more per commit on the
// benchmark machine, as much as the sync itself. "Alone" also asks the application whether other
// work waits (`othersAtWork`): while the event loop is blocked in a sync, no other request reaches
// the connection to show that it is wanted.
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';

function toParams(parameters: readonly unknown[]): SQLInputValue[] {
  return parameters.map((p) => {
    if (typeof p === 'boolean') return p ? 1 : 0;
    if (p instanceof Date) return p.toISOString();
    return p as SQLInputValue;
  });
}

/**
 * Rows come from node:sqlite as arrays and become objects here. Row objects that node:sqlite
 * builds itself land in V8's old space (measured: a 1,000,000-row export grew the old space by
 * ~60 MB of garbage, against ~1 MB with arrays; test/bench/RESULTS-payments.md), while objects
 * built in JS with one insertion order share a hidden class and die young. Where two columns
 * share a name, the last one wins, as with node:sqlite's own objects.
 */
function rowMaker(stmt: StatementSync): (row: unknown[]) => Record<string, unknown> {
  const names = stmt.columns().map((c) => c.name);
  return (row) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) out[names[i] ?? ''] = row[i];
    return out;
  };
}

function returningArrays(stmt: StatementSync): StatementSync {
  stmt.setReturnArrays(true);
  return stmt;
}

/**
 * A statement that leaves nothing to sync: a read (SELECT) or a ROLLBACK. Anything else may
 * write, and commits when no transaction is open.
 */
const WRITES_NOTHING = /^\s*(select|rollback)\b/i;

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  readonly #fresh: () => StatementSync;
  readonly #toRow: (row: unknown[]) => Record<string, unknown>;
  /** Called after this statement ran, when it may have committed a write. */
  readonly #ran: (() => void) | null;
  constructor(stmt: StatementSync, fresh: () => StatementSync, wrote: () => void) {
    this.#stmt = returningArrays(stmt);
    this.#fresh = () => returningArrays(fresh());
    this.reader = stmt.columns().length > 0;
    this.#toRow = rowMaker(stmt);
    this.#ran = WRITES_NOTHING.test(stmt.sourceSQL) ? null : wrote;
  }
  all(parameters: readonly unknown[]): unknown[] {
    // An INSERT or UPDATE with RETURNING comes this way too.
    const rows = this.#stmt.all(...toParams(parameters)) as unknown as unknown[][];
    this.#ran?.();
    return rows.map(this.#toRow);
  }
  run(parameters: readonly unknown[]): {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  } {
    const result = this.#stmt.run(...toParams(parameters));
    this.#ran?.();
    return result;
  }
  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    // An iterator keeps its statement busy until it is done: never the shared cached one.
    const rows = this.#fresh().iterate(...toParams(parameters)) as unknown as Iterator<unknown[]>;
    try {
      for (let next = rows.next(); next.done !== true; next = rows.next()) {
        yield this.#toRow(next.value);
      }
    } finally {
      // A consumer that stops early must not leave the statement (and its read snapshot) open.
      rows.return?.();
    }
  }
}

/** How many prepared statements the connection keeps (least recently used ones go first). */
const STATEMENT_CACHE_SIZE = 500;

/** Syncs a file's data to disk (fdatasync): `later` in the thread pool, `now` on this thread. */
export interface SyncFile {
  later(fd: number): Promise<void>;
  now(fd: number): void;
}

const syncFile: SyncFile = {
  later: (fd) =>
    new Promise((resolve, reject) => {
      fdatasync(fd, (err) => {
        if (err === null) resolve();
        else reject(err);
      });
    }),
  now: fdatasyncSync,
};

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  /**
   * Prepared statements by SQL text. Kysely asks for a statement per query; preparing (parsing and
   * planning) every time cost as much CPU as running the statement, on every request.
   */
  readonly #statements = new Map<string, NodeSqliteStatement>();
  /** The write-ahead log (null in memory), opened at the first sync. */
  readonly #wal: string | null;
  #walFd: number | null = null;
  readonly #syncFile: SyncFile;
  /** The sync running now, and the one to run after it (commits made since it started). */
  #syncing: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  /** A commit since the connection was taken that its holder must see on disk (`takeSyncDue`). */
  #syncDue = false;
  /**
   * On while the connection's holder commits what may reach the disk later (db/deferred-sync.ts):
   * those commits are not waited for; the next durable one takes them along.
   */
  deferring = false;
  /**
   * Whether other work of the process waits to run (the BFF: another HTTP request in flight). A
   * commit's sync then runs in the thread pool even when nobody waits for the connection, so that
   * the event loop serves that work meanwhile (db/node-sqlite-dialect.ts, top).
   */
  othersAtWork: () => boolean = () => false;
  readonly #wrote = () => {
    // Outside a transaction after a write: it committed (autocommit, or COMMIT itself).
    if (!this.deferring && !this.raw.isTransaction) this.#syncDue = true;
  };

  constructor(file: string, options: { syncFile?: SyncFile } = {}) {
    this.raw = new DatabaseSync(file);
    this.raw.exec('PRAGMA busy_timeout = 5000');
    const memory = file === ':memory:';
    if (!memory) this.raw.exec('PRAGMA journal_mode = WAL');
    this.#wal = memory ? null : `${file}-wal`;
    this.#syncFile = options.syncFile ?? syncFile;
    // NORMAL: COMMIT writes the log without syncing it; the driver waits for `durable` instead
    // (above). Checkpoints still sync the log before and the database file after.
    this.raw.exec('PRAGMA synchronous = NORMAL');
    this.raw.exec('PRAGMA foreign_keys = ON');
  }

  /** Whether a commit since the last call must be on disk before its caller goes on. */
  takeSyncDue(): boolean {
    const due = this.#syncDue;
    this.#syncDue = false;
    return due;
  }

  /**
   * Resolves once every commit made before the call is on disk: a sync that starts after the call
   * (a running one may have started before the commit), shared by every caller until it starts.
   * `alone`: nobody else waits for the connection, so unless a sync is running or queued (which the
   * commit then shares), it runs now, on this thread.
   */
  durable(alone = false): Promise<void> {
    if (this.#wal === null) return Promise.resolve();
    if (this.#queued !== null) return this.#queued;
    const running = this.#syncing;
    if (running === null) {
      if (!alone) return this.#startSync();
      try {
        this.#syncFile.now((this.#walFd ??= this.#openWal()));
        return Promise.resolve();
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    const next = running.then(
      () => this.#startQueued(),
      () => this.#startQueued(),
    );
    this.#queued = next;
    return next;
  }

  #startQueued(): Promise<void> {
    this.#queued = null;
    return this.#startSync();
  }

  /**
   * The same file SQLite writes: a sync is of the file, whichever descriptor asks. Its directory is
   * synced once too, so that a log created since the last sync keeps its name after a power cut
   * (SQLite's own first sync of a new log does the same).
   */
  #openWal(): number {
    const wal = this.#wal ?? '';
    const directory = openSync(dirname(wal), 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
    return openSync(wal, 'r');
  }

  #startSync(): Promise<void> {
    this.#walFd ??= this.#openWal();
    const sync = this.#syncFile.later(this.#walFd).finally(() => {
      if (this.#syncing === sync) this.#syncing = null;
    });
    this.#syncing = sync;
    return sync;
  }
  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // Most recently used last, so the first key is the one to evict.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = new NodeSqliteStatement(
      this.raw.prepare(sql),
      () => this.raw.prepare(sql),
      this.#wrote,
    );
    this.#statements.set(sql, statement);
    if (this.#statements.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next();
      if (oldest.done !== true) this.#statements.delete(oldest.value);
    }
    return statement;
  }
  close(): void {
    this.#statements.clear();
    if (this.raw.isOpen) this.raw.close();
    const fd = this.#walFd;
    if (fd === null) return;
    this.#walFd = null;
    // Not while a sync may still use the descriptor (its number could be reused meanwhile).
    const pending = this.#queued ?? this.#syncing;
    if (pending === null) closeSync(fd);
    else
      void pending
        .catch(() => undefined)
        .finally(() => {
          closeSync(fd);
        });
  }
}

/**
 * One holder of the connection at a time, as Kysely's own mutex would do for SQLite; kept here so
 * that the driver can let the next holder in before it waits for the disk.
 */
class ConnectionLock {
  #held: Promise<void> | null = null;
  #release: (() => void) | null = null;
  #waiting = 0;

  async take(): Promise<void> {
    this.#waiting += 1;
    try {
      while (this.#held !== null) await this.#held;
    } finally {
      this.#waiting -= 1;
    }
    this.#held = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  /** Whether another holder waits for the connection. */
  get contended(): boolean {
    return this.#waiting > 0;
  }

  give(): void {
    const release = this.#release;
    this.#held = null;
    this.#release = null;
    release?.();
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: NodeSqliteDatabase;
  readonly #lock = new ConnectionLock();
  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }
  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.take();
    return super.acquireConnection();
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  /** Lets the next holder in, then waits until what this holder committed is on disk. */
  override async releaseConnection(): Promise<void> {
    const due = this.#database.takeSyncDue();
    const alone = !this.#lock.contended && !this.#database.othersAtWork();
    this.#lock.give();
    if (due) await this.#database.durable(alone);
  }
}

/** SQLite's adapter, but the driver keeps the connection's lock (ImmediateSqliteDriver). */
class LockingDriverSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  readonly #database: NodeSqliteDatabase;
  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#database);
  }
  override createAdapter(): DialectAdapter {
    return new LockingDriverSqliteAdapter();
  }
}
