import { defineConfig } from 'vitest/config';

// One run over every package that has tests; each package's own vitest.config.ts says how. Vitest
// runs one file at a time on a 2-core machine by default (cores - 1 workers); the in-process
// suites (bff, web, sandbox, shared) use every core instead, then the `test` suites, which start
// BFF, sandbox and browser processes of their own, run one file at a time.
export default defineConfig({
  test: {
    projects: ['*/vitest.config.ts'],
  },
});
