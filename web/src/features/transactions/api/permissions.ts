import type { FollowUpAction, Role, TransactionDetail } from '@paydesk/shared/api';

// The client-side mirror of the BFF's route table (bff/src/payments/route-rules.ts); the server
// still decides. An action is offered only when the order's lifecycle (allowedActions, computed
// by the BFF) AND the user's roles allow it.
const FOLLOW_UP_ROLES: Record<FollowUpAction, readonly Role[]> = {
  capture: ['finance'],
  return: ['finance'],
  void: ['finance'],
  'card-ref': ['finance'],
};
const REFRESH_ROLES: readonly Role[] = ['support', 'finance', 'ops'];
export const LOOKUP_ROLES: readonly Role[] = ['support', 'finance', 'ops'];
/** Marking an order's drift reviewed (`POST /api/transactions/:id/drift/review`). */
const DRIFT_REVIEW_ROLES: readonly Role[] = ['finance'];

const holds = (roles: readonly Role[], needed: readonly Role[]) =>
  needed.some((role) => roles.includes(role));

export function offeredActions(
  detail: TransactionDetail,
  roles: readonly Role[],
): FollowUpAction[] {
  return detail.allowedActions.filter((action) => holds(roles, FOLLOW_UP_ROLES[action]));
}

export function canRefresh(roles: readonly Role[]): boolean {
  return holds(roles, REFRESH_ROLES);
}

export function canLookUp(roles: readonly Role[]): boolean {
  return holds(roles, LOOKUP_ROLES);
}

export function canReviewDrift(roles: readonly Role[]): boolean {
  return holds(roles, DRIFT_REVIEW_ROLES);
}
