// What staff read when Paydesk did not learn a gateway request's outcome: the gateway's error said
// as an answer (HTTP status, code, message), no answer said in words, never a library code.
import { describe, expect, it } from 'vitest';
import type { GatewayExchange, GatewayOutcome } from '../gateway-client/client.js';
import { parseGatewayReply } from '@paydesk/shared/protocol';
import {
  lostOutcome,
  noStatusTitle,
  unansweredColumns,
  unansweredFromProse,
  unansweredOf,
  unansweredOfRow,
  unansweredTag,
  unansweredText,
} from './gateway-errors.js';

type Unlearned = Exclude<GatewayOutcome, { kind: 'reply' }>;

function exchange(patch: Partial<GatewayExchange>): GatewayExchange {
  return {
    operation: 'return',
    endpointId: '1001',
    url: 'http://gateway.test/api/v2/return/1001',
    request: {},
    sentAt: '2026-11-27T19:00:00.000Z',
    receivedAt: '2026-11-27T19:00:15.000Z',
    httpStatus: null,
    reply: null,
    rawReply: null,
    error: null,
    ...patch,
  };
}

const timeout: Unlearned = {
  kind: 'unknown',
  reason: 'timeout',
  waitedMs: 15_000,
  exchange: exchange({ error: 'no reply within 15000 ms' }),
};
const dropped: Unlearned = {
  kind: 'unknown',
  reason: 'connection-lost',
  exchange: exchange({ error: 'connection lost before a reply (UND_ERR_SOCKET)' }),
};
const internal: Unlearned = {
  kind: 'unknown',
  reason: 'server-error',
  exchange: exchange({
    httpStatus: 500,
    reply: { type: 'error', 'error-code': 'INTERNAL', 'error-message': 'database   down' },
    error: 'gateway answered 500',
  }),
};
const badGateway: Unlearned = {
  kind: 'unknown',
  reason: 'server-error',
  exchange: exchange({
    httpStatus: 502,
    rawReply: '<html>',
    error: 'the gateway reply could not be read',
  }),
};

describe('outcomes Paydesk did not learn, as staff read them', () => {
  it('when the gateway did not answer in time or closed the connection, then it is said in words, without the library code', () => {
    expect(unansweredText(timeout)).toBe('no answer within 15 s');
    expect(unansweredText(dropped)).toBe('the connection closed before the gateway answered');
    expect(lostOutcome(dropped, 'return of 5.00')).toMatchObject({
      state: 'unknown',
      errorCode: null,
      errorMessage: 'the connection closed before the gateway answered',
    });
    expect(lostOutcome(timeout, 'return of 5.00').message).toBe(
      "The gateway's answer to the return of 5.00 was lost (no answer within 15 s). Paydesk is asking the gateway for the order's status and will not send it again.",
    );
    expect(unansweredTag(timeout)).toBe('timeout');
  });

  it('when the gateway answered with a 5xx, then its HTTP status, code and message are kept and said as an answer; one without a readable body is named by its HTTP status', () => {
    expect(unansweredText(internal)).toBe(
      'the gateway answered with an error (HTTP 500, INTERNAL: database down)',
    );
    expect(lostOutcome(internal, 'return of 5.00')).toMatchObject({
      state: 'unknown',
      errorCode: 'INTERNAL',
      errorMessage: 'gateway answered 500: database down',
      title: 'outcome unknown (HTTP 500, INTERNAL)',
    });
    expect(unansweredText(badGateway)).toBe(
      'the gateway answered with an error (HTTP 502) that Paydesk could not read',
    );
    expect(lostOutcome(badGateway, 'capture of 1.00')).toMatchObject({
      errorCode: 'HTTP_502',
      errorMessage: 'gateway answered 502',
      message:
        "The gateway answered the capture of 1.00 with an error (HTTP 502); Paydesk cannot tell whether it was applied. Paydesk is asking the gateway for the order's status and will not send it again.",
    });
  });
});

describe('a status request that brought no status, as its timeline title', () => {
  it('when the gateway refused it (4xx), then it is said refused with its code, not "no answer"; a 5xx is an error answer; none is no answer', () => {
    const refused: GatewayOutcome = {
      kind: 'reply',
      httpStatus: 404,
      reply: parseGatewayReply(undefined, 'type=validation-error&error-code=ORDER_NOT_FOUND'),
      exchange: exchange({ httpStatus: 404 }),
    };
    expect(noStatusTitle('status check', refused)).toBe(
      'status check: refused (HTTP 404, ORDER_NOT_FOUND)',
    );
    expect(noStatusTitle('status', internal)).toBe('status: error answer (HTTP 500, INTERNAL)');
    expect(noStatusTitle('status', timeout)).toBe('status: no answer (timeout)');
  });
});

