import type { PayoutDestinationKind, PayoutMode } from '@paydesk/shared/api';

/** A payout's mode in words, as its detail shows it. */
export const MODE_LABELS: Record<PayoutMode, string> = {
  'two-step':
    'Two-step: the gateway checked the payee’s details when it was prepared; approving pays',
  single: 'Single: held unchecked, and sent as a one-step payout when approved',
};

/**
 * What an approver can compare with the payee's details, by destination: what the masked
 * destination and its label show (an IBAN: its country code, check digits and last four).
 */
const WHAT_TO_COMPARE: Record<PayoutDestinationKind, string> = {
  card: 'the card’s digits shown, the cardholder’s name and the expiry',
  bank: 'the account number’s characters shown, the bank name and the BIC',
  ewallet: 'the e-wallet id’s characters shown and the e-wallet type',
  phone: 'the phone number’s last four digits and the FPS bank id',
};

/** Said wherever a single-mode payout may be approved: no one at the gateway has looked at it. */
export function notCheckedWarning(kind: PayoutDestinationKind): string {
  return `Single payout: the gateway has not checked this destination. Before approving, compare ${WHAT_TO_COMPARE[kind]} with the payee’s details.`;
}

/**
 * Said when a single-mode payout is rejected, or withdrawn (`withdrawing`: its preparer's own, and
 * the dialog says "Withdraw" throughout, QA): nothing is compared, since nothing is paid
 * (`notCheckedWarning` is for approving).
 */
export function notCheckedNote(withdrawing: boolean): string {
  return `Single payout: the gateway has not checked this destination. ${withdrawing ? 'Withdrawing' : 'Rejecting'} it sends nothing, and its held destination is erased.`;
}

/** Said when a two-step payout is approved: the gateway's check knows the destination can be paid, not whose it is. */
export function checkedNote(kind: PayoutDestinationKind): string {
  return `The gateway checked that this destination can be paid, not that it is the payee’s: compare ${WHAT_TO_COMPARE[kind]} with the payee’s details.`;
}
