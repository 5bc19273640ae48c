import { describe, expect, it } from 'vitest';
import { errorText } from './gateway-error';

describe('errorText', () => {
  it('when the message already names the code, then the code is not said again', () => {
    expect(
      errorText(
        'VALIDATION_FAILED',
        'The gateway rejected the payout-check (VALIDATION_FAILED): destination not allowed',
      ),
    ).toBe('The gateway rejected the payout-check (VALIDATION_FAILED): destination not allowed');
  });

  it('when the message does not name the code, then the code leads it', () => {
    expect(errorText('INTERRUPTED', 'the instance stopped')).toBe(
      'INTERRUPTED: the instance stopped',
    );
  });

  it('when only one of them is known, then that one is said', () => {
    expect(errorText(null, 'timeout')).toBe('timeout');
    expect(errorText('TIMEOUT', null)).toBe('TIMEOUT');
    expect(errorText(null, null)).toBe('');
  });
});
