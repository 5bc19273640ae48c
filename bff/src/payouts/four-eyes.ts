// Four-eyes (design §5): a payout needs two people. What the product can tell apart is accounts,
// so "another person" means another account, and not one the same person may be working: an admin
// who also prepares payouts could otherwise create two ops accounts with passwords of their
// choosing and prepare with one, approve with the other. The audit log is the record of who
// created and changed which account.
//
// The rule (`refusal`), from the audit log's successful rows:
// - C controls A when C chose A's password (created A, or set or reset its password) and A has
//   not changed its own password since (`session.password_change` by A: from then on only A's
//   holder knows it). Control is transitive: C controls B, B controls A, so C controls A.
// - C is tied to A, for good, when C re-enabled (or disabled) A or changed its roles, or A did so
//   to C: neither approves what the other prepared.
// - An account's acts count as those of every account that controls it. So an approval of what P
//   prepared by Q is refused when P and Q are the same account, when one controls the other, when
//   one account controls both, or when an account among P and its controllers is tied to one
//   among Q and its controllers.
//
// One rule, two uses: `requireSeparatePeople` refuses an approval with it, and a `Decider` (one
// query per request, whatever the number of rows) gives the lists their `canDecide` flag and the
// "awaiting my approval" filter from the same graph, so the screens offer approve/reject exactly
// when the server would accept it.
import { AppError } from '../errors.js';
import type { Actor, PayoutsDb } from './context.js';

/**
 * Actions by which an account chooses another's password: creation (`POST /api/users`) and an
 * admin's reset (`POST /api/users/:id/reset-password`); `user.set_password` is reserved.
 */
const PASSWORD_CHOSEN: ReadonlySet<string> = new Set([
  'user.create',
  'user.set_password',
  'user.reset_password',
]);
/** `user.update` changes that shape an account's powers (a tie for good). */
const POWERS_CHANGES = ['roles', 'disabled'];
/** `user.update` changes that would choose the account's password. */
const PASSWORD_CHANGES = ['password', 'newPassword'];
/** The account holder's own password change, which ends every control by a chosen password. */
const SELF_PASSWORD_CHANGE = 'session.password_change';
const USER_UPDATE = 'user.update';
const ACTIONS = [...PASSWORD_CHOSEN, USER_UPDATE, SELF_PASSWORD_CHANGE];

const USER_TARGET = 'user:';

/** What a `user.update` changed: fail closed (powers) when its summary cannot be read. */
function updateKinds(summary: string): { password: boolean; powers: boolean } {
  let change: unknown;
  try {
    change = (JSON.parse(summary) as { change?: unknown }).change;
  } catch {
    return { password: false, powers: true };
  }
  if (typeof change !== 'object' || change === null) return { password: false, powers: true };
  return {
    password: PASSWORD_CHANGES.some((key) => key in change),
    powers: POWERS_CHANGES.some((key) => key in change),
  };
}

function add(map: Map<string, Set<string>>, from: string, to: string): void {
  let set = map.get(from);
  if (set === undefined) {
    set = new Set();
    map.set(from, set);
  }
  set.add(to);
}

/** Every account reachable from `start` through `edges`, `start` included. */
function reach(
  edges: ReadonlyMap<string, ReadonlySet<string>>,
  start: Iterable<string>,
): Set<string> {
  const seen = new Set(start);
  const queue = [...seen];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const other of edges.get(next) ?? []) {
      if (seen.has(other)) continue;
      seen.add(other);
      queue.push(other);
    }
  }
  return seen;
}

/** Who controls and who is tied to whom, as the audit log says now. */
export class AccountControl {
  /** account → the accounts that chose its password (still in force) */
  readonly #controllers = new Map<string, Set<string>>();
  /** account → the accounts whose password it chose (still in force) */
  readonly #controlled = new Map<string, Set<string>>();
  /** account → the accounts it is tied to for good (roles, re-enabling; both ways) */
  readonly #ties = new Map<string, Set<string>>();
  /** account id → e-mail, as the audit rows name them (for messages) */
  readonly #emails = new Map<string, string>();

