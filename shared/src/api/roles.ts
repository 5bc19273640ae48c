import { z } from 'zod';

/**
 * Staff roles (design §5). A user may hold several.
 * - support: read, status lookup, card info with a stated reason
 * - finance: support + capture, return, void, rebill, payment links
 * - ops: support + payout-check and payout approval (never one's own)
 * - admin: users, roles, settings
 * - auditor: read + audit log
 */
export const ROLES = ['support', 'finance', 'ops', 'admin', 'auditor'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

export const ROLE_LABELS: Readonly<Record<Role, string>> = {
  support: 'Support',
  finance: 'Finance',
  ops: 'Operations',
  admin: 'Administrator',
  auditor: 'Auditor',
};

/** A non-empty set of distinct roles. */
export const RoleSetSchema = z
  .array(RoleSchema)
  .min(1)
  .max(ROLES.length)
  .refine((roles) => new Set(roles).size === roles.length, {
    message: 'must not name a role twice',
  });

/**
 * The roles that move money: Finance (captures, returns, rebills, links) and Operations (payouts
 * and their four-eyes approval).
 */
export const MONEY_ROLES: readonly Role[] = ['finance', 'ops'];

/**
 * The money roles a change gives an account: those in `roles` it did not hold `before` (none for a
 * new account), in `MONEY_ROLES` order. Keeping or removing one adds none.
 */
export function moneyRolesAdded(roles: readonly Role[], before: readonly Role[] = []): Role[] {
  return MONEY_ROLES.filter((role) => roles.includes(role) && !before.includes(role));
}

/**
 * Giving an account a money role says why, as disabling one does (`reason`, kept in the audit
 * row): the words of the refusal (rule `required`, field `reason`) when the change adds one
 * (`moneyRolesAdded`), else undefined. The one rule for the create schema (before: none), the BFF's
 * edit (before: the account's current roles) and the web's dialogs (when to ask).
 */
export function moneyRoleReasonRequired(
  roles: readonly Role[],
  before: readonly Role[] = [],
): string | undefined {
  const added = moneyRolesAdded(roles, before);
  if (added.length === 0) return undefined;
  return `is required to give ${added.map((role) => ROLE_LABELS[role]).join(' and ')} (say why)`;
}

/** Why a change of an account's roles is refused: the field is always `roles`. */
export interface RolesRefusal {
  rule: 'no_self_grant' | 'roles_conflict';
  message: string;
}

const listed = (roles: readonly Role[]) => roles.map((role) => ROLE_LABELS[role]).join(' or ');

/**
 * The roles an administrator may not give themselves: the money roles, and Auditor, who reviews
 * what administrators do too (the audit log records every change of an account: QA found an
 * administrator could make themselves the reader of their own record).
 */
export const NO_SELF_GRANT_ROLES: readonly Role[] = [...MONEY_ROLES, 'auditor'];

/**
 * An administrator may not give themselves a money role: one person could then both create an
 * ops account and approve its payouts, or approve with their own, and four eyes would be two of
 * one person's; nor Auditor (`NO_SELF_GRANT_ROLES`). Another administrator grants it. Removing
 * such a role of one's own stays allowed, as does keeping one already held.
 */
export function selfGrantRefusal(
  roles: readonly Role[],
  before: readonly Role[],
): RolesRefusal | undefined {
  const added = NO_SELF_GRANT_ROLES.filter(
    (role) => roles.includes(role) && !before.includes(role),
  );
  if (added.length === 0) return undefined;
  return {
    rule: 'no_self_grant',
    message: `You cannot give yourself ${listed(added)}: another administrator must.`,
  };
}

/** Segregation of duties: the auditor's words when Auditor meets a money role on one account. */
export const ROLES_CONFLICT_MESSAGE =
  'An auditor reviews payouts and money operations, so cannot also hold Operations or Finance: give these roles to different people.';

/**
 * Segregation of duties: Auditor reviews what Operations and Finance do, so one account does not
 * hold both. `before` is the account's roles before the change (none for a new account): an
 * account that already holds such a mix (made before this rule) keeps working, and a change that
 * only keeps or removes its roles is allowed (renaming it, or taking one of them away); a change
 * that adds any role to a conflicting set is refused.
 */
export function rolesConflict(
  roles: readonly Role[],
  before: readonly Role[] = [],
): RolesRefusal | undefined {
  const conflicting = roles.includes('auditor') && MONEY_ROLES.some((role) => roles.includes(role));
  if (!conflicting) return undefined;
  if (roles.every((role) => before.includes(role))) return undefined;
  return { rule: 'roles_conflict', message: ROLES_CONFLICT_MESSAGE };
}

/**
 * The one rule for a change of an account's roles, used by the BFF (which refuses it) and the web
 * (which says it at the roles field before sending): `self` when the administrator changes their
 * own account. A self-grant is said first: it is refused whatever the rest of the set.
 */
export function rolesRefusal(change: {
  roles: readonly Role[];
  before?: readonly Role[];
  self?: boolean;
}): RolesRefusal | undefined {
  const before = change.before ?? [];
  return (
    (change.self === true ? selfGrantRefusal(change.roles, before) : undefined) ??
    rolesConflict(change.roles, before)
  );
}
