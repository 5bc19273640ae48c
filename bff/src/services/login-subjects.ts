// The login limiter's subjects for an account (auth.ts): its failures from one address, and from
// every address together. Here apart, as the users service reads them (an account's lock, on the
// users list) and clears them (a password reset, an unlock).
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { SignInLock } from '@paydesk/shared/api';
import type { Database } from '../db/schema.js';

/**
 * How many more failures an account takes from all addresses together than from one: one address
 * (`LOGIN_MAX_FAILURES_PER_ACCOUNT`) locks only itself out of the account, so someone elsewhere
 * cannot lock a colleague out by failing on purpose (QA); guessing spread over many addresses is
 * still bounded, by this many times the limit.
 */
export const ACCOUNT_ALL_ADDRESSES_FACTOR = 10;

/** The limiter subject of an account's failures from every address together. */
export function accountSubject(email: string): string {
  return `account:${email.toLowerCase()}`;
}

/** The limiter subject of an account's failures from one address. */
export function accountAddressSubject(email: string, address: string): string {
  return `${accountSubject(email)} ip:${address}`;
}

/**
 * The limiter subjects of an account's failures from one address, as a range of `subject` values
 * (each is `account:EMAIL ip:ADDRESS`): compared by range, not LIKE, as e-mails may hold `_`.
 */
function accountAddressSubjects(email: string): { from: string; before: string } {
  return { from: `${accountSubject(email)} ip:`, before: `${accountSubject(email)} ip;` };
}

/** Whether a row of `login_failures` is one of `email`'s (from any address, or all together). */
export function accountFailures(eb: ExpressionBuilder<Database, 'login_failures'>, email: string) {
  const { from, before } = accountAddressSubjects(email);
  return eb.or([
    eb('subject', '=', accountSubject(email)),
    eb.and([eb('subject', '>=', from), eb('subject', '<', before)]),
  ]);
}

/** The login limiter's settings an account's lock is read with (`Config['login']`). */
export interface AccountLoginLimits {
  maxFailuresPerAccount: number;
  windowSeconds: number;
}

/** An account's failed sign-ins within the window: `all` from every address, `byAddress` each. */
interface AccountFailures {
  all: number[];
  byAddress: Map<string, number[]>;
}

/**
 * When a subject with failures at `times` (within the window) lets an attempt through again: once
 * fewer than `limit` of them are left in the window, i.e. when the `limit`-th newest leaves it.
 * `undefined` when it is not locked.
 */
function lockedUntil(
  times: readonly number[],
  limit: number,
  windowMs: number,
): number | undefined {
  if (times.length < limit) return undefined;
  const newestFirst = [...times].sort((a, b) => b - a);
  const oldestCounted = newestFirst[limit - 1];
  return oldestCounted === undefined ? undefined : oldestCounted + windowMs;
}

/**
 * Every account's sign-in lock now, by lower-case e-mail (accounts without one are absent), read
 * from `login_failures` as `Auth.login` weighs them: the account is locked from every address when
 * its failures from all of them together reached `ACCOUNT_ALL_ADDRESSES_FACTOR` × the limit, else
 * the addresses whose own failures reached the limit are. (The rows are few: an attempt past a
 * limit is refused before it is counted.)
 */
export async function signInLocks(
  db: Kysely<Database> | Transaction<Database>,
  limits: AccountLoginLimits,
  now: number,
  /** only this account's (lower-case e-mail); every account's without it */
  email?: string,
): Promise<Map<string, SignInLock>> {
  const windowMs = limits.windowSeconds * 1000;
  const rows = await db
    .selectFrom('login_failures')
    .select(['subject', 'at'])
    .where((eb) =>
      email === undefined
        ? eb.and([eb('subject', '>=', 'account:'), eb('subject', '<', 'account;')])
        : accountFailures(eb, email),
    )
    .where('at', '>', now - windowMs)
    .execute();
  const byEmail = new Map<string, AccountFailures>();
  for (const { subject, at } of rows) {
    // `account:EMAIL` or `account:EMAIL ip:ADDRESS` (an e-mail holds no space).
    const rest = subject.slice('account:'.length);
    const space = rest.indexOf(' ip:');
    const email = space === -1 ? rest : rest.slice(0, space);
    const failures = byEmail.get(email) ?? { all: [], byAddress: new Map<string, number[]>() };
    byEmail.set(email, failures);
    if (space === -1) {
      failures.all.push(at);
    } else {
      const address = rest.slice(space + ' ip:'.length);
      const times = failures.byAddress.get(address) ?? [];
      times.push(at);
      failures.byAddress.set(address, times);
    }
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const locks = new Map<string, SignInLock>();
  for (const [email, failures] of byEmail) {
    const addresses = [...failures.byAddress.keys()].sort();
    const accountLimit = limits.maxFailuresPerAccount * ACCOUNT_ALL_ADDRESSES_FACTOR;
    const wholeAccount = lockedUntil(failures.all, accountLimit, windowMs);
    if (wholeAccount !== undefined) {
      locks.set(email, { scope: 'account', addresses, until: iso(wholeAccount) });
      continue;
    }
    const locked = [...failures.byAddress]
      .map(([address, times]) => ({
        address,
        until: lockedUntil(times, limits.maxFailuresPerAccount, windowMs),
      }))
      .filter((a): a is { address: string; until: number } => a.until !== undefined)
      .sort((a, b) => a.address.localeCompare(b.address));
    if (locked.length === 0) continue;
    locks.set(email, {
      scope: 'addresses',
      addresses: locked.map((a) => a.address),
      until: iso(Math.max(...locked.map((a) => a.until))),
    });
  }
  return locks;
}
