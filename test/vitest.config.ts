import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'test',
    // Some of these suites watch timing windows (a request held at the gateway, a lease running
    // out): one file at a time, after the in-process suites, so they never share the cores with
    // another suite.
    maxWorkers: 1,
    sequence: { groupOrder: 1 },
    include: ['src/**/*.test.ts'],
    // They start real processes (sandbox, BFF, Chromium) and wait for them.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
