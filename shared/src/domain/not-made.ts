// Follow-ups the gateway did not make: the one rule of the order page's "… not made" banner (web
// `recentNotApplied`), the home screen's card and the list's `notMade=true` filter (BFF
// `notAppliedOperations`, which says the same in SQL and is tested against `notMadeFollowUps`).

/** How far back a follow-up not made is announced: its order's banner, Home's card, the filter. */
export const NOT_MADE_DAYS = 7;

/**
 * The follow-ups staff send on an order, and the rebill (a new order made from a card reference):
 * when one is judged not applied, nothing moved and it may still be due. Payouts are not here: the
 * payouts screen shows a failed payout.
 */
export const NOT_MADE_KINDS = ['capture', 'return', 'void', 'card-ref', 'rebill'] as const;
export type NotMadeKind = (typeof NOT_MADE_KINDS)[number];

/**
 * The states of a later request of the same kind that made a follow-up not made again, or has it
 * on its way: being sent, accepted and processing, approved, or its outcome not yet known (it may
 * have been made: asking staff to do it a third time could make it twice). A later request also
 * not applied, refused (declined, error, filtered) or failed before it was sent does not.
 */
export const REDONE_STATES = ['sending', 'processing', 'approved', 'unknown'] as const;

/** What the rule reads of an operation; `createdAt` is when Paydesk recorded (sent) it. */
export interface NotMadeFacts {
  kind: string;
  origin: string;
  state: string;
  /** epoch milliseconds, or an ISO 8601 date-time */
  createdAt: number | string;
}

const at = (createdAt: number | string) =>
  typeof createdAt === 'number' ? createdAt : Date.parse(createdAt);

const KINDS: ReadonlySet<string> = new Set(NOT_MADE_KINDS);
const REDONE: ReadonlySet<string> = new Set(REDONE_STATES);

/**
 * The follow-ups of one order (its operations) the gateway did not make and that were not done
 * again, in their order: an operation of `NOT_MADE_KINDS` sent by Paydesk (origin `paydesk`) at or
 * after `now` less `NOT_MADE_DAYS` days that reconciliation judged not applied (`not_applied`),
 * unless a later one of the same kind on the same order, also sent by Paydesk, recorded strictly
 * after it, is in one of `REDONE_STATES` (made again, or on its way).
 *
 * So a return not made then made again leaves; one redone but not made again either stays (both
 * are named); one followed by a follow-up of another kind stays. A rebill redone is a new order:
 * its own not-made rebill stays on the first.
 */
export function notMadeFollowUps<T extends NotMadeFacts>(
  operations: readonly T[],
  now: number,
): T[] {
  const since = now - NOT_MADE_DAYS * 86_400_000;
  return operations.filter(
    (operation) =>
      operation.state === 'not_applied' &&
      operation.origin === 'paydesk' &&
      KINDS.has(operation.kind) &&
      at(operation.createdAt) >= since &&
      !operations.some(
        (later) =>
          later.kind === operation.kind &&
          later.origin === 'paydesk' &&
          REDONE.has(later.state) &&
          at(later.createdAt) > at(operation.createdAt),
      ),
  );
}