  /** Applies one successful audit row; rows must come in the log's order. */
  apply(row: {
    action: string;
    summary: string;
    actor_id: string | null;
    actor_email: string | null;
    target: string | null;
  }): void {
    if (row.target?.startsWith(USER_TARGET) !== true) return;
    const account = row.target.slice(USER_TARGET.length);
    const by = row.actor_id;
    if (by !== null && row.actor_email !== null) this.#emails.set(by, row.actor_email);
    if (row.action === SELF_PASSWORD_CHANGE) {
      if (by === account) this.#release(account);
      return;
    }
    // The bootstrap admin (no actor) has no controller; an account's acts on itself tie nothing.
    if (by === null || by === account) return;
    const kinds =
      row.action === USER_UPDATE
        ? updateKinds(row.summary)
        : { password: PASSWORD_CHOSEN.has(row.action), powers: false };
    if (kinds.password) {
      add(this.#controllers, account, by);
      add(this.#controlled, by, account);
    }
    if (kinds.powers) {
      add(this.#ties, account, by);
      add(this.#ties, by, account);
    }
  }

  /** `account` chose a password of its own: no one else knows it any more. */
  #release(account: string): void {
    for (const by of this.#controllers.get(account) ?? [])
      this.#controlled.get(by)?.delete(account);
    this.#controllers.delete(account);
  }

  /** `account` and every account that controls it, directly or through others. */
  operators(account: string): Set<string> {
    return reach(this.#controllers, [account]);
  }

  /**
   * Every account whose prepared items `approver` may never decide on: those whose operators meet
   * the approver's operators or an account tied to one of them.
   */
  excludedFor(approver: string): Set<string> {
    const near = new Set<string>();
    for (const op of this.operators(approver)) {
      near.add(op);
      for (const tied of this.#ties.get(op) ?? []) near.add(tied);
    }
    // An account whose operators include one of `near` is `near` itself or one it controls.
    return reach(this.#controlled, near);
  }

  /** Why `approver` may not approve what `preparer` prepared, or null when they may. */
  refusal(preparer: string, approver: string): string | null {
    if (preparer === approver) return 'an account cannot approve what it prepared';
    if (!this.excludedFor(approver).has(preparer)) return null;
    const ofPreparer = this.operators(preparer);
    const ofApprover = this.operators(approver);
    if (ofApprover.has(preparer))
      return `the password of your account was chosen by the preparer's account (or by an account it controls), and you have not changed it since`;
    if (ofPreparer.has(approver))
      return `your account (or an account it controls) chose the password of the preparer's account, which has not been changed by its holder since`;
    const common = [...ofPreparer].find((id) => ofApprover.has(id));
    if (common !== undefined)
      return `both accounts are controlled by ${this.#name(common)}: it chose their passwords (or those of accounts that did) and they have not been changed by their holders since`;
    return `one of the two accounts (or an account that controls it) re-enabled the other or changed its roles`;
  }

  #name(id: string): string {
    const email = this.#emails.get(id);
    return email === undefined ? 'one account' : `the account ${email}`;
  }
}

/** The control graph from the audit log: one query. */
export async function accountControl(k: PayoutsDb): Promise<AccountControl> {
  const rows = await k
    .selectFrom('audit_log')
    .select(['action', 'summary', 'actor_id', 'actor_email', 'target'])
    .where('action', 'in', ACTIONS)
    .where('outcome', '=', 'success')
    .orderBy('seq', 'asc')
    .execute();
  const control = new AccountControl();
  for (const row of rows) control.apply(row);
  return control;
}

/**
 * Refuses (403 FOUR_EYES_REQUIRED) an approval by `approverId` of something `preparerId` prepared
 * when the rule above says one person may be working both accounts.
 */
export async function requireSeparatePeople(
  k: PayoutsDb,
  preparerId: string,
  approverId: string,
  what: 'payout' | 'payout form',
): Promise<void> {
  const why = (await accountControl(k)).refusal(preparerId, approverId);
  if (why !== null) {
    throw new AppError(
      'FOUR_EYES_REQUIRED',
      `Every payout needs two people, and these two accounts may be one person's: ${why}. Another ops user must approve this ${what}.`,
    );
  }
}

/** What one viewer may decide on, for every row of a reply. */
export interface Decider {
  /** Whether the viewer may be offered approve/reject on something `preparerId` prepared. */
  mayDecide(preparerId: string, pending: boolean): boolean;
  /**
   * Preparers whose items the viewer may never decide on (themselves and the accounts the rule
   * ties to them), for the "awaiting my approval" filter; empty when the viewer decides on nothing.
   */
  readonly excludedPreparers: readonly string[];
}

/** For replies no viewer reads (events) and viewers who approve nothing. */
export const DECIDES_NOTHING: Decider = {
  mayDecide: () => false,
  excludedPreparers: [],
};

/**
 * The viewer's decisions: an ops user, on pending items prepared by an account the rule keeps
 * apart from theirs (the rule `requireSeparatePeople` enforces). One query for any number of rows.
 */
export async function deciderFor(k: PayoutsDb, viewer: Actor | null): Promise<Decider> {
  if (!viewer?.roles.includes('ops')) return DECIDES_NOTHING;
  const excluded = (await accountControl(k)).excludedFor(viewer.id);
  excluded.add(viewer.id);
  return {
    mayDecide: (preparerId, pending) => pending && !excluded.has(preparerId),
    excludedPreparers: [...excluded],
  };
}
