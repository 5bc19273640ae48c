import type { SubscriptionDetail } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import {
  createdText,
  dayText,
  firstChargeWait,
  FIRST_CHARGE_WAIT_MS,
  unknownPlanNote,
} from './subscription-labels';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const plan = (start: string, paymentsMade = 0) => ({
  state: 'active' as const,
  schedule: { start, paymentsMade } as Parameters<typeof firstChargeWait>[0]['schedule'],
});

describe('firstChargeWait', () => {
  it('when the plan started now by a BFF clock a little ahead of the browser’s, then its first charge is being made', () => {
    expect(firstChargeWait(plan('2026-11-25T12:02:00.000Z'), NOW)).toBe('being_made');
  });

  it('when the plan starts on a later day, then no charge is due yet', () => {
    expect(firstChargeWait(plan('2026-11-26T00:00:00.000Z'), NOW)).toBeNull();
  });

  it('when the first charge was due longer ago than the wait, then it is late; a known charge ends the wait', () => {
    const longAgo = new Date(NOW - FIRST_CHARGE_WAIT_MS - 1).toISOString();
    expect(firstChargeWait(plan(longAgo), NOW)).toBe('late');
    expect(firstChargeWait(plan(longAgo, 1), NOW)).toBeNull();
  });
});

describe('createdText', () => {
  const created = (state: 'active' | 'unknown', interval: number) => ({
    state,
    recurringPaymentId: state === 'active' ? '7001' : null,
    amount: '1234.5',
    currency: 'EUR',
    schedule: { period: 'week', interval } as Parameters<typeof createdText>[0]['schedule'],
  });

  it('when a plan is created, then its sentence has the amount in the user’s locale and the schedule in words', () => {
    expect(createdText(created('active', 2), 'de-DE')).toBe(
      'Subscription 7001 created: 1.234,50\u00a0€ every 2 weeks. Paydesk learns each charge automatically from the gateway and lists it as a rebill order.',
    );
    expect(createdText(created('active', 1), 'en-US')).toBe(
      'Subscription 7001 created: €1,234.50 every week. Paydesk learns each charge automatically from the gateway and lists it as a rebill order.',
    );
  });

  it('when the gateway’s answer was lost, then the sentence says the plan is not sent again', () => {
    expect(createdText(created('unknown', 1), 'en-US')).toBe(
      'The gateway’s answer to the subscription (€1,234.50 every week) was lost. Paydesk will not send it again; its first charge will link it.',
    );
  });
});

describe('a plan whose outcome is not known, in words', () => {
  const INTERNAL = {
    errorCode: 'INTERNAL',
    errorMessage:
      'gateway answered 500: injected fault: the gateway failed before applying the operation',
    unanswered: {
      kind: 'error' as const,
      httpStatus: 500,
      code: 'INTERNAL',
      message: 'injected fault: the gateway failed before applying the operation',
    },
  };
  const unknown = (
    error: Pick<SubscriptionDetail, 'errorCode' | 'errorMessage' | 'unanswered'>,
  ) => ({
    state: 'unknown' as const,
    recurringPaymentId: null,
    amount: '9.99',
    currency: 'EUR',
    schedule: { period: 'day', interval: 1 } as Parameters<typeof createdText>[0]['schedule'],
    ...error,
  });

  it('when the gateway answered the create with a 5xx, then the sentence says it answered with an error, with its HTTP status, code and message, never the recorded form', () => {
    const text = createdText(unknown(INTERNAL), 'en-US');
    expect(text).toBe(
      'The gateway answered the subscription (€9.99 every day) with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation): the plan may exist. Paydesk will not send it again; its first charge will link it.',
    );
    expect(text).not.toMatch(/gateway answered 500|server-error|was lost/);
    expect(unknownPlanNote(INTERNAL)).toEqual({
      text: 'The gateway answered with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation): the plan may exist. Paydesk does not send it again; its first charge names it.',
      saysError: true,
    });
  });

  it('when the gateway did not answer in time, then the sentence says how long, never `timeout`; a lost reply says it was lost', () => {
    const timeout = {
      errorCode: null,
      errorMessage: 'no answer within 15 s',
      unanswered: { kind: 'timeout' as const, waitedMs: 15_000 },
    };
    expect(createdText(unknown(timeout), 'en-US')).toBe(
      'The gateway did not answer the subscription (€9.99 every day) within 15 s: the plan may exist. Paydesk will not send it again; its first charge will link it.',
    );
    expect(unknownPlanNote(timeout).text).toBe(
      'The gateway did not answer within 15 s: the plan may exist. Paydesk does not send it again; its first charge names it.',
    );
    const dropped = {
      errorCode: null,
      errorMessage: 'the connection closed before the gateway answered',
      unanswered: { kind: 'connection-closed' as const },
    };
    expect(createdText(unknown(dropped), 'en-US')).toBe(
      'The gateway’s answer to the subscription (€9.99 every day) was lost. Paydesk will not send it again; its first charge will link it.',
    );
    expect(unknownPlanNote(dropped)).toEqual({
      text: 'The gateway’s reply was lost: the plan may exist. Paydesk does not send it again; its first charge names it.',
      saysError: false,
    });
  });
});

describe('dayText', () => {
  it('when a calendar day is said, then it is in the UI’s date style for the locale, never in ISO form, and the day itself (read by the UTC calendar)', () => {
    expect(dayText('2026-11-27', 'en-US')).toBe('Nov 27, 2026');
    expect(dayText('2026-11-27', 'en-GB')).toBe('27 Nov 2026');
    expect(dayText('2026-11-27', 'de-DE')).toBe('27.11.2026');
    // Days at the year's edges stay themselves (a local midnight reading would move them).
    expect(dayText('2026-01-01', 'en-US')).toBe('Jan 1, 2026');
    expect(dayText('2026-12-31', 'en-US')).toBe('Dec 31, 2026');
  });
});
