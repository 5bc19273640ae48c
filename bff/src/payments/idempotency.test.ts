// Idempotency keys on the real database: scope, release after "nothing happened", retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { ManualClock } from '../clock.js';
import { openDatabase, type Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb } from './db.js';
import { Idempotency } from './idempotency.js';
import { ensurePaymentsSchema } from './migration.js';
import { DAY_MS } from './options.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`idempotency keys (${variant.name})`, () => {
    let db: Db;
    let created: Awaited<ReturnType<(typeof DB_VARIANTS)[number]['create']>>;
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0));
    let keys: Idempotency;
    beforeAll(async () => {
      created = await variant.create();
      db = await openDatabase(created.database, 4);
      await ensurePaymentsSchema(db.k as unknown as Kysely<unknown>, db.kind);
      keys = new Idempotency(payDb(db), clock, DAY_MS);
    });
    afterAll(async () => {
      await db.close();
      await created.drop();
    });

    it('when the work fails because nothing could be sent, then the key is released and the same request runs again', async () => {
      let runs = 0;
      const work = () => {
        runs += 1;
        if (runs === 1) return Promise.reject(new AppError('GATEWAY_UNAVAILABLE', 'down'));
        return Promise.resolve({ status: 200, body: { ok: runs } });
      };
      await expect(keys.run('u1', 'key-released-1', 'r', { a: 1 }, work)).rejects.toMatchObject({
        code: 'GATEWAY_UNAVAILABLE',
      });
      await expect(keys.run('u1', 'key-released-1', 'r', { a: 1 }, work)).resolves.toEqual({
        status: 200,
        body: { ok: 2 },
        replayed: false,
      });
      expect(runs).toBe(2);
    });

    it('when the work is refused, then the refusal is the stored reply and the work does not run again', async () => {
      let runs = 0;
      const work = () => {
        runs += 1;
        return Promise.reject(new AppError('CAP_EXCEEDED', 'too much', { remaining: '1.00' }));
      };
      await expect(keys.run('u1', 'key-refused-1', 'r', { a: 1 }, work)).rejects.toMatchObject({
        code: 'CAP_EXCEEDED',
      });
      await expect(keys.run('u1', 'key-refused-1', 'r', { a: 1 }, work)).rejects.toMatchObject({
        code: 'CAP_EXCEEDED',
        details: { remaining: '1.00' },
      });
      expect(runs).toBe(1);
    });

    it('when a key is too short, then 400 names the header; keys of two users never meet', async () => {
      await expect(
        keys.run('u1', 'short', 'r', {}, () => Promise.resolve({ status: 200, body: 1 })),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { fields: [{ path: 'header.Idempotency-Key' }] },
      });
      const a = await keys.run('u1', 'shared-key-0001', 'r', {}, () =>
        Promise.resolve({ status: 200, body: 'a' }),
      );
      const b = await keys.run('u2', 'shared-key-0001', 'r', {}, () =>
        Promise.resolve({ status: 200, body: 'b' }),
      );
      expect([a.body, b.body]).toEqual(['a', 'b']);
    });

    it('when a key is older than the retention, then it is purged and may be used afresh, and not before', async () => {
      await keys.run('u3', 'old-key-00001', 'r', { v: 1 }, () =>
        Promise.resolve({ status: 200, body: 'first' }),
      );
      clock.advance(DAY_MS - 1);
      expect(await keys.purge()).toBe(0);
      expect(
        (
          await keys.run('u3', 'old-key-00001', 'r', { v: 1 }, () =>
            Promise.resolve({ status: 200, body: 'second' }),
          )
        ).body,
      ).toBe('first');
      clock.advance(2);
      expect(await keys.purge()).toBeGreaterThanOrEqual(1);
      expect(
        (
          await keys.run('u3', 'old-key-00001', 'r', { v: 2 }, () =>
            Promise.resolve({ status: 200, body: 'third' }),
          )
        ).body,
      ).toBe('third');
    });
  });
}
