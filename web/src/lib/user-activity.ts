// When this page's user last acted: a key, a pointer, the wheel or a touch anywhere on the page
// (loading the page counts). Each API request tells the BFF how long ago that was (shared
// IDLE_HEADER), so the session's idle timeout restarts from the user's input, never from a request
// a screen left alone makes by itself (a refetch after a live event).

const INPUT_EVENTS = ['keydown', 'pointerdown', 'wheel', 'touchstart'] as const;

let lastInputAt = Date.now();
let reportedInputAt: number | undefined;
let watching = false;

function noteInput(): void {
  lastInputAt = Date.now();
}

/** The page (re)loads: its loading is the user's latest input, and the BFF knows of none yet. */
export function resetUserActivity(): void {
  lastInputAt = Date.now();
  reportedInputAt = undefined;
}

/** Starts listening for the user's input (once; a no-op where there is no window). */
export function watchUserInput(): void {
  if (watching || typeof window === 'undefined') return;
  watching = true;
  for (const type of INPUT_EVENTS)
    window.addEventListener(type, noteInput, { capture: true, passive: true });
}

/** When the user last acted on this page (ms since the epoch). */
export function lastUserInputAt(): number {
  return lastInputAt;
}

/** A request that told the BFF of the input at `inputAt` succeeded: the BFF knows of it. */
export function noteInputReported(inputAt: number): void {
  if (reportedInputAt === undefined || inputAt > reportedInputAt) reportedInputAt = inputAt;
}

/**
 * The latest input a successful request told the BFF of, from which its idle timeout runs, or
 * undefined before any.
 */
export function reportedUserInputAt(): number | undefined {
  return reportedInputAt;
}
