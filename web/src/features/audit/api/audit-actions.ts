// Audit actions in words for auditors ("Approved a payout", not `payout.approve`). The machine
// name stays beside the words: the Action filter and the CSV export take it, and it is what the
// BFF wrote. The BFF writes the actions of its route rules (bff/src/http/route-table.ts,
// bff/src/payments/route-rules.ts, bff/src/payouts/route-rules.ts, bff/src/views/route-rules.ts)
// and of its own work (reconciler, poller, drift, withdrawals); audit-actions.test.ts lists them.
// The words themselves are shared (AUDIT_ACTION_WORDS): the BFF's route rules are typed by them.
import { auditActionWords } from '@paydesk/shared/api';

/**
 * An action in words: its label, else (an action this screen does not know yet, e.g. from a newer
 * BFF) its name as words, "Payment link: withdraw", so that a row is never left unsaid.
 */
export function auditActionLabel(action: string): string {
  const known = auditActionWords(action);
  if (known !== undefined) return known;
  const [family = '', ...rest] = action.split('.');
  const words = (text: string) => text.replace(/[_-]+/g, ' ').trim();
  const head = words(family);
  const tail = words(rest.join(' '));
  const text = tail === '' ? head : `${head}: ${tail}`;
  return text === '' ? action : text.charAt(0).toUpperCase() + text.slice(1);
}

/** The verbs the action words begin with, as an attempt says them ("Approved" → "approve"). */
const BASE_VERBS: ReadonlyMap<string, string> = new Map([
  ['Approved', 'approve'],
  ['Asked', 'ask'],
  ['Captured', 'capture'],
  ['Changed', 'change'],
  ['Charged', 'charge'],
  ['Checked', 'check'],
  ['Created', 'create'],
  ['Deleted', 'delete'],
  ['Delivered', 'deliver'],
  ['Exported', 'export'],
  ['Found', 'find'],
  ['Learned', 'learn'],
  ['Listed', 'list'],
  ['Looked', 'look'],
  ['Opened', 'open'],
  ['Paid', 'pay'],
  ['Prepared', 'prepare'],
  ['Read', 'read'],
  ['Refunded', 'refund'],
  ['Rejected', 'reject'],
  ['Reset', 'reset'],
  ['Reviewed', 'review'],
  ['Saved', 'save'],
  ['Signed', 'sign'],
  ['Started', 'start'],
  ['Stopped', 'stop'],
  ['Stored', 'store'],
  ['Turned', 'turn'],
  ['Unlocked', 'unlock'],
  ['Voided', 'void'],
  ['Withdrew', 'withdraw'],
]);

/**
 * An action that was refused or failed, as what was tried ("Tried to approve a payout"): its words
 * in the past tense read as done, beside a Refused chip. An action whose words begin otherwise
 * (one Paydesk's own work writes, "Approval lapsed") keeps them.
 */
export function auditAttemptLabel(action: string): string {
  const label = auditActionLabel(action);
  const [first = '', ...rest] = label.split(' ');
  const base = BASE_VERBS.get(first);
  return base === undefined ? label : ['Tried to', base, ...rest].join(' ');
}
