// Four-eyes (design §5): a payout needs two people. What the product can tell apart is accounts,
// so "another person" means another account, and not one whose credentials or powers the other
// controlled: an admin who also prepares payouts could otherwise create an ops account with a
// password of their choosing (or re-enable one, or give one the ops role) and approve as it. The
// audit log is the record of who created and changed which account.
//
// One rule, two uses: `requireSeparatePeople` refuses an approval with it, and a `Decider` (one
// query per request, whatever the number of rows) gives the lists their `canDecide` flag and the
// "awaiting my approval" filter from the same ties, so the screens offer approve/reject exactly
// when the server would accept it.
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

const USER_TARGET = 'user:';

/**
 * The accounts tied to `accountId` by account control: those it created, re-enabled (or
 * disabled) or whose roles it changed, and those that did so to it. One query.
 */
export async function accountsTiedTo(k: PayoutsDb, accountId: string): Promise<Set<string>> {
  const self = `${USER_TARGET}${accountId}`;
  const rows = await k
    .selectFrom('audit_log')
    .select(['action', 'summary', 'actor_id', 'target'])
    .where('action', 'in', ['user.create', 'user.update'])
    .where('outcome', '=', 'success')
    .where((eb) => eb.or([eb('actor_id', '=', accountId), eb('target', '=', self)]))
    .execute();
  const tied = new Set<string>();
  for (const r of rows) {
    if (!controls(r.action, r.summary)) continue;
    if (r.actor_id === accountId && r.target?.startsWith(USER_TARGET) === true)
      tied.add(r.target.slice(USER_TARGET.length));
    if (r.target === self && r.actor_id !== null) tied.add(r.actor_id);
  }
  return tied;
}

/** The rule itself: whether `approverId` (tied to `tiedToApprover`) may decide on what `preparerId` prepared. */
function separatePeople(
  preparerId: string,
  approverId: string,
  tiedToApprover: ReadonlySet<string>,
): boolean {
  return preparerId !== approverId && !tiedToApprover.has(preparerId);
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
  if (!separatePeople(preparerId, approverId, await accountsTiedTo(k, approverId))) {
    throw new AppError(
      'FOUR_EYES_REQUIRED',
      `Every payout needs two people: an account cannot approve a ${what} prepared by an account it created, re-enabled or gave roles to (or that did so to it). Another ops user must approve it.`,
    );
  }
}

/** What one viewer may decide on, for every row of a reply. */
export interface Decider {
  /** Whether the viewer may be offered approve/reject on something `preparerId` prepared. */
  mayDecide(preparerId: string, pending: boolean): boolean;
  /**
   * Preparers whose items the viewer may never decide on (themselves and the accounts tied to
   * them), for the "awaiting my approval" filter; empty when the viewer decides on nothing.
   */
  readonly excludedPreparers: readonly string[];
}

/** For replies no viewer reads (events) and viewers who approve nothing. */
export const DECIDES_NOTHING: Decider = {
  mayDecide: () => false,
  excludedPreparers: [],
};

/**
 * The viewer's decisions: an ops user, on pending items prepared by an account other than theirs
 * and not tied to it (the rule `requireSeparatePeople` enforces). One query for any number of rows.
 */
export async function deciderFor(k: PayoutsDb, viewer: Actor | null): Promise<Decider> {
  if (!viewer?.roles.includes('ops')) return DECIDES_NOTHING;
  const tied = await accountsTiedTo(k, viewer.id);
  return {
    mayDecide: (preparerId, pending) => pending && separatePeople(preparerId, viewer.id, tied),
    excludedPreparers: [viewer.id, ...tied],
  };
}
