import { useEffect } from 'react';

/**
 * While `active` (a form holds something typed or chosen), a page reload, a tab close or a link
 * that leaves the app asks the browser's own "Leave this page?" first: inside the app a dirty
 * dialog closes only by its Cancel, and the browser's way out should not lose the same work
 * silently. Registered only while active, and removed when it stops being so or the form goes
 * (closed, sent), so a clean page never asks.
 */
export function useLeaveGuard(active: boolean): void {
  useEffect(() => {
    if (!active) return undefined;
    // The standard way to ask (the browser's own words; a page's text is no longer shown).
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => {
      window.removeEventListener('beforeunload', ask);
    };
  }, [active]);
}
