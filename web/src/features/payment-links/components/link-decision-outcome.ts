import type { PaymentLinkResult } from '@paydesk/shared/api';
import type { Severity } from '../../../components/notifier';
import { asClause } from '../../../lib/gateway-error';
import { shortErrorText } from '../../payouts/api/unanswered-words';
import { payoutResultSeverity } from '../../payouts/components/result-severity';
import { KIND_LABELS } from './link-labels';

/**
 * How the answer to a link's approval or rejection is announced, as a payout's is: a released link
 * is what an approved payout is (a success), and every other state a link shares with a payout
 * means the same (`unknown`: a warning, `failed` or `expired`: an error, `rejected`: a success).
 */
export function linkDecisionSeverity({ link }: Pick<PaymentLinkResult, 'link'>): Severity {
  return payoutResultSeverity(link.state === 'sent' ? 'approved' : link.state);
}

/**
 * What the answer says, in words that invite no second attempt where one would be wrong: an
 * outcome not known yet, or a refusal with its reason; the BFF's own message for the rest (the
 * released page, a rejection).
 */
export function linkDecisionMessage({ link, message }: PaymentLinkResult): string {
  const form = KIND_LABELS[link.kind].toLowerCase();
  const why = shortErrorText(link);
  switch (link.state) {
    case 'unknown':
      // The BFF does not ask the gateway about a link whose reply was lost: only a callback tells.
      return `Not known yet whether the gateway made the ${form}${why === '' ? '' : `: ${asClause(why)}`}. Do not approve it again: it was sent once, and Paydesk never sends it twice. Its page address is not known, so nobody can send it to the payee; Paydesk records whatever its order does when the gateway calls back, and the link’s page shows it. Create a new ${form} only if the payee still needs a page.`;
    case 'failed':
      return `The gateway refused the ${form}${why === '' ? '' : `: ${asClause(why)}`}. No page was made and nothing can be paid with it; it is not sent again. Create a new ${form} once that is dealt with, if the payee is still due the payout.`;
    case 'expired':
      return `The ${form} lapsed before it was approved; nothing was sent. Create it again if the payee is still due the payout.`;
    case 'pending_approval':
    case 'sending':
    case 'sent':
    case 'rejected':
      return message;
  }
}

/** The answer with the words it is announced with. */
export function withDecisionMessage(result: PaymentLinkResult): PaymentLinkResult {
  return { ...result, message: linkDecisionMessage(result) };
}
