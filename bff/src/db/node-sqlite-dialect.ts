// Kysely over node:sqlite (DatabaseSync). Kysely's SqliteDialect wants a better-sqlite3-like
// object; node:sqlite's statements differ only in how they take parameters and say whether they
// return rows. Transactions start with BEGIN IMMEDIATE so a writer takes the lock up front (what
// PostgreSQL would do with row locks) instead of failing to upgrade later.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
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

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  readonly #fresh: () => StatementSync;
  readonly #toRow: (row: unknown[]) => Record<string, unknown>;
  constructor(stmt: StatementSync, fresh: () => StatementSync) {
    this.#stmt = returningArrays(stmt);
    this.#fresh = () => returningArrays(fresh());
    this.reader = stmt.columns().length > 0;
    this.#toRow = rowMaker(stmt);
  }
  all(parameters: readonly unknown[]): unknown[] {
    return (this.#stmt.all(...toParams(parameters)) as unknown as unknown[][]).map(this.#toRow);
  }
  run(parameters: readonly unknown[]): {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  } {
    return this.#stmt.run(...toParams(parameters));
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

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  /**
   * Prepared statements by SQL text. Kysely asks for a statement per query; preparing (parsing and
   * planning) every time cost as much CPU as running the statement, on every request.
   */
  readonly #statements = new Map<string, NodeSqliteStatement>();
  constructor(file: string) {
    this.raw = new DatabaseSync(file);
    this.raw.exec('PRAGMA busy_timeout = 5000');
    if (file !== ':memory:') this.raw.exec('PRAGMA journal_mode = WAL');
    // FULL: a commit is on disk when it returns, as with PostgreSQL's default. An operation's
    // record is committed before its request leaves for the gateway; with NORMAL a power cut
    // could lose it after the gateway moved the money (an unknown return, so a second one).
    this.raw.exec('PRAGMA synchronous = FULL');
    this.raw.exec('PRAGMA foreign_keys = ON');
  }
  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // Most recently used last, so the first key is the one to evict.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = new NodeSqliteStatement(this.raw.prepare(sql), () => this.raw.prepare(sql));
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
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  readonly #database: NodeSqliteDatabase;
  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
}
