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
    /** A database file whose syncs the test watches: those in the thread pool wait for it. */
    interface Held {
      dir: string;
      database: NodeSqliteDatabase;
      k: Kysely<Probe>;
      /** the descriptors synced in the thread pool, one per sync started */
      later: number[];
      /** the descriptors synced on the event loop's thread */
      now: number[];
      /** `onNow`: what each sync on this thread does besides (throws, to fail it) */
      hooks: { onNow: () => unknown };
      /** finishes the oldest unfinished sync in the thread pool (or fails it with `err`) */
      finish(err?: Error): void;
    }
    let held: Held;

    beforeEach(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'paydesk-sqlite-'));
      const waiting: { resolve(): void; reject(err: Error): void }[] = [];
      const later: number[] = [];
      const now: number[] = [];
      const hooks: Held['hooks'] = { onNow: () => undefined };
      const database = new NodeSqliteDatabase(join(dir, 'held.db'), {
        syncFile: {
          later: (fd) => {
            later.push(fd);
            return new Promise<void>((resolve, reject) => {
              waiting.push({ resolve, reject });
            });
          },
          now: (fd) => {
            now.push(fd);
            hooks.onNow();
          },
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
        later,
        now,
        hooks,
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

    const walPath = (fd: number | undefined) =>
      fd === undefined ? null : readlinkSync(`/proc/self/fd/${String(fd)}`);

    it('when a transaction commits and nobody else waits for the connection, then the write-ahead log is synced at once on this thread, before its caller goes on', async () => {
      let returned = false;
      const seenBySync: boolean[] = [];
      held.hooks.onNow = () => seenBySync.push(returned);
      await held.k
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 1, name: 'a', amount: 1 }).execute();
          await trx.insertInto('probe').values({ id: 2, name: 'b', amount: 2 }).execute();
        })
        .then(() => (returned = true));
      expect(seenBySync).toEqual([false]);
      expect(held.later).toEqual([]);
      expect(walPath(held.now[0])).toBe(join(held.dir, 'held.db-wal'));
    });

    it('when commits wait for the connection, then the sync runs in the thread pool, the connection serves them meanwhile and they share the next sync (group commit)', async () => {
      // The second waits for the connection while the first commits: the first's sync goes to
      // the thread pool.
      const first = insert(1);
      const second = insert(2);
      await vi.waitFor(() => {
        expect(held.later).toHaveLength(1);
      });
      expect(walPath(held.later[0])).toBe(join(held.dir, 'held.db-wal'));
      const more = [second, insert(3), insert(4)];
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
        expect(held.later).toHaveLength(2);
      });
      expect(await settled(Promise.race(more))).toBe(false);
      held.finish();
      await Promise.all(more);
      expect(held.later).toHaveLength(2);
      expect(held.now).toEqual([]);
    });

    it('when reads run or a transaction rolls back, then nothing waits for a sync', async () => {
      await held.k.selectFrom('probe').selectAll().execute();
      await expect(
        held.k.transaction().execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 9, name: null, amount: 9 }).execute();
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect([...held.later, ...held.now]).toEqual([]);
      expect(await held.k.selectFrom('probe').selectAll().execute()).toEqual([]);
    });

    it('when commits are made under deferredSync, then they do not wait, and the next durable commit syncs the log with them', async () => {
      await deferredSync(held.database, held.k, async (k) => {
        await k.insertInto('probe').values({ id: 1, name: null, amount: 1 }).execute();
        await k.transaction().execute(async (trx) => {
          await trx.insertInto('probe').values({ id: 2, name: null, amount: 2 }).execute();
        });
      });
      expect([...held.later, ...held.now]).toEqual([]);
      expect(held.database.deferring).toBe(false);
      await insert(3);
      expect(held.now).toHaveLength(1);
    });

    it('when the sync fails, on this thread or in the thread pool, then the commit’s caller gets the error', async () => {
      held.hooks.onNow = () => {
        throw new Error('EIO: i/o error, fdatasync');
      };
      await expect(insert(1)).rejects.toThrow('EIO');
      held.hooks.onNow = () => undefined;

      const first = insert(2);
      const second = insert(3);
      await vi.waitFor(() => {
        expect(held.later).toHaveLength(1);
      });
      held.finish(new Error('EIO: i/o error, fdatasync'));
      await expect(first).rejects.toThrow('EIO');
      // The next sync is a new one, and it can succeed.
      await vi.waitFor(() => {
        expect(held.later).toHaveLength(2);
      });
      held.finish();
      await second;
    });
  });

  it('when the database is in memory, then a commit has nothing to sync', async () => {
    await k.insertInto('probe').values({ id: 50, name: null, amount: 5 }).execute();
    await expect(database.durable()).resolves.toBeUndefined();
    await k.deleteFrom('probe').where('id', '=', 50).execute();
  });
});
