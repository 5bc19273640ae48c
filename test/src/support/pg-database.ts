// A fresh, empty PostgreSQL database with a unique name for one suite's run (the scale-out, fault
// and hostile suites), created on PAYDESK_TEST_PG_URL's server and dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the suites may create databases on; empty when PostgreSQL is not available. */
export const PG_URL = process.env.PAYDESK_TEST_PG_URL ?? '';

export interface PgDatabase {
  /** the database's URL (the BFF's DATABASE_URL) */
  url: string;
  /** drops it, closing whatever is still connected */
  drop(): Promise<void>;
}

async function onServer(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** Creates `<prefix>_<12 hex>` on PG_URL's server. */
export async function createPgDatabase(prefix: string): Promise<PgDatabase> {
  if (PG_URL === '') throw new Error('PAYDESK_TEST_PG_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`drop database if exists ${name} with (force)`),
  };
}
