import { hash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { migrateToLatest } from './migrations.js';
import { NodeSqliteDatabase, NodeSqliteDialect } from './node-sqlite-dialect.js';
import { preparingPool } from './pg-prepared.js';
import { hashedContentSql, type AuditCheckRow, type Database } from './schema.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface Db {
  kind: DatabaseKind;
  k: Kysely<Database>;
  close(): Promise<void>;
  /** cheap round trip for /readyz */
  ping(): Promise<void>;
  /**
   * Committed audit rows with fromSeq <= seq < toSeq, oldest first, each with its hash recomputed
   * from its current content: the fast path of chain verification. The database assembles the
   * hashed text (hashedContentSql, schema.ts); PostgreSQL also computes the SHA-256, on SQLite
   * node does.
   */
  readAuditRange(fromSeq: number, toSeq: number): Promise<AuditCheckRow[]>;
  /** how many range reads verification may have in flight (PostgreSQL: parallel backends) */
  auditReadParallelism: number;
  /** SQLite's one connection; null on PostgreSQL (db/deferred-sync.ts) */
  sqlite: NodeSqliteDatabase | null;
}

function int8AsNumber(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  return types;
}

/** The PostgreSQL pool's settings. */
export function pgPoolConfig(url: string, max: number): pg.PoolConfig {
  return {
    connectionString: url,
    max,
    // A transaction's BEGIN and its COMMIT each travel with a statement (pg-prepared.ts).
    pipeline: true,
    // Millisecond times and ids are bigint columns; they stay far below 2^53.
    types: int8AsNumber(),
  };
}

/**
 * The database holds password hashes, customers' personal data and sealed secrets: its directory
 * is created 0700 (one that exists is left as it is) and its file is 0600 whatever the umask,
 * created so before SQLite opens it, and narrowed if an older install left it readable.
 */
function createPrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  if (process.platform !== 'win32') chmodSync(file, 0o600);
}

function makeCompanionsPrivate(file: string): void {
  if (process.platform === 'win32') return;
  for (const companion of [`${file}-wal`, `${file}-shm`, `${file}-journal`])
    if (existsSync(companion)) chmodSync(companion, 0o600);
}

/** Opens the database, applies the migrations and returns it. */
export async function openDatabase(
  database: Config['database'],
  poolSize = 10,
  onIdleClientError: (err: Error) => void = () => undefined,
): Promise<Db> {
  let k: Kysely<Database>;
  let readAuditRange: Db['readAuditRange'];
  let closeExtra: () => void = () => undefined;
  let sqlite: NodeSqliteDatabase | null = null;
  if (database.kind === 'sqlite') {
    const memory = database.file === ':memory:';
    if (!memory) createPrivateFile(database.file);
    const main = new NodeSqliteDatabase(database.file);
    sqlite = main;
    k = new Kysely<Database>({ dialect: new NodeSqliteDialect(main) });
    // A second connection sees only committed rows, never the open transaction of the first.
    let reader: DatabaseSync | null = null;
    const batchSql = `select seq, prev_hash, hash, ${hashedContentSql('sqlite')} from audit_log where seq >= ? and seq < ? order by seq`;
    readAuditRange = (fromSeq, toSeq) => {
      let rows: unknown[];
      if (memory) {
        // One connection only: the open transaction (if any) is this process's own, under Kysely's mutex.
        rows = main.raw
          .prepare(batchSql)
          .all(fromSeq, toSeq)
          .map((r) => Object.values(r));
      } else {
        reader ??= new DatabaseSync(database.file, { readOnly: true });
        const stmt = reader.prepare(batchSql);
        stmt.setReturnArrays(true);
        rows = stmt.all(fromSeq, toSeq);
      }
      return Promise.resolve(
        (rows as [number, string, string, string][]).map(([seq, prevHash, stored, content]) => ({
          seq,
          prevHash,
          hash: stored,
          recomputed: hash('sha256', content, 'hex'),
        })),
      );
    };
    closeExtra = () => {
      reader?.close();
    };
  } else {
    const pool = new pg.Pool(pgPoolConfig(database.url, poolSize));
    // An idle pooled connection that dies (server restart, admin kill) must not crash the process;
    // the pool replaces it on the next checkout.
    pool.on('error', onIdleClientError);
    k = new Kysely<Database>({
      dialect: new PostgresDialect({
        // Repeated statements are prepared once per connection, unless turned off (pg-prepared.ts).
        pool: preparingPool(pool, database.preparedStatements !== false),
      }),
    });
    const batchSql = `select seq, prev_hash, hash, encode(sha256(convert_to(${hashedContentSql('postgres')}, 'UTF8')), 'hex') from audit_log where seq >= $1 and seq < $2 order by seq`;
    readAuditRange = async (fromSeq, toSeq) => {
      const res = await pool.query<[number, string, string, string]>({
        text: batchSql,
        values: [fromSeq, toSeq],
        rowMode: 'array',
      });
      return res.rows.map(([seq, prevHash, stored, recomputed]) => ({
        seq,
        prevHash,
        hash: stored,
        recomputed,
      }));
    };
  }
  const db: Db = {
    kind: database.kind,
    k,
    close: async () => {
      closeExtra();
      await k.destroy();
    },
    ping: async () => {
      await sql`select 1`.execute(k);
    },
    readAuditRange,
    auditReadParallelism: database.kind === 'postgres' ? Math.min(3, poolSize) : 1,
    sqlite,
  };
  try {
    await migrateToLatest(k as unknown as Kysely<unknown>, database.kind);
  } catch (err) {
    await k.destroy();
    throw err;
  }
  // SQLite gives its -wal and -shm files (there after the first write) the database file's mode;
  // made sure of here all the same.
  if (database.kind === 'sqlite' && database.file !== ':memory:')
    makeCompanionsPrivate(database.file);
  return db;
}
