import { NOT_MADE_KINDS } from '@paydesk/shared/domain';
import { describe, expect, it } from 'vitest';
import { canRedo } from './permissions';

describe('who may make a follow-up not made again', () => {
  it('when finance sees a follow-up not made, then it may make any kind again; support and ops may not (they are told to ask finance)', () => {
    for (const kind of NOT_MADE_KINDS) {
      expect(canRedo(kind, ['finance'])).toBe(true);
      expect(canRedo(kind, ['support'])).toBe(false);
      expect(canRedo(kind, ['ops', 'support'])).toBe(false);
    }
    expect(canRedo('payout-pay', ['finance'])).toBe(false);
  });
});
