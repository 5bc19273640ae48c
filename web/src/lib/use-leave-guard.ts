import { useEffect, useSyncExternalStore } from 'react';

/** What leaving now would cost: a form's typed text, or a request still on its way. */
export type LeaveRisk = 'typed' | 'sending';

// The forms that would lose something now, each with what. One store for the whole app, read by
// the one back guard (`BackGuard`): a router runs one blocker at a time.
const risks = new Map<symbol, LeaveRisk>();
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of listeners) listener();
}

/** What leaving would cost right now: 'sending' over 'typed'; null when nothing. */
export function leaveRisk(): LeaveRisk | null {
  let risk: LeaveRisk | null = null;
  for (const each of risks.values()) {
    if (each === 'sending') return each;
    risk = each;
  }
  return risk;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `leaveRisk()`, kept current in a component. */
export function useLeaveRisk(): LeaveRisk | null {
  return useSyncExternalStore(subscribe, leaveRisk);
}

/**
 * While `risk` is set (a form holds something typed or chosen, or its request is on its way),
 * leaving asks first: a page reload, a tab close or a link out of the app asks the browser's own
 * "Leave this page?", and the browser's Back and Forward inside the app ask ours (`BackGuard`).
 * Inside the app a dirty dialog closes only by its Cancel, and the browser's ways out should not
 * lose the same work silently. Registered only while set, and removed when it stops being so or
 * the form goes (closed, sent), so a clean page never asks.
 */
export function useLeaveGuard(risk: LeaveRisk | null): void {
  useEffect(() => {
    if (risk === null) return undefined;
    const key = Symbol('leave-guard');
    risks.set(key, risk);
    changed();
    // The standard way to ask (the browser's own words; a page's text is no longer shown).
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => {
      window.removeEventListener('beforeunload', ask);
      risks.delete(key);
      changed();
    };
  }, [risk]);
}
