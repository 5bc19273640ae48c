import { describe, expect, it } from 'vitest';
import {
  ROLES_CONFLICT_MESSAGE,
  rolesConflict,
  rolesRefusal,
  selfMoneyRoleRefusal,
} from './roles.js';
import { CreateUserRequestSchema } from './users.js';

const conflict = { rule: 'roles_conflict', message: ROLES_CONFLICT_MESSAGE };

describe('selfMoneyRoleRefusal', () => {
  it('when an administrator adds Operations or Finance to their own roles, then it is refused naming the roles added', () => {
    expect(selfMoneyRoleRefusal(['admin', 'ops'], ['admin'])).toEqual({
      rule: 'no_self_money_role',
      message: 'You cannot give yourself Operations: another administrator must.',
    });
    expect(selfMoneyRoleRefusal(['admin', 'finance'], ['admin'])?.message).toBe(
      'You cannot give yourself Finance: another administrator must.',
    );
    expect(selfMoneyRoleRefusal(['support', 'finance', 'ops', 'admin'], ['admin'])?.message).toBe(
      'You cannot give yourself Finance or Operations: another administrator must.',
    );
  });

  it('when they keep or remove a money role they hold, or add another role, then it is allowed', () => {
    expect(selfMoneyRoleRefusal(['admin', 'ops'], ['admin', 'ops'])).toBeUndefined();
    expect(selfMoneyRoleRefusal(['admin'], ['admin', 'ops', 'finance'])).toBeUndefined();
    expect(selfMoneyRoleRefusal(['admin', 'support'], ['admin'])).toBeUndefined();
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
    ).toBe('no_self_money_role');
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
    expect(CreateUserRequestSchema.safeParse({ ...body, roles: ['ops', 'support'] }).success).toBe(
      true,
    );
  });
});
