import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { assertStrongPassword, passwordWeakness, strengthChecker } from './password-strength.js';

const jane = { email: 'jane.doe@example.com', name: 'Jane Doe' };

describe('password strength', () => {
  it('when a password is one character repeated, then it is refused, saying so', async () => {
    expect(await passwordWeakness('aaaaaaaaaaaa', jane)).toMatch(
      /^too easy to guess: repeated characters like "aaa" are easy to guess; .*add more words/,
    );
  });

  it('when a password is a run of digits, then it is refused', async () => {
    expect(await passwordWeakness('111111111111', jane)).toMatch(/^too easy to guess: /);
    expect(await passwordWeakness('123456789012', jane)).toMatch(/^too easy to guess: /);
  });

  it('when a password is a common one, then it is refused, saying so', async () => {
    expect(await passwordWeakness('password1234', jane)).toMatch(
      /^too easy to guess: this is similar to a commonly used password/,
    );
  });

  it('when a password holds the e-mail’s local part or the name, as written or run together, then it is refused, whatever else it holds', async () => {
    const refusal =
      "too easy to guess: it contains the account's e-mail address or name; leave them out";
    for (const password of [
      'jane.doe battery staple',
      'Jane Doe battery staple',
      'JaneDoe-battery-staple-9',
      'battery staple janedoe',
    ]) {
      expect(await passwordWeakness(password, jane), password).toBe(refusal);
    }
    // The same words for another account are strong.
    expect(
      await passwordWeakness('jane.doe battery staple', { email: 'sam@example.com', name: 'Sam' }),
    ).toBeNull();
    // A 3-letter name is not refused inside an ordinary word ("samba" for Sam).
    expect(
      await passwordWeakness('violet samba lantern harbour', {
        email: 'sam@example.com',
        name: 'Sam',
      }),
    ).toBeNull();
  });

  it('when a password holds the whole e-mail address, in any case, then it is refused however short its local part (QA: qa1@paydesk.local)', async () => {
    const refusal =
      "too easy to guess: it contains the account's e-mail address or name; leave them out";
    const qa = { email: 'qa1@paydesk.local', name: 'Quinn Able' };
    for (const password of ['qa1@paydesk.local1', 'QA1@Paydesk.Local violet lantern']) {
      expect(await passwordWeakness(password, qa), password).toBe(refusal);
    }
    expect(
      await passwordWeakness('bob@paydesk.local2', { email: 'bob@paydesk.local', name: 'Bob' }),
    ).toBe(refusal);
    // The short local part alone is still not refused inside ordinary words.
    expect(await passwordWeakness('violet qa1 lantern harbour', qa)).toBeNull();
  });

  it('when a password is a passphrase of uncommon words, then it passes', async () => {
    expect(await passwordWeakness('correct horse battery staple', jane)).toBeNull();
    expect(await passwordWeakness('violet lantern under harbour', jane)).toBeNull();
  });

  it('when a weak password is refused, then the error is 400 VALIDATION_FAILED naming the field with rule weak_password, and never holds the password', async () => {
    const password = 'password1234';
    let caught: unknown;
    try {
      await assertStrongPassword(password, jane, 'newPassword');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    const error = caught as AppError;
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_FAILED');
    const fields = error.details?.fields ?? [];
    expect(fields.map((f) => [f.path, f.rule])).toEqual([['newPassword', 'weak_password']]);
    expect(fields[0]?.message).toMatch(/^too easy to guess: /);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(
      password,
    );
    await expect(
      assertStrongPassword('correct horse battery staple', jane, 'password'),
    ).resolves.toBeUndefined();
  });

  it('when passwords are checked, then zxcvbn runs in a child process (its dictionaries out of the BFF’s memory), one for checks at once, started again after it ended', async () => {
    await strengthChecker.stop();
    expect(strengthChecker.running).toBe(false);
    const verdicts = await Promise.all([
      passwordWeakness('aaaaaaaaaaaa', jane),
      passwordWeakness('correct horse battery staple', jane),
      passwordWeakness('password1234', jane),
    ]);
    expect(verdicts.map((v) => v === null)).toEqual([false, true, false]);
    expect(strengthChecker.running).toBe(true);
    await strengthChecker.stop();
    expect(strengthChecker.running).toBe(false);
    expect(await passwordWeakness('violet lantern under harbour', jane)).toBeNull();
  });

  it('when the checker ends (idle) just as the next check starts a new one, then the old one’s end does not fail the new check', async () => {
    expect(await passwordWeakness('violet lantern under harbour', jane)).toBeNull();
    // Not awaited: the old checker's exit arrives while the next check waits on the new one.
    const stopped = strengthChecker.stop();
    const next = passwordWeakness('correct horse battery staple', jane);
    await stopped;
    expect(await next).toBeNull();
  });
});
