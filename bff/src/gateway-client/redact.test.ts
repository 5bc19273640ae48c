import { describe, expect, it } from 'vitest';
import { redactFields } from './redact.js';

describe('redactFields names', () => {
  it('when a field is named by a card number, then the name is masked and its value left out', () => {
    const safe = redactFields({ '5555555555554444': '123', status: 'approved' });
    expect(safe).toEqual({ '555555…4444': '[redacted]', status: 'approved' });
    expect(JSON.stringify(safe)).not.toContain('5555555555554444');
  });

  it('when a field is named like a security code, then its value is not kept, whatever the spelling', () => {
    expect(
      redactFields({ cvv: '737', CVC2: '123', card_cvn: '1234', security_code: '999', csc: '1' }),
    ).toEqual({
      cvv: '[redacted]',
      CVC2: '[redacted]',
      card_cvn: '[redacted]',
      security_code: '[redacted]',
      csc: '[redacted]',
    });
  });

  it('when a field is an ordinary one, then its name and (masked) value are kept', () => {
    expect(redactFields({ client_orderid: 'co-1', order_desc: 'card 4111111111111111' })).toEqual({
      client_orderid: 'co-1',
      order_desc: 'card 411111…1111',
    });
  });
});
