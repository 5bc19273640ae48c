// Drift after it is flagged (ledger.ts applyStatus, amount-range.ts): who or what found it, as
// its audit row says; whether the two sides agree again since; and finance's review, which clears
// the flag while the timeline and the audit log keep what was reviewed.
import type { DriftReviewBody, TransactionDetail } from '@paydesk/shared/api';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import { AppError } from '../errors.js';
import type { AuditEntry } from '../services/audit.js';
import { lockTransaction, platformTrx } from './db.js';
import type { Ledger } from './ledger.js';
import { iso } from './records.js';
import type { ActorInfo } from './transactions.js';

/**
 * An amount as the drift reasons and the timeline say it, with its currency as the BFF's other
 * messages do (`10.00 EUR`); the bare amount only when the order's currency is not known.
 */
export function moneyText(minor: bigint, currency: string): string {
  const amount = formatMinorUnits(minor);
  return currency === '' ? amount : `${amount} ${currency}`;
}

/** What asked the `status` whose reply showed the drift. */
export type DriftSource = 'lookup' | 'callback' | 'refresh' | 'reconcile';

/** The staff member whose request asked that `status` (an id when known), or null: Paydesk itself. */
export interface DriftFinder {
  id: string | null;
  email: string;
}

/** Who or what found a drift, in words for the audit log. */
export function foundBy(source: DriftSource, finder: DriftFinder | null): string {
  if (finder !== null) {
    // a refresh, or the status check after the gateway refused their capture or void
    return source === 'lookup'
      ? `staff look-up by ${finder.email}`
      : `status check asked by ${finder.email}`;
  }
  switch (source) {
    case 'callback':
      return "callback confirmation (status asked on the gateway's callback)";
    case 'reconcile':
      return "the reconciler (Paydesk's scheduled status check)";
    default:
      return "Paydesk's own status check";
  }
}

/**
 * A `transaction.drift` audit row: by the staff member whose request found it (their refresh or
 * look-up), else by Paydesk (no actor: the audit page says "automatic"). `detectedBy` stays the
 * source's code; `foundBy` says it in words.
 */
export function driftAuditEntry(entry: {
  target: string | null;
  summary: Record<string, unknown>;
  source: DriftSource;
  finder: DriftFinder | null;
}): AuditEntry {
  return {
    actorId: entry.finder?.id ?? null,
    actorEmail: entry.finder?.email ?? null,
    actorRoles: [],
    action: 'transaction.drift',
    target: entry.target,
    summary: {
      ...entry.summary,
      detectedBy: entry.source,
      foundBy: foundBy(entry.source, entry.finder),
    },
    outcome: 'failed',
    errorCode: 'DRIFT',
    requestId: null,
    ip: null,
    userAgent: null,
  };
}

/** `how.actor` of a status reply (an e-mail) with its id when the caller has one. */
export function finderOf(actor: string | null, actorId?: string | null): DriftFinder | null {
  return actor === null ? null : { id: actorId ?? null, email: actor };
}

/**
 * The drift details of a flagged order after a `status` reply applied without drift: the two
 * sides agree again, since `now` (the first such reply; later ones keep its time). Anything
 * unreadable is kept as it is.
 */
export function agreedAgain(details: string | null, now: number): string | null {
  if (details === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return details;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return details;
  if ('agreedSince' in parsed) return details;
  return JSON.stringify({ ...parsed, agreedSince: iso(now) });
}

/** The route's audit row of a review: written in the review's transaction, then said committed. */
export interface ReviewAudit {
  entry: (summary: Record<string, unknown>) => AuditEntry;
  committed: () => void;
}

/**
 * Finance marks an order's drift reviewed, in one database transaction holding the order's row:
 * the flag and its details cleared, a `staff` timeline entry with the comment and the reviewed
 * details, and the route's audit row (`audit.entry`, committed with it). Not flagged (never, or
 * another reviewer was first): 409 `INVALID_STATE`, nothing written. A later drift flags it again.
 */
export async function reviewDrift(
  ledger: Ledger,
  id: string,
  body: DriftReviewBody,
  actor: ActorInfo,
  audit: ReviewAudit,
): Promise<TransactionDetail> {
  const row = await ledger.tx(async (trx) => {
    const before = await lockTransaction(ledger.db, trx, id);
    if (before === undefined) throw new AppError('NOT_FOUND', `no transaction ${id}`);
    if (before.drift !== 1) {
      throw new AppError(
        'INVALID_STATE',
        `Order ${before.orderid} is not flagged for drift (never, or someone has just reviewed it): nothing to review.`,
      );
    }
    const now = ledger.clock.now();
    const reviewed =
      before.drift_details === null
        ? null
        : (JSON.parse(before.drift_details) as Record<string, unknown>);
    const changes = { drift: 0, drift_details: null, updated_at: now };
    await trx.updateTable('transactions').set(changes).where('id', '=', id).execute();
    await ledger.timeline(trx, id, {
      kind: 'staff',
      title: `Drift reviewed by ${actor.email}: ${body.comment}`,
      actor: actor.email,
      data: { comment: body.comment, reviewed },
    });
    const reasons = reviewed?.reasons;
    await ledger.audit.appendIn(
      platformTrx(trx),
      audit.entry({
        orderid: before.orderid,
        comment: body.comment,
        reviewed: Array.isArray(reasons) ? reasons : [],
      }),
    );
    return { ...before, ...changes };
  });
  audit.committed();
  ledger.publish(row, false);
  const detail = await ledger.detail(ledger.k, id);
  if (detail === null) throw new AppError('NOT_FOUND', `no transaction ${id}`);
  return detail;
}
