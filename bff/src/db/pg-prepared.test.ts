// Named prepared statements on PostgreSQL: which statements get a name, and what happens when
// another instance changes the schema under a prepared `select *`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { DB_VARIANTS } from '../test-support/harness.js';
import { openDatabase, type Db } from './connect.js';
import { StatementNames } from './pg-prepared.js';

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
