// Order lifecycle rules of design §4: which operation may follow which, and the money caps
// returned ≤ captured ≤ authorized. Pure functions over integer minor units (bigint); the sandbox
// enforces them and the BFF checks them before it asks the gateway.

export type OrderKind =
  | 'sale'
  | 'preauth'
  | 'rebill'
  | 'account-verification'
  | 'payout'
  | 'transfer'
  | 'pan-eligibility';

export type OrderStatus = 'processing' | 'approved' | 'declined' | 'error' | 'filtered';

/** The facts about an order that the rules depend on. */
export interface OrderFacts {
  kind: OrderKind;
  /** Status of the order's originating transaction (the sale, preauth, rebill, payout...). */
  status: OrderStatus;
  /** Amount authorized by the originating transaction (the held amount of a preauth). */
  authorizedMinor: bigint;
  /** Amount captured: the sale amount once approved, or the captured part of a preauth. */
  capturedMinor: bigint;
  /** Sum of the returns accepted so far (including those still processing). */
  returnedMinor: bigint;
  /** Whether a capture has been accepted (one capture per preauth). */
  captured: boolean;
  voided: boolean;
  /** Whether a full return cancelled an uncaptured hold. */
  holdCancelled: boolean;
  settled: boolean;
  /** Whether the order carries card data (create-card-ref needs it). */
  hasCard: boolean;
  /** Two-step payouts: where the registered payout stands. */
  payoutStage?: 'registered' | 'paying' | 'paid' | 'expired' | undefined;
}

export type Decision<T = undefined> = { ok: true; value: T } | { ok: false; reason: string };

const ok = <T>(value: T): Decision<T> => ({ ok: true, value });
const refuse = (reason: string): Decision<never> => ({ ok: false, reason });

export const FINAL_STATUSES: readonly OrderStatus[] = ['approved', 'declined', 'error', 'filtered'];

export function isFinal(status: OrderStatus): boolean {
  return status !== 'processing';
}

/** Kinds whose approval moves money to the merchant and which can therefore be returned or voided. */
function isCharge(kind: OrderKind): boolean {
  return kind === 'sale' || kind === 'rebill' || kind === 'preauth' || kind === 'transfer';
}

/** The amount a return or void can still act on: captured minus returned. */
export function refundableMinor(facts: OrderFacts): bigint {
  return facts.capturedMinor - facts.returnedMinor;
}

/** capture: once, on an approved, uncaptured, unvoided preauth; amount ≤ authorized; default = all. */
export function decideCapture(facts: OrderFacts, amountMinor?: bigint): Decision<bigint> {
  if (facts.kind !== 'preauth') return refuse(`capture applies to a preauth, not a ${facts.kind}`);
  if (facts.status !== 'approved') return refuse(`the preauth is ${facts.status}, not approved`);
  if (facts.voided) return refuse('the preauth was voided');
  if (facts.holdCancelled) return refuse('the hold was cancelled by a return');
  if (facts.captured) return refuse('the preauth was already captured (one capture per preauth)');
  const amount = amountMinor ?? facts.authorizedMinor;
  if (amount <= 0n) return refuse('the capture amount must be greater than zero');
  if (amount > facts.authorizedMinor) {
    return refuse('the capture amount exceeds the authorized amount');
  }
  return ok(amount);
}

/** void: an authorized, unsettled transaction; always the full amount; nothing returned yet. */
export function decideVoid(facts: OrderFacts): Decision {
  if (!isCharge(facts.kind)) return refuse(`void does not apply to a ${facts.kind}`);
  if (facts.status !== 'approved') return refuse(`the order is ${facts.status}, not approved`);
  if (facts.voided) return refuse('the order was already voided');
  if (facts.holdCancelled) return refuse('the hold was cancelled by a return');
  if (facts.settled) return refuse('the transaction is settled; use return instead');
  if (facts.returnedMinor > 0n) return refuse('part of the amount was already returned');
  return ok(undefined);
}

export type ReturnPlan =
  { kind: 'cancel-hold'; amountMinor: bigint } | { kind: 'refund'; amountMinor: bigint };

/**
 * return: only when the original is in a final successful status. On an uncaptured preauth it
 * cancels the whole hold (no amount, or exactly the authorized amount). Otherwise partial returns
 * may follow each other until their sum equals the captured amount.
 */
export function decideReturn(facts: OrderFacts, amountMinor?: bigint): Decision<ReturnPlan> {
  if (!isCharge(facts.kind)) return refuse(`return does not apply to a ${facts.kind}`);
  if (facts.status !== 'approved') {
    return refuse(`the order is ${facts.status}, not in a final successful status`);
  }
  if (facts.voided) return refuse('the order was voided');
  if (facts.holdCancelled) return refuse('the hold was already cancelled');
  if (facts.kind === 'preauth' && !facts.captured) {
    if (amountMinor !== undefined && amountMinor !== facts.authorizedMinor) {
      return refuse('a return on an uncaptured preauth cancels the whole hold; no partial amount');
    }
    return ok({ kind: 'cancel-hold', amountMinor: facts.authorizedMinor });
  }
  const rest = refundableMinor(facts);
  if (rest <= 0n) return refuse('the whole captured amount was already returned');
  const amount = amountMinor ?? rest;
  if (amount <= 0n) return refuse('the return amount must be greater than zero');
  if (amount > rest) {
    return refuse('the return amount exceeds the captured amount not yet returned');
  }
  return ok({ kind: 'refund', amountMinor: amount });
}

