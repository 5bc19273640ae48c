// Four-eyes (design §5): a payout needs two people. What the product can tell apart is accounts,
// so "another person" means another account, and not one whose credentials or powers the other
// controlled: an admin who also prepares payouts could otherwise create an ops account with a
// password of their choosing (or re-enable one, or give one the ops role) and approve as it. The
// audit log is the record of who created and changed which account.
import { AppError } from '../errors.js';
import type { Actor, PayoutsDb } from './context.js';

/** `user.update` changes that hand an account's use to the admin who made them. */
const CONTROLLING_CHANGES = ['roles', 'disabled'];

function controls(action: string, summary: string): boolean {
  if (action === 'user.create') return true;
  let change: unknown;
  try {
    change = (JSON.parse(summary) as { change?: unknown }).change;
  } catch {
    return true;
  }
  if (typeof change !== 'object' || change === null) return true;
  return CONTROLLING_CHANGES.some((key) => key in change);
}

/**
 * Refuses (403 FOUR_EYES_REQUIRED) an approval by `approverId` of something `preparerId` prepared
 * when either account created the other, or changed its roles or re-enabled it.
 */
export async function requireSeparatePeople(
  k: PayoutsDb,
  preparerId: string,
  approverId: string,
  what: 'payout' | 'payout-form link',
): Promise<void> {
  const rows = await k
    .selectFrom('audit_log')
    .select(['action', 'summary'])
    .where('action', 'in', ['user.create', 'user.update'])
    .where('outcome', '=', 'success')
    .where((eb) =>
      eb.or([
        eb.and([eb('actor_id', '=', preparerId), eb('target', '=', `user:${approverId}`)]),
        eb.and([eb('actor_id', '=', approverId), eb('target', '=', `user:${preparerId}`)]),
      ]),
    )
    .execute();
  if (rows.some((r) => controls(r.action, r.summary))) {
    throw new AppError(
      'FOUR_EYES_REQUIRED',
      `Every payout needs two people: an account cannot approve a ${what} prepared by an account it created, re-enabled or gave roles to (or that did so to it). Another ops user must approve it.`,
    );
  }
}

/**
 * Whether the viewer may be offered approve/reject on something still pending: an ops user who did
 * not prepare it. (The account-control rule above is checked when they act, with its own message.)
 */
export function mayDecide(viewer: Actor | null, preparerId: string, pending: boolean): boolean {
  return viewer !== null && pending && viewer.roles.includes('ops') && viewer.id !== preparerId;
}
