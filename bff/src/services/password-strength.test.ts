import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { assertStrongPassword, passwordWeakness } from './password-strength.js';

const jane = { email: 'jane.doe@example.com', name: 'Jane Doe' };

describe('password strength', () => {
  it('when a password is one character repeated, then it is refused, saying so', () => {
    expect(passwordWeakness('aaaaaaaaaaaa', jane)).toMatch(
      /^too easy to guess: repeated characters like "aaa" are easy to guess; .*add more words/,
    );
  });

  it('when a password is a run of digits, then it is refused', () => {
    expect(passwordWeakness('111111111111', jane)).toMatch(/^too easy to guess: /);
    expect(passwordWeakness('123456789012', jane)).toMatch(/^too easy to guess: /);
  });

  it('when a password is a common one, then it is refused, saying so', () => {
    expect(passwordWeakness('password1234', jane)).toMatch(
      /^too easy to guess: this is similar to a commonly used password/,
    );
  });

  it('when a password holds the e-mail’s local part or the name, as written or run together, then it is refused, whatever else it holds', () => {
    const refusal =
      "too easy to guess: it contains the account's e-mail address or name; leave them out";
    for (const password of [
      'jane.doe battery staple',
      'Jane Doe battery staple',
      'JaneDoe-battery-staple-9',
      'battery staple janedoe',
    ]) {
      expect(passwordWeakness(password, jane), password).toBe(refusal);
    }
    // The same words for another account are strong.
    expect(
      passwordWeakness('jane.doe battery staple', { email: 'sam@example.com', name: 'Sam' }),
    ).toBeNull();
    // A 3-letter name is not refused inside an ordinary word ("samba" for Sam).
    expect(
      passwordWeakness('violet samba lantern harbour', { email: 'sam@example.com', name: 'Sam' }),
    ).toBeNull();
  });

  it('when a password is a passphrase of uncommon words, then it passes', () => {
    expect(passwordWeakness('correct horse battery staple', jane)).toBeNull();
    expect(passwordWeakness('violet lantern under harbour', jane)).toBeNull();
  });

  it('when a weak password is refused, then the error is 400 VALIDATION_FAILED naming the field with rule weak_password, and never holds the password', () => {
    const password = 'password1234';
    let caught: unknown;
    try {
      assertStrongPassword(password, jane, 'newPassword');
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
    expect(() => {
      assertStrongPassword('correct horse battery staple', jane, 'password');
    }).not.toThrow();
  });
});
