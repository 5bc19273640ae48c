import { describe, expect, it } from 'vitest';
import { sentenceOf } from './form-errors';

describe('server field messages as sentences', () => {
  it('when a server message is put under a field, then a rule is said of “This”, any other message starts with a capital, and each ends with one full stop', () => {
    expect(sentenceOf('endpointId', 'must be a configured endpoint or endpoint group')).toBe(
      'This must be a configured endpoint or endpoint group.',
    );
    expect(sentenceOf('name', 'is already taken')).toBe('This is already taken.');
    expect(
      sentenceOf('cardRefId', 'the gateway does not know this card reference on endpoint 1001'),
    ).toBe('The gateway does not know this card reference on endpoint 1001.');
    expect(sentenceOf('currency', 'no configured endpoint takes GBP (configured: EUR, USD)')).toBe(
      'No configured endpoint takes GBP (configured: EUR, USD).',
    );
    expect(sentenceOf('reason', 'Already a sentence.')).toBe('Already a sentence.');
    expect(sentenceOf('reason', 'is required')).toBe('Required.');
    // "mustard" is no rule
    expect(sentenceOf('orderDesc', 'mustard is not sold here')).toBe('Mustard is not sold here.');
  });
});
