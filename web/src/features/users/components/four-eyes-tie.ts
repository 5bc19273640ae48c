// The four-eyes rule's tie (bff/README.md, Roles): an administrator who enables or disables an
// account, or changes its roles, counts as one person with it for payout approvals, for good. Said
// before the step is taken, but only when either of them works with payouts (ops): for anyone else
// it is a rule that can never apply.
import type { Role } from '@paydesk/shared/api';

export const FOUR_EYES_TIE =
  'From then on, you and this account count as one person for payout approvals: neither of you can approve a payout the other prepared.';

/** Whether the tie matters: the account (with any of `accountRoles`) or the admin works with payouts. */
export function tieMatters(
  accountRoles: readonly (readonly Role[])[],
  adminRoles: readonly Role[],
): boolean {
  return adminRoles.includes('ops') || accountRoles.some((roles) => roles.includes('ops'));
}
