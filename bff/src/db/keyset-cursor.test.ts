// The keyset cursor every paged list shares: its wire format is what clients hold between
// requests (a transactions cursor given before this codec was shared must still page).
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { decodeKeysetCursor, encodeKeysetCursor } from './keyset-cursor.js';

describe('keyset cursor', () => {
  it('when a position is encoded, then the cursor is base64url of [scope, value, id], as the transactions list has always given it', () => {
    const cursor = encodeKeysetCursor('amount_desc', { value: 12_345, id: 'a1-b2' });
    expect(cursor).toBe('WyJhbW91bnRfZGVzYyIsMTIzNDUsImExLWIyIl0');
    expect(decodeKeysetCursor(cursor, 'amount_desc', 'sort')).toEqual({
      value: 12_345,
      id: 'a1-b2',
    });
  });

  it('when a cursor is of another scope, not base64url JSON, the wrong shape or an unsafe number, then it is a 400 naming query.cursor and what may have changed', () => {
    const other = encodeKeysetCursor('mine', { value: 1, id: 'x' });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const text of [
      other,
      'not-a-cursor',
      'e30',
      b64(['all', 1]),
      b64(['all', '1', 'x']),
      b64(['all', 2 ** 60, 'x']),
      b64(['all', 1.5, 'x']),
      b64(['all', 1, 2]),
    ]) {
      let caught: unknown;
      try {
        decodeKeysetCursor(text, 'all', 'view');
      } catch (err) {
        caught = err;
      }
      expect(caught, text).toBeInstanceOf(AppError);
      const err = caught as AppError;
      expect(err.code, text).toBe('VALIDATION_FAILED');
      expect(err.message, text).toBe('query.cursor: not a cursor of this list (view changed?)');
      expect(err.details, text).toEqual({
        fields: [{ path: 'query.cursor', rule: 'cursor', message: 'not a cursor of this list' }],
      });
    }
  });
});
