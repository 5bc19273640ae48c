import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  isStaleChunkError,
  reloadOnStaleChunks,
  STALE_BUILD_RELOAD_INTERVAL_MS,
  STALE_BUILD_RELOADED_AT_KEY,
} from './stale-build';

/** What Vite's preload helper dispatches when a lazy chunk's import fails. */
function preloadError(message = 'Failed to fetch dynamically imported module: /assets/x.js') {
  const event = new Event('vite:preloadError', { cancelable: true });
  return Object.assign(event, { payload: new TypeError(message) });
}

describe('reloading for a new build', () => {
  let stop: () => void = () => undefined;
  afterEach(() => {
    stop();
    window.sessionStorage.clear();
  });

  /** Listens as main.tsx does, on a clock the test moves; the reload is a spy (jsdom has none). */
  function listen(online = true) {
    let now = Date.parse('2026-11-25T10:00:00.000Z');
    const reload = vi.fn();
    stop = reloadOnStaleChunks(window, {
      now: () => now,
      reload,
      online: () => online,
    });
    return {
      reload,
      wait: (ms: number) => {
        now += ms;
      },
    };
  }

  it('when a chunk fails to load, then the page reloads once; a second failure within 10 s (the reloaded page still missing it) does not reload again, a later one does', () => {
    const { reload, wait } = listen();
    const first = preloadError();
    window.dispatchEvent(first);
    expect(reload).toHaveBeenCalledTimes(1);
    // The import still fails: the error screen shows while the page goes.
    expect(first.defaultPrevented).toBe(false);

    wait(STALE_BUILD_RELOAD_INTERVAL_MS - 1);
    window.dispatchEvent(preloadError());
    expect(reload).toHaveBeenCalledTimes(1);

    // The next deploy, later in the same tab.
    wait(1);
    window.dispatchEvent(preloadError());
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it('when the page was reloaded for a new build just before it loaded, then a failure on the new page does not reload it again', () => {
    // What the reload before this page load left in the tab's session storage.
    window.sessionStorage.setItem(
      STALE_BUILD_RELOADED_AT_KEY,
      String(Date.parse('2026-11-25T09:59:57.000Z')),
    );
    const { reload } = listen();
    window.dispatchEvent(preloadError());
    expect(reload).not.toHaveBeenCalled();
  });

  it('when the browser is offline, or the session storage refuses the reload’s time, then the page is not reloaded (the error screen offers Reload)', () => {
    const offline = listen(false);
    window.dispatchEvent(preloadError());
    expect(offline.reload).not.toHaveBeenCalled();
    stop();

    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('quota', 'QuotaExceededError');
    });
    const noStorage = listen();
    window.dispatchEvent(preloadError());
    expect(noStorage.reload).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('when it stops listening, then a failure no longer reloads', () => {
    const { reload } = listen();
    stop();
    window.dispatchEvent(preloadError());
    expect(reload).not.toHaveBeenCalled();
  });
});

describe('isStaleChunkError', () => {
  it('when a browser says a dynamic import or a preloaded stylesheet failed, then it is a stale chunk; another error is not', () => {
    for (const message of [
      'Failed to fetch dynamically imported module: https://paydesk.example/assets/shell-route-4f2a.js',
      'error loading dynamically imported module: https://paydesk.example/assets/x.js',
      'Importing a module script failed.',
      'Unable to preload CSS for /assets/x.css',
    ]) {
      expect(isStaleChunkError(new TypeError(message)), message).toBe(true);
    }
    expect(isStaleChunkError(new TypeError('x is undefined'))).toBe(false);
    expect(isStaleChunkError('Failed to fetch dynamically imported module')).toBe(false);
  });
});
