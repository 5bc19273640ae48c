import type { Operation, OperationKind } from '@paydesk/shared/api';
import { notMadeFollowUps } from '@paydesk/shared/domain';
import { errorText } from '../../../lib/gateway-error';

/**
 * What Paydesk heard back for an operation (or a plan's create) whose outcome it does not know,
 * from the `unanswered` the BFF records when it happens: the gateway answered with an error (its
 * HTTP status, and its own code and message when it sent them), no answer came within the wait, or
 * none came at all (the connection closed, an unreadable reply, or nothing recorded). The recorded
 * `errorMessage` is for the timeline; it is never read here.
 */
export type GatewayAnswer =
  { kind: 'error'; words: string } | { kind: 'timeout'; seconds: number } | { kind: 'none' };

/** A wait in seconds as staff read it: `15`, `1.5`; under a second, whole (`1`, `0`). */
function seconds(ms: number): number {
  return ms < 1000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10;
}

export function gatewayAnswerOf(operation: Pick<Operation, 'unanswered'>): GatewayAnswer {
  const { unanswered } = operation;
  switch (unanswered?.kind) {
    case 'error': {
      const words = errorText(unanswered.code, unanswered.message);
      return {
        kind: 'error',
        words: [`HTTP ${String(unanswered.httpStatus)}`, words === '' ? null : words]
          .filter((w): w is string => w !== null)
          .join(', '),
      };
    }
    case 'timeout':
      return { kind: 'timeout', seconds: seconds(unanswered.waitedMs) };
    default:
      return { kind: 'none' };
  }
}

/**
 * What happened to the request, as a clause after 'Paydesk sent a return of €10.01': ' and the
 * gateway answered with an error (HTTP 500, INTERNAL)', ' but had no answer from the gateway
 * within 15 s', ' but no answer came from the gateway' (a lost connection, or nothing recorded).
 */
export function answerClause(answer: GatewayAnswer): string {
  switch (answer.kind) {
    case 'error':
      return ` and the gateway answered with an error${answer.words === '' ? '' : ` (${answer.words})`}`;
    case 'timeout':
      return ` but had no answer from the gateway within ${String(answer.seconds)} s`;
    case 'none':
      return ' but no answer came from the gateway';
  }
}

/** The follow-ups staff send, and the rebill: what did not happen when one was not applied. */
export const NOT_MADE_EFFECT: Partial<Record<OperationKind, string>> = {
  capture: 'nothing was captured',
  return: 'nothing was returned to the customer',
  void: 'the order was not voided',
  'card-ref': 'no card reference was made',
  rebill: 'the card was not charged',
};

/** What to do about a follow-up not made, if it is still due: for those who may do it again. */
export const REDO_ADVICE: Partial<Record<OperationKind, string>> = {
  capture: 'Capture again if it is still due.',
  return: 'Return again if it is still due.',
  void: 'Void again if it is still due.',
  'card-ref': 'Create the card reference again if it is still needed.',
  rebill: 'Rebill the card again (Cards) if the charge is still due.',
};

/** The same, for those who may not do that follow-up (support, ops): who can. */
export const ASK_REDO_ADVICE: Partial<Record<OperationKind, string>> = {
  capture: 'Ask finance to capture it again if it is still due.',
  return: 'Ask finance to return it again if it is still due.',
  void: 'Ask finance to void it again if it is still due.',
  'card-ref': 'Ask finance to create the card reference again if it is still needed.',
  rebill: 'Ask finance to rebill the card again if the charge is still due.',
};

/** What to do about a follow-up not made: do it again, or (not allowed to) ask finance to. */
export function redoAdvice(kind: OperationKind, mayRedo: boolean): string | undefined {
  return (mayRedo ? REDO_ADVICE : ASK_REDO_ADVICE)[kind];
}

/**
 * The follow-ups staff sent on this order in the last days that the gateway never applied
 * (`not_applied`), oldest first, leaving out one followed by a later request of the same kind by
 * Paydesk being sent, processing, approved or of unknown outcome (made again, or on its way): the
 * rule of Home's card and the list's `notMade=true` (BFF `notAppliedOperations`), shared as
 * `notMadeFollowUps`.
 */
export function recentNotApplied(
  operations: readonly Operation[],
  now: number = Date.now(),
): Operation[] {
  return notMadeFollowUps(operations, now);
}
