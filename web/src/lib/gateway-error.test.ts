import { describe, expect, it } from 'vitest';
import { asClause, errorText, staffErrorText } from './gateway-error';

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

describe('staffErrorText', () => {
  it('when Paydesk’s own code goes with a sentence, then the sentence is said without the code', () => {
    const judged =
      'The gateway still did not show the payout 1 minute after it was sent, so Paydesk judged it not applied.';
    expect(staffErrorText('NOT_APPLIED', judged)).toBe(judged);
    expect(staffErrorText('PAID_AFTER_NOT_APPLIED', 'the payout was applied late')).toBe(
      'The payout was applied late',
    );
    expect(staffErrorText('INTERRUPTED', 'the instance stopped')).toBe('The instance stopped');
    expect(staffErrorText('NOT_APPLIED', null)).toBe('');
  });

  it('when the gateway’s own code goes with its words, then it is said once, as errorText does', () => {
    expect(staffErrorText('DECLINED', 'card blocked')).toBe('DECLINED: card blocked');
    expect(
      staffErrorText(
        'VALIDATION_FAILED',
        'The gateway rejected the payout request as invalid (VALIDATION_FAILED): card expired. Nothing was changed.',
      ),
    ).toBe(
      'The gateway rejected the payout request as invalid (VALIDATION_FAILED): card expired. Nothing was changed.',
    );
    expect(staffErrorText(null, null)).toBe('');
  });
});

describe('asClause', () => {
  it('when a sentence follows a colon, then its first letter is lower-cased and its full stop dropped, but not a code’s', () => {
    expect(asClause('The gateway’s answer was lost.')).toBe('the gateway’s answer was lost');
    expect(asClause('DECLINED: card blocked')).toBe('DECLINED: card blocked');
    expect(asClause('No answer came from the gateway within 15 s')).toBe(
      'no answer came from the gateway within 15 s',
    );
  });
});
