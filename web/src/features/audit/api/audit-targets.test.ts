import type { AuditTargetRef } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { auditTargetPath } from './audit-targets';

const id = '1a2b3c4d-0000-4000-8000-000000000001';
const ref = (kind: AuditTargetRef['kind']): AuditTargetRef => ({
  kind,
  id,
  label: 'x',
  orderid: null,
});

describe('the page of an audit row’s target', () => {
  it('when the reader’s role opens the page, then it is the record’s own page (the users list, opened on their row, for a user)', () => {
    expect(auditTargetPath(ref('payout'), ['auditor'])).toBe(`/payouts/${id}`);
    expect(auditTargetPath(ref('transaction'), ['auditor'])).toBe(`/transactions/${id}`);
    expect(auditTargetPath(ref('link'), ['auditor'])).toBe(`/payment-links/${id}`);
    expect(auditTargetPath(ref('subscription'), ['auditor'])).toBe(`/subscriptions/${id}`);
    expect(auditTargetPath(ref('user'), ['auditor'])).toBe(`/users?user=${id}`);
  });

  it('when the reader’s roles do not open the page, or it has none, then there is no link', () => {
    // support reads payouts but does not manage or read the staff's accounts
    expect(auditTargetPath(ref('payout'), ['support'])).toBe(`/payouts/${id}`);
    expect(auditTargetPath(ref('user'), ['support'])).toBeNull();
    expect(auditTargetPath(ref('payout'), ['admin'])).toBeNull();
    expect(auditTargetPath(ref('view'), ['auditor'])).toBeNull();
  });
});
