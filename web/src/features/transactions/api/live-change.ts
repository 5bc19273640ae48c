import type { TransactionDetail, TransactionStatus } from '@paydesk/shared/api';
import { isPartlyCaptured, voidedMinor } from '@paydesk/shared/domain';
import { formatMoney } from '../../../lib/format';
import { fromMinor, toMinor } from '../../../lib/money';
import { stageLabel } from '../components/labels';

/** A status within the sentence, in its chip's words ('Unknown outcome' → 'outcome now unknown'). */
const STATUS_WORDS: Record<TransactionStatus, string> = {
  approved: 'now approved',
  processing: 'now processing',
  declined: 'now declined',
  error: 'now in error',
  filtered: 'now filtered',
  unknown: 'outcome now unknown',
};

const minorOf = (amount: string): bigint => toMinor(amount) ?? 0n;

/**
 * What a new stage adds to the sentence, or null when the money already said it: a stage is the
 * gateway's name for where the order's money stands, so a capture said as '€60.00 captured' is not
 * said again as 'captured' (QA: "Order updated: captured $60.00, captured.").
 */
function stageWords(
  after: TransactionDetail,
  said: { captured: boolean; returned: boolean },
): string | null {
  const stage = after.stage;
  if (stage === null) return null;
  const money = (minor: bigint) => formatMoney(fromMinor(minor), after.currency);
  switch (stage) {
    case 'authorized':
      return `${money(minorOf(after.amounts.authorized))} held`;
    case 'captured':
      return said.captured ? null : 'captured';
    case 'partially_returned':
      return said.returned ? null : 'partly returned';
    case 'returned':
      // The money said how much went back this time; the stage says that nothing is left.
      return said.returned ? 'nothing left to return' : 'returned in full';
    case 'voided': {
      const voided = voidedMinor({
        stage,
        authorizedMinor: minorOf(after.amounts.authorized),
        capturedMinor: minorOf(after.amounts.captured),
      });
      return voided === null || voided === 0n ? 'voided' : `${money(voided)} voided`;
    }
    case 'hold_cancelled':
      return `hold of ${money(minorOf(after.amounts.authorized))} released`;
    case 'paid':
      return 'paid out';
    default:
      return stageLabel(stage);
  }
}

/**
 * The live region's sentence for a change someone else made to the order: each change once, in
 * plain words ('Order updated: €60.00 captured, the other €40.00 of the hold released.'): the
 * status, then the money captured or returned, then what the new stage adds to them.
 */
export function describeLiveChange(before: TransactionDetail, after: TransactionDetail): string {
  const changes: string[] = [];
  const money = (minor: bigint) => formatMoney(fromMinor(minor), after.currency);
  const statusChanged = before.status !== after.status;
  if (statusChanged) changes.push(STATUS_WORDS[after.status]);
  const capturedBefore = minorOf(before.amounts.captured);
  const capturedNow = minorOf(after.amounts.captured);
  const captured = capturedNow > capturedBefore;
  if (captured) {
    changes.push(`${money(capturedNow - capturedBefore)} captured`);
    // Capturing part of a hold releases the rest there and then (the page's "Hold released" row).
    const authorized = minorOf(after.amounts.authorized);
    const partly = isPartlyCaptured({
      type: after.type,
      authorizedMinor: authorized,
      capturedMinor: capturedNow,
    });
    if (partly && capturedBefore === 0n) {
      changes.push(`the other ${money(authorized - capturedNow)} of the hold released`);
    }
  }
  const returnedBefore = minorOf(before.amounts.returned);
  const returnedNow = minorOf(after.amounts.returned);
  const returned = returnedNow > returnedBefore;
  if (returned) changes.push(`${money(returnedNow - returnedBefore)} returned`);
  // A failed order's stage is its status ('declined', now declined): said once, as the status.
  const repeatsStatus = after.stage === after.status;
  if (before.stage !== after.stage && !repeatsStatus) {
    const words = stageWords(after, { captured, returned });
    if (words !== null) changes.push(words);
  }
  return changes.length === 0 ? 'Order updated.' : `Order updated: ${changes.join(', ')}.`;
}
