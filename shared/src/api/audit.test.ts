import { describe, expect, it } from 'vitest';
import {
  AUDIT_CSV_HEADER,
  AuditListResponseSchema,
  AuditVerifyQuerySchema,
  AuditVerifyResponseSchema,
  formatAuditAnchor,
  auditTargetWords,
  parseAuditAnchor,
  shortAuditId,
  type AuditRow,
} from './audit.js';

const hash = 'ab'.repeat(32);

describe('audit verify anchors', () => {
  it('when an anchor is <seq>:<64 lowercase hex>, then it parses to its row and hash and prints back the same', () => {
    expect(AuditVerifyQuerySchema.parse({ anchor: `12:${hash}` })).toEqual({
      anchor: { seq: 12, hash },
      check: 'explicit',
    });
    expect(formatAuditAnchor({ seq: 12, hash })).toBe(`12:${hash}`);
    expect(AuditVerifyQuerySchema.parse({})).toEqual({ check: 'explicit' });
  });

  it('when a check says it is automatic, then it parses so; absent it is explicit; anything else is refused', () => {
    expect(AuditVerifyQuerySchema.parse({ check: 'automatic' })).toEqual({ check: 'automatic' });
    expect(AuditVerifyQuerySchema.parse({ check: 'explicit' })).toEqual({ check: 'explicit' });
    const bad = AuditVerifyQuerySchema.safeParse({ check: 'auto' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['check']);
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

describe('audit list targets', () => {
  const row: AuditRow = {
    seq: 3,
    at: '2026-11-21T09:00:00.000Z',
    actorId: 'u-1',
    actorEmail: 'fay@example.com',
    actorRoles: ['finance'],
    action: 'transaction.capture',
    target: 'transaction:0f1e2d3c-4b5a-4697-8877-665544332211',
    summary: {},
    outcome: 'success',
    errorCode: null,
    requestId: null,
    ip: null,
    userAgent: null,
    prevHash: hash,
    hash,
  };
  const page = (items: unknown[]) => ({ items, page: 1, pageSize: 50, total: items.length });

  it('when a list row carries what its target names, then it is kept beside the raw target', () => {
    const ref = {
      kind: 'transaction',
      id: '0f1e2d3c-4b5a-4697-8877-665544332211',
      label: '9000123',
    };
    const parsed = AuditListResponseSchema.parse(page([{ ...row, targetRef: ref }]));
    // a reply without the gateway's orderid (an older BFF) reads it as not known
    expect(parsed.items[0]).toEqual({ ...row, targetRef: { ...ref, orderid: null } });
    const withOrder = AuditListResponseSchema.parse(
      page([{ ...row, targetRef: { ...ref, orderid: '9000123' } }]),
    );
    expect(withOrder.items[0]?.targetRef?.orderid).toBe('9000123');
  });

  it('when a target is said in words, then it is its kind, its Paydesk id and the gateway order beside it where known', () => {
    const id = '1f3a5b7c-4b5a-4697-8877-665544332211';
    const payout = { kind: 'payout', id, label: '1000123', orderid: '1000123' } as const;
    expect(auditTargetWords(`payout:${id}`, payout)).toBe(`Payout ${id} · order 1000123`);
    expect(auditTargetWords(`payout:${id}`, payout, shortAuditId)).toBe(
      'Payout 1f3a5b7c… · order 1000123',
    );
    // not sent to the gateway yet: no order beside it (never the client's order id)
    expect(auditTargetWords(`link:${id}`, { kind: 'link', id, label: 'pd-1', orderid: null })).toBe(
      `Payment link ${id}`,
    );
    // an old row naming the payout by its order: said as the payout's id all the same
    expect(auditTargetWords('payout:1000123', payout, shortAuditId)).toBe(
      'Payout 1f3a5b7c… · order 1000123',
    );
    expect(
      auditTargetWords('user:u1', { kind: 'user', id: 'u1', label: 'a@b.test', orderid: null }),
    ).toBe('User a@b.test');
    expect(auditTargetWords('card-ref:910000022', null)).toBe('Card reference 910000022');
    expect(auditTargetWords('account:x@y.test', null)).toBe('Sign-in e-mail (no user) x@y.test');
    expect(auditTargetWords('thing:1', null)).toBeNull();
    expect(auditTargetWords(null, null)).toBeNull();
    expect(AUDIT_CSV_HEADER.at(-1)).toBe('targetInWords');
  });

  it('when a list row carries no resolved target, then it reads as null (the raw target is all there is)', () => {
    expect(AuditListResponseSchema.parse(page([row])).items[0]?.targetRef).toBeNull();
    expect(
      AuditListResponseSchema.parse(page([{ ...row, targetRef: null }])).items[0]?.targetRef,
    ).toBeNull();
  });

  it('when a target is of a kind the contract does not know, then the reply is refused', () => {
    const result = AuditListResponseSchema.safeParse(
      page([{ ...row, targetRef: { kind: 'thing', id: '1', label: 'x' } }]),
    );
    expect(result.success).toBe(false);
  });

  it('when a verification says which row records it, then that row is kept; a reply without it still parses', () => {
    const reply = {
      ok: true,
      rowsChecked: 42,
      verifiedUpToSeq: 42,
      firstBrokenSeq: null,
      reason: null,
      head: { seq: 42, hash, createdAt: '2026-11-21T09:00:00.000Z' },
    };
    expect(AuditVerifyResponseSchema.parse({ ...reply, recordedSeq: 43 }).recordedSeq).toBe(43);
    expect(AuditVerifyResponseSchema.parse(reply).recordedSeq).toBeUndefined();
    expect(AuditVerifyResponseSchema.safeParse({ ...reply, recordedSeq: 0 }).success).toBe(false);
  });
});
