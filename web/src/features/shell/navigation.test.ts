import { describe, expect, it } from 'vitest';
import { navigationFor, safeNextPath } from './navigation';

describe('navigation', () => {
  it('when the user is an auditor (and admin), then Home comes first and the audit log and users are listed', () => {
    const paths = navigationFor(['admin', 'auditor']).map((s) => s.path);
    expect(paths[0]).toBe('/');
    expect(paths).toEqual(
      expect.arrayContaining(['/transactions', '/payouts', '/audit', '/users']),
    );
    expect(paths.at(-1)).toBe('/account');
  });

  it('when the user is an auditor only, then the users are listed beside the audit log (to read)', () => {
    expect(navigationFor(['auditor']).map((s) => s.path)).toEqual(
      expect.arrayContaining(['/audit', '/users']),
    );
  });

  it('when the user is an admin only, then Home, users and their account are all they get', () => {
    expect(navigationFor(['admin']).map((s) => s.path)).toEqual(['/', '/users', '/account']);
  });

  it('when the user is support or finance, then Home, transactions and payouts come first, and no audit log or users', () => {
    const paths = navigationFor(['support', 'finance']).map((s) => s.path);
    expect(paths.slice(0, 3)).toEqual(['/', '/transactions', '/payouts']);
    expect(paths).not.toContain('/audit');
    expect(paths).not.toContain('/users');
  });

  it('when the user is support, ops or an auditor, then Cards is listed only for support, and subscriptions and payment links for all three', () => {
    const support = navigationFor(['support']).map((s) => s.path);
    expect(support).toEqual(expect.arrayContaining(['/cards', '/subscriptions', '/payment-links']));
    for (const role of ['ops', 'auditor'] as const) {
      const paths = navigationFor([role]).map((s) => s.path);
      expect(paths).not.toContain('/cards');
      expect(paths).toEqual(expect.arrayContaining(['/subscriptions', '/payment-links']));
    }
    expect(navigationFor(['admin']).map((s) => s.path)).not.toContain('/payment-links');
  });

  it('when next is a foreign or protocol-relative URL, then it is not followed', () => {
    expect(safeNextPath('https://evil.example/')).toBeNull();
    expect(safeNextPath('//evil.example/x')).toBeNull();
    expect(safeNextPath('/\\evil.example')).toBeNull();
    expect(safeNextPath('/sign-in?next=/users')).toBeNull();
    expect(safeNextPath(null)).toBeNull();
    expect(safeNextPath('/audit?outcome=refused')).toBe('/audit?outcome=refused');
  });
});
