// Query templates: a query built with Kysely's builder once per database and shape, then given
// new values, must be exactly the query the builder would have built with those values.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { DB_VARIANTS, type DbVariant } from '../test-support/harness.js';
import { openDatabase, type Db } from './connect.js';
import { queryTemplate } from './query-template.js';
import { runWrites } from './write-batch.js';

interface Probe {
  tpl_rows: { id: string; note: string | null; amount: number; state: string };
}
type K = Kysely<Probe>;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`queryTemplate (${variant.name})`, () => {
    let db: Db;
    let k: K;
    let created: Awaited<ReturnType<DbVariant['create']>>;
    beforeAll(async () => {
      created = await variant.create();
      db = await openDatabase(created.database, 2);
      k = db.k as unknown as K;
      await sql`create table tpl_rows (id text primary key, note text, amount integer not null, state text not null)`.execute(
        k,
      );
    });
    afterAll(async () => {
      await db.close();
      await created.drop();
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      await k.deleteFrom('tpl_rows').execute();
    });

    const insertRows = (kk: K, v: { rows: Probe['tpl_rows'][] }) =>
      kk.insertInto('tpl_rows').values(v.rows);
    const update = (kk: K, v: { id: string; changes: Partial<Probe['tpl_rows']> }) =>
      kk.updateTable('tpl_rows').set(v.changes).where('id', '=', v.id).where('state', '!=', 'gone');
    const byId = (kk: K, v: { id: string }) =>
      kk.selectFrom('tpl_rows').selectAll().where('id', '=', v.id).limit(1);

    it('when a template is given values, then its query is the one the builder builds with them, constants included, and it runs', async () => {
      const insertT = queryTemplate(insertRows);
      const updateT = queryTemplate(update);
      const byIdT = queryTemplate(byId);
      for (const values of [
        { rows: [{ id: 'a', note: null, amount: 1, state: 'new' }] },
        {
          rows: [
            { id: 'b', note: 'x', amount: 2, state: 'new' },
            { id: 'c', note: 'it’s $1', amount: 3, state: 'new' },
          ],
        },
      ]) {
        const compiled = insertT(k, values);
        const expected = insertRows(k, values).compile();
        expect({ sql: compiled.sql, parameters: compiled.parameters }).toEqual({
          sql: expected.sql,
          parameters: expected.parameters,
        });
        await k.executeQuery(compiled);
      }
      for (const values of [
        { id: 'b', changes: { amount: 20, state: 'paid' } },
        { id: 'c', changes: { note: null, amount: 30, state: undefined } },
        { id: 'a', changes: { amount: 10, state: 'paid' } },
      ]) {
        const compiled = updateT(k, values);
        const expected = update(k, values).compile();
        expect([compiled.sql, compiled.parameters]).toEqual([expected.sql, expected.parameters]);
        expect((await k.executeQuery(compiled)).numAffectedRows).toBe(1n);
      }
      expect((await k.executeQuery(byIdT(k, { id: 'c' }))).rows).toEqual([
        { id: 'c', note: null, amount: 30, state: 'new' },
      ]);
      expect(await k.selectFrom('tpl_rows').selectAll().orderBy('id').execute()).toEqual([
        { id: 'a', note: null, amount: 10, state: 'paid' },
        { id: 'b', note: 'x', amount: 20, state: 'paid' },
        { id: 'c', note: null, amount: 30, state: 'new' },
      ]);
    });

    it('when a template is used again with the same shape, then it is not built again, on this database or in its transactions', async () => {
      const build = vi.fn(update);
      const updateT = queryTemplate(build);
      updateT(k, { id: 'a', changes: { amount: 1 } });
      updateT(k, { id: 'b', changes: { amount: 2 } });
      await k.transaction().execute(async (trx) => {
        const compiled = updateT(trx, { id: 'c', changes: { amount: 3 } });
        expect(compiled.parameters).toEqual([3, 'c', 'gone']);
        await runWrites(db.kind, trx, [compiled]);
      });
      expect(build).toHaveBeenCalledTimes(1);
      // Another shape (another column set) is built once too.
      updateT(k, { id: 'a', changes: { amount: 1, note: 'n' } });
      updateT(k, { id: 'a', changes: { amount: 1, note: 'm' } });
      expect(build).toHaveBeenCalledTimes(2);
    });

    it('when a builder changes, drops or inlines a value, or is given an expression, then the template refuses it rather than send a wrong query', () => {
      const changed = queryTemplate((kk: K, v: { id: string }) =>
        kk.selectFrom('tpl_rows').selectAll().where('id', '=', `${v.id}-x`),
      );
      expect(() => changed(k, { id: 'a' })).toThrow(/changed on its way/);
      const dropped = queryTemplate((kk: K, v: { id: string; note: string }) =>
        kk.selectFrom('tpl_rows').selectAll().where('id', '=', v.id),
      );
      expect(() => dropped(k, { id: 'a', note: 'n' })).toThrow(/not a parameter/);
      const inlined = queryTemplate((kk: K, v: { column: 'id' | 'note' }) =>
        kk.selectFrom('tpl_rows').select(v.column),
      );
      expect(() => inlined(k, { column: 'id' })).toThrow(/part of the SQL text/);
      const expression = queryTemplate(update);
      expect(() =>
        expression(k, {
          id: 'a',
          changes: { amount: sql<number>`amount + 1` as unknown as number },
        }),
      ).toThrow(/not a plain value/);
    });
  });
}
