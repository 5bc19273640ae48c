// The session secret's key check (migration 0015-secret-checks): the first start records it, a
// restart with the same secret (a file, or the one generated next to a SQLite database) goes on,
// one with another secret is refused naming SESSION_SECRET_FILE. SQLite and (with
// PAYDESK_TEST_PG_URL) PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { openDatabase } from './connect.js';
import { checkSecrets, secretCheckValue } from './secret-check.js';

const SECRET_A = new TextEncoder().encode('secret-a-0123456789-abcdefghijklmnopqrstuvwxyz');
const SECRET_B = new TextEncoder().encode('secret-b-0123456789-abcdefghijklmnopqrstuvwxyz');

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`session secret key check (${variant.name})`, () => {
    let cleanup: (() => Promise<void>) | null = null;
    afterEach(async () => {
      await cleanup?.();
      cleanup = null;
    });

    it('when an instance starts with the secret the database was set up with, then it goes on; with another, the start is refused naming SESSION_SECRET_FILE; the database holds a check, never the secret', async () => {
      const created = await variant.create();
      cleanup = () => created.drop();
      const first = await openDatabase(created.database, 2);
      expect(await checkSecrets(first, SECRET_A, 1_000)).toBe('recorded');
      await first.close();

      // A restart, and a second instance sharing the database.
      const again = await openDatabase(created.database, 2);
      const other = await openDatabase(created.database, 2);
      try {
        expect(await checkSecrets(again, SECRET_A, 2_000)).toBe('matched');
        const refused: unknown = await checkSecrets(other, SECRET_B, 2_000).catch(
          (err: unknown) => err,
        );
        expect(refused).toBeInstanceOf(ConfigError);
        expect((refused as ConfigError).issues).toEqual([
          {
            key: 'SESSION_SECRET_FILE',
            rule: expect.stringContaining(
              'this database was set up with another session secret',
            ) as string,
          },
        ]);
        expect((refused as ConfigError).message).toContain('Changing the session secret');
        const rows = await sql<{
          name: string;
          check_value: string;
        }>`select name, check_value from secret_checks`.execute(again.k);
        expect(rows.rows).toEqual([{ name: 'session', check_value: secretCheckValue(SECRET_A) }]);
        expect(rows.rows[0]?.check_value).not.toContain(new TextDecoder().decode(SECRET_A));
      } finally {
        await again.close();
        await other.close();
      }
    });

    it('when two instances with different secrets start on a fresh database at once, then one records its check and the other is refused', async () => {
      const created = await variant.create();
      cleanup = () => created.drop();
      const a = await openDatabase(created.database, 2);
      const b = await openDatabase(created.database, 2);
      try {
        const results = await Promise.allSettled([
          checkSecrets(a, SECRET_A, 1_000),
          checkSecrets(b, SECRET_B, 1_000),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
        const refused = results.find((r) => r.status === 'rejected');
        expect(refused?.reason).toBeInstanceOf(ConfigError);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}

describe('session secret key check with the generated secret (SQLite, npm start)', () => {
  it('when SESSION_SECRET_FILE is unset, then the secret generated next to the database passes the check on every restart; replaced, the start is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-secret-check-'));
    try {
      const env = {
        GATEWAY_BASE_URL: 'http://127.0.0.1:8081/paynet',
        MERCHANT_LOGIN: 'shop',
        MERCHANT_CONTROL_KEY: 'CONTROL-KEY',
        MERCHANT_ENDPOINTS: '1001:EUR',
        DATABASE_URL: `sqlite:${join(dir, 'paydesk.sqlite')}`,
      };
      for (const expected of ['recorded', 'matched', 'matched'] as const) {
        const config = loadConfig(env, { baseDir: dir });
        const db = await openDatabase(config.database, 1);
        try {
          expect(await checkSecrets(db, config.sessionSecret, 1_000)).toBe(expected);
        } finally {
          await db.close();
        }
      }
      rmSync(join(dir, 'session-secret'));
      const config = loadConfig(env, { baseDir: dir });
      const db = await openDatabase(config.database, 1);
      try {
        await expect(checkSecrets(db, config.sessionSecret, 1_000)).rejects.toBeInstanceOf(
          ConfigError,
        );
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
