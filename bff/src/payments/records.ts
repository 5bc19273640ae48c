// Rows to API views, and the lifecycle facts (shared/src/domain) that the cap checks run on.
import type { Selectable } from 'kysely';
import {
  decideCapture,
  decideCardRef,
  decideReturn,
  decideVoid,
  netMinor,
  type Decision,
  type OrderFacts,
  type OrderKind,
  type OrderStatus,
  type ReturnPlan,
} from '@paydesk/shared/domain';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import {
  paidOutMinor,
  TRANSACTION_TYPES,
  type FollowUpAction,
  type MaskedCard,
  type Operation,
  type OperationKind,
  type OperationState,
  type TimelineEntry,
  type TransactionAmounts,
  type TransactionStatus,
  type TransactionSummary,
  type TransactionType,
} from '@paydesk/shared/api';
import type {
  TransactionOperationsTable,
  TransactionsTable,
  TransactionTimelineTable,
} from './migration.js';
import { unansweredOfRow } from './gateway-errors.js';
import { big } from './db.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Operation states whose amount still counts against a cap without being in the gateway's totals. */
export const IN_FLIGHT_STATES: readonly OperationState[] = ['sending', 'unknown'];

export function asTransactionType(value: string | undefined): TransactionType {
  return (TRANSACTION_TYPES as readonly string[]).includes(value ?? '')
    ? (value as TransactionType)
    : 'unknown';
}

/**
 * Order stages of a two-step payout (a `payout-check` order: payout-check registers it, payout-pay
 * on the same order executes it; the gateway's status keeps `transaction-type` `payout-check` and
 * says `order-stage` `paid`, `last-operation` `payout-pay`) at which the money has left.
 */
export const PAID_PAYOUT_STAGES = ['paid'] as const;

/** Whether the order is a two-step payout that was paid (payout-check, then payout-pay). */
export function isPaidTwoStepPayout(row: Pick<TransactionsTable, 'type' | 'stage'>): boolean {
  return (
    row.type === 'payout-check' &&
    row.stage !== null &&
    (PAID_PAYOUT_STAGES as readonly string[]).includes(row.stage)
  );
}

/**
 * The order's type as the list shows, filters and exports it: the gateway's, except that a
 * two-step payout once paid is a `payout` (money that left, as a single-step payout's); one never
 * paid (registered, expired, refused, or its payout-pay still on its way) stays `payout-check`.
 * The stored `type` stays the gateway's; the timeline shows both steps.
 */
export function listedType(row: Pick<TransactionsTable, 'type' | 'stage'>): TransactionType {
  return isPaidTwoStepPayout(row) ? 'payout' : asTransactionType(row.type);
}

export function maskedCard(
  row: Pick<TransactionsTable, 'card_bin' | 'card_last4' | 'card_brand'>,
): MaskedCard | null {
  if (row.card_last4 === null && row.card_bin === null) return null;
  const last4 = row.card_last4 ?? '****';
  return {
    bin: row.card_bin,
    lastFour: row.card_last4,
    brand: row.card_brand,
    masked: row.card_bin === null ? `**** ${last4}` : `${row.card_bin}******${last4}`,
  };
}

