import { useEffect, useRef } from 'react';

/**
 * A decision taken in a dialog (approve, reject, withdraw) removes the button that opened it: the
 * row leaves the approval queue, or the page no longer offers the decision. The dialog gives the
 * focus back to that button, and once it goes the keyboard focus is left on the page's body. Then
 * `target` takes it (the next row, the page's heading). `deciding`: a dialog is open; `shown`
 * changes whenever what could have held the button changes (the rows, the payout's state).
 */
export function useFocusAfterDecision(
  deciding: boolean,
  shown: unknown,
  target: () => HTMLElement | null,
) {
  const afterDialog = useRef(false);
  const targetRef = useRef(target);
  useEffect(() => {
    targetRef.current = target;
  });
  useEffect(() => {
    if (deciding) {
      afterDialog.current = true;
      return;
    }
    const active = document.activeElement;
    if (afterDialog.current && (active === null || active === document.body)) {
      afterDialog.current = false;
      targetRef.current()?.focus();
    }
  }, [deciding, shown]);
}
