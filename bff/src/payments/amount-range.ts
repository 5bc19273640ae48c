// A `status` reply with an amount Paydesk's columns cannot hold: above 2^53 − 1 minor units (they
// are read as JavaScript numbers, db.ts `toColumn`). Applying it would fail the same way every
// time: a callback answered 500 is delivered again and again, a reconcile job fails at each
// attempt, a staff refresh answers 500. Such a reply is recorded instead (the order flagged as a
// disagreement is, its timeline and the audit log say why) and not applied; the callback is
// answered, the job stopped, staff told (`StatusNotApplied`). ledger.ts `applyStatus` keeps the
// rule for every path that applies a reply.
import { readableAmount, type FieldError } from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { maskPans } from '../services/redact.js';
import { platformTrx, type PayTrx } from './db.js';
import { driftAuditEntry, finderOf, type DriftSource } from './drift.js';
import type { GatewayRefusalDetails } from './gateway-errors.js';
import type { GatewayView, Ledger, TimelineInput } from './ledger.js';
import type { TransactionsTable } from './migration.js';

/** The most a column holds, in minor units (db.ts `toColumn`). */
export const MAX_COLUMN_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An amount as staff read it in these messages, grouped by thousands ('90,071,992,547,409.91'):
 * an ungrouped run of 13 or more digits would be masked as a card number in the audit row and the
 * timeline, and such an amount is the one thing the reader must see. (The shared `readableAmount`:
 * the order-limit refusal, said by the SPA too, groups its limit the same way.)
 */
export function readable(minor: bigint): string {
  return readableAmount(minor);
}

/** One amount of a reply beyond a column: the reply's field, its name in text, the amount. */
interface OutOfRange {
  field: string;
  name: string;
  minor: bigint;
}

function outOfRange(view: GatewayView): OutOfRange[] {
  const amounts: [string, string, bigint | null][] = [
    ['amount', 'amount', view.amountMinor],
    ['captured-amount', 'captured-amount', view.capturedMinor],
    ['returned-amount', 'returned-amount', view.returnedMinor],
    ...view.operations.map((o): [string, string, bigint | null] => [
      'operations',
      `operation ${o.serial} amount`,
      o.amountMinor,
    ]),
  ];
  return amounts.flatMap(([field, name, minor]) =>
    minor !== null && minor > MAX_COLUMN_MINOR ? [{ field, name, minor }] : [],
  );
}

/**
 * The amounts of a `status` reply beyond what a column holds, each named as the reply names it
 * (`amount 99999999999999999.99`); none: an empty list.
 */
export function amountsOutOfRange(view: GatewayView): string[] {
  return outOfRange(view).map((a) => `${a.name} ${readable(a.minor)}`);
}

/**
 * Staff's answer to a `status` reply that was not applied (a look-up, a refresh): 502
 * `GATEWAY_ERROR`, as for any gateway reply Paydesk cannot use, each amount named as a field.
 * `recorded`: the order it was recorded on (flagged, its timeline keeps the reply); null: an order
 * Paydesk does not know, left unrecorded (it cannot hold it).
 */
export class StatusNotApplied extends AppError {
  constructor(view: GatewayView, recorded: string | null) {
    const amounts = outOfRange(view);
    const fields: FieldError[] = amounts.map((a) => ({
      path: a.field,
      rule: 'max_amount',
      message: `${a.name === a.field ? '' : `${a.name} `}${readable(a.minor)} is more than Paydesk can hold exactly (${readable(MAX_COLUMN_MINOR)} at most)`,
    }));
    // None of the reply's own amounts: its returned total with Paydesk's returns it does not list
    // (ledger.ts `totalsOutOfRange`).
    const unlisted = amounts.length === 0;
    if (unlisted) {
      fields.push({
        path: 'returned-amount',
        rule: 'max_amount',
        message: `with Paydesk's returns it does not list, more than Paydesk can hold exactly (${readable(MAX_COLUMN_MINOR)} at most)`,
      });
    }
    const details: GatewayRefusalDetails = {
      gatewayHttpStatus: 200,
      gatewayErrorCode: null,
      fields,
      transactionId: recorded,
    };
    super(
      'GATEWAY_ERROR',
      `The gateway's status of order ${maskPans(view.orderid)} shows ${unlisted ? "a returned-amount that, with Paydesk's returns it does not list, is more than Paydesk can hold exactly" : `${amountsOutOfRange(view).join(', ')}: an amount Paydesk cannot hold exactly`} (${readable(MAX_COLUMN_MINOR)} at most). It was not applied${recorded === null ? ' and the order was not recorded' : '; the order is flagged and its timeline keeps the reply'}. Check the order at the gateway.`,
      details,
    );
    this.name = 'StatusNotApplied';
  }
}

