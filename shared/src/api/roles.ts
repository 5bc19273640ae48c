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
  .refine((roles) => new Set(roles).size === roles.length, { message: 'roles must be distinct' });
