// The temporary-passwords migration on a database that already has accounts: they stay as they
// were (not temporary), on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL; the audit log's
// target index, built over the rows already there; why PostgreSQL could not be migrated
// (start-up), in words an operator can act on and without the password.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_VARIANTS, PG_URL } from '../test-support/harness.js';
import { databaseBefore } from '../test-support/migrations.js';
import { openDatabase, type DatabaseKind } from './connect.js';
import {
  AUDIT_TARGET_INDEX_MIGRATION_NAME,
  describeDatabaseError,
  migrateToLatest,
  TEMPORARY_PASSWORDS_MIGRATION_NAME,
} from './migrations.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${TEMPORARY_PASSWORDS_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when accounts exist before it runs, then they are not temporary afterwards', async () => {
        // Every migration before it: the database as an earlier version left it.
        const { k, drop } = await databaseBefore(variant, TEMPORARY_PASSWORDS_MIGRATION_NAME);
        cleanup = drop;
        await sql`insert into users (id, email, name, password_hash, roles, created_at, updated_at)
        values ('u-old', 'old@paydesk.test', 'Old', 'hash', '["ops"]', 1, 1)`.execute(k);

        await migrateToLatest(k, variant.name);

        const rows = await sql<{
          email: string;
          password_temporary_at: unknown;
        }>`select email, password_temporary_at from users`.execute(k);
        expect(rows.rows).toEqual([{ email: 'old@paydesk.test', password_temporary_at: null }]);
      });
    },
  );
}

/** The columns of index `name`, in index order. */
async function indexColumns(
  k: Kysely<unknown>,
  kind: DatabaseKind,
  name: string,
): Promise<string[]> {
  const rows =
    kind === 'postgres'
      ? await sql<{ name: string }>`select pg_get_indexdef(i.indexrelid, n, true) as name
          from pg_index i join pg_class c on c.oid = i.indexrelid
          cross join generate_series(1, i.indnatts) n
          where c.relname = ${name} order by n`.execute(k)
      : await sql<{
          name: string;
        }>`select name from pragma_index_info(${name}) order by seqno`.execute(k);
  return rows.rows.map((r) => r.name);
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `migration ${AUDIT_TARGET_INDEX_MIGRATION_NAME} (${variant.name})`,
    () => {
      let cleanup: (() => Promise<void>) | null = null;
      afterEach(async () => {
        await cleanup?.();
        cleanup = null;
      });

      it('when the audit log already holds rows, then it adds an index on (target, seq) of audit_log and the rows stay as they were', async () => {
        const { k, drop } = await databaseBefore(variant, AUDIT_TARGET_INDEX_MIGRATION_NAME);
        cleanup = drop;
        expect(await indexColumns(k, variant.name, 'audit_log_target')).toEqual([]);
        // On PostgreSQL the chain trigger sets seq and both hashes whatever the insert gives.
        await sql`insert into audit_log (seq, at, actor_roles, action, target, summary, outcome, prev_hash, hash)
          values (1, 1, '[]', 'test.old', 'transaction:t-old', '{}', 'success', 'p', 'h')`.execute(
          k,
        );
        const stored = await sql`select * from audit_log`.execute(k);

        await migrateToLatest(k, variant.name);

        expect(await indexColumns(k, variant.name, 'audit_log_target')).toEqual(['target', 'seq']);
        expect((await sql`select * from audit_log`.execute(k)).rows).toEqual(stored.rows);
        const found = await sql<{
          action: string;
        }>`select action from audit_log where target = ${'transaction:t-old'}`.execute(k);
        expect(found.rows).toEqual([{ action: 'test.old' }]);
      });
    },
  );
}

/** Why opening (and migrating) `url` failed, with its password checked to be left out. */
async function openFailure(url: string): Promise<string> {
  const err: unknown = await openDatabase({ kind: 'postgres', url }, 1).then(
    () => new Error('the database opened'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  const message = describeDatabaseError(err);
  expect(message).not.toContain('SECRET-DB-PASSWORD');
  return message;
}

describe('PostgreSQL start-up failures', () => {
  it('when nothing listens at the database address, then the error says where it could not connect and why', async () => {
    const message = await openFailure('postgres://paydesk:SECRET-DB-PASSWORD@127.0.0.1:1/paydesk');
    expect(message).toBe('cannot connect to the database at 127.0.0.1:1: connection refused');
  });

  it.skipIf(PG_URL === undefined)(
    'when the database or the role does not exist, then the error is the server’s own reason',
    async () => {
      const url = new URL(PG_URL ?? '');
      url.password = 'SECRET-DB-PASSWORD';
      url.pathname = '/paydesk_no_such_database';
      expect(await openFailure(url.href)).toBe(
        'database "paydesk_no_such_database" does not exist',
      );
      url.username = 'paydesk_no_such_role';
      expect(await openFailure(url.href)).toMatch(/"paydesk_no_such_role"/);
    },
  );

  it('when a message quotes a connection string or several addresses fail, then the password is masked and the first address named', () => {
    const quoted = new Error('bad url postgres://me:SECRET-DB-PASSWORD@db.internal/x');
    expect(describeDatabaseError(new Error('wrapped', { cause: quoted }))).toBe(
      'wrapped: bad url postgres://me:***@db.internal/x',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), {
      code: 'ECONNREFUSED',
      address: '::1',
      port: 5432,
    });
    expect(describeDatabaseError(new AggregateError([refused], ''))).toBe(
      'cannot connect to the database at ::1:5432: connection refused',
    );
  });
});
