import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'bff',
    // In-process suites: one worker per core, beside each other (see the root vitest.config.ts).
    maxWorkers: '100%',
    // Workers are reused across files, modules loaded once per worker: every suite builds its own
    // BFF, database and clock, and none relies on module state another left. On a 2-core machine
    // the project ran in 231 s instead of 338 s, and passed with its files shuffled (session 32).
    isolate: false,
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
