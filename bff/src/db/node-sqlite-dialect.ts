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

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  readonly #fresh: () => StatementSync;
  constructor(stmt: StatementSync, fresh: () => StatementSync) {
    this.#stmt = stmt;
    this.#fresh = fresh;
    this.reader = stmt.columns().length > 0;
  }
  all(parameters: readonly unknown[]): unknown[] {
    return this.#stmt.all(...toParams(parameters));
  }
  run(parameters: readonly unknown[]): {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  } {
    return this.#stmt.run(...toParams(parameters));
  }
  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    // An iterator keeps its statement busy until it is done: never the shared cached one.
    return this.#fresh().iterate(...toParams(parameters));
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
    this.raw.exec('PRAGMA synchronous = NORMAL');
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
