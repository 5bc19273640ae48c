// The login limiter's subjects for an account (auth.ts): its failures from one address, and from
// every address together. Here apart, as the users service clears them too (a password reset).
import type { ExpressionBuilder } from 'kysely';
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
