// The one declarative table of API routes and who may call them. The app registers exactly these
// routes, and every request passes CSRF, authentication and authorization from this table before
// its handler runs. `action` names the audit-log action; reads audit only their refusals.
import type { AuditAction, Role } from '@paydesk/shared/api';
import { PAYMENT_ROUTES } from '../payments/route-rules.js';
import { PAYOUT_ROUTES } from '../payouts/route-rules.js';
import { VIEW_ROUTES } from '../views/route-rules.js';

export type Access = 'public' | 'authenticated' | readonly Role[];

export interface RouteRule {
  access: Access;
  /** one of the actions the audit screen says in words (shared AUDIT_ACTION_WORDS) */
  action: AuditAction;
  /** also audit successful calls (every state-changing route, and sensitive reads) */
  auditSuccess: boolean;
  /**
   * A session whose password is temporary (chosen by an administrator) may call it; every other
   * authenticated route refuses such a session with 403 PASSWORD_CHANGE_REQUIRED (run-route.ts).
   * Only reading the session, signing out and changing the password are.
   */
  duringPasswordChange?: true;
  /**
   * Calling it is not the user's activity: it does not restart the session's idle timeout (the
   * live-event stream, which a screen opens and reopens by itself).
   */
  notActivity?: true;
}

/** The platform's own routes: session, users, audit. */
export const PLATFORM_ROUTES = {
  'POST /api/session': { access: 'public', action: 'session.login', auditSuccess: true },
  'GET /api/session': {
    access: 'authenticated',
    action: 'session.read',
    auditSuccess: false,
    duringPasswordChange: true,
  },
  'DELETE /api/session': {
    access: 'authenticated',
    action: 'session.logout',
    auditSuccess: true,
    duringPasswordChange: true,
  },
  'POST /api/session/password': {
    access: 'authenticated',
    action: 'session.password_change',
    auditSuccess: true,
    duringPasswordChange: true,
  },
  'POST /api/session/totp': {
    access: 'authenticated',
    action: 'session.totp_enrol',
    auditSuccess: true,
  },
  'POST /api/session/totp/confirm': {
    access: 'authenticated',
    action: 'session.totp_confirm',
    auditSuccess: true,
  },
  // Auditors read who the staff are (beside the audit log); only admins change anything.
  'GET /api/users': { access: ['admin', 'auditor'], action: 'user.list', auditSuccess: false },
  'POST /api/users': { access: ['admin'], action: 'user.create', auditSuccess: true },
  'PATCH /api/users/:id': { access: ['admin'], action: 'user.update', auditSuccess: true },
  'POST /api/users/:id/reset-totp': {
    access: ['admin'],
    action: 'user.reset_totp',
    auditSuccess: true,
  },
  'POST /api/users/:id/reset-password': {
    access: ['admin'],
    action: 'user.reset_password',
    auditSuccess: true,
  },
  'POST /api/users/:id/unlock-sign-in': {
    access: ['admin'],
    action: 'user.unlock_sign_in',
    auditSuccess: true,
  },
  'GET /api/audit': { access: ['auditor'], action: 'audit.list', auditSuccess: false },
  'GET /api/audit/verify': { access: ['auditor'], action: 'audit.verify', auditSuccess: true },
  'GET /api/audit/export': { access: ['auditor'], action: 'audit.export', auditSuccess: true },
} as const satisfies Record<string, RouteRule>;

/** Every API route. The three parts never share a key (route-table.test.ts proves it). */
export const ROUTES = {
  ...PLATFORM_ROUTES,
  ...PAYMENT_ROUTES,
  ...PAYOUT_ROUTES,
  ...VIEW_ROUTES,
} as const satisfies Record<string, RouteRule>;

export type RouteKey = keyof typeof ROUTES;

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export function splitRouteKey(key: RouteKey): { method: HttpMethod; path: string } {
  const [method = '', path = ''] = key.split(' ');
  return { method: method.toLowerCase() as HttpMethod, path };
}

/** Whether a session whose password is temporary may call a route with this rule. */
export function allowsTemporaryPassword(rule: RouteRule): boolean {
  return rule.access === 'public' || rule.duringPasswordChange === true;
}

/** Whether `roles` may call a route with `access` (authentication checked separately). */
export function allows(access: Access, roles: readonly Role[]): boolean {
  if (access === 'public' || access === 'authenticated') return true;
  return access.some((r) => roles.includes(r));
}
