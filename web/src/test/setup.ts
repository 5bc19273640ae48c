import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { resetLiveHub } from '../lib/live-hub';

// jsdom has no matchMedia; MUI's colour scheme and useMediaQuery read it. Light scheme, wide screen.
class FakeMediaQueryList extends EventTarget implements MediaQueryList {
  readonly matches: boolean;
  onchange = null;
  constructor(readonly media: string) {
    super();
    this.matches = media.includes('min-width');
  }
  addListener(): void {
    // legacy API, nothing changes in tests
  }
  removeListener(): void {
    // legacy API, nothing changes in tests
  }
}

if (typeof window.matchMedia !== 'function') {
  Object.defineProperty(window, 'matchMedia', {
    configurable: true,
    value: (query: string): MediaQueryList => new FakeMediaQueryList(query),
  });
}

// Lazy route chunks are transformed and evaluated on first use, and CI machines can be several
// times slower than a laptop while other suites run beside these; findBy* and waitFor only wait
// this long when something is missing, so a generous limit costs nothing when tests pass.
configure({ asyncUtilTimeout: 20_000 });

afterEach(() => {
  cleanup();
  // Each test's screens get a stream of their own fake BFF, not one lingering from the last test.
  resetLiveHub();
  window.localStorage.clear();
});
