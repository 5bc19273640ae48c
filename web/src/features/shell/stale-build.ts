/**
 * After a deploy, a tab still running the previous build asks for route and dialog chunks whose
 * hashed file names no longer exist, and the screen it opens fails to load. Vite's preload helper
 * announces such a failure as a `vite:preloadError` event on the window
 * (https://vite.dev/guide/build#load-error-handling); reloading fetches the new build's index.html
 * and with it the chunks that exist now.
 */

/** When this tab last reloaded for a new build (ms since the epoch), across reloads. */
export const STALE_BUILD_RELOADED_AT_KEY = 'paydesk.staleBuildReloadedAt';

/**
 * A tab reloads for a new build at most this often. A chunk that is still missing after a reload
 * (a deploy half done, a file the new build lacks) then shows the error screen with its Reload
 * button instead of reloading the page over and over.
 */
export const STALE_BUILD_RELOAD_INTERVAL_MS = 10_000;

/**
 * How each browser words a dynamic import whose file is gone (Chromium, Firefox, Safari), and how
 * Vite words a route's stylesheet it could not preload.
 */
const STALE_CHUNK_MESSAGES = [
  /failed to fetch dynamically imported module/i,
  /error loading dynamically imported module/i,
  /importing a module script failed/i,
  /unable to preload css/i,
];

/** Whether `error` is a chunk (module or stylesheet) that failed to load, as after a deploy. */
export function isStaleChunkError(error: unknown): boolean {
  return (
    error instanceof Error && STALE_CHUNK_MESSAGES.some((message) => message.test(error.message))
  );
}

export interface StaleBuildReloadOptions {
  /** where the time of the last reload is kept; it must outlive the reload (the tab's session) */
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
  now?: () => number;
  reload?: () => void;
  /** whether the browser thinks it has a network; offline, a reload shows the browser's own error */
  online?: () => boolean;
}

/**
 * Reloads the page for a new build, unless it did so in the last STALE_BUILD_RELOAD_INTERVAL_MS,
 * the browser is offline, or the time of the reload cannot be kept (then nothing would stop a
 * loop). Says whether it reloads.
 */
export function reloadForNewBuild({
  storage = window.sessionStorage,
  now = Date.now,
  reload = () => {
    window.location.reload();
  },
  online = () => navigator.onLine,
}: StaleBuildReloadOptions = {}): boolean {
  if (!online()) return false;
  const at = now();
  try {
    const last = Number(storage.getItem(STALE_BUILD_RELOADED_AT_KEY));
    // A time in the future (a clock set back) counts as long ago, not as a reload just made.
    if (last > 0 && at >= last && at - last < STALE_BUILD_RELOAD_INTERVAL_MS) return false;
    storage.setItem(STALE_BUILD_RELOADED_AT_KEY, String(at));
  } catch {
    // Storage refused (disabled, full): without the time kept, the error screen asks the user.
    return false;
  }
  reload();
  return true;
}

/**
 * Listens for Vite's `vite:preloadError` and reloads for the new build (see reloadForNewBuild).
 * The event is not cancelled: the import still fails, so until the page goes (or when it may not
 * reload) the route's error screen says Paydesk was updated and offers Reload.
 *
 * What a reload costs: chunks load when a screen or a dialog (or menu, or chart) opens, so the
 * failure comes at a navigation, before anything was typed into what was opening. What the page
 * behind it held goes with it: the list's place and filters are in the address and come back,
 * filters typed but not applied do not. Keeping that would mean leaving the tab on the old build,
 * whose every later screen fails the same way, so Paydesk reloads at once rather than asking.
 * Returns a function that stops listening.
 */
export function reloadOnStaleChunks(
  target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  options: StaleBuildReloadOptions = {},
): () => void {
  const onPreloadError = () => {
    reloadForNewBuild(options);
  };
  target.addEventListener('vite:preloadError', onPreloadError);
  return () => {
    target.removeEventListener('vite:preloadError', onPreloadError);
  };
}
