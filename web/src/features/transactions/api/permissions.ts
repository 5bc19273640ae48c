import type { FollowUpAction, OperationKind, Role, TransactionDetail } from '@paydesk/shared/api';

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
/** A rebill (`POST /api/rebills`, from the Cards screen). */
const REBILL_ROLES: readonly Role[] = ['finance'];
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

/**
 * May these roles make a follow-up of this kind again (one the gateway did not make): a capture,
 * return, void or card reference on its order, a rebill from the Cards screen. Whether the order
 * still allows it is the order's to say.
 */
export function canRedo(kind: OperationKind, roles: readonly Role[]): boolean {
  switch (kind) {
    case 'capture':
    case 'return':
    case 'void':
    case 'card-ref':
      return holds(roles, FOLLOW_UP_ROLES[kind]);
    case 'rebill':
      return holds(roles, REBILL_ROLES);
    default:
      return false;
  }
}
