// The two databases the BFF runs on: a SQLite temp file always, and a fresh PostgreSQL database per
// suite when PAYDESK_TEST_PG_URL is set (created here, dropped after), as the platform harness does.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_URL = process.env.PAYDESK_TEST_PG_URL ?? '';

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
    create: async () => {
      const name = `paydesk_hostile_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const url = new URL(PG_URL);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        drop: async () => {
          const c = new pg.Client({ connectionString: PG_URL });
          await c.connect();
          await c.query(`drop database if exists ${name} with (force)`);
          await c.end();
        },
      };
    },
  },
];
