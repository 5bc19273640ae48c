import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { IdempotencyKeeper, isOutcomeUnknown } from './idempotency';

describe('idempotency keys', () => {
  it('when the same request is sent again, then it carries the same key; a changed one gets a new key', () => {
    let n = 0;
    const keeper = new IdempotencyKeeper(() => `key-${++n}`);
    expect(keeper.keyFor({ amount: '5.00' })).toBe('key-1');
    expect(keeper.keyFor({ amount: '5.00' })).toBe('key-1');
    expect(keeper.keyFor({ amount: '4.00' })).toBe('key-2');
    expect(keeper.keyFor({ amount: '4.00' })).toBe('key-2');
  });

  it('when no reply came or the server could not finish, then the outcome counts as unknown', () => {
    const api = (code: ConstructorParameters<typeof ApiError>[0]['code'], status: number) =>
      new ApiError({ code, status, message: code });
    expect(isOutcomeUnknown(api('NETWORK_ERROR', 0))).toBe(true);
    expect(isOutcomeUnknown(api('IDEMPOTENCY_IN_FLIGHT', 409))).toBe(true);
    expect(isOutcomeUnknown(api('GATEWAY_UNAVAILABLE', 503))).toBe(true);
    expect(isOutcomeUnknown(api('CAP_EXCEEDED', 409))).toBe(false);
    expect(isOutcomeUnknown(api('GATEWAY_ERROR', 502))).toBe(false);
    expect(isOutcomeUnknown(api('VALIDATION_FAILED', 400))).toBe(false);
  });
});
