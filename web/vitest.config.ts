import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react()],
  test: {
    name: 'web',
    // In-process suites: one worker per core, beside each other (see the root vitest.config.ts).
    maxWorkers: '100%',
    environment: 'jsdom',
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    unstubGlobals: true,
    testTimeout: 60_000,
  },
});
