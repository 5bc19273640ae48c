// The two databases the BFF runs on: a SQLite temp file always, and a fresh PostgreSQL database per
// suite when PAYDESK_TEST_PG_URL is set (created here, dropped after), as the platform harness does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, PG_URL } from '../../support/pg-database.js';

export { PG_URL };

export interface CreatedDatabase {
  /** the BFF's DATABASE_URL */
  url: string;
  drop(): Promise<void>;
}

export interface DbVariant {
  name: 'sqlite' | 'postgres';
  skip: boolean;
  create(): Promise<CreatedDatabase>;
}

export const DB_VARIANTS: readonly DbVariant[] = [
  {
    name: 'sqlite',
    skip: false,
    create: () => {
      const dir = mkdtempSync(join(tmpdir(), 'paydesk-hostile-'));
      return Promise.resolve({
        url: `sqlite:${join(dir, 'paydesk.sqlite')}`,
        drop: () => {
          rmSync(dir, { recursive: true, force: true });
          return Promise.resolve();
        },
      });
    },
  },
  {
    name: 'postgres',
    skip: PG_URL === '',
    create: () => createPgDatabase('paydesk_hostile'),
  },
];
