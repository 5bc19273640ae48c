// Table types for Kysely. Times are integer milliseconds since the epoch (UTC) on both databases;
// flags are nullable times (`disabled_at`), so neither database needs a boolean type.
import type { Generated } from 'kysely';
import type { DatabaseKind } from './connect.js';

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  /** JSON array of roles */
  roles: string;
  disabled_at: number | null;
  /** AES-GCM sealed base32 secret */
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled_at: number | null;
  /** last accepted TOTP time step: codes are single-use */
  totp_last_step: number | null;
  created_at: number;
  updated_at: number;
  last_login_at: number | null;
  /**
   * When a password someone else chose (an administrator's, at creation or a reset) was set; null
   * once the holder chose their own (and for accounts older than migration 0011, and the bootstrap
   * admin). While set, the account's sessions may only change the password (http/run-route.ts).
   */
  password_temporary_at: number | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  absolute_expires_at: number;
  revoked_at: number | null;
  ip: string | null;
  user_agent: string | null;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: string;
  code_hash: string;
  used_at: number | null;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  /** `account:<email>` or `ip:<address>` */
  subject: string;
  at: number;
}

export interface AuditLogTable {
  seq: number;
  at: number;
  actor_id: string | null;
  actor_email: string | null;
  actor_roles: string;
  action: string;
  target: string | null;
  summary: string;
  outcome: string;
  error_code: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  prev_hash: string;
  hash: string;
}

/** audit_log columns in the order the row hash covers them (every column but `hash`). */
export const AUDIT_HASHED_COLUMNS = [
  'prev_hash',
  'seq',
  'at',
  'actor_id',
  'actor_email',
  'actor_roles',
  'action',
  'target',
  'summary',
  'outcome',
  'error_code',
  'request_id',
  'ip',
  'user_agent',
] as const satisfies readonly (keyof AuditLogTable)[];

/**
 * The text a row's hash covers, built in SQL exactly as `hashedContent` builds it in JS: each
 * column as `<UTF-8 byte length>:<text>`, `~` for null, in AUDIT_HASHED_COLUMNS order. `row`
 * prefixes each column (`new.` in the chain trigger, db/migrations.ts).
 */
export function hashedContentSql(kind: DatabaseKind, row = ''): string {
  return AUDIT_HASHED_COLUMNS.map((column) => {
    const c = `${row}${column}`;
    return kind === 'postgres'
      ? `coalesce(octet_length(${c}::text)::text || ':' || ${c}::text, '~')`
      : `coalesce(length(cast(${c} as blob)) || ':' || ${c}, '~')`;
  }).join(' || ');
}

/** What chain verification needs of a row: its links and the hash recomputed from its content. */
export interface AuditCheckRow {
  seq: number;
  prevHash: string;
  hash: string;
  recomputed: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  recovery_codes: RecoveryCodesTable;
  login_failures: LoginFailuresTable;
  audit_log: AuditLogTable;
}
