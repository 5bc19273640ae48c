// Gateway refusals for payouts, payment links and card info: the payments module's mapping, with
// a 404 that does not presume the unknown thing is an order. Staff read these sentences, so the
// gateway's operation names (payout-check, payout-pay, payout-form) never appear in them: only
// the redacted exchange in the timeline's data names the operation, for engineers.
import type { GatewayReply } from '@paydesk/shared/protocol';
import type { GatewayOutcome } from '../gateway-client/client.js';
import type { AppError } from '../errors.js';
import {
  answerText,
  errorAnswerOf,
  gatewayRefusal as refusal,
  unansweredText,
} from '../payments/gateway-errors.js';

/**
 * What each payout request is, in staff's words, for `the … request` and `refused the …`
 * sentences: the two-step check, the pay that follows it, the single payout, the payee's form.
 */
export const PAYOUT_REQUEST_WORDS = {
  check: "check of the payee's details",
  pay: 'payout',
  single: 'payout',
  form: 'payout form',
} as const;

export function gatewayRefusal(
  httpStatus: number,
  reply: GatewayReply,
  operation: string,
): AppError {
  return refusal(httpStatus, reply, operation, 'it');
}

/**
 * The first sentence when a request's outcome was not learned (`subject`: `the payout`): the
 * gateway answered with an error, with its HTTP status and own code said once (`The gateway
 * answered the payout with an error (HTTP 500, INTERNAL: Internal error).`), or its answer was
 * lost, said in words (`The gateway's answer to the payout was lost (no answer within 15 s).`).
 * The payments module's words (`unansweredText`, `answerText`); never the client's reason codes.
 */
export function unlearnedSentence(
  outcome: Extract<GatewayOutcome, { kind: 'unknown' }>,
  subject: string,
): string {
  const answer = errorAnswerOf(outcome);
  if (answer !== null)
    return `The gateway answered ${subject} with an error (${answerText(answer)}).`;
  return `The gateway's answer to ${subject} was lost (${unansweredText(outcome)}).`;
}
