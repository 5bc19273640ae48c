// Named prepared statements on PostgreSQL: which statements get a name, and what happens when
// another instance changes the schema under a prepared `select *`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { DB_VARIANTS } from '../test-support/harness.js';
import { openDatabase, pgPoolConfig, type Db } from './connect.js';
import { transactionSyncedLater } from './deferred-sync.js';
import { preparingPool, StatementNames, THEN_COMMIT } from './pg-prepared.js';
import { runWrites } from './write-batch.js';

describe('statement names', () => {
  it('when a text has run once, then it stays unnamed; from its second run it has one stable name', () => {
    const names = new StatementNames();
    expect(names.nameFor('select $1')).toBeUndefined();
    const name = names.nameFor('select $1');
    expect(name).toMatch(/^pd0_[\w-]{22}$/);
    expect(names.nameFor('select $1')).toBe(name);
    names.nameFor('select $1 + 1');
    expect(names.nameFor('select $1 + 1')).not.toBe(name);
  });

  it('when the capacity is reached, then further texts stay unnamed and named ones keep their names', () => {
    const names = new StatementNames(1, 2);
    const a = names.nameFor('a');
    const b = names.nameFor('b');
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(names.nameFor('c')).toBeUndefined();
    expect(names.nameFor('c')).toBeUndefined();
    expect(names.nameFor('a')).toBe(a);
  });

  it('when a new generation starts, then every text is named afresh under a new name', () => {
    const names = new StatementNames(1);
    const before = names.nameFor('select $1');
    names.newGeneration();
    const after = names.nameFor('select $1');
    expect(after).toMatch(/^pd1_/);
    expect(after).not.toBe(before);
  });
});

const postgres = DB_VARIANTS.find((v) => v.name === 'postgres');

