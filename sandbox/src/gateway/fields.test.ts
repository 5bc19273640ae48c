import { describe, expect, it } from 'vitest';
import { AMOUNT_MAX, f } from './fields.js';

/** The message of the first problem with `amount` (the one the gateway reply names), or null. */
function amountProblem(amount: string): string | null {
  const parsed = f.amount().safeParse(amount);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? '');
}

describe('amount', () => {
  it('when an amount is at most the maximum, then it is taken; one unit more is refused naming the maximum', () => {
    expect(AMOUNT_MAX).toBe('999999999999999999.99');
    expect(amountProblem(AMOUNT_MAX)).toBeNull();
    expect(amountProblem('999999999999999999')).toBeNull();
    expect(amountProblem('0.01')).toBeNull();
    expect(amountProblem('1000000000000000000')).toBe(`must be at most ${AMOUNT_MAX}`);
    expect(amountProblem('1000000000000000000.5')).toBe(`must be at most ${AMOUNT_MAX}`);
    expect(amountProblem('001000000000000000000.00')).toBe(`must be at most ${AMOUNT_MAX}`);
  });

  it('when an amount is badly formed, then the message is about its form, whatever its size', () => {
    const form = 'must be a decimal amount with at most 2 decimals, like 19.99';
    for (const amount of ['10.123', '1e3', '-5', '1.', '12,50', '10000000000000000000.123'])
      expect(amountProblem(amount), amount).toBe(form);
    expect(amountProblem('0000000000000000000010')).toBe(
      'must have at most 18 digits before the decimal point',
    );
    expect(amountProblem('0.00')).toBe('must be greater than zero');
  });
});
