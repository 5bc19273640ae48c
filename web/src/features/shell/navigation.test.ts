import { describe, expect, it } from 'vitest';
import { homePathFor, navigationFor, safeNextPath } from './navigation';

describe('navigation', () => {
  it('when the user is an auditor (and admin), then home is the audit log and every screen is listed', () => {
    expect(homePathFor(['admin', 'auditor'])).toBe('/audit');
    expect(navigationFor(['admin', 'auditor']).map((s) => s.path)).toEqual([
      '/transactions',
      '/payouts',
      '/audit',
      '/users',
      '/account',
    ]);
  });

  it('when the user is an admin only, then home is the users screen', () => {
    expect(homePathFor(['admin'])).toBe('/users');
  });

  it('when the user is support, finance or ops, then the transactions are home', () => {
    expect(navigationFor(['support', 'finance']).map((s) => s.path)).toEqual([
      '/transactions',
      '/payouts',
      '/account',
    ]);
    expect(homePathFor(['ops'])).toBe('/transactions');
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
