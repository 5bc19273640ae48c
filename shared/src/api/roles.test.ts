import { describe, expect, it } from 'vitest';
import {
  ROLES_CONFLICT_MESSAGE,
  moneyRoleReasonRequired,
  moneyRolesAdded,
  rolesConflict,
  rolesRefusal,
  selfGrantRefusal,
} from './roles.js';
import { CreateUserRequestSchema } from './users.js';

const conflict = { rule: 'roles_conflict', message: ROLES_CONFLICT_MESSAGE };

describe('selfGrantRefusal', () => {
  it('when an administrator adds Operations or Finance to their own roles, then it is refused naming the roles added', () => {
    expect(selfGrantRefusal(['admin', 'ops'], ['admin'])).toEqual({
      rule: 'no_self_grant',
      message: 'You cannot give yourself Operations: another administrator must.',
    });
    expect(selfGrantRefusal(['admin', 'finance'], ['admin'])?.message).toBe(
      'You cannot give yourself Finance: another administrator must.',
    );
    expect(selfGrantRefusal(['support', 'finance', 'ops', 'admin'], ['admin'])?.message).toBe(
      'You cannot give yourself Finance or Operations: another administrator must.',
    );
  });

  it('when they keep or remove a money role they hold, or add another role, then it is allowed', () => {
    expect(selfGrantRefusal(['admin', 'ops'], ['admin', 'ops'])).toBeUndefined();
    expect(selfGrantRefusal(['admin'], ['admin', 'ops', 'finance'])).toBeUndefined();
    expect(selfGrantRefusal(['admin', 'support'], ['admin'])).toBeUndefined();
  });
});

describe('rolesConflict', () => {
  it('when Auditor goes with Operations or Finance on a new account, then it is a segregation-of-duties conflict', () => {
    expect(rolesConflict(['ops', 'auditor'])).toEqual(conflict);
    expect(rolesConflict(['finance', 'auditor'])).toEqual(conflict);
    expect(rolesConflict(['support', 'finance', 'ops', 'auditor'])).toEqual(conflict);
  });

  it('when Auditor goes with Support or Administrator, or a money role without Auditor, then there is none', () => {
    expect(rolesConflict(['admin', 'auditor'])).toBeUndefined();
    expect(rolesConflict(['support', 'auditor'])).toBeUndefined();
    expect(rolesConflict(['finance', 'ops', 'admin'])).toBeUndefined();
  });

  it('when a change adds a role into the mix, then it is refused; when it only keeps or removes roles of an account that already holds it, then it is allowed', () => {
    expect(rolesConflict(['finance', 'auditor'], ['finance'])).toEqual(conflict);
    expect(rolesConflict(['finance', 'auditor'], ['auditor'])).toEqual(conflict);
    expect(rolesConflict(['support', 'ops', 'auditor'], ['ops', 'auditor'])).toEqual(conflict);
    expect(rolesConflict(['ops', 'auditor'], ['ops', 'auditor'])).toBeUndefined();
    expect(rolesConflict(['ops', 'auditor'], ['support', 'ops', 'auditor'])).toBeUndefined();
  });
});

describe('rolesRefusal', () => {
  it('when an administrator adds a money role to themselves, then that is said first, whatever the rest', () => {
    expect(
      rolesRefusal({ roles: ['ops', 'admin', 'auditor'], before: ['admin', 'auditor'], self: true })
        ?.rule,
    ).toBe('no_self_grant');
    expect(
      rolesRefusal({ roles: ['ops', 'admin', 'auditor'], before: ['admin', 'auditor'] }),
    ).toEqual(conflict);
    expect(rolesRefusal({ roles: ['ops', 'admin'], before: ['admin'] })).toBeUndefined();
    expect(
      rolesRefusal({ roles: ['support', 'admin'], before: ['admin'], self: true }),
    ).toBeUndefined();
  });
});

