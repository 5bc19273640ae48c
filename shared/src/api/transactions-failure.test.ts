import { describe, expect, it } from 'vitest';
import { FAILURE_MESSAGE_MAX, failureText, orderFailureOf } from './transactions-failure.js';

/** A `status` exchange as the BFF records it in the timeline (gateway.ts `exchangeData`). */
const statusEntry = (id: number, reply: Record<string, string>, kind = 'gateway') => ({
  id,
  kind,
  data: {
    operation: 'status',
    request: { orderid: '1000321', client_orderid: 'shop-1' },
    httpStatus: 200,
    reply: { type: 'status-response', status: 'error', ...reply },
    outcome: 'reply',
  },
});

describe('why the gateway failed an order', () => {
  it('when the latest status reply carries error-message and error-code, then they are the reason', () => {
    const failure = orderFailureOf([
      statusEntry(1, { 'error-message': 'Older reason', 'error-code': 'OLD' }),
      {
        id: 2,
        kind: 'callback',
        data: { status: 'error', error_message: 'claimed by a callback' },
      },
      statusEntry(
        3,
        {
          'error-message': 'Processing error at the issuer',
          'error-code': 'PROCESSING_ERROR',
        },
        'reconcile',
      ),
    ]);
    expect(failure).toEqual({
      message: 'Processing error at the issuer',
      code: 'PROCESSING_ERROR',
    });
    expect(failureText(failure!)).toBe('Processing error at the issuer (code PROCESSING_ERROR)');
  });

  it('when no status reply was recorded, or the latest has no reason, or a reply is another operation’s, then there is none', () => {
    expect(orderFailureOf([])).toBeNull();
    expect(
      orderFailureOf([
        {
          id: 1,
          kind: 'gateway',
          data: {
            request: {},
            reply: { type: 'error', 'error-message': 'refused', 'error-code': 'INVALID_STATE' },
          },
        },
      ]),
    ).toBeNull();
    expect(
      orderFailureOf([
        statusEntry(1, { 'error-message': 'Card declined', 'error-code': 'DECLINED' }),
        statusEntry(2, {}),
      ]),
    ).toBeNull();
  });

  it('when the gateway’s text holds markup, line breaks, bidi controls or is very long, then it is one plain line, cut with an ellipsis', () => {
    const failure = orderFailureOf([
      statusEntry(1, {
        'error-message': `  <b>Declined</b>\r\n\u202Eby\tissuer  ${'x'.repeat(400)}`,
        'error-code': ' DECLINED\n',
      }),
    ]);
    expect(failure?.code).toBe('DECLINED');
    expect(failure?.message?.startsWith('<b>Declined</b> by issuer xxx')).toBe(true);
    expect(Array.from(failure?.message ?? '')).toHaveLength(FAILURE_MESSAGE_MAX);
    expect(failure?.message?.endsWith('x…')).toBe(true);
    expect(failureText({ message: null, code: 'DECLINED' })).toBe('code DECLINED');
    expect(failureText({ message: 'Declined', code: null })).toBe('Declined');
  });
});
