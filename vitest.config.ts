import { defineConfig } from 'vitest/config';

// One run over every package that has tests; each package's own vitest.config.ts says how.
export default defineConfig({
  test: {
    projects: ['*/vitest.config.ts'],
  },
});
