import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The BFF is the only backend: in development Vite proxies /api to it so cookies stay same-origin.
const bffOrigin = 'http://127.0.0.1:8080';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react()],
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: bffOrigin, changeOrigin: false },
    },
  },
  preview: { host: '127.0.0.1', port: 4173 },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The manifest lets test/bench/web-bundle-size.mjs find each route's initial chunks.
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    assetsDir: 'assets',
  },
});