describe.skipIf(postgres === undefined || postgres.skip)('prepared statements (postgres)', () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let db: Db;
  let k: Kysely<unknown>;
  let admin: pg.Client;

  const prepared = async (on: Kysely<unknown>): Promise<string[]> => {
    const { rows } = await sql<{
      name: string;
    }>`select name from pg_prepared_statements order by name`.execute(on);
    return rows.map((r) => r.name);
  };

  beforeAll(async () => {
    if (postgres === undefined) return;
    created = await postgres.create();
    // One connection, so that what one query prepared is what the next one sees.
    db = await openDatabase(created.database, 1);
    k = db.k as unknown as Kysely<unknown>;
    if (created.database.kind !== 'postgres') throw new Error('expected postgres');
    admin = new pg.Client({ connectionString: created.database.url });
    await admin.connect();
    await admin.query(`create table probe (id integer primary key, a text)`);
    await admin.query(`insert into probe values (1, 'one'), (2, 'two')`);
  });
  afterAll(async () => {
    await admin.end();
    await db.close();
    await created.drop();
  });

  it('when a statement with parameters runs twice, then the connection holds it prepared; commands without parameters never are', async () => {
    const byId = (id: number) => sql`select a from probe where id = ${id}`.execute(k);
    await byId(1);
    const afterOne = await prepared(k);
    await byId(2);
    const afterTwo = await prepared(k);
    expect(afterTwo.length).toBe(afterOne.length + 1);
    await k.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
    });
    await k.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
    });
    expect(await prepared(k)).toEqual(afterTwo);
  });

  it('when another instance adds a column under a prepared select *, then a query outside a transaction still answers, with the new column', async () => {
    const all = (id: number) =>
      sql<Record<string, unknown>>`select * from probe where id = ${id}`.execute(k);
    await all(1);
    await all(2);
    await admin.query(`alter table probe add column b text not null default 'bee'`);
    const { rows } = await all(1);
    expect(rows).toEqual([{ id: 1, a: 'one', b: 'bee' }]);
  });

  it('when it happens inside a transaction, then that transaction fails (and rolls back) once and the next one sees the new column', async () => {
    const all = (on: Kysely<unknown>) =>
      sql<Record<string, unknown>>`select * from probe where id = ${2}`.execute(on);
    await all(k);
    await all(k);
    await admin.query(`alter table probe add column c text not null default 'sea'`);
    await expect(
      k.transaction().execute(async (trx) => {
        await sql`update probe set a = 'changed' where id = 1`.execute(trx);
        await all(trx);
      }),
    ).rejects.toMatchObject({ code: '0A000' });
    const again = await k.transaction().execute(async (trx) => (await all(trx)).rows);
    expect(again).toEqual([{ id: 2, a: 'two', b: 'bee', c: 'sea' }]);
    const { rows } = await admin.query<{ a: string }>(`select a from probe where id = 1`);
    expect(rows[0]?.a).toBe('one');
  });

  it('when prepared statements are off, then no statement is ever prepared', async () => {
    if (created.database.kind !== 'postgres') throw new Error('expected postgres');
    const off = await openDatabase({ ...created.database, preparedStatements: false }, 1);
    try {
      const ko = off.k as unknown as Kysely<unknown>;
      for (const id of [1, 2, 1]) await sql`select a from probe where id = ${id}`.execute(ko);
      expect(await prepared(ko)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

/** A net.Socket's own writes: one call, one write to the operating system. */
interface SocketWrites {
  _write(chunk: unknown, ...rest: unknown[]): void;
  _writev(chunks: { chunk: unknown }[], ...rest: unknown[]): void;
}
/** the statements the wire log below tells apart (insert before commit: THEN_COMMIT says commit) */
// 'set local' first: its text, synchronous_commit, holds 'commit' too.
const VERBS = ['set local', 'begin', 'select', 'insert', 'commit'];

describe.skipIf(postgres === undefined || postgres.skip)(
  'pipelined transactions (postgres)',
  () => {
    let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
    let pool: pg.Pool;
    let k: Kysely<{ probe: { id: number; a: string } }>;
    let admin: pg.Client;
    /** what went on the wire and what came back, in order, while `wire` is set */
    let wire: string[] | null = null;

    beforeAll(async () => {
      if (postgres === undefined) return;
      created = await postgres.create();
      if (created.database.kind !== 'postgres') throw new Error('expected postgres');
      // One connection with the settings openDatabase uses, what it writes and hands back logged.
      pool = new pg.Pool(pgPoolConfig(created.database.url, 1));
      pool.on('connect', (client) => {
        // What leaves on the socket, write by write (a statement's text is in its Parse or Query
        // message; pg writes each message on its own, and a corked socket sends those it holds in
        // one write when uncorked)...
        const socket = (client as unknown as { connection: { stream: SocketWrites } }).connection
          .stream;
        const log = (chunks: readonly unknown[]) => {
          const words = chunks.flatMap((chunk) => {
            const bytes = Buffer.isBuffer(chunk) ? chunk.toString('latin1') : String(chunk);
            const word = VERBS.find((v) => bytes.includes(v));
            return word === undefined ? [] : [word];
          });
          if (wire !== null && words.length > 0) wire.push(`write ${words.join(' + ')}`);
        };
        const writeOne = socket._write.bind(socket);
        socket._write = (chunk, ...rest) => {
          log([chunk]);
          writeOne(chunk, ...rest);
        };
        const writeMany = socket._writev.bind(socket);
        socket._writev = (chunks, ...rest) => {
          log(chunks.map((c) => c.chunk));
          writeMany(chunks, ...rest);
        };
        // ...and when each reply is handed back.
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
          const first = args[0];
          const text = typeof first === 'string' ? first : (first as { text: string }).text;
          const word = VERBS.find((v) => text.replace(THEN_COMMIT, '').startsWith(v)) ?? '?';
          const done = args.at(-1);
          if (typeof done !== 'function') return query(...args);
          return query(...args.slice(0, -1), (err: unknown, res: unknown) => {
            wire?.push(`reply ${word}`);
            (done as (e: unknown, r: unknown) => void)(err, res);
          });
        };
      });
      k = new Kysely({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
      admin = new pg.Client({ connectionString: created.database.url });
      await admin.connect();
      await admin.query(`create table probe (id integer primary key, a text not null)`);
    });
    afterAll(async () => {
      await admin.end();
      await k.destroy();
      await created.drop();
    });

    const ids = async () =>
      (await admin.query<{ id: number }>(`select id from probe order by id`)).rows.map((r) => r.id);

    it('when a transaction runs, then its BEGIN leaves in one write with its first statement and its COMMIT with its last writes', async () => {
      wire = [];
      await k.transaction().execute(async (trx) => {
        await trx.selectFrom('probe').select('id').where('id', '=', 1).forUpdate().execute();
        await runWrites('postgres', trx, [trx.insertInto('probe').values({ id: 1, a: 'one' })], {
          thenCommit: true,
        });
      });
      const log = wire;
      wire = null;
      // Two round trips, two writes: BEGIN leaves with the first statement and COMMIT with the
      // last, each before the reply to the one ahead of it.
      expect(log).toEqual([
        'write begin + select',
        'reply begin',
        'reply select',
        'write insert + commit',
        'reply insert',
        'reply commit',
      ]);
      expect(await ids()).toEqual([1]);
    });

    it('when the last writes fail, then the caller gets their error and nothing of the transaction is kept', async () => {
      await expect(
        k.transaction().execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 2, a: 'two' }).execute();
          await runWrites(
            'postgres',
            trx,
            [trx.insertInto('probe').values({ id: 1, a: 'again' })],
            {
              thenCommit: true,
            },
          );
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await ids()).toEqual([1]);
      // The connection is fine for the next transaction.
      await k.transaction().execute(async (trx) => {
        await trx.insertInto('probe').values({ id: 3, a: 'three' }).execute();
      });
      expect(await ids()).toEqual([1, 3]);
    });

    it('when a statement follows the last writes, then it is refused rather than run outside the transaction', async () => {
      await expect(
        k.transaction().execute(async (trx) => {
          await runWrites('postgres', trx, [trx.insertInto('probe').values({ id: 4, a: 'four' })], {
            thenCommit: true,
          });
          await trx.insertInto('probe').values({ id: 5, a: 'five' }).execute();
        }),
      ).rejects.toThrow(/after the one that ended its transaction/);
      expect(await ids()).toEqual([1, 3, 4]);
    });

    it('when the first statement fails, then the transaction rolls back and the connection serves the next one', async () => {
      await expect(
        k.transaction().execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 1, a: 'dup' }).execute();
        }),
      ).rejects.toMatchObject({ code: '23505' });
      const rows = await k
        .transaction()
        .execute((trx) => trx.selectFrom('probe').select('id').orderBy('id').execute());
      expect(rows.map((r) => r.id)).toEqual([1, 3, 4]);
    });

    it('when a transaction commits synced later, then its setting leaves with the BEGIN and the first statement, holds for that transaction alone, and its writes are kept', async () => {
      const setting = sql<{ s: string }>`select current_setting('synchronous_commit') as s`;
      wire = [];
      const inside = await transactionSyncedLater(
        { kind: 'postgres', sqlite: null },
        k,
        async (trx) => {
          const { rows } = await setting.execute(trx);
          // Columns in an order not used before: the text leaves whole, not as a prepared name.
          await runWrites('postgres', trx, [trx.insertInto('probe').values({ a: 'six', id: 6 })], {
            thenCommit: true,
          });
          return rows[0]?.s;
        },
      );
      const log = wire;
      wire = null;
      expect(inside).toBe('off');
      // Still two round trips: the setting costs none of its own.
      expect(log).toEqual([
        'write begin + set local + select',
        'reply begin',
        'reply set local',
        'reply select',
        'write insert + commit',
        'reply insert',
        'reply commit',
      ]);
      expect(await ids()).toEqual([1, 3, 4, 6]);
      // The next transaction on the same connection commits durably again.
      const after = await k
        .transaction()
        .execute(async (trx) => (await setting.execute(trx)).rows[0]?.s);
      expect(after).toBe('on');
    });

    it('when the first statement after the setting fails, then the transaction rolls back and the connection serves the next one', async () => {
      await expect(
        transactionSyncedLater({ kind: 'postgres', sqlite: null }, k, async (trx) => {
          await trx.insertInto('probe').values({ id: 1, a: 'dup' }).execute();
        }),
      ).rejects.toMatchObject({ code: '23505' });
      const rows = await k
        .transaction()
        .execute((trx) => trx.selectFrom('probe').select('id').orderBy('id').execute());
      expect(rows.map((r) => r.id)).toEqual([1, 3, 4, 6]);
    });
  },
);
