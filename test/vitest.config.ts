import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'test',
    include: ['src/**/*.test.ts'],
    // These suites start real processes (sandbox, BFF) and wait for them.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
