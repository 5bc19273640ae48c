// Serves the built SPA: hashed assets cached for a year, index.html never cached, and every other
// non-API GET answered with index.html so client-side routes survive a reload.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';

const NOT_BUILT =
  'The Paydesk web app is not built yet. Run `pnpm --filter @paydesk/web build` (or `npm start`, which builds everything) and reload.\n';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where a page asked for under another loopback name of PUBLIC_ORIGIN's own loopback address
 * belongs (`127.0.0.1:8080` when PUBLIC_ORIGIN is `http://localhost:8080`), or null. To a person
 * the two are one place; to the browser they are two origins, and sign-in would be refused as
 * cross-site (the CSRF check compares origins). Only loopback names on the same port: behind a
 * proxy the Host header may rightly differ from PUBLIC_ORIGIN.
 */
export function loopbackAliasTarget(
  host: string | undefined,
  publicOrigin: string,
  path: string,
): string | null {
  if (host === undefined) return null;
  let asked: URL;
  let canonical: URL;
  try {
    asked = new URL(`http://${host}`);
    canonical = new URL(publicOrigin);
  } catch {
    return null;
  }
  if (!LOOPBACK_NAMES.has(asked.hostname) || !LOOPBACK_NAMES.has(canonical.hostname)) return null;
  if (asked.hostname === canonical.hostname || asked.port !== canonical.port) return null;
  return `${canonical.origin}${path.startsWith('/') ? path : `/${path}`}`;
}

export function spaRouter(distDir: string, publicOrigin: string): Router {
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
  router.get(/^(?!\/api(\/|$)).*/, (req, res) => {
    const target = loopbackAliasTarget(req.headers.host, publicOrigin, req.originalUrl);
    if (target !== null) {
      res.redirect(307, target);
      return;
    }
    if (!existsSync(index)) {
      res.status(404).type('text/plain').send(NOT_BUILT);
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
