import type { Operation } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { answerClause, gatewayAnswerOf, recentNotApplied } from './gateway-answer';

const NOW = Date.parse('2026-11-27T19:00:00.000Z');
const HOUR = 3_600_000;

function op(patch: Partial<Operation>): Operation {
  const at = new Date(NOW - HOUR).toISOString();
  return {
    id: 'op',
    kind: 'return',
    origin: 'paydesk',
    state: 'not_applied',
    amount: '10.01',
    gatewaySerial: null,
    requestedBy: 'finance.demo@paydesk.local',
    reasonCode: null,
    comment: null,
    errorCode: null,
    errorMessage: null,
    createdAt: at,
    updatedAt: at,
    ...patch,
  };
}

describe('what the gateway answered', () => {
  it('when the gateway answered 500, then it is an error with the HTTP status, not a lost answer', () => {
    expect(gatewayAnswerOf({ errorCode: null, errorMessage: 'gateway answered 500' })).toEqual({
      kind: 'error',
      words: 'HTTP 500',
    });
  });

  it('when the gateway’s code and message are recorded too, then both are said once', () => {
    const answer = gatewayAnswerOf({ errorCode: 'INTERNAL', errorMessage: 'Internal error' });
    expect(answer).toEqual({ kind: 'error', words: 'INTERNAL: Internal error' });
    expect(
      answerClause(
        gatewayAnswerOf({ errorCode: 'INTERNAL', errorMessage: 'gateway answered 500' }),
      ),
    ).toBe(' and the gateway answered with an error (HTTP 500, INTERNAL)');
  });

  it('when no reply came in time, or none at all, then that is said in seconds, or plainly', () => {
    // as the BFF records it now, and as older rows have it
    const timeout = gatewayAnswerOf({ errorCode: null, errorMessage: 'no answer within 15 s' });
    expect(answerClause(timeout)).toBe(' but had no answer from the gateway within 15 s');
    const older = gatewayAnswerOf({ errorCode: null, errorMessage: 'no reply within 15000 ms' });
    expect(answerClause(older)).toBe(' but had no answer from the gateway within 15 s');
    const lost = gatewayAnswerOf({
      errorCode: null,
      errorMessage: 'connection lost before a reply (UND_ERR_SOCKET)',
    });
    expect(answerClause(lost)).toBe(' but no answer came from the gateway');
    expect(gatewayAnswerOf({ errorCode: null, errorMessage: null })).toEqual({ kind: 'none' });
  });
});

describe('follow-ups not made', () => {
  it('when staff’s follow-ups of the last seven days were not applied, then they are named unless made again since', () => {
    const recent = op({ id: 'recent' });
    const old = op({ id: 'old', createdAt: new Date(NOW - 8 * 24 * HOUR).toISOString() });
    const learned = op({ id: 'learned', origin: 'gateway' });
    const payout = op({ id: 'payout', kind: 'payout-pay' });
    expect(recentNotApplied([recent, old, learned, payout], NOW).map((o) => o.id)).toEqual([
      'recent',
    ]);
    const redone = op({
      id: 'redone',
      state: 'approved',
      createdAt: new Date(NOW - HOUR / 2).toISOString(),
    });
    expect(recentNotApplied([recent, redone], NOW)).toEqual([]);
    // a later request also not made does not hide the first
    const again = op({ id: 'again', createdAt: new Date(NOW - HOUR / 2).toISOString() });
    expect(recentNotApplied([recent, again], NOW).map((o) => o.id)).toEqual(['recent', 'again']);
  });
});