describe('CreateUserRequestSchema roles', () => {
  const body = { email: 'jane@example.com', name: 'Jane', password: 'long-enough-password' };

  it('when Auditor goes with Operations, then the roles are refused with the rule and the words', () => {
    const parsed = CreateUserRequestSchema.safeParse({ ...body, roles: ['ops', 'auditor'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toMatchObject([
      { path: ['roles'], message: ROLES_CONFLICT_MESSAGE, params: { rule: 'roles_conflict' } },
    ]);
    expect(
      CreateUserRequestSchema.safeParse({ ...body, roles: ['ops', 'support'], reason: 'Payouts' })
        .success,
    ).toBe(true);
  });
});

describe('moneyRolesAdded and moneyRoleReasonRequired', () => {
  it('when a change adds Finance, Operations or both, then they are named and a reason is required in their words', () => {
    expect(moneyRolesAdded(['support', 'finance'], ['support'])).toEqual(['finance']);
    expect(moneyRolesAdded(['ops', 'finance'])).toEqual(['finance', 'ops']);
    expect(moneyRoleReasonRequired(['finance'])).toBe('is required to give Finance (say why)');
    expect(moneyRoleReasonRequired(['admin', 'ops'], ['admin'])).toBe(
      'is required to give Operations (say why)',
    );
    expect(moneyRoleReasonRequired(['ops', 'finance', 'support'], ['support'])).toBe(
      'is required to give Finance and Operations (say why)',
    );
    // One kept, one added: only the added one is named.
    expect(moneyRoleReasonRequired(['ops', 'finance'], ['ops'])).toBe(
      'is required to give Finance (say why)',
    );
  });

  it('when a change keeps or removes a money role, or adds another role, then none is added and no reason is required', () => {
    expect(moneyRolesAdded(['finance', 'admin'], ['finance'])).toEqual([]);
    expect(moneyRoleReasonRequired(['finance', 'admin'], ['finance'])).toBeUndefined();
    expect(moneyRoleReasonRequired(['support'], ['support', 'ops', 'finance'])).toBeUndefined();
    expect(moneyRoleReasonRequired(['support', 'admin', 'auditor'], ['support'])).toBeUndefined();
    expect(moneyRoleReasonRequired(['support', 'admin', 'auditor'])).toBeUndefined();
  });
});

describe('CreateUserRequestSchema reason', () => {
  const body = { email: 'jane@example.com', name: 'Jane', password: 'long-enough-password' };

  it('when a new account gets Finance or Operations without a reason, then reason is required in words that name them', () => {
    for (const [roles, named] of [
      [['finance'], 'Finance'],
      [['support', 'ops'], 'Operations'],
      [['finance', 'ops', 'admin'], 'Finance and Operations'],
    ] as const) {
      const parsed = CreateUserRequestSchema.safeParse({ ...body, roles });
      expect(parsed.error?.issues).toMatchObject([
        {
          path: ['reason'],
          message: `is required to give ${named} (say why)`,
          params: { rule: 'required' },
        },
      ]);
    }
  });

  it('when it has one, or its roles move no money, then it parses (the reason trimmed); a blank reason is refused as too short', () => {
    expect(
      CreateUserRequestSchema.parse({ ...body, roles: ['finance'], reason: '  Runs refunds  ' })
        .reason,
    ).toBe('Runs refunds');
    expect(
      CreateUserRequestSchema.safeParse({ ...body, roles: ['support', 'admin'] }).success,
    ).toBe(true);
    expect(
      CreateUserRequestSchema.safeParse({ ...body, roles: ['ops'], reason: '  ' }).error?.issues,
    ).toMatchObject([{ path: ['reason'] }]);
  });

  it('when the roles conflict, then only the roles are named', () => {
    expect(
      CreateUserRequestSchema.safeParse({ ...body, roles: ['ops', 'auditor'] }).error?.issues,
    ).toMatchObject([{ path: ['roles'], params: { rule: 'roles_conflict' } }]);
  });
});
