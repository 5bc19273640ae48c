import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { AppError } from '../errors.js';
import type { StrengthAnswer, StrengthQuestion } from './password-strength-process.js';

/**
 * The lowest zxcvbn score a new password may have (0 to 4): 3 is "safely unguessable: moderate
 * protection from an offline slow-hash scenario", which argon2 is.
 */
export const MIN_PASSWORD_SCORE = 3;

/** How long the checker stays after its last answer (the next password often follows soon). */
const IDLE_MS = 5_000;

/**
 * zxcvbn, in a child process started on the first check and ended once idle: its dictionaries are
 * megabytes (some 60 MiB once loaded), needed only when a person chooses a password, and a
 * process's memory all goes with it (a worker thread's did not: see password-strength-process.ts).
 * It gets no environment, so none of the BFF's settings. (In the BFF only: the SPA never loads
 * the dictionaries.)
 */
class StrengthChecker {
  #child: ChildProcess | null = null;
  #next = 1;
  readonly #waiting = new Map<
    number,
    { resolve: (answer: StrengthAnswer) => void; reject: (error: Error) => void }
  >();
  #idle: NodeJS.Timeout | null = null;

  check(password: string, words: string[]): Promise<StrengthAnswer> {
    const child = this.#start();
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    const id = this.#next++;
    // Waiting for an answer keeps the BFF alive; an idle checker does not.
    child.ref();
    child.channel?.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      child.send({ id, password, words } satisfies StrengthQuestion, (error) => {
        if (error === null) return;
        this.#waiting.delete(id);
        reject(error);
      });
    });
  }

  /** Whether the checker runs now (for the tests). */
  get running(): boolean {
    return this.#child !== null;
  }

  /** Ends the checker now (the tests; the idle timer does it otherwise). */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    // Already gone (it ended on its own): nothing to wait for.
    if (child?.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill();
    await exited;
  }

  #start(): ChildProcess {
    if (this.#child !== null) return this.#child;
    // Built, the checker is JavaScript beside this file; in the tests, the TypeScript source.
    const file = import.meta.url.endsWith('.ts')
      ? './password-strength-process.ts'
      : './password-strength-process.js';
    const child = fork(new URL(file, import.meta.url), {
      execArgv: [],
      env: {},
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.on('message', (message) => {
      const answer = message as StrengthAnswer;
      const waiting = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      waiting?.resolve(answer);
      if (this.#waiting.size > 0) return;
      child.unref();
      child.channel?.unref();
      this.#stopWhenIdle(child);
    });
    const fail = (error: Error) => {
      // A checker ended for being idle (or stopped) had no one waiting: the ones waiting now are
      // the next checker's, which its own end would fail.
      if (this.#child !== child) return;
      this.#child = null;
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    };
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      fail(
        new Error(`the password-strength checker ended (${signal ?? `exit code ${String(code)}`})`),
      );
    });
    this.#child = child;
    return child;
  }

  #stopWhenIdle(child: ChildProcess): void {
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      this.#idle = null;
      if (this.#child !== child || this.#waiting.size > 0) return;
      this.#child = null;
      child.kill();
    }, IDLE_MS);
    this.#idle.unref();
  }
}

/** The BFF's one strength checker. */
export const strengthChecker = new StrengthChecker();

/** Whose password it is: what they would be tempted to put in it. */
export interface PasswordOwner {
  email: string;
  name: string;
}

/** Letters and digits only, lower case: "Jane Doe" and "jane.doe" both read "janedoe". */
const bare = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * What the owner would be tempted to put in a password: the e-mail address, its local part and the
 * name, whole, and their words (for zxcvbn, which counts a password built on them as easy to guess).
 */
function personalWords(owner: PasswordOwner): { whole: string[]; words: string[] } {
  const local = owner.email.split('@')[0] ?? '';
  const whole = [local.toLowerCase(), owner.name.toLowerCase(), bare(local), bare(owner.name)];
  const words = `${local} ${owner.name}`
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3);
  // Refused outright only from 4 characters: a 3-letter name ("Sam", "Ann") is inside too many
  // ordinary words ("samba", "planning"); zxcvbn still weighs it with the other words. The whole
  // address is refused whatever its local part's length: `qa1@paydesk.local` is no ordinary word,
  // and a password that holds it is guessed by anyone who knows whose account it is (QA).
  const address = owner.email.trim().toLowerCase();
  const unique = [
    ...new Set([...whole.filter((w) => w.length >= 4), ...(address === '' ? [] : [address])]),
  ];
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
export async function passwordWeakness(
  password: string,
  owner: PasswordOwner,
): Promise<string | null> {
  const { whole, words } = personalWords(owner);
  // Written as they are ("jane.doe", "jane doe") or run together ("janedoe"); other spellings
  // ("jane-doe") are zxcvbn's to weigh, with the words as its user inputs.
  const lower = password.toLowerCase();
  if (whole.some((w) => lower.includes(w))) {
    return "too easy to guess: it contains the account's e-mail address or name; leave them out";
  }
  const { score, warning, suggestions } = await strengthChecker.check(password, words);
  if (score >= MIN_PASSWORD_SCORE) return null;
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
export async function weakPasswordError(
  password: string,
  owner: PasswordOwner,
  path: string,
): Promise<AppError | null> {
  const message = await passwordWeakness(password, owner);
  if (message === null) return null;
  return new AppError('VALIDATION_FAILED', `${path}: ${message}`, {
    fields: [{ path, rule: 'weak_password', message }],
  });
}

/** Throws `weakPasswordError`'s refusal, if any. */
export async function assertStrongPassword(
  password: string,
  owner: PasswordOwner,
  path: string,
): Promise<void> {
  const error = await weakPasswordError(password, owner, path);
  if (error !== null) throw error;
}
