// Kysely over node:sqlite: rows read as arrays and turned into objects in JS.
import { mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Kysely, sql } from 'kysely';
import { deferredSync } from './deferred-sync.js';
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

  it('when a database file is opened, then it is in WAL mode and SQLite writes commits without syncing them (NORMAL): the driver waits for the log’s sync instead', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-sqlite-'));
    const file = new NodeSqliteDatabase(join(dir, 'durable.db'));
    try {
      expect(file.raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(file.raw.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    } finally {
      file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('durable commits', () => {
    /** A database file whose log syncs wait until the test lets them finish. */
    interface Held {
      dir: string;
      database: NodeSqliteDatabase;
      k: Kysely<Probe>;
      /** the descriptors synced, one per sync started */
      syncs: number[];
      /** finishes the oldest unfinished sync (or fails it with `err`) */
      finish(err?: Error): void;
    }
    let held: Held;

    beforeEach(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'paydesk-sqlite-'));
      const syncs: number[] = [];
      const waiting: { resolve(): void; reject(err: Error): void }[] = [];
      const database = new NodeSqliteDatabase(join(dir, 'held.db'), {
        syncFile: (fd) => {
          syncs.push(fd);
          return new Promise<void>((resolve, reject) => {
            waiting.push({ resolve, reject });
          });
        },
      });
      const k = new Kysely<Probe>({ dialect: new NodeSqliteDialect(database) });
      database.deferring = true; // the table is set up without waiting
      await sql`create table probe (id integer primary key, name text, amount integer not null)`.execute(
        k,
      );
      database.deferring = false;
      held = {
        dir,
        database,
        k,
        syncs,
        finish: (err) => {
          const next = waiting.shift();
          if (next === undefined) throw new Error('no sync is waiting');
          if (err === undefined) next.resolve();
          else next.reject(err);
        },
      };
    });
    afterEach(async () => {
      await held.k.destroy();
      rmSync(held.dir, { recursive: true, force: true });
    });

    /** Whether `promise` has settled once everything already queued has run. */
    async function settled(promise: Promise<unknown>): Promise<boolean> {
      let done = false;
      void promise.then(
        () => (done = true),
        () => (done = true),
      );
      await new Promise((resolve) => setImmediate(resolve));
      return done;
    }

    const insert = (id: number) =>
      held.k.insertInto('probe').values({ id, name: null, amount: id }).execute();

    it('when a transaction commits, then its caller goes on only once the write-ahead log is synced', async () => {
      const tx = held.k.transaction().execute(async (trx) => {
        await trx.insertInto('probe').values({ id: 1, name: 'a', amount: 1 }).execute();
        await trx.insertInto('probe').values({ id: 2, name: 'b', amount: 2 }).execute();
      });
      expect(await settled(tx)).toBe(false);
      // One sync, of the log: the descriptor is of `held.db-wal`.
      expect(held.syncs).toHaveLength(1);
      const [fd] = held.syncs;
      expect(fd === undefined ? null : readlinkSync(`/proc/self/fd/${String(fd)}`)).toBe(
        join(held.dir, 'held.db-wal'),
      );
      held.finish();
      await tx;
    });

    it('when commits come while a sync runs, then the connection serves them meanwhile and they share the next sync (group commit)', async () => {
      const first = insert(1);
      await vi.waitFor(() => {
        expect(held.syncs).toHaveLength(1);
      });
      // The first commit's sync runs; three more commit meanwhile, the connection being free.
      const more = [insert(2), insert(3), insert(4)];
      await vi.waitFor(async () => {
        expect(
          (await held.k.selectFrom('probe').select('id').orderBy('id').execute()).map((r) => r.id),
        ).toEqual([1, 2, 3, 4]);
      });
      expect(await settled(first)).toBe(false);
      expect(await settled(Promise.race(more))).toBe(false);
      held.finish();
      await first;
      // One sync more, started after the first, covers all three.
      await vi.waitFor(() => {
        expect(held.syncs).toHaveLength(2);
      });
      expect(await settled(Promise.race(more))).toBe(false);
      held.finish();
      await Promise.all(more);
      expect(held.syncs).toHaveLength(2);
    });

    it('when reads run or a transaction rolls back, then nothing waits for a sync', async () => {
      await held.k.selectFrom('probe').selectAll().execute();
      await expect(
        held.k.transaction().execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 9, name: null, amount: 9 }).execute();
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(held.syncs).toEqual([]);
      expect(await held.k.selectFrom('probe').selectAll().execute()).toEqual([]);
    });

    it('when commits are made under deferredSync, then they do not wait, and the next durable commit syncs the log with them', async () => {
      await deferredSync(held.database, held.k, async (k) => {
        await k.insertInto('probe').values({ id: 1, name: null, amount: 1 }).execute();
        await k.transaction().execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 2, name: null, amount: 2 }).execute();
        });
      });
      expect(held.syncs).toEqual([]);
      expect(held.database.deferring).toBe(false);
      const durable = insert(3);
      await vi.waitFor(() => {
        expect(held.syncs).toHaveLength(1);
      });
      held.finish();
      await durable;
    });

    it('when the sync fails, then the commit’s caller gets the error', async () => {
      const tx = insert(1);
      await vi.waitFor(() => {
        expect(held.syncs).toHaveLength(1);
      });
      held.finish(new Error('EIO: i/o error, fdatasync'));
      await expect(tx).rejects.toThrow('EIO');
    });
  });

  it('when the database is in memory, then a commit has nothing to sync', async () => {
    await k.insertInto('probe').values({ id: 50, name: null, amount: 5 }).execute();
    await expect(database.durable()).resolves.toBeUndefined();
    await k.deleteFrom('probe').where('id', '=', 50).execute();
  });
});