export function toSummary(row: TransactionsTable): TransactionSummary {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    orderid: row.orderid,
    clientOrderId: row.client_orderid,
    type: listedType(row),
    status: row.status as TransactionStatus,
    stage: row.stage,
    currency: row.currency,
    amount: formatMinorUnits(big(row.amount_minor)),
    card: maskedCard(row),
    customerEmail: row.customer_email,
    drift: row.drift === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toOperation(row: TransactionOperationsTable): Operation {
  return {
    id: row.id,
    kind: row.kind as OperationKind,
    origin: row.origin === 'gateway' ? 'gateway' : 'paydesk',
    state: row.state as OperationState,
    amount: row.amount_minor === null ? null : formatMinorUnits(big(row.amount_minor)),
    gatewaySerial: row.gateway_serial,
    requestedBy: row.requested_by,
    reasonCode: row.reason_code,
    comment: row.comment,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    unanswered: unansweredOfRow(row),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toTimelineEntry(row: Selectable<TransactionTimelineTable>): TimelineEntry {
  return {
    id: row.id,
    at: iso(row.at),
    kind: row.kind as TimelineEntry['kind'],
    title: row.title,
    actor: row.actor,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

const KIND_OF_TYPE: Record<string, OrderKind> = {
  sale: 'sale',
  preauth: 'preauth',
  rebill: 'rebill',
  payout: 'payout',
  'payout-check': 'payout',
  'account-verification': 'account-verification',
  transfer: 'transfer',
  'pan-eligibility': 'pan-eligibility',
};

const CAPTURED_STAGES = new Set(['captured', 'settled', 'partially_returned', 'returned']);

/**
 * What the lifecycle rules need, from our record and the operations still awaiting their outcome:
 * in-flight returns count as returned, an in-flight capture as captured, an in-flight void as voided.
 */
export function factsOf(
  row: TransactionsTable,
  ops: readonly TransactionOperationsTable[],
): OrderFacts | null {
  const kind = KIND_OF_TYPE[row.type];
  if (kind === undefined || row.status === 'unknown') return null;
  const inFlight = ops.filter((o) => (IN_FLIGHT_STATES as readonly string[]).includes(o.state));
  const reservedReturns = inFlight
    .filter((o) => o.kind === 'return')
    .reduce((sum, o) => sum + big(o.reserved_minor), 0n);
  const pendingCapture = ops.some(
    (o) =>
      o.kind === 'capture' &&
      o.origin === 'paydesk' &&
      !['not_applied', 'not_sent', 'refused', 'declined', 'error', 'filtered'].includes(o.state),
  );
  const pendingVoid = inFlight.some((o) => o.kind === 'void');
  const captured = big(row.captured_minor);
  const stage = row.stage ?? '';
  return {
    kind,
    status: row.status as OrderStatus,
    authorizedMinor: big(row.authorized_minor),
    capturedMinor: captured,
    returnedMinor: big(row.returned_minor) + reservedReturns,
    captured:
      kind === 'preauth'
        ? captured > 0n || CAPTURED_STAGES.has(stage) || pendingCapture
        : captured > 0n,
    voided: stage === 'voided' || pendingVoid,
    holdCancelled:
      stage === 'hold_cancelled' ||
      inFlight.some((o) => o.kind === 'return' && kind === 'preauth' && captured === 0n),
    settled: stage === 'settled',
    hasCard: row.card_last4 !== null,
  };
}

/**
 * `amounts.reserved`: what in-flight returns hold against the refund cap. An in-flight capture's
 * reservation is against the authorized amount: its operation shows it, it is not counted here.
 */
export function reservedOf(ops: readonly TransactionOperationsTable[]): bigint {
  return ops
    .filter((o) => o.kind === 'return' && (IN_FLIGHT_STATES as readonly string[]).includes(o.state))
    .reduce((sum, o) => sum + big(o.reserved_minor), 0n);
}

/** Follow-ups during whose processing the gateway refuses capture, return and void (sandbox, spec). */
const EXCLUSIVE_WHILE_PROCESSING = new Set(['capture', 'void']);

/**
 * The operation that keeps `action` from being sent now, if any: an operation other than a return
 * or a card reference whose outcome is not known yet (sending, unknown) keeps every action back; a
 * card reference's keeps back only another card reference (it moves no money: a customer's refund
 * does not wait for it; QA); a capture or void the gateway is still processing keeps back a
 * capture, return or void (the gateway refuses them meanwhile; returns may overlap each other).
 */
export function busyOperation(
  ops: readonly TransactionOperationsTable[],
  action: FollowUpAction,
): { op: TransactionOperationsTable; why: 'awaiting' | 'processing' } | null {
  for (const o of ops) {
    if (o.kind === 'return') continue;
    if (o.kind === 'card-ref' && action !== 'card-ref') continue;
    if ((IN_FLIGHT_STATES as readonly string[]).includes(o.state))
      return { op: o, why: 'awaiting' };
    if (action !== 'card-ref' && EXCLUSIVE_WHILE_PROCESSING.has(o.kind) && o.state === 'processing')
      return { op: o, why: 'processing' };
  }
  return null;
}

/** Why Paydesk refuses a return on an uncaptured preauth (`decideRefund`). */
export const NOTHING_CAPTURED =
  'Nothing was captured, so there is no money to return: void the hold to release it';

/** Why Paydesk refuses a card reference on a payout (`decideStoredCard`). */
export const PAYEE_CARD =
  'The card of a payout is the payee’s, not a customer’s: Paydesk makes no reference to charge it';

/**
 * A return as Paydesk offers and sends it: one that gives captured money back. The gateway also
 * takes a return on an uncaptured preauth, where it cancels the hold (design §4) and gives nothing
 * back; a void does exactly that and says so, so Paydesk refuses such a return (whatever its
 * amount) and never shows the hold as returnable.
 */
export function decideRefund(facts: OrderFacts, amountMinor?: bigint): Decision<ReturnPlan> {
  const whole = decideReturn(facts);
  if (whole.ok && whole.value.kind === 'cancel-hold')
    return { ok: false, reason: NOTHING_CAPTURED };
  return amountMinor === undefined ? whole : decideReturn(facts, amountMinor);
}

/**
 * A card reference as Paydesk offers and makes it: only from an order whose card the customer
 * agreed to have charged or verified. The gateway also makes one from a payout's card (design §4:
 * any final approved order with card data), but that card is a payee's, who never agreed to be
 * charged: a reference to it would let finance rebill someone Paydesk only ever paid.
 */
export function decideStoredCard(facts: OrderFacts): Decision {
  if (facts.kind === 'payout' || facts.kind === 'pan-eligibility')
    return { ok: false, reason: PAYEE_CARD };
  return decideCardRef(facts);
}

/** Which follow-ups the rules allow now; none that the order is busy for (`busyOperation`). */
export function allowedActions(
  row: TransactionsTable,
  ops: readonly TransactionOperationsTable[],
): FollowUpAction[] {
  const facts = factsOf(row, ops);
  if (facts === null) return [];
  const free = (action: FollowUpAction) => busyOperation(ops, action) === null;
  const actions: FollowUpAction[] = [];
  if (free('capture') && decideCapture(facts).ok) actions.push('capture');
  if (free('return') && decideRefund(facts).ok) actions.push('return');
  if (free('void') && decideVoid(facts).ok) actions.push('void');
  if (free('card-ref') && decideStoredCard(facts).ok && row.card_ref_id === null)
    actions.push('card-ref');
  return actions;
}

export function amountsOf(
  row: TransactionsTable,
  ops: readonly TransactionOperationsTable[],
): TransactionAmounts {
  const facts = factsOf(row, ops);
  const reserved = reservedOf(ops);
  const returned = big(row.returned_minor);
  const captured = big(row.captured_minor);
  let returnable = 0n;
  let capturable = 0n;
  if (facts !== null) {
    const ret = decideRefund(facts);
    if (ret.ok) returnable = ret.value.amountMinor;
    const cap = decideCapture(facts);
    if (cap.ok) capturable = cap.value;
  }
  return {
    amount: formatMinorUnits(big(row.amount_minor)),
    authorized: formatMinorUnits(big(row.authorized_minor)),
    captured: formatMinorUnits(captured),
    returned: formatMinorUnits(returned),
    reserved: formatMinorUnits(reserved),
    remainingReturnable: formatMinorUnits(returnable),
    remainingCapturable: formatMinorUnits(capturable),
    ...paidOutOf(row),
    net: netOf(row),
  };
}

/**
 * `amounts.paidOut` of a payout's order (money out, `paidOutMinor`), as the detail and the CSV
 * export say it; nothing for other orders.
 */
export function paidOutOf(
  row: Pick<TransactionsTable, 'type' | 'stage' | 'status' | 'amount_minor'>,
): { paidOut?: string } {
  const paid = paidOutMinor(
    { type: listedType(row), status: row.status as TransactionStatus, stage: row.stage },
    big(row.amount_minor),
  );
  return paid === null ? {} : { paidOut: formatMinorUnits(paid) };
}

/**
 * What the order kept (`netMinor`): a charge's captured less returned, 0.00 once voided or not
 * approved; null on a payout's order. `amounts.net` of the detail and the CSV export's `net`.
 */
export function netOf(
  row: Pick<TransactionsTable, 'type' | 'status' | 'stage' | 'captured_minor' | 'returned_minor'>,
): string | null {
  const net = netMinor({
    type: row.type,
    status: row.status,
    stage: row.stage,
    capturedMinor: big(row.captured_minor),
    returnedMinor: big(row.returned_minor),
  });
  return net === null ? null : formatMinorUnits(net);
}

/** Gateway operation type (status `operations`, callback `type`) to our operation kind. */
export function operationKindOf(type: string): OperationKind | null {
  switch (type) {
    case 'reversal':
      return 'return';
    case 'create-card-ref':
      return 'card-ref';
    case 'sale':
    case 'preauth':
    case 'capture':
    case 'return':
    case 'void':
    case 'rebill':
    case 'payout':
    case 'payout-check':
    case 'payout-pay':
    case 'account-verification':
    case 'transfer':
    case 'pan-eligibility':
      return type;
    default:
      return null;
  }
}