/** Why the reply was not applied, as the timeline, the drift details and the audit row say it. */
export function outOfRangeReason(amounts: readonly string[]): string {
  return `the gateway's status shows ${amounts.join(', ')}, more than Paydesk can hold (${readable(MAX_COLUMN_MINOR)} at most): not applied; check the order at the gateway`;
}

/**
 * Records in `trx`, on a known order, that its `status` reply was not applied for `amounts`: the
 * order flagged as drift with the reason (the list's drift filter and the detail show it), the
 * exchange (null: none to record), the caller's `timelineAfter` and a drift entry in its timeline,
 * and a `transaction.drift` audit row. Nothing else of the order changes. Returns its row as
 * updated.
 */
export async function recordOutOfRange(
  ledger: Ledger,
  trx: PayTrx,
  transactionId: string,
  view: GatewayView,
  amounts: readonly string[],
  how: {
    source: DriftSource;
    exchange: Record<string, unknown> | null;
    /** who asked for the reply (a refresh, a look-up); null or none: Paydesk itself */
    actor?: string | null;
    /** the id of the staff member `actor` names, when known */
    actorId?: string | null;
    timelineAfter?: readonly TimelineInput[];
  },
): Promise<TransactionsTable> {
  const now = ledger.clock.now();
  const reasons = [outOfRangeReason(amounts)];
  const driftDetails = {
    detectedAt: new Date(now).toISOString(),
    reasons,
    gateway: { status: view.status, stage: view.stage, amount: readable(view.amountMinor) },
  };
  await trx
    .updateTable('transactions')
    .set({
      drift: 1,
      drift_details: JSON.stringify(driftDetails),
      last_checked_at: now,
      updated_at: now,
    })
    .where('id', '=', transactionId)
    .execute();
  await trx.executeQuery(
    ledger.timelineInsert(trx, transactionId, [
      ...(how.exchange === null
        ? []
        : [
            {
              kind: how.source === 'reconcile' ? ('reconcile' as const) : ('gateway' as const),
              title: `status: ${view.status} (not applied)`,
              actor: how.actor ?? null,
              data: how.exchange,
            },
          ]),
      ...(how.timelineAfter ?? []),
      {
        kind: 'drift',
        title: `the gateway disagrees with Paydesk: ${reasons.join('; ')}`,
        actor: null,
        data: driftDetails,
      },
    ]),
  );
  await ledger.audit.appendIn(
    platformTrx(trx),
    driftAuditEntry({
      target: `transaction:${transactionId}`,
      summary: { orderid: view.orderid, reasons },
      source: how.source,
      finder: finderOf(how.actor ?? null, how.actorId),
    }),
  );
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
}

/**
 * The `transaction.drift` audit row of a `status` reply not applied to an order Paydesk does not
 * know (nothing to flag: it cannot be created), in `trx`. `summary`: the caller's own facts.
 */
export async function auditNotRecorded(
  ledger: Ledger,
  trx: PayTrx,
  view: GatewayView,
  amounts: readonly string[],
  detectedBy: DriftSource,
  summary: Record<string, unknown> = {},
): Promise<void> {
  await ledger.audit.appendIn(
    platformTrx(trx),
    driftAuditEntry({
      target: null,
      summary: {
        orderid: view.orderid,
        clientOrderId: maskPans(view.clientOrderId),
        ...summary,
        reasons: [outOfRangeReason(amounts)],
      },
      source: detectedBy,
      finder: null,
    }),
  );
}
