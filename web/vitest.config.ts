import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react()],
  test: {
    name: 'web',
    // In-process suites: one worker per core, beside each other (see the root vitest.config.ts).
    maxWorkers: '100%',
    // Workers are reused across files, modules loaded once per worker: the setup file resets what
    // screens share after every test (rendered trees, the live stream, storage, timers and stubs).
    // On a 2-core machine the project ran in 198 s instead of 380 s, and passed with its files
    // shuffled (session 32).
    isolate: false,
    environment: 'jsdom',
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    unstubGlobals: true,
    testTimeout: 60_000,
  },
});
