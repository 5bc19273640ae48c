import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';
import { AppError } from '../errors.js';

/**
 * The lowest zxcvbn score a new password may have (0 to 4): 3 is "safely unguessable: moderate
 * protection from an offline slow-hash scenario", which argon2 is.
 */
export const MIN_PASSWORD_SCORE = 3;

// Built once, at start-up: the dictionaries are megabytes, and every check reuses them. (In the BFF
// only: the SPA never loads them.)
const zxcvbn = new ZxcvbnFactory({
  translations: en.translations,
  graphs: common.adjacencyGraphs,
  dictionary: { ...common.dictionary, ...en.dictionary },
});

/** Whose password it is: what they would be tempted to put in it. */
export interface PasswordOwner {
  email: string;
  name: string;
}

/** Letters and digits only, lower case: "Jane Doe" and "jane.doe" both read "janedoe". */
const bare = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * What the owner would be tempted to put in a password: the e-mail's local part and the name,
 * whole, and their words (for zxcvbn, which counts a password built on them as easy to guess).
 */
function personalWords(owner: PasswordOwner): { whole: string[]; words: string[] } {
  const local = owner.email.split('@')[0] ?? '';
  const whole = [local.toLowerCase(), owner.name.toLowerCase(), bare(local), bare(owner.name)];
  const words = `${local} ${owner.name}`
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3);
  // Refused outright only from 4 characters: a 3-letter name ("Sam", "Ann") is inside too many
  // ordinary words ("samba", "planning"); zxcvbn still weighs it with the other words.
  const unique = [...new Set(whole.filter((w) => w.length >= 4))];
  return { whole: unique, words: [...new Set([...whole.filter((w) => w.length >= 3), ...words])] };
}

/** "Repeated characters like "aaa" are easy to guess." → "repeated characters like "aaa" are easy to guess" */
function clause(sentence: string): string {
  const s = sentence.trim().replace(/\.$/, '');
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * Why `password` is too weak for `owner`, in words a person can act on, or null when it is strong
 * enough. The password itself never appears in the answer.
 */
export function passwordWeakness(password: string, owner: PasswordOwner): string | null {
  const { whole, words } = personalWords(owner);
  // Written as they are ("jane.doe", "jane doe") or run together ("janedoe"); other spellings
  // ("jane-doe") are zxcvbn's to weigh, with the words as its user inputs.
  const lower = password.toLowerCase();
  if (whole.some((w) => lower.includes(w))) {
    return "too easy to guess: it contains the account's e-mail address or name; leave them out";
  }
  const result = zxcvbn.check(password, words);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const { warning, suggestions } = result.feedback;
  const advice = [...(warning === null || warning === '' ? [] : [warning]), ...suggestions]
    .map(clause)
    .filter((s) => s !== '');
  return advice.length === 0
    ? 'too easy to guess: add another word or two that are less common'
    : `too easy to guess: ${advice.join('; ')}`;
}

/**
 * The refusal of a weak new password, or null for a strong one: 400 `VALIDATION_FAILED` naming the
 * field (`path`, as the body names it) with the rule `weak_password`. Applies to every password a
 * person chooses in Paydesk: an administrator's for a new or reset account, and a user's own.
 */
export function weakPasswordError(
  password: string,
  owner: PasswordOwner,
  path: string,
): AppError | null {
  const message = passwordWeakness(password, owner);
  if (message === null) return null;
  return new AppError('VALIDATION_FAILED', `${path}: ${message}`, {
    fields: [{ path, rule: 'weak_password', message }],
  });
}

/** Throws `weakPasswordError`'s refusal, if any. */
export function assertStrongPassword(password: string, owner: PasswordOwner, path: string): void {
  const error = weakPasswordError(password, owner, path);
  if (error !== null) throw error;
}
