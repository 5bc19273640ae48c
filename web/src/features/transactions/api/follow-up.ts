import type { OperationResult, OperationState, TransactionDetail } from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useRef } from 'react';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { isOutcomeUnknown, useIdempotencyKeeper } from '../../../lib/idempotency';
import { orderName } from '../../../lib/order-number';
import { describeOperationResult } from './operation-message';
import { sendFollowUp, transactionKeys, type FollowUpRequest } from './transactions';

/** A message as a sentence: its first letter a capital, and a full stop at its end. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * A refusal that sending the same request again cannot change (`INVALID_STATE`: the order's state
 * does not allow it, or another operation must settle first): the dialog then offers only Close.
 */
export function isFinalRefusal(error: unknown): boolean {
  return isApiError(error) && error.code === 'INVALID_STATE' && error.fieldErrors.length === 0;
}

/** What a refusal says, with the remaining amount when the server names one. */
export function describeFollowUpError(error: unknown, currency: string): string {
  if (!isApiError(error)) return describeError(error);
  switch (error.code) {
    case 'CAP_EXCEEDED':
    case 'INVALID_STATE': {
      const reason = typeof error.details?.reason === 'string' ? error.details.reason : null;
      const remaining = error.details?.remaining;
      const remainingCurrency =
        typeof error.details?.currency === 'string' ? error.details.currency : currency;
      if (typeof remaining === 'string' && /^\d+\.\d{2}$/.test(remaining)) {
        // The server's message says the remaining amount as plain text: said here in money.
        return `Refused: ${reason ?? error.message}. Remaining: ${formatMoney(remaining, remainingCurrency)}.`;
      }
      // The server's whole sentence, which says what to do next ('…; refresh the order first.'),
      // not only its short reason ('capture outcome not known yet').
      return sentence(error.message);
    }
    case 'IDEMPOTENCY_KEY_REUSED':
      return 'This request was already sent with different details. Close the dialog and open it again.';
    case 'IDEMPOTENCY_IN_FLIGHT':
      return 'The first attempt is still being processed (or was interrupted; it is never sent twice). Send again in a moment to get its result, or close this dialog: the order’s timeline shows the outcome once the gateway confirms it.';
    default:
      return describeError(error);
  }
}

export function severityOf(result: OperationResult): 'success' | 'error' | 'info' {
  switch (result.operation.state) {
    case 'approved':
      return 'success';
    case 'declined':
    case 'error':
    case 'filtered':
    case 'refused':
    case 'not_applied':
    case 'not_sent':
      return 'error';
    default:
      return 'info';
  }
}

/** An operation's states before the gateway's final word: the message after sending says it follows. */
const AWAITING: ReadonlySet<OperationState> = new Set(['sending', 'processing', 'unknown']);

/**
 * Where a follow-up's dialog tells the order's page of an operation whose outcome is still to
 * come (`useOutcomeWhenFinal`). Without a page to tell (null), nothing follows it.
 */
export const AwaitOutcomeContext = createContext<((result: OperationResult) => void) | null>(null);

/**
 * Says the outcome of a follow-up the gateway accepted but had not finished when its reply came
 * ("The gateway accepted the capture… and is processing it…"): once the order as shown
 * (`detail`, refetched on its live events) has the operation final, that message is replaced by
 * the outcome ("Capture of €20.00 approved by the gateway."), so it never stands beside a page that
 * already shows the capture done. The dialog is closed by then: the page holds this, and gives
 * the function to call with the reply (AwaitOutcomeContext).
 */
export function useOutcomeWhenFinal(detail: TransactionDetail): (result: OperationResult) => void {
  const notify = useNotify();
  // The operation awaited; a ref, since a new reply only changes what the next `detail` is read for.
  const awaited = useRef<string | null>(null);
  useEffect(() => {
    const id = awaited.current;
    if (id === null) return;
    const operation = detail.operations.find((o) => o.id === id);
    if (operation === undefined || AWAITING.has(operation.state)) return;
    awaited.current = null;
    const result: OperationResult = { operation, transaction: detail, message: '' };
    notify(describeOperationResult(result), severityOf(result));
  }, [detail, notify]);
  return useCallback((result: OperationResult) => {
    awaited.current = AWAITING.has(result.operation.state) ? result.operation.id : null;
  }, []);
}

/**
 * Sends one follow-up under this dialog's Idempotency-Key (created when the dialog opened, the same
 * for every retry of the same request), reports the operation's outcome in the snackbar (a refusal
 * stays in the dialog) and refreshes the order.
 */
export function useFollowUp(detail: TransactionDetail, onDone: () => void) {
  const keeper = useIdempotencyKeeper();
  const client = useQueryClient();
  const notify = useNotify();
  const awaitOutcome = useContext(AwaitOutcomeContext);
  // Whether the dialog (and its order's page) is still shown when the reply comes: the user may
  // have gone elsewhere while it was on its way.
  const shown = useRef(true);
  useEffect(() => {
    shown.current = true;
    return () => {
      shown.current = false;
    };
  }, []);
  const mutation = useMutation({
    mutationFn: (request: FollowUpRequest) =>
      sendFollowUp(detail.id, request, keeper.keyFor(request.body)),
    onSuccess: async (result) => {
      client.setQueryData(transactionKeys.detail(detail.id), result.transaction);
      // Written from the reply's figures, not the BFF's sentence: money reads as everywhere else.
      // Said on another page, it names the order (QA: on Home, "the gateway's answer to the
      // return of €5.00 was lost" named no order).
      const words = describeOperationResult(result);
      notify(
        shown.current ? words : `${orderName(result.transaction, { capital: true })}: ${words}`,
        severityOf(result),
      );
      // Not final yet: the page says the outcome when it comes.
      awaitOutcome?.(result);
      onDone();
      await client.invalidateQueries({ queryKey: transactionKeys.all });
    },
    // A failure is said once, in the dialog (FollowUpFrame), not also in a snackbar over it.
    onError: async (error) => {
      // A definite refusal often means the order changed meanwhile: show its current amounts.
      if (!isOutcomeUnknown(error)) {
        await client.invalidateQueries({ queryKey: transactionKeys.detail(detail.id) });
      }
    },
  });
  const outcomeUnknown = mutation.isError && isOutcomeUnknown(mutation.error);
  return { mutation, outcomeUnknown };
}
