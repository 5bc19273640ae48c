import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sandbox',
    // In-process suites: one worker per core, beside each other (see the root vitest.config.ts).
    maxWorkers: '100%',
    include: ['src/**/*.test.ts'],
  },
});
