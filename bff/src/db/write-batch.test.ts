// Write batches: several independent writes as one PostgreSQL statement (data-modifying CTEs),
// one after another on SQLite, atomic with their transaction either way.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { DB_VARIANTS, type DbVariant } from '../test-support/harness.js';
import { openDatabase, type Db } from './connect.js';
import { combineWrites, runWrites } from './write-batch.js';

interface Probe {
  batch_a: { id: number; note: string };
  batch_b: { id: number; amount: number };
}

describe('combineWrites', () => {
  it('when queries are combined, then each one’s placeholders are renumbered after the ones before it and the last query is the main statement', () => {
    const combined = combineWrites([
      CompiledQuery.raw('insert into a (x, y) values ($1, $2)', ['x', 2]),
      CompiledQuery.raw('update b set z = $1 where id = $2', [3, 'b']),
      CompiledQuery.raw('insert into c (v) values ($1) returning id', ['c']),
    ]);
    expect(combined.sql).toBe(
      'with w0 as (insert into a (x, y) values ($1, $2)), w1 as (update b set z = $3 where id = $4) insert into c (v) values ($5) returning id',
    );
    expect(combined.parameters).toEqual(['x', 2, 3, 'b', 'c']);
  });

  it('when the same statements come again at other places in a batch, then each is renumbered for its place', () => {
    const a = CompiledQuery.raw('update a set x = $1 where id = $2', [1, 'a']);
    const b = CompiledQuery.raw('delete from b where id = $1', ['b']);
    expect(combineWrites([a, b]).sql).toBe(
      'with w0 as (update a set x = $1 where id = $2) delete from b where id = $3',
    );
    expect(combineWrites([b, a]).sql).toBe(
      'with w0 as (delete from b where id = $1) update a set x = $2 where id = $3',
    );
    expect(combineWrites([a, b, a]).sql).toBe(
      'with w0 as (update a set x = $1 where id = $2), w1 as (delete from b where id = $3) update a set x = $4 where id = $5',
    );
  });

  it('when there is one query, then it is sent as it is', () => {
    const one = CompiledQuery.raw('delete from a where id = $1', [1]);
    expect(combineWrites([one])).toBe(one);
  });

  it('when a query holds a $ that is not one of its placeholders, then the batch is refused rather than rewritten', () => {
    expect(() =>
      combineWrites([
        CompiledQuery.raw("insert into a (note) values ('costs $1')", []),
        CompiledQuery.raw('delete from b where id = $1', [1]),
      ]),
    ).toThrow(/placeholder \$1 has no parameter/);
    expect(() =>
      combineWrites([
        CompiledQuery.raw('insert into a (note) values ($$x$$ || $1)', ['y']),
        CompiledQuery.raw('delete from b where id = $1', [1]),
      ]),
    ).toThrow(/not a placeholder/);
    expect(() => combineWrites([])).toThrow(/nothing to write/);
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`runWrites (${variant.name})`, () => {
    let db: Db;
    let k: Kysely<Probe>;
    let created: Awaited<ReturnType<DbVariant['create']>>;
    beforeAll(async () => {
      created = await variant.create();
      db = await openDatabase(created.database, 2);
      k = db.k as unknown as Kysely<Probe>;
      await sql`create table batch_a (id integer primary key, note text not null)`.execute(k);
      await sql`create table batch_b (id integer primary key, amount integer not null)`.execute(k);
    });
    afterAll(async () => {
      await db.close();
      await created.drop();
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      await k.deleteFrom('batch_a').execute();
      await k.deleteFrom('batch_b').execute();
    });

    it('when independent writes run as a batch, then all of them commit and the last one’s returning rows come back', async () => {
      await k.insertInto('batch_b').values({ id: 1, amount: 10 }).execute();
      const sent = vi.spyOn(pg.Client.prototype, 'query');
      const rows = await k
        .transaction()
        .execute((trx) =>
          runWrites<{ id: number }, Probe>(db.kind, trx, [
            trx.updateTable('batch_b').set({ amount: 25 }).where('id', '=', 1),
            trx.insertInto('batch_b').values({ id: 2, amount: 7 }),
            trx
              .insertInto('batch_a')
              .values({ id: 9, note: 'it costs $1, not $2' })
              .returning('id'),
          ]),
        );
      // Unnamed statements are sent as text, named (prepared) ones as a config with a text.
      const statements = sent.mock.calls.map(([what]) => {
        const text = typeof what === 'string' ? what : (what as { text?: string }).text;
        return text?.split(' ')[0];
      });
      sent.mockRestore();
      // begin, the batch, commit on PostgreSQL: one round trip for the three writes.
      if (db.kind === 'postgres') expect(statements).toEqual(['begin', 'with', 'commit']);
      expect(rows).toEqual([{ id: 9 }]);
      expect(await k.selectFrom('batch_a').selectAll().execute()).toEqual([
        { id: 9, note: 'it costs $1, not $2' },
      ]);
      expect(await k.selectFrom('batch_b').selectAll().orderBy('id').execute()).toEqual([
        { id: 1, amount: 25 },
        { id: 2, amount: 7 },
      ]);
    });

    it('when one write of a batch fails, then none of the batch is kept', async () => {
      await k.insertInto('batch_a').values({ id: 1, note: 'taken' }).execute();
      await expect(
        k
          .transaction()
          .execute((trx) =>
            runWrites(db.kind, trx, [
              trx.insertInto('batch_b').values({ id: 5, amount: 1 }),
              trx.updateTable('batch_a').set({ note: 'changed' }).where('id', '=', 1),
              trx.insertInto('batch_a').values({ id: 1, note: 'duplicate' }),
            ]),
          ),
      ).rejects.toThrow();
      expect(await k.selectFrom('batch_b').selectAll().execute()).toEqual([]);
      expect(await k.selectFrom('batch_a').selectAll().execute()).toEqual([
        { id: 1, note: 'taken' },
      ]);
    });

    it('when the batch is empty, then nothing is sent', async () => {
      const sent = vi.spyOn(pg.Client.prototype, 'query');
      expect(await k.transaction().execute((trx) => runWrites(db.kind, trx, []))).toEqual([]);
      if (db.kind === 'postgres') expect(sent).toHaveBeenCalledTimes(2);
    });
  });
}
