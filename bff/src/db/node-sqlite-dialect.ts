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
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
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
    return this.#stmt.iterate(...toParams(parameters));
  }
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  constructor(file: string) {
    this.raw = new DatabaseSync(file);
    this.raw.exec('PRAGMA busy_timeout = 5000');
    if (file !== ':memory:') this.raw.exec('PRAGMA journal_mode = WAL');
    this.raw.exec('PRAGMA synchronous = NORMAL');
    this.raw.exec('PRAGMA foreign_keys = ON');
  }
  prepare(sql: string): SqliteStatement {
    return new NodeSqliteStatement(this.raw.prepare(sql));
  }
  close(): void {
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
