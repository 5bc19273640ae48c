import { describe, expect, it } from 'vitest';
import { redactFields } from '../gateway-client/redact.js';
import { maskPans, redact } from './redact.js';

describe('maskPans', () => {
  it('when digits run unbroken for 13–19 digits, then they become BIN … last four, as before', () => {
    expect(maskPans('/api/x/4111111111111111/y')).toBe('/api/x/411111…1111/y');
    expect(maskPans('order 1234567 of 2026-11-21')).toBe('order 1234567 of 2026-11-21');
  });

  it('when a card number is written in groups with spaces or dashes, then it is masked the same way', () => {
    expect(maskPans('card 4111 1111 1111 1111 charged twice')).toBe(
      'card 411111…1111 charged twice',
    );
    expect(maskPans('card 4111-1111-1111-1111.')).toBe('card 411111…1111.');
    expect(maskPans('amex 3782 822463 10005')).toBe('amex 378282…0005');
    expect(maskPans('ref 12 4111 1111 1111 1111 exp 12 27')).toBe('ref 12 411111…1111 exp 12 27');
    // `12 5555 5555 5555` passes the Luhn check too: overlapping candidates are masked as one.
    expect(maskPans('ref 12 5555 5555 5555 4444 exp 12 27')).toBe('ref 125555…4444 exp 12 27');
  });

  it('when digit groups are no card number (dates, phones, UUIDs, failing Luhn), then they stay', () => {
    for (const text of [
      '2026-11-21 05:19:38',
      '+44 20 7946 0958',
      '12345678-1234-4123-8123-123456789012',
      '4111 1111 1111 1112',
    ]) {
      expect(maskPans(text)).toBe(text);
    }
  });

  it('when a summary holds a card number in groups anywhere, then redact masks it', () => {
    expect(
      redact({ comment: 'pan 4111 1111 1111 1111', nested: ['x 4111-1111-1111-1111'] }),
    ).toEqual({
      comment: 'pan 411111…1111',
      nested: ['x 411111…1111'],
    });
  });
});

describe('redactFields', () => {
  it('when a gateway field other than the card number holds one, then it is masked too', () => {
    expect(
      redactFields({
        credit_card_number: '4111111111111111',
        order_desc: 'card 4111 1111 1111 1111',
        'error-message': 'card 4111111111111111 declined',
        client_orderid: 'co-1',
        cvv2: '123',
      }),
    ).toEqual({
      credit_card_number: '411111******1111',
      order_desc: 'card 411111…1111',
      'error-message': 'card 411111…1111 declined',
      client_orderid: 'co-1',
      cvv2: '[redacted]',
    });
  });
});
