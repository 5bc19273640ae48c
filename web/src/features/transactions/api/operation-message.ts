import type { OperationKind, OperationResult } from '@paydesk/shared/api';
import { voidedMinor } from '@paydesk/shared/domain';
import { formatMoney } from '../../../lib/format';
import { fromMinor, toMinor } from '../../../lib/money';
import { errorText } from '../../../lib/gateway-error';
import { OPERATION_LABELS } from '../components/labels';
import { answerClause, gatewayAnswerOf } from './gateway-answer';

/** 'Card reference' → 'card reference'; a name that starts with an acronym ('PAN …') stays. */
export function inSentence(kind: OperationKind): string {
  const label = OPERATION_LABELS[kind];
  return /^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}

/** What the gateway said about a refused or failed operation, if anything: ' (05: Do not honour)'. */
function gatewayWords(result: OperationResult): string {
  const words = errorText(result.operation.errorCode, result.operation.errorMessage);
  return words === '' ? '' : ` (${words})`;
}

/**
 * The sentence staff read after sending a follow-up (capture, return, void, card reference) or a
 * rebill: written here from the reply's operation (kind, amount, state) and order (currency, card
 * reference), so that its money reads as everywhere else in Paydesk ('€40.50'), not as the BFF's
 * plain decimal text.
 */
export function describeOperationResult(result: OperationResult): string {
  const { operation, transaction } = result;
  // A void carries no amount of its own: once the order is voided, what it took back is the
  // order's (as the page's "Voided" row says), so "Void of €20.00 approved" (QA: it named none).
  const voided =
    operation.kind === 'void' && operation.state === 'approved'
      ? voidedMinor({
          stage: transaction.stage,
          authorizedMinor: toMinor(transaction.amounts.authorized) ?? 0n,
          capturedMinor: toMinor(transaction.amounts.captured) ?? 0n,
        })
      : null;
  const shown = operation.amount ?? (voided === null ? null : fromMinor(voided));
  const amount = shown === null ? '' : ` of ${formatMoney(shown, transaction.currency)}`;
  const what = `the ${inSentence(operation.kind)}${amount}`;
  const What = `${OPERATION_LABELS[operation.kind]}${amount}`;
  switch (operation.state) {
    case 'approved':
      if (operation.kind === 'card-ref') {
        return transaction.cardRefId === null
          ? 'Card reference created.'
          : `Card reference ${transaction.cardRefId} created.`;
      }
      return `${What} approved by the gateway.`;
    case 'sending':
    case 'processing':
      return `The gateway accepted ${what} and is processing it; Paydesk updates the order as soon as the gateway reports its final status.`;
    case 'unknown': {
      // The gateway answered with an error (a 500, say): nothing was lost, but the outcome is open.
      const answer = gatewayAnswerOf(operation);
      if (answer.kind === 'error') {
        // Whatever the error's words ("failed before applying…"), a server error is no proof: the
        // operation is unknown until the order's status says (QA: the two read as a contradiction).
        return `Paydesk sent ${what}${answerClause(answer)}. An error reply does not prove it was not made, so Paydesk is asking the gateway for the order’s status and will not send it again.`;
      }
      return `The gateway’s answer to ${what} was lost. Paydesk is asking the gateway for the order’s status and will not send it again.`;
    }
    case 'declined':
      return `The gateway declined ${what}${gatewayWords(result)}.`;
    case 'filtered':
      return `The gateway’s filters stopped ${what}${gatewayWords(result)}.`;
    case 'error':
      return `${What} ended in an error at the gateway${gatewayWords(result)}.`;
    case 'refused':
      return `The gateway refused ${what}${gatewayWords(result)}.`;
    case 'not_applied':
      return `The gateway did not apply ${what}; nothing changed.`;
    case 'not_sent':
      return `${What} was not sent to the gateway; nothing changed.`;
  }
}
