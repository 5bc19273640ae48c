// Kysely over node:sqlite: rows read as arrays and turned into objects in JS.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, sql } from 'kysely';
import { NodeSqliteDatabase, NodeSqliteDialect } from './node-sqlite-dialect.js';

interface Probe {
  probe: { id: number; name: string | null; amount: number };
}

describe('node:sqlite dialect', () => {
  let database: NodeSqliteDatabase;
  let k: Kysely<Probe>;
  beforeAll(async () => {
    database = new NodeSqliteDatabase(':memory:');
    k = new Kysely<Probe>({ dialect: new NodeSqliteDialect(database) });
    await sql`create table probe (id integer primary key, name text, amount integer not null)`.execute(
      k,
    );
    await k
      .insertInto('probe')
      .values([
        { id: 1, name: 'one', amount: 100 },
        { id: 2, name: null, amount: 9_007_199_254_740 },
        { id: 3, name: 'Zoë', amount: 0 },
      ])
      .execute();
  });
  afterAll(async () => {
    await k.destroy();
  });

  it('when rows are read, then each is an object keyed by column name, nulls and large integers intact', async () => {
    const rows = await k.selectFrom('probe').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      { id: 1, name: 'one', amount: 100 },
      { id: 2, name: null, amount: 9_007_199_254_740 },
      { id: 3, name: 'Zoë', amount: 0 },
    ]);
    const again = await k.selectFrom('probe').select(['name', 'id']).where('id', '=', 3).execute();
    expect(again).toEqual([{ name: 'Zoë', id: 3 }]);
    expect(Object.keys(again[0] ?? {})).toEqual(['name', 'id']);
  });

  it('when two columns share a name, then the last one wins, as with node:sqlite’s own objects', async () => {
    const { rows } = await sql<{
      v: number;
    }>`select 1 as v, 2 as v`.execute(k);
    expect(rows).toEqual([{ v: 2 }]);
  });

  it('when a streamed read stops early, then it ends cleanly and later statements run', async () => {
    const seen: number[] = [];
    for await (const row of k.selectFrom('probe').select('id').orderBy('id').stream()) {
      seen.push(row.id);
      if (seen.length === 1) break;
    }
    expect(seen).toEqual([1]);
    await k.insertInto('probe').values({ id: 4, name: 'four', amount: 4 }).execute();
    const count = await k
      .selectFrom('probe')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(4);
  });

  it('when a database file is opened, then it is in WAL mode and every commit waits for the disk (synchronous FULL)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-sqlite-'));
    const file = new NodeSqliteDatabase(join(dir, 'durable.db'));
    try {
      expect(file.raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      // 2 = FULL; NORMAL (1) may lose a committed operation record on a power cut.
      expect(file.raw.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
    } finally {
      file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
