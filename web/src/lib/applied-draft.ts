import { useState, type Dispatch, type SetStateAction } from 'react';

/**
 * The draft of a filter form, reset to the applied filter whenever that changes (Apply, Clear,
 * back/forward, a saved view). The form stays mounted, so the keyboard focus stays where it was;
 * typing does not change the applied filter, so a draft is kept until something is applied.
 * `resetTo` puts a filter's draft in the form at once (Clear): applying a filter that is already
 * the applied one (nothing applied yet) changes nothing, so it would leave the draft as typed.
 */
export function useAppliedDraft<Filter, Draft>(
  applied: Filter,
  draftOf: (filter: Filter) => Draft,
  onReset?: () => void,
): [Draft, Dispatch<SetStateAction<Draft>>, (filter: Filter) => void] {
  const appliedKey = JSON.stringify(applied);
  const [draft, setDraft] = useState<Draft>(() => draftOf(applied));
  const [draftFor, setDraftFor] = useState(appliedKey);
  if (draftFor !== appliedKey) {
    // Adjusting state while rendering (React's documented pattern): no effect, no flash.
    setDraftFor(appliedKey);
    setDraft(draftOf(applied));
    onReset?.();
  }
  const resetTo = (filter: Filter) => {
    setDraft(draftOf(filter));
    onReset?.();
  };
  return [draft, setDraft, resetTo];
}