describe('how an outcome went unlearned, as a record', () => {
  it('when an outcome is not learned, then it is recorded by kind: the 5xx answer with its status, code and message (one line), the wait in ms, a lost connection, an unreadable reply; a request not sent has none', () => {
    expect(unansweredOf(internal)).toEqual({
      kind: 'error',
      httpStatus: 500,
      code: 'INTERNAL',
      message: 'database down',
    });
    expect(lostOutcome(internal, 'return of 5.00').unanswered).toEqual(unansweredOf(internal));
    expect(unansweredOf(badGateway)).toEqual({
      kind: 'error',
      httpStatus: 502,
      code: null,
      message: null,
    });
    // the wait as the client waited it, whatever its exchange's words say
    expect(
      unansweredOf({ ...timeout, waitedMs: 1_500, exchange: exchange({ error: 'timed out' }) }),
    ).toEqual({ kind: 'timeout', waitedMs: 1_500 });
    expect(
      unansweredText({ ...timeout, waitedMs: 1_500, exchange: exchange({ error: 'timed out' }) }),
    ).toBe('no answer within 1.5 s');
    expect(unansweredOf(dropped)).toEqual({ kind: 'connection-closed' });
    expect(
      unansweredOf({
        kind: 'unknown',
        reason: 'unreadable-reply',
        exchange: exchange({ httpStatus: 200, rawReply: '<html>' }),
      }),
    ).toEqual({ kind: 'unreadable', httpStatus: 200 });
    const notSent: Unlearned = {
      kind: 'not-sent',
      reason: 'could not connect to the gateway (ECONNREFUSED)',
      exchange: exchange({}),
    };
    expect(unansweredOf(notSent)).toBeNull();
    expect(lostOutcome(notSent, 'return of 5.00').unanswered).toBeNull();
  });

  it('when a record is stored in its columns, then it reads back the same; a row with a reply reads null', () => {
    for (const outcome of [internal, badGateway, timeout, dropped]) {
      const unanswered = unansweredOf(outcome);
      expect(
        unansweredOfRow({
          ...unansweredColumns(unanswered),
          error_code: null,
          error_message: null,
        }),
      ).toEqual(unanswered);
    }
    expect(
      unansweredOfRow({
        ...unansweredColumns(null),
        error_code: '05',
        error_message: 'Do not honour',
      }),
    ).toBeNull();
  });

  it('when a row recorded before the record was kept is read, then its words give the same record as one recorded now', () => {
    for (const outcome of [internal, badGateway, timeout, dropped]) {
      const recorded = lostOutcome(outcome, 'return of 5.00');
      expect(unansweredFromProse(recorded.errorCode, recorded.errorMessage)).toEqual(
        recorded.unanswered,
      );
    }
    // older words
    expect(unansweredFromProse(null, 'gateway answered 500')).toEqual({
      kind: 'error',
      httpStatus: 500,
      code: null,
      message: null,
    });
    expect(unansweredFromProse(null, 'no reply within 15000 ms')).toEqual({
      kind: 'timeout',
      waitedMs: 15_000,
    });
    expect(unansweredFromProse(null, 'no answer within 800 ms')).toEqual({
      kind: 'timeout',
      waitedMs: 800,
    });
    expect(unansweredFromProse(null, 'connection lost before a reply (UND_ERR_SOCKET)')).toEqual({
      kind: 'connection-closed',
    });
    expect(unansweredFromProse(null, 'the gateway reply could not be read')).toEqual({
      kind: 'unreadable',
      httpStatus: null,
    });
    expect(unansweredFromProse(null, "the gateway's reply could not be read (HTTP 302)")).toEqual({
      kind: 'unreadable',
      httpStatus: 302,
    });
    // words that do not say how, or a reply's own words: nothing is made up
    expect(unansweredFromProse(null, 'no answer in time')).toBeNull();
    expect(unansweredFromProse('05', 'Do not honour')).toBeNull();
    expect(unansweredFromProse(null, 'the gateway answered 500 times')).toBeNull();
    expect(unansweredFromProse(null, null)).toBeNull();
  });
});
