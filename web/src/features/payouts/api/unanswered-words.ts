import type { Payout, PaymentLink, Unanswered } from '@paydesk/shared/api';
import { staffErrorText } from '../../../lib/gateway-error';
import { gatewayAnswerOf } from '../../transactions/api/gateway-answer';

/**
 * How a payout's check or payout, or a link's create, went unlearned (`unanswered`, as the BFF
 * recorded it), as one sentence in the words an order's operations use (`gatewayAnswerOf`): `The
 * gateway answered with an error (HTTP 500, INTERNAL: …)`, `No answer came from the gateway within
 * 15 s`, `No answer came from the gateway` (the connection closed, or an unreadable reply).
 */
export function unansweredSentence(unanswered: Unanswered): string {
  const answer = gatewayAnswerOf({ unanswered });
  switch (answer.kind) {
    case 'error':
      return `The gateway answered with an error${answer.words === '' ? '' : ` (${answer.words})`}`;
    case 'timeout':
      return `No answer came from the gateway within ${String(answer.seconds)} s`;
    case 'none':
      return 'No answer came from the gateway';
  }
}

/**
 * A payout's or payment link's recorded outcome as one sentence for staff: how it went unlearned
 * when it did (`unanswered`; its recorded words are never read for that), else the gateway's
 * refusal or Paydesk's own words (`staffErrorText`). '' when nothing is recorded.
 */
export function recordedErrorText(
  record: Pick<Payout | PaymentLink, 'errorCode' | 'errorMessage' | 'unanswered'>,
): string {
  if (record.unanswered !== null) return unansweredSentence(record.unanswered);
  return staffErrorText(record.errorCode, record.errorMessage);
}

/**
 * A payout's or payment link's recorded outcome as one sentence for staff (`recordedErrorText`),
 * with an error answer said by its HTTP status alone (`The gateway answered 500`): the gateway's
 * own code and words (a sandbox's "injected fault: …", say) stay in the timeline's exchange, for
 * engineers.
 */
export function shortErrorText(
  record: Pick<Payout | PaymentLink, 'errorCode' | 'errorMessage' | 'unanswered'>,
): string {
  if (record.unanswered?.kind === 'error')
    return `The gateway answered ${String(record.unanswered.httpStatus)}`;
  return recordedErrorText(record);
}