/** create-card-ref: a final approved order with card data. */
export function decideCardRef(facts: OrderFacts): Decision {
  if (facts.status !== 'approved') return refuse(`the order is ${facts.status}, not approved`);
  if (!facts.hasCard) return refuse('the order carries no card data');
  return ok(undefined);
}

/** payout-pay: a registered, unexpired payout, once. */
export function decidePayoutPay(facts: OrderFacts): Decision {
  if (facts.kind !== 'payout' || facts.payoutStage === undefined) {
    return refuse('payout-pay applies to a payout registered with payout-check');
  }
  switch (facts.payoutStage) {
    case 'registered':
      return ok(undefined);
    case 'expired':
      return refuse('the registered payout expired (24 h after payout-check)');
    case 'paying':
    case 'paid':
      return refuse('the payout was already paid');
  }
}

export type OrderStage =
  | 'processing'
  | 'authorized'
  | 'captured'
  | 'voided'
  | 'partially_returned'
  | 'returned'
  | 'hold_cancelled'
  | 'settled'
  | 'registered'
  | 'paid'
  | 'expired'
  | 'verified'
  | 'declined'
  | 'error'
  | 'filtered';

/** The order-stage shown by status (fields.md "Replies"). */
export function stageOf(facts: OrderFacts): OrderStage {
  if (facts.kind === 'payout' && facts.payoutStage !== undefined) {
    if (facts.payoutStage === 'paying') return 'processing';
    return facts.payoutStage;
  }
  if (facts.status !== 'approved') return facts.status;
  if (facts.voided) return 'voided';
  if (facts.holdCancelled) return 'hold_cancelled';
  if (facts.kind === 'account-verification' || facts.kind === 'pan-eligibility') return 'verified';
  if (facts.kind === 'payout') return 'paid';
  if (facts.kind === 'preauth' && !facts.captured) return 'authorized';
  if (facts.returnedMinor > 0n) {
    return facts.returnedMinor >= facts.capturedMinor ? 'returned' : 'partially_returned';
  }
  return facts.settled ? 'settled' : 'captured';
}

/**
 * What a void gave back or released, on an order whose stage is `voided`: the captured amount of a
 * sale, rebill or capture voided before settlement, or a preauth's whole hold when nothing of it
 * was captured; null on an order that is not voided. (The captured amount stays the gateway's
 * `captured-amount` after a void: this says how much of it went back.)
 */
export function voidedMinor(order: {
  stage: string | null;
  authorizedMinor: bigint;
  capturedMinor: bigint;
}): bigint | null {
  if (order.stage !== 'voided') return null;
  return order.capturedMinor > 0n ? order.capturedMinor : order.authorizedMinor;
}

/**
 * What an order kept, in minor units: on an approved charge (any order but a payout's, `payout` or
 * `payout-check`), what was captured less what was returned; 0 once it was voided (a void gives
 * everything back), when nothing was captured (a preauth whose hold a return cancelled: never
 * negative), and on an order that is not approved (declined, error, processing, unknown...). Null
 * on a payout's order, whose money is what was paid out (`paidOutMinor`). The captured amount is
 * kept after a void and returns are counted apart: this is the one figure to add up.
 */
export function netMinor(order: {
  /** the order's type (`sale`, `preauth`, `payout-check`, ...) */
  type: string;
  /** the order's status (`approved`, `declined`, `unknown`, ...) */
  status: string;
  stage: string | null;
  capturedMinor: bigint;
  returnedMinor: bigint;
}): bigint | null {
  if (order.type === 'payout' || order.type === 'payout-check') return null;
  if (order.status !== 'approved' || order.stage === 'voided') return 0n;
  const kept = order.capturedMinor - order.returnedMinor;
  return kept > 0n ? kept : 0n;
}

/**
 * Whether an order is a preauth of which only part of the hold was captured (the rest released):
 * neither its stage (`captured`, `settled`, and after returns `partially_returned` or `returned`)
 * nor its amount (the whole hold) says so, and it stays true whatever follows the capture.
 */
export function isPartlyCaptured(order: {
  /** the order's type (`preauth`, `sale`, ...) */
  type: string;
  authorizedMinor: bigint;
  capturedMinor: bigint;
}): boolean {
  return (
    order.type === 'preauth' &&
    order.capturedMinor > 0n &&
    order.capturedMinor < order.authorizedMinor
  );
}

export type FollowUp = 'capture' | 'void' | 'return' | 'create-card-ref' | 'payout-pay';

/** What may follow: the follow-up operations the rules allow right now. */
export function allowedFollowUps(facts: OrderFacts): FollowUp[] {
  const result: FollowUp[] = [];
  if (decideCapture(facts).ok) result.push('capture');
  if (decideVoid(facts).ok) result.push('void');
  if (decideReturn(facts).ok) result.push('return');
  if (decideCardRef(facts).ok) result.push('create-card-ref');
  if (decidePayoutPay(facts).ok) result.push('payout-pay');
  return result;
}

/** Whether an approved charge should settle: approved, captured, not voided or cancelled. */
export function canSettle(facts: OrderFacts): boolean {
  if (!isCharge(facts.kind) || facts.status !== 'approved' || facts.settled) return false;
  if (facts.voided || facts.holdCancelled) return false;
  return facts.kind !== 'preauth' || facts.captured;
}

/** Settlement delay after approval (design §4). */
export const SETTLEMENT_DELAY_MS = 24 * 60 * 60 * 1000;
/** A registered two-step payout expires this long after payout-check. */
export const PAYOUT_REGISTRATION_TTL_MS = 24 * 60 * 60 * 1000;
/** The 3DS Method step counts as not completed (threeDSCompInd N) after this long. */
export const THREE_DS_METHOD_TIMEOUT_MS = 10 * 1000;
