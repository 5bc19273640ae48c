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
    unanswered: null,
    createdAt: at,
    updatedAt: at,
    ...patch,
  };
}

describe('what the gateway answered', () => {
  it('when the gateway answered 500 naming no code, then it is an error with the HTTP status, not a lost answer', () => {
    expect(
      gatewayAnswerOf({
        unanswered: { kind: 'error', httpStatus: 500, code: null, message: null },
      }),
    ).toEqual({ kind: 'error', words: 'HTTP 500' });
  });

  it('when the gateway’s code and message are recorded too, then both are said once, after the HTTP status', () => {
    const answer = gatewayAnswerOf({
      unanswered: { kind: 'error', httpStatus: 503, code: 'INTERNAL', message: 'Internal error' },
    });
    expect(answer).toEqual({ kind: 'error', words: 'HTTP 503, INTERNAL: Internal error' });
    expect(
      answerClause(
        gatewayAnswerOf({
          unanswered: { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
        }),
      ),
    ).toBe(' and the gateway answered with an error (HTTP 500, INTERNAL)');
  });

  it('when no reply came within the wait, then it is said in seconds as staff read them', () => {
    const within = (waitedMs: number) =>
      answerClause(gatewayAnswerOf({ unanswered: { kind: 'timeout', waitedMs } }));
    expect(within(15_000)).toBe(' but had no answer from the gateway within 15 s');
    expect(within(1_500)).toBe(' but had no answer from the gateway within 1.5 s');
    expect(within(800)).toBe(' but had no answer from the gateway within 1 s');
  });

  it('when the connection closed, the reply could not be read, or nothing was recorded, then no answer came', () => {
    expect(answerClause(gatewayAnswerOf({ unanswered: { kind: 'connection-closed' } }))).toBe(
      ' but no answer came from the gateway',
    );
    expect(gatewayAnswerOf({ unanswered: { kind: 'unreadable', httpStatus: 200 } })).toEqual({
      kind: 'none',
    });
    expect(gatewayAnswerOf({ unanswered: null })).toEqual({ kind: 'none' });
  });

  it('when the recorded error reads like an answer but nothing says the outcome went unlearned, then it is not read', () => {
    expect(
      gatewayAnswerOf(
        op({ errorCode: 'INTERNAL', errorMessage: 'gateway answered 500: Internal error' }),
      ),
    ).toEqual({ kind: 'none' });
    expect(gatewayAnswerOf(op({ errorMessage: 'no answer within 15 s' }))).toEqual({
      kind: 'none',
    });
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
    // on its way, or of unknown outcome: it may be made; refused, or sent before: it is not
    for (const state of ['sending', 'processing', 'unknown'] as const)
      expect(recentNotApplied([recent, { ...redone, state }], NOW)).toEqual([]);
    expect(
      recentNotApplied([recent, { ...redone, state: 'declined' }], NOW).map((o) => o.id),
    ).toEqual(['recent']);
    const before = { ...redone, createdAt: new Date(NOW - 2 * HOUR).toISOString() };
    expect(recentNotApplied([recent, before], NOW).map((o) => o.id)).toEqual(['recent']);
    // a follow-up of another kind, or learned from the gateway, redoes nothing
    expect(recentNotApplied([recent, { ...redone, kind: 'void' }], NOW).map((o) => o.id)).toEqual([
      'recent',
    ]);
    expect(
      recentNotApplied([recent, { ...redone, origin: 'gateway' }], NOW).map((o) => o.id),
    ).toEqual(['recent']);
  });
});
