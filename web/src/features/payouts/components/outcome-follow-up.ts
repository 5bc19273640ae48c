import type { Payout, PayoutState } from '@paydesk/shared/api';
import { useQueries, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { useNotify } from '../../../components/notifier';
import { formatMoney } from '../../../lib/format';
import { payoutDetailQueryOptions } from '../api/payouts';
import { PAYOUT_STATE_LOOK } from './payout-state-chip';
import { payoutResultSeverity } from './result-severity';

/** What was not known: whether the payout was paid (an approval), or checked (a prepare). */
export type AwaitedOutcome = 'payment' | 'check';

/**
 * The payouts whose approval was answered "not known yet whether the payout was paid", or whose
 * prepare "not known yet whether the gateway checked the payee's details", each with the
 * `updatedAt` of that answer: the snackbar that said so is outdated once the payout is seen to have
 * changed since into a state that answers it.
 */
type Awaited = ReadonlyMap<string, { answeredAt: string; what: AwaitedOutcome }>;

/** Kept beside the app's query client: it outlives the dialog that raised the snackbar. */
class AwaitedOutcomes {
  private current: Awaited = new Map();
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly snapshot = (): Awaited => this.current;

  add(id: string, answeredAt: string, what: AwaitedOutcome): void {
    this.set(new Map([...this.current, [id, { answeredAt, what }]]));
  }

  remove(id: string): void {
    if (!this.current.has(id)) return;
    const next = new Map(this.current);
    next.delete(id);
    this.set(next);
  }

  private set(next: Awaited): void {
    this.current = next;
    for (const listener of this.listeners) listener();
  }
}

const stores = new WeakMap<QueryClient, AwaitedOutcomes>();

function storeOf(client: QueryClient): AwaitedOutcomes {
  let store = stores.get(client);
  if (store === undefined) {
    store = new AwaitedOutcomes();
    stores.set(client, store);
  }
  return store;
}

/** States in which Paydesk still waits to learn whether the payout was paid. */
const OPEN: ReadonlySet<PayoutState> = new Set<PayoutState>([
  'checking',
  'pending_approval',
  'sending',
  'processing',
  'unknown',
]);

/**
 * What became of a payout whose outcome was not known, as the snackbar says it once it is known:
 * paid, or not paid and why in a word (its page says more); for a check, checked (and waiting for
 * approval) or not. Null while it is still open.
 */
export function knownOutcomeMessage(
  payout: Payout,
  what: AwaitedOutcome = 'payment',
): string | null {
  const subject = `payout of ${formatMoney(payout.amount, payout.currency)} to ${payout.destination.masked}`;
  if (what === 'check') return knownCheckMessage(payout, subject);
  if (OPEN.has(payout.state)) return null;
  if (payout.state === 'approved') return `The gateway paid the ${subject}.`;
  return `The ${subject} was not paid (${PAYOUT_STATE_LOOK[payout.state].label.toLowerCase()}); its page says why and what can be done now.`;
}

/** What became of a prepared payout whose check was not known: checked, or not (null: not yet). */
function knownCheckMessage(payout: Payout, subject: string): string | null {
  switch (payout.state) {
    case 'checking':
      return null;
    case 'pending_approval':
      return `The gateway checked the payee’s details of the ${subject}; it waits for a second ops user’s approval.`;
    case 'check_declined':
      return `The gateway declined the payee’s details of the ${subject}: nothing can be paid; its page says why.`;
    case 'failed':
      return `The gateway did not check the payee’s details of the ${subject}: nothing was paid, and it must be prepared again if it is still due; its page says why.`;
    default:
      // Checked, and moved on since (approved, rejected, lapsed…): its page says where it stands.
      return `The gateway checked the payee’s details of the ${subject}; it is now ${PAYOUT_STATE_LOOK[payout.state].label.toLowerCase()}.`;
  }
}

/**
 * For a payout dialog: remembers that the answer it got left `payout`'s outcome unknown (an
 * approval's payment, `unknown`; a prepare's check, `checking`), when it did, so that the payouts
 * screens replace that snackbar once the outcome is known (`useKnownOutcomeNotices`).
 */
export function useAwaitOutcome(): (payout: Payout, what?: AwaitedOutcome) => void {
  const client = useQueryClient();
  return useCallback(
    (payout: Payout, what: AwaitedOutcome = 'payment') => {
      const open = what === 'check' ? payout.state === 'checking' : payout.state === 'unknown';
      if (open) storeOf(client).add(payout.id, payout.updatedAt, what);
    },
    [client],
  );
}

/**
 * On the payouts screens: follows each payout whose approval's or check's outcome was not known (its
 * detail is refetched on each of its live events), and once it is known replaces the snackbar that said
 * "not known yet" with one that says what became of it (QA: the outdated warning stayed while the
 * page said "The gateway paid it."). The app has one snackbar at a time, so the new one takes the
 * old one's place.
 */
export function useKnownOutcomeNotices(): void {
  const client = useQueryClient();
  const store = storeOf(client);
  const awaited = useSyncExternalStore(store.subscribe, store.snapshot);
  const notify = useNotify();
  const entries = [...awaited];
  const details = useQueries({
    queries: entries.map(([id]) => payoutDetailQueryOptions(id)),
  });
  useEffect(() => {
    entries.forEach(([id, { answeredAt, what }], index) => {
      const payout = details[index]?.data;
      // Only what changed after the answer: a detail fetched before it may still say the state
      // the decision left behind (awaiting approval, or not applied before paying again).
      if (payout === undefined || Date.parse(payout.updatedAt) <= Date.parse(answeredAt)) return;
      const message = knownOutcomeMessage(payout, what);
      if (message === null) return;
      store.remove(id);
      // A check that passed and was followed by more (an approval, a rejection) is news, not a
      // verdict on the check.
      const settledCheck = ['pending_approval', 'check_declined', 'failed'].includes(payout.state);
      notify(
        message,
        what === 'check' && !settledCheck ? 'info' : payoutResultSeverity(payout.state),
      );
    });
  });
}
