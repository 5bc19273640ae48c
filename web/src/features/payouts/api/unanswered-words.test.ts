import type { Unanswered } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { asClause } from '../../../lib/gateway-error';
import { shortErrorText, recordedErrorText, unansweredSentence } from './unanswered-words';

/** What staff must never read: the gateway client's reason codes or its own words. */
const RAW = /connection-lost|server-error|unreadable-reply|UND_ERR|gateway answered \d|\d ms\b/;

describe('unansweredSentence', () => {
  it.each<[Unanswered, string]>([
    [
      { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: 'Internal error' },
      'The gateway answered with an error (HTTP 500, INTERNAL: Internal error)',
    ],
    [
      { kind: 'error', httpStatus: 502, code: null, message: null },
      'The gateway answered with an error (HTTP 502)',
    ],
    [{ kind: 'timeout', waitedMs: 15_000 }, 'No answer came from the gateway within 15 s'],
    [{ kind: 'timeout', waitedMs: 1_500 }, 'No answer came from the gateway within 1.5 s'],
    [{ kind: 'connection-closed' }, 'No answer came from the gateway'],
    [{ kind: 'unreadable', httpStatus: 200 }, 'No answer came from the gateway'],
  ])('when %j went unlearned, then it is one plain sentence: %s', (unanswered, said) => {
    expect(unansweredSentence(unanswered)).toBe(said);
    expect(said).not.toMatch(RAW);
  });
});

describe('recordedErrorText', () => {
  it('when the outcome went unlearned, then `unanswered` is said and the recorded words are not read', () => {
    expect(
      recordedErrorText({
        errorCode: 'CONNECTION-LOST',
        errorMessage: 'connection lost before a reply (UND_ERR_SOCKET)',
        unanswered: { kind: 'timeout', waitedMs: 15_000 },
      }),
    ).toBe('No answer came from the gateway within 15 s');
    expect(
      asClause(
        recordedErrorText({
          errorCode: 'INTERNAL',
          errorMessage: 'gateway answered 500',
          unanswered: { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
        }),
      ),
    ).toBe('the gateway answered with an error (HTTP 500, INTERNAL)');
  });

  it('when nothing went unanswered, then a refusal or Paydesk’s own words are said as staffErrorText says them', () => {
    expect(
      recordedErrorText({
        errorCode: 'VALIDATION_FAILED',
        errorMessage:
          'The gateway rejected the payout request as invalid (VALIDATION_FAILED): card expired. Nothing was changed.',
        unanswered: null,
      }),
    ).toBe(
      'The gateway rejected the payout request as invalid (VALIDATION_FAILED): card expired. Nothing was changed.',
    );
    expect(
      recordedErrorText({
        errorCode: 'INTERRUPTED',
        errorMessage: 'the instance sending it stopped before recording the outcome',
        unanswered: null,
      }),
    ).toBe('The instance sending it stopped before recording the outcome');
    expect(recordedErrorText({ errorCode: null, errorMessage: null, unanswered: null })).toBe('');
  });
});

describe('shortErrorText', () => {
  it('when a payout’s answer was an error, then it is said by the HTTP status alone: the gateway’s code and words (an injected fault, say) are not', () => {
    expect(
      shortErrorText({
        errorCode: 'INTERNAL',
        errorMessage: 'gateway answered 500',
        unanswered: {
          kind: 'error',
          httpStatus: 500,
          code: 'INTERNAL',
          message: 'injected fault: the gateway failed before applying the operation',
        },
      }),
    ).toBe('The gateway answered 500');
  });

  it('when it went unlearned otherwise, or was refused, then it is said as recordedErrorText says it', () => {
    const timeout = {
      errorCode: null,
      errorMessage: 'no reply within 15000 ms',
      unanswered: { kind: 'timeout', waitedMs: 15_000 },
    } as const;
    expect(shortErrorText(timeout)).toBe(recordedErrorText(timeout));
    const refused = {
      errorCode: 'VALIDATION_FAILED',
      errorMessage: 'The gateway rejected the payout request as invalid (VALIDATION_FAILED).',
      unanswered: null,
    };
    expect(shortErrorText(refused)).toBe(recordedErrorText(refused));
  });
});
