import type { Operation, OperationResult } from '@paydesk/shared/api';
import { describe, expect, it } from 'vitest';
import { makeTransaction } from '../../../test/fake-bff';
import { describeOperationResult } from './operation-message';

function resultOf(
  operation: Partial<Operation>,
  message = 'The gateway accepted the capture of 40.50 and is processing it.',
): OperationResult {
  const transaction = makeTransaction(1, { type: 'preauth', amount: '40.50' });
  const base = transaction.operations[0]!;
  return {
    operation: {
      ...base,
      id: 'op-follow-up',
      kind: 'capture',
      origin: 'paydesk',
      state: 'processing',
      amount: '40.50',
      requestedBy: 'me@example.com',
      ...operation,
    },
    transaction,
    message,
  };
}

describe('describeOperationResult', () => {
  it('when the gateway accepted a capture, then the amount reads as money in its currency, not as the BFF’s decimal text', () => {
    expect(describeOperationResult(resultOf({}))).toBe(
      'The gateway accepted the capture of €40.50 and is processing it; Paydesk updates the order as soon as the gateway reports its final status.',
    );
  });

  it('when an operation was approved, then its kind and amount are said; a card reference names itself', () => {
    expect(describeOperationResult(resultOf({ kind: 'return', state: 'approved' }))).toBe(
      'Return of €40.50 approved by the gateway.',
    );
    const cardRef = resultOf({ kind: 'card-ref', state: 'approved', amount: null });
    expect(describeOperationResult(cardRef)).toBe('Card reference created.');
    cardRef.transaction.cardRefId = 'ref-77';
    expect(describeOperationResult(cardRef)).toBe('Card reference ref-77 created.');
  });

  it('when the answer was lost, then it says Paydesk asks the gateway and will not send again', () => {
    expect(describeOperationResult(resultOf({ kind: 'void', state: 'unknown' }))).toBe(
      'The gateway’s answer to the void of €40.50 was lost. Paydesk is asking the gateway for the order’s status and will not send it again.',
    );
  });

  it('when the gateway answered with an error (HTTP 500), then it says so, and that the outcome is not known yet', () => {
    expect(
      describeOperationResult(
        resultOf({
          kind: 'return',
          state: 'unknown',
          errorCode: 'INTERNAL',
          errorMessage: 'gateway answered 500',
          unanswered: { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: null },
        }),
      ),
    ).toBe(
      'Paydesk sent the return of €40.50 and the gateway answered with an error (HTTP 500, INTERNAL). An error reply does not prove it was not made, so Paydesk is asking the gateway for the order’s status and will not send it again.',
    );
  });

  it('when the gateway declined, then its own words follow', () => {
    expect(
      describeOperationResult(
        resultOf({ state: 'declined', errorCode: '05', errorMessage: 'Do not honour' }),
      ),
    ).toBe('The gateway declined the capture of €40.50 (05: Do not honour).');
  });

  it('when the order is in another currency, then that currency is shown', () => {
    const result = resultOf({ kind: 'rebill' });
    result.transaction.currency = 'USD';
    expect(describeOperationResult(result)).toBe(
      'The gateway accepted the rebill of $40.50 and is processing it; Paydesk updates the order as soon as the gateway reports its final status.',
    );
  });
});
