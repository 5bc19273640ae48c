import { describe, expect, it } from 'vitest';
import { AuditVerifyQuerySchema, formatAuditAnchor, parseAuditAnchor } from './audit.js';

const hash = 'ab'.repeat(32);

describe('audit verify anchors', () => {
  it('when an anchor is <seq>:<64 lowercase hex>, then it parses to its row and hash and prints back the same', () => {
    expect(AuditVerifyQuerySchema.parse({ anchor: `12:${hash}` })).toEqual({
      anchor: { seq: 12, hash },
    });
    expect(formatAuditAnchor({ seq: 12, hash })).toBe(`12:${hash}`);
    expect(AuditVerifyQuerySchema.parse({})).toEqual({});
  });

  it('when an anchor is malformed, then it is refused with the anchor rule', () => {
    for (const anchor of [
      hash,
      `0:${hash}`,
      `-1:${hash}`,
      `01:${hash}`,
      `12:${hash.toUpperCase()}`,
      `12:${hash.slice(1)}`,
      `12:${hash}0`,
      ` 12:${hash}`,
      `1234567890123456:${hash}`,
      '12:',
    ]) {
      expect(parseAuditAnchor(anchor), anchor).toBeNull();
      const result = AuditVerifyQuerySchema.safeParse({ anchor });
      expect(result.success, anchor).toBe(false);
      expect(result.error?.issues[0]).toMatchObject({
        path: ['anchor'],
        params: { rule: 'anchor' },
        message: expect.stringContaining('64 lowercase hex') as unknown,
      });
    }
  });

  it('when the verify query carries a parameter it does not know, then it is refused', () => {
    const result = AuditVerifyQuerySchema.safeParse({ anchr: `1:${hash}` });
    expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
  });
});
