import { createHash } from 'node:crypto';
import type { Response } from 'express';

export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const CSS = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1d2433}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1.2rem;padding:.6rem 1.2rem;font-size:1rem;margin-right:.5rem}
.error{color:#b00020;font-size:.9rem}.note{background:#f3f5f9;padding:.6rem;border-radius:4px;font-size:.9rem}
.summary{border:1px solid #d5dae3;padding:.6rem;border-radius:4px}`;

const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/** Sends a server-rendered page with a strict CSP: no scripts, the one inline style by hash. */
export function sendPage(
  res: Response,
  status: number,
  title: string,
  body: string,
  formTargets: string[] = [],
): void {
  const formAction = ["'self'", ...formTargets].join(' ');
  res
    .status(status)
    .set({
      'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${CSS_HASH}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    })
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><h1>${escapeHtml(title)}</h1>${body}<p class="note">Paydesk sandbox: test cards only, nothing is charged.</p></body></html>`,
    );
}

export function originOf(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    return [new URL(url).origin];
  } catch {
    return [];
  }
}
