// The start-up check that this instance holds the secret its database was set up with. Several
// instances share one database and must share SESSION_SECRET_FILE: an instance given another file
// would sign sessions the others reject, fail to open what the others sealed, and refuse payout
// approvals as "binding altered", which looks like tampering. The first start records a key check
// (an HMAC of a fixed label under the secret, never the secret; migration 0015-secret-checks); every
// later start compares and stops on a mismatch, naming the setting.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { ConfigError } from '../config.js';
import type { Db } from './connect.js';

/** The label whose HMAC under the secret is its check: fixed, so that every start computes the same. */
const CHECK_LABEL = 'paydesk secret check v1';

/**
 * The session secret's name in `secret_checks`. It is the only secret Paydesk keeps data under:
 * it signs session tokens and derives the keys that seal TOTP secrets, held payout destinations
 * and payment-link data, and that hash payout destinations (services/sealing.ts,
 * payouts/destination.ts), so its one check covers them all.
 */
export const SESSION_SECRET_CHECK = 'session';

export function secretCheckValue(secret: Uint8Array): string {
  return createHmac('sha256', secret).update(CHECK_LABEL).digest('hex');
}

/**
 * Records the session secret's check on the first start (of the first instance, should several
 * start at once) and compares it on every later one: a mismatch throws ConfigError naming
 * SESSION_SECRET_FILE. Returns whether the check was `recorded` now or `matched`.
 */
export async function checkSecrets(
  db: Db,
  sessionSecret: Uint8Array,
  now: number,
): Promise<'recorded' | 'matched'> {
  const value = secretCheckValue(sessionSecret);
  const inserted = await sql`insert into secret_checks (name, check_value, created_at)
    values (${SESSION_SECRET_CHECK}, ${value}, ${now})
    on conflict (name) do nothing`.execute(db.k);
  if (Number(inserted.numAffectedRows ?? 0n) > 0) return 'recorded';
  const stored = await sql<{ check_value: string }>`select check_value from secret_checks
    where name = ${SESSION_SECRET_CHECK}`.execute(db.k);
  const recorded = Buffer.from(stored.rows[0]?.check_value ?? '', 'utf8');
  const mine = Buffer.from(value, 'utf8');
  if (recorded.length === mine.length && timingSafeEqual(recorded, mine)) return 'matched';
  throw new ConfigError([
    {
      key: 'SESSION_SECRET_FILE',
      rule:
        'this database was set up with another session secret: give every instance the same file as the others ' +
        '(unset with SQLite, the secret is the session-secret file next to the database: restore it). ' +
        'Paydesk does not rotate this secret; to replace it deliberately, see "Changing the session secret" in bff/README.md',
    },
  ]);
}
