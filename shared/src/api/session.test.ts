import { describe, expect, it } from 'vitest';
import { TotpConfirmRequestSchema } from './session.js';

describe('TotpConfirmRequestSchema', () => {
  it('when the code is typed as authenticator apps show it, then its spaces and hyphens are taken out', () => {
    expect(TotpConfirmRequestSchema.parse({ code: '504 993' })).toEqual({ code: '504993' });
    expect(TotpConfirmRequestSchema.parse({ code: ' 504-993 ' })).toEqual({ code: '504993' });
  });

  it('when the code is not six digits, then it is refused as a 6-digit code', () => {
    for (const code of ['50499', '5049931', 'abc def']) {
      const parsed = TotpConfirmRequestSchema.safeParse({ code });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('must be a 6-digit code');
    }
  });
});
