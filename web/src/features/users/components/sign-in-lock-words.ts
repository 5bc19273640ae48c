import type { SignInLock } from '@paydesk/shared/api';
import { formatDateTimeWithZone } from '../../../lib/format';

/** How many addresses a lock's words name before "and N more". */
const ADDRESSES_NAMED = 3;

/** A list of addresses in words: "a", "a and b", "a, b and c", "a, b, c and 4 more". */
function addressList(addresses: readonly string[]): string {
  if (addresses.length > ADDRESSES_NAMED) {
    const more = addresses.length - ADDRESSES_NAMED;
    return `${addresses.slice(0, ADDRESSES_NAMED).join(', ')} and ${String(more)} more`;
  }
  if (addresses.length <= 1) return addresses.join('');
  return `${addresses.slice(0, -1).join(', ')} and ${addresses.at(-1) ?? ''}`;
}

/** What an account's sign-in lock holds back, and until when, in words. */
export function signInLockWords(lock: SignInLock): string {
  // The zone named, as every time on the screen does (QA: "until … 9:43:04 PM" said none).
  const until = formatDateTimeWithZone(lock.until);
  return lock.scope === 'account'
    ? `Too many failed sign-ins (from ${addressList(lock.addresses)}) lock this account from every address until ${until}.`
    : `Too many failed sign-ins lock ${addressList(lock.addresses)} out of this account until ${until}; other addresses can still sign in.`;
}
