import { describe, expect, it } from 'vitest';
import { summaryKeyLabel, summaryText } from './audit-summary';

describe('audit summary labels', () => {
  it('when a key is one Paydesk writes, then its label says what it is', () => {
    expect(summaryKeyLabel('idempotencyKey')).toBe('Idempotency key');
    expect(summaryKeyLabel('replayed')).toBe('Replayed (stored reply)');
    expect(summaryKeyLabel('orderid')).toBe('Gateway order id');
    expect(summaryKeyLabel('clientOrderId')).toBe('Client order id');
  });

  it('when a key is unknown, then camelCase, snake_case and kebab-case read as words, acronyms kept', () => {
    expect(summaryKeyLabel('secondFactorGiven')).toBe('Second factor given');
    expect(summaryKeyLabel('last_error_code')).toBe('Last error code');
    expect(summaryKeyLabel('retry-after')).toBe('Retry after');
    expect(summaryKeyLabel('callbackURLHost')).toBe('Callback URL host');
    expect(summaryKeyLabel('amount')).toBe('Amount');
    expect(summaryKeyLabel('_')).toBe('_');
  });

  it('when values are nested, then their keys read as words too, empty ones are left out and the values stay as recorded', () => {
    expect(
      summaryText({
        change: { roles: ['finance'], disabled: true },
        before: null,
        body: {},
        filter: { target: null },
        headSeq: 42,
        ok: true,
      }),
    ).toBe('Change: roles finance, disabled true · Chain head row: 42 · Chain intact: true');
  });
});
