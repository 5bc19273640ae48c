// Serves the built SPA: hashed assets cached for a year, index.html never cached, and every other
// non-API GET answered with index.html so client-side routes survive a reload.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';

const NOT_BUILT =
  'The Paydesk web app is not built yet. Run `pnpm --filter @paydesk/web build` (or `npm start`, which builds everything) and reload.\n';

export function spaRouter(distDir: string): Router {
  const router = express.Router();
  const index = join(distDir, 'index.html');
  router.use(
    '/assets',
    express.static(join(distDir, 'assets'), {
      index: false,
      fallthrough: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
  );
  router.use(
    express.static(distDir, {
      index: false,
      setHeaders: (res, path) =>
        res.setHeader(
          'Cache-Control',
          path.endsWith('.html') ? 'no-cache' : 'public, max-age=3600',
        ),
    }),
  );
  router.get(/^(?!\/api(\/|$)).*/, (_req, res) => {
    if (!existsSync(index)) {
      res.status(404).type('text/plain').send(NOT_BUILT);
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
