// Storage of saved views (issue 6): a named URL query of a list screen, shared with one role.
// Times are integer milliseconds (UTC), as everywhere in the platform.
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { DatabaseKind } from '../db/connect.js';

export interface SavedViewsTable {
  id: string;
  screen: string;
  name: string;
  /** lower-cased name: "Declined" and "declined" are the same view for the people who see both */
  name_key: string;
  role: string;
  query: string;
  created_by: string;
  created_by_email: string;
  created_at: number;
}

export interface ViewsTables {
  saved_views: SavedViewsTable;
}

export const SAVED_VIEWS_MIGRATION_NAME = '0006-saved-views';

export function savedViewsMigration(kind: DatabaseKind): Migration {
  const int = kind === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table saved_views (
            id text primary key,
            screen text not null,
            name text not null,
            name_key text not null,
            role text not null,
            query text not null,
            created_by text not null references users(id),
            created_by_email text not null,
            created_at ${int} not null,
            unique (screen, role, name_key)
          )`,
        )
        .execute(db);
    },
  };
}

/** For the platform's migration provider, after the payments and payouts migrations. */
export function viewsMigrations(kind: DatabaseKind): Record<string, Migration> {
  return { [SAVED_VIEWS_MIGRATION_NAME]: savedViewsMigration(kind) };
}
