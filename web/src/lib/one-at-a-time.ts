import { useCallback, useRef } from 'react';

/**
 * A guard for a form whose request must leave once: a second submit before the first is answered
 * (a double click or Enter twice, landing before React has re-rendered the button as busy) does
 * nothing. `send` gets a `done` to call when the request is settled; after it, the form may send
 * again ("Send again" after a lost reply, a corrected field).
 *
 *   const once = useOneAtATime();
 *   once((done) => mutation.mutate(body, { onSettled: done }));
 */
export function useOneAtATime(): (send: (done: () => void) => void) => void {
  const busy = useRef(false);
  return useCallback((send: (done: () => void) => void) => {
    if (busy.current) return;
    busy.current = true;
    send(() => {
      busy.current = false;
    });
  }, []);
}
